package tdx

import (
	"bytes"
	"math"
	"os"
	"path/filepath"
	"testing"
	"time"

	"mdqs/internal/market"
)

func TestGenerateVipdoc(t *testing.T) {
	dirA, dirB, dirC := t.TempDir(), t.TempDir(), t.TempDir()
	files, err := GenerateVipdoc(dirA, 300, 60, 42)
	if err != nil {
		t.Fatal(err)
	}
	if len(files) != 300 {
		t.Fatalf("%d files", len(files))
	}
	if _, err := GenerateVipdoc(dirB, 300, 60, 42); err != nil {
		t.Fatal(err)
	}
	if _, err := GenerateVipdoc(dirC, 300, 60, 43); err != nil {
		t.Fatal(err)
	}
	rel, _ := filepath.Rel(dirA, files[0].Path)
	a, _ := os.ReadFile(files[0].Path)
	b, _ := os.ReadFile(filepath.Join(dirB, rel))
	c, _ := os.ReadFile(filepath.Join(dirC, rel))
	if !bytes.Equal(a, b) || bytes.Equal(a, c) || len(a) != 60*32 {
		t.Errorf("same seed must give the same bytes and another seed other bytes (len %d)", len(a))
	}

	term, err := Open(dirA)
	if err != nil {
		t.Fatal(err)
	}
	term.Clock = market.NewFixedClock(time.Date(2026, 1, 2, 9, 0, 0, 0, market.Shanghai())) // after the generated data, whatever the host clock says
	if len(term.Files) != 300 || len(term.Problems) != 0 {
		t.Fatalf("%d files, problems %v", len(term.Files), term.Problems)
	}
	types := map[market.SecurityType]int{}
	seen := map[market.Code]bool{}
	for bf, err := range term.AllBars() {
		if err != nil {
			t.Fatal(err)
		}
		if len(bf.Bars) != 60 || seen[bf.Code] {
			t.Fatalf("%s: %d bars, duplicate %v", bf.Path, len(bf.Bars), seen[bf.Code])
		}
		seen[bf.Code] = true
		typ := market.Classify(bf.Code)
		types[typ]++
		last := bf.Bars[len(bf.Bars)-1]
		if last.Day != 20251231 {
			t.Errorf("%s: last day %v", bf.Path, last.Day)
		}
		if typ != market.TypeIndex && typ != market.TypeBlock {
			if avg := last.Amount / float64(last.Volume); math.Abs(avg/last.Close-1) > 0.05 {
				t.Errorf("%s: amount/volume %.3f vs close %.3f", bf.Path, avg, last.Close)
			}
		}
	}
	for _, typ := range []market.SecurityType{market.TypeStock, market.TypeFund, market.TypeBond, market.TypeIndex, market.TypeBlock} {
		if types[typ] == 0 {
			t.Errorf("no %s files generated (%v)", typ, types)
		}
	}
}
