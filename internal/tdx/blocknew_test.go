package tdx

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"mdqs/internal/market"
)

func TestBlockNewCfgRealFile(t *testing.T) {
	bs, err := ReadBlockNewCfg(sample("ginkgo-2020/T0002/blocknew/blocknew.cfg"))
	if err != nil {
		t.Fatal(err)
	}
	if len(bs) != 21 {
		t.Fatalf("%d entries, want 21", len(bs))
	}
	first, last := bs[0], bs[len(bs)-1]
	if first.Name != "1-4点" || first.Stem != "1-4D" || last.Name != "中线" || last.Stem != "ZX" {
		t.Errorf("first %+v last %+v", first, last)
	}
	for _, b := range bs {
		if strings.EqualFold(b.Stem, WatchlistStem) {
			t.Error("ZXG must not be listed in blocknew.cfg")
		}
	}
}

func TestBLKRealFiles(t *testing.T) {
	tests := []struct {
		file        string
		n           int
		first, last string
	}{
		{"ZXG.blk", 424, "002647.SZ", "002318.SZ"},  // LF, empty lines inside
		{"1-4D.blk", 665, "300416.SZ", "000725.SZ"}, // starts with an empty line, no final newline
		{"0427.blk", 5, "000782.SZ", "000564.SZ"},   // empty line inside, no final newline
	}
	for _, tc := range tests {
		codes, err := ReadBLK(sample("ginkgo-2020/T0002/blocknew", tc.file))
		if err != nil {
			t.Fatalf("%s: %v", tc.file, err)
		}
		if len(codes) != tc.n || codes[0].String() != tc.first || codes[len(codes)-1].String() != tc.last {
			t.Errorf("%s: %d codes %v…%v, want %d %s…%s", tc.file, len(codes), codes[0], codes[len(codes)-1], tc.n, tc.first, tc.last)
		}
	}
	codes, _ := ReadBLK(sample("ginkgo-2020/T0002/blocknew/0427.blk"))
	if got := fmt.Sprint(codes); got != "[000782.SZ 600178.SH 600828.SH 600083.SH 000564.SZ]" {
		t.Errorf("0427.blk = %s", got)
	}
}

// The same members must come out whatever the line ends and blank lines.
func TestBLKLineEnds(t *testing.T) {
	want := "[600000.SH 000001.SZ 430047.BJ]"
	for _, in := range []string{
		"1600000\n0000001\n2430047\n",
		"1600000\r\n0000001\r\n2430047\r\n",
		"\r\n1600000\r\n\r\n0000001\r\n2430047",
		"\n\n1600000\n0000001\n\n2430047",
		"  1600000  \r\n0000001\t\r\n2430047\r\n\r\n",
	} {
		codes, lines, _ := collectLineErrs(t, BLKCodes(strings.NewReader(in)))
		if fmt.Sprint(codes) != want || lines != nil {
			t.Errorf("%q: %v (bad lines %v)", in, codes, lines)
		}
	}
	codes, lines, _ := collectLineErrs(t, BLKCodes(strings.NewReader("1600000\n3600000\n160000\n1600000X\nabcdefg\n0000001")))
	if len(codes) != 2 || fmt.Sprint(lines) != "[2 3 4 5]" {
		t.Errorf("codes %v, bad lines %v", codes, lines)
	}
}

func TestBlockNewWriteRoundTrip(t *testing.T) {
	in := []UserBlock{{Name: "1-4点", Stem: "1-4D"}, {Name: "缩量涨停及爆量", Stem: "SLZTJBL"}, {Name: "t", Stem: "T"}}
	var buf bytes.Buffer
	if err := WriteBlockNewCfg(&buf, in); err != nil {
		t.Fatal(err)
	}
	if buf.Len() != 3*120 {
		t.Fatalf("size %d", buf.Len())
	}
	got, lines, _ := collectLineErrs(t, UserBlockEntries(&buf))
	if fmt.Sprint(got) != fmt.Sprint(in) || lines != nil {
		t.Errorf("round trip %+v", got)
	}
	codes := []market.Code{market.MustCode("600000.SH"), market.MustCode("000001.SZ"), market.MustCode("920001.BJ")}
	for _, lf := range []bool{false, true} {
		buf.Reset()
		if err := WriteBLK(&buf, codes, lf); err != nil {
			t.Fatal(err)
		}
		if bytes.Contains(buf.Bytes(), []byte("\r")) == lf {
			t.Errorf("lf=%v: line ends %q", lf, buf.String())
		}
		got, _, _ := collectLineErrs(t, BLKCodes(&buf))
		if fmt.Sprint(got) != fmt.Sprint(codes) {
			t.Errorf("blk round trip %v", got)
		}
	}
	if err := WriteBlockNewCfg(&buf, []UserBlock{{Name: "x"}}); err == nil {
		t.Error("a block without a stem must not be written")
	}
}

func TestBlockNewCfgMalformed(t *testing.T) {
	var buf bytes.Buffer
	if err := WriteBlockNewCfg(&buf, []UserBlock{{Name: "a", Stem: "A"}, {Name: "b", Stem: "B"}}); err != nil {
		t.Fatal(err)
	}
	data := buf.Bytes()
	dir := t.TempDir()
	path := filepath.Join(dir, "blocknew.cfg")
	var fe *FormatError
	// Wrong size: no entries.
	os.WriteFile(path, data[:200], 0o644)
	if bs, err := ReadBlockNewCfg(path); bs != nil || !errors.As(err, &fe) || fe.Offset != 120 {
		t.Errorf("wrong size: %v %v", bs, err)
	}
	// A record with an empty stem is skipped and reported.
	bad := bytes.Clone(data)
	clear(bad[120+50 : 240])
	os.WriteFile(path, bad, 0o644)
	if bs, err := ReadBlockNewCfg(path); len(bs) != 1 || !errors.As(err, &fe) || fe.Offset != 170 {
		t.Errorf("empty stem: %v %v", bs, err)
	}
	// Empty file: no blocks, no error.
	os.WriteFile(path, nil, 0o644)
	if bs, err := ReadBlockNewCfg(path); bs != nil || err != nil {
		t.Errorf("empty: %v %v", bs, err)
	}
}
