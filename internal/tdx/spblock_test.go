package tdx

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"mdqs/internal/market"
)

// The real 2017 file: every block with the member count its README
// states, members with their market, no cap.
func TestReadSPBlockReal(t *testing.T) {
	blocks, err := ReadSPBlock(filepath.Join("testdata", "spblock", "spblock_2017-01-19.dat"))
	if err != nil {
		t.Fatalf("ReadSPBlock: %v", err)
	}
	want := []struct {
		name string
		n    int
	}{{"融资融券", 971}, {"深债ETF", 1}, {"中证500", 500}, {"沪港通SH", 574}, {"沪债ETF", 3}, {"货币ETF", 27},
		{"黄金ETF", 4}, {"跨境基金", 32}, {"合格投资者债券", 1781}, {"深证成指", 500}, {"转融券", 892}, {"深港通SZ", 904}}
	if len(blocks) != len(want) {
		t.Fatalf("ReadSPBlock = %d blocks, want %d", len(blocks), len(want))
	}
	total := 0
	for i, w := range want {
		if blocks[i].Name != w.name || len(blocks[i].Members) != w.n {
			t.Errorf("block %d = %q with %d members, want %q with %d", i, blocks[i].Name, len(blocks[i].Members), w.name, w.n)
		}
		total += len(blocks[i].Members)
	}
	if total != 6189 {
		t.Errorf("members = %d, want the file's 6189 member lines", total)
	}
	byName := map[string]SPBlock{}
	for _, b := range blocks {
		byName[b.Name] = b
	}
	// 深证成指 holds Shenzhen stocks only; 中证500 both markets; ETFs keep
	// their fund codes (1510050 = 510050.SH).
	for _, c := range byName["深证成指"].Members {
		if c.Exchange != market.SZ {
			t.Fatalf("深证成指 member %v is not SZ", c)
		}
	}
	var sh, sz int
	for _, c := range byName["中证500"].Members {
		switch c.Exchange {
		case market.SH:
			sh++
		case market.SZ:
			sz++
		}
	}
	if sh == 0 || sz == 0 || sh+sz != 500 {
		t.Errorf("中证500: %d SH + %d SZ members", sh, sz)
	}
	if got := byName["融资融券"].Members[0]; got != market.MustCode("000001.SZ") {
		t.Errorf("融资融券 first member = %v, want 000001.SZ", got)
	}
	found := false
	for _, b := range blocks {
		for _, c := range b.Members {
			found = found || c == market.MustCode("510050.SH")
		}
	}
	if !found {
		t.Error("no block lists the ETF 510050.SH (1510050)")
	}
	// The writer reproduces the real bytes: LF, final newline, GBK.
	var buf bytes.Buffer
	if err := WriteSPBlock(&buf, blocks); err != nil {
		t.Fatal(err)
	}
	real, _ := os.ReadFile(filepath.Join("testdata", "spblock", "spblock_2017-01-19.dat"))
	if !bytes.Equal(buf.Bytes(), real) {
		t.Errorf("WriteSPBlock of the real blocks differs from the real file (%d vs %d bytes)", buf.Len(), len(real))
	}
}

func TestSPBlocksLayouts(t *testing.T) {
	tests := []struct {
		name  string
		in    string
		want  string // blocks as name:count, space separated
		nerrs int
	}{
		{"CRLF as in the synthetic 2026 fixture", "#中证2000\r\n1600036\r\n0000001\r\n", "中证2000:2", 0},
		{"no final newline, blank lines", "#a\n\n1600000\n#b\n2430047", "a:1 b:1", 0},
		{"an empty block", "#a\n#b\n0000001\n", "a:0 b:1", 0},
		{"a duplicate member kept once", "#a\n0000001\n0000001\n", "a:1", 0},
		{"a bad member drops its block whole", "#a\n0000001\n3000002\n#b\n1600000\n", "b:1", 1},
		{"a six-digit line is not a member", "#a\n000001\n", "", 1},
		{"members before a header", "0000001\n0000002\n#a\n1600000\n", "a:1", 1},
		{"a header without a name", "#\n0000001\n#b\n1600000\n", "b:1", 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got []string
			var errs []error
			for b, err := range SPBlocks(strings.NewReader(gbk(t, tt.in))) {
				if err != nil {
					errs = append(errs, err)
					continue
				}
				got = append(got, b.Name+":"+strconv.Itoa(len(b.Members)))
			}
			if strings.Join(got, " ") != tt.want || len(errs) != tt.nerrs {
				t.Errorf("SPBlocks = %q with errors %v, want %q with %d", strings.Join(got, " "), errs, tt.want, tt.nerrs)
			}
			for _, err := range errs {
				var fe *FormatError
				if !errors.As(err, &fe) || fe.Line == 0 {
					t.Errorf("error %v is not a FormatError with a line", err)
				}
			}
		})
	}
}

func gbk(t *testing.T, s string) string {
	t.Helper()
	b, err := encodeGBK(s)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
