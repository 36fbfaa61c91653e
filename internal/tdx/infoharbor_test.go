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

// harborFixture is the content of testdata/synthetic/infoharbor_block.dat:
// no real file was available (tdx.md §5.5), so the fixture is generated
// from the layout the third-party parsers describe.
func harborFixture() []HarborBlock {
	mk := func(n int, gen func(i int) market.Code) []market.Code {
		out := make([]market.Code, n)
		for i := range out {
			out[i] = gen(i)
		}
		return out
	}
	return []HarborBlock{
		{Kind: "GN", Name: "通达信88", Code: market.MustCode("880515.SH"), Start: 20050607, Updated: 20260512,
			Members: mk(88, func(i int) market.Code {
				if i%2 == 0 {
					return market.Code{Symbol: fmt.Sprintf("%06d", 1+i), Exchange: market.SZ}
				}
				return market.Code{Symbol: fmt.Sprintf("%06d", 600000+i), Exchange: market.SH}
			})},
		// More than block_*.dat's 400 slots: this file has no cap.
		{Kind: "FG", Name: "融资融券", Code: market.MustCode("880866.SH"), Start: 20100331, Updated: 20260512,
			Members: mk(450, func(i int) market.Code {
				switch i % 3 {
				case 0:
					return market.Code{Symbol: fmt.Sprintf("%06d", 300001+i), Exchange: market.SZ}
				case 1:
					return market.Code{Symbol: fmt.Sprintf("%06d", 688001+i), Exchange: market.SH}
				}
				return market.Code{Symbol: fmt.Sprintf("%06d", 920001+i), Exchange: market.BJ}
			})},
		// Index blocks may have no 880 code; members may include indices
		// whose market the file states (000300 here is SH, not Ping An).
		{Kind: "ZS", Name: "沪深300", Members: []market.Code{market.MustCode("600000.SH"), market.MustCode("000001.SZ"), {Symbol: "000300", Exchange: market.SH}}},
	}
}

func TestInfoHarborFixture(t *testing.T) {
	var buf bytes.Buffer
	if err := WriteInfoHarbor(&buf, harborFixture(), 100); err != nil {
		t.Fatal(err)
	}
	path := sample("synthetic", "T0002", "hq_cache", "infoharbor_block.dat")
	if os.Getenv("TDX_UPDATE_FIXTURES") != "" {
		if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	onDisk, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(onDisk, buf.Bytes()) {
		t.Fatalf("%s differs from what WriteInfoHarbor writes (TDX_UPDATE_FIXTURES=1 regenerates it)", path)
	}
	// Multi-line membership: 450 members at 100 a line.
	if !bytes.Contains(onDisk, []byte("#GN_\xcd\xa8\xb4\xef\xd0\xc588,88,880515,20050607,20260512,,\r\n")) {
		t.Errorf("header of the first block is not the documented GBK line:\n%q", onDisk[:60])
	}
	got, err := ReadInfoHarbor(path)
	if err != nil {
		t.Fatal(err)
	}
	want := harborFixture()
	if len(got) != len(want) {
		t.Fatalf("%d blocks, want %d", len(got), len(want))
	}
	for i := range want {
		if fmt.Sprintf("%+v", got[i]) != fmt.Sprintf("%+v", want[i]) {
			t.Errorf("block %d:\n got %+v\nwant %+v", i, got[i], want[i])
		}
	}
	if len(got[1].Members) != 450 || got[2].Code != (market.Code{}) {
		t.Errorf("uncapped members %d, empty ZS code %v", len(got[1].Members), got[2].Code)
	}
}

func TestInfoHarborMalformed(t *testing.T) {
	in := strings.Join([]string{
		"0#000001,",                           // 1: before any header
		"#GN_ok,2,880515,20050607,20260512,,", // 2
		"0#000001,1#600000,",                  // 3
		"#GN_short,3,880516,,,,",              // 4: count mismatch
		"0#000001,",                           //
		"#GN_badmember,1,880517,,,,",          // 6
		"0#00001,",                            //
		"#FG_badmarket,1,,,,,",                // 8
		"5#000001,",                           //
		"#nokind,0,,,,,",                      // 10
		"#GN_baddate,0,880518,20231301,,,",    // 11
		"#GN_badcode,0,88051,,,,",             // 13
		"#GN_badcount,x,880519,,,,",           // 13
		"#ZS_tail,2,,0,,,",                    // 14
		"1#000300,",                           //
		"0#399001",                            // no trailing comma, last line without newline
	}, "\r\n")
	bs, lines, reasons := collectLineErrs(t, HarborBlocks(strings.NewReader(in)))
	if fmt.Sprint(lines) != "[1 4 6 8 10 11 12 13]" {
		t.Errorf("bad lines %v (%q)", lines, reasons)
	}
	if len(bs) != 2 || bs[0].Name != "ok" || len(bs[0].Members) != 2 || bs[1].Name != "tail" ||
		fmt.Sprint(bs[1].Members) != "[000300.SH 399001.SZ]" || bs[1].Start != 0 {
		t.Errorf("blocks %+v", bs)
	}
	if !strings.Contains(reasons[1], "declares 3 members, found 1") {
		t.Errorf("count mismatch reason %q", reasons[1])
	}

	path := filepath.Join(t.TempDir(), "infoharbor_block.dat")
	if err := os.WriteFile(path, []byte(in), 0o644); err != nil {
		t.Fatal(err)
	}
	got, err := ReadInfoHarbor(path)
	var fe *FormatError
	if len(got) != 2 || !errors.As(err, &fe) || fe.File != path || fe.Line != 1 {
		t.Errorf("ReadInfoHarbor: %d blocks, err %v", len(got), err)
	}
}
