package tdx

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"mdqs/internal/market"
)

func symbols(cs []market.Code) []string {
	out := make([]string, len(cs))
	for i, c := range cs {
		out[i] = c.Symbol
	}
	return out
}

func TestBlockDatRealFiles(t *testing.T) {
	type blk struct {
		name  string
		count int
		head  []string // first members
		tail  string   // last member
	}
	tests := []struct {
		file        string
		n           int
		first, last blk
		truncated   []string // some blocks at the 400 cap
	}{
		{"block_zs.dat", 87, blk{"精选指数", 7, []string{"399001", "399005", "399006"}, "999999"},
			blk{"内地低碳", 50, []string{"000883"}, "688599"}, nil},
		{"block_fg.dat", 132, blk{"融资融券", 386, []string{"000001", "000002", "000009"}, "603000"},
			blk{"板块趋势", 3, []string{"600489", "600547", "600655"}, "600655"}, []string{"破净资产", "微盘股"}},
		{"block_gn.dat", 217, blk{"通达信88", 88, []string{"000002", "000021", "000062"}, "688788"},
			blk{"肝炎概念", 45, []string{"000623"}, "688799"}, []string{"次新股", "含可转债"}},
	}
	for _, tc := range tests {
		t.Run(tc.file, func(t *testing.T) {
			blocks, err := ReadBlockDat(sample("mootdx-2022/T0002/hq_cache", tc.file))
			if err != nil {
				t.Fatal(err)
			}
			if len(blocks) != tc.n {
				t.Fatalf("%d blocks, want %d", len(blocks), tc.n)
			}
			for _, c := range []struct {
				got  Block
				want blk
			}{{blocks[0], tc.first}, {blocks[len(blocks)-1], tc.last}} {
				got := symbols(c.got.Codes)
				if c.got.Name != c.want.name || len(got) != c.want.count || c.got.Type != 2 ||
					!strings.HasPrefix(strings.Join(got, ","), strings.Join(c.want.head, ",")) || got[len(got)-1] != c.want.tail {
					t.Errorf("block %q type %d %d members %v…%v, want %+v", c.got.Name, c.got.Type, len(got), got[:min(3, len(got))], got[len(got)-1], c.want)
				}
				if c.got.Truncated != (c.want.count == MaxBlockMembers) {
					t.Errorf("%s: Truncated = %v", c.got.Name, c.got.Truncated)
				}
			}
			byName := map[string]Block{}
			for _, b := range blocks {
				byName[b.Name] = b
			}
			for _, name := range tc.truncated {
				if b := byName[name]; !b.Truncated || len(b.Codes) != MaxBlockMembers {
					t.Errorf("%s: %d members, Truncated %v; want the 400 cap flagged", name, len(b.Codes), b.Truncated)
				}
			}
		})
	}
}

// Members carry no market: block_zs's 精选指数 lists SZ indices and the SH
// alias 999999, which the code-range rules must place (tdx.md §2, §5.1).
func TestBlockDatMarkets(t *testing.T) {
	blocks, err := ReadBlockDat(sample("mootdx-2022/T0002/hq_cache/block_zs.dat"))
	if err != nil {
		t.Fatal(err)
	}
	got := fmt.Sprint(blocks[0].Codes)
	want := "[399001.SZ 399005.SZ 399006.SZ 399106.SZ 399300.SZ 399903.SZ 999999.SH]"
	if got != want {
		t.Errorf("精选指数 = %s, want %s", got, want)
	}
}

func writeBlockDat(t *testing.T, blocks []Block) []byte {
	t.Helper()
	var buf bytes.Buffer
	if err := WriteBlockDat(&buf, blocks); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func codesN(n int) []market.Code {
	out := make([]market.Code, n)
	for i := range out {
		out[i] = market.MustCode(fmt.Sprintf("%06d", 600000+i))
	}
	return out
}

func TestBlockDatWriteRoundTrip(t *testing.T) {
	in := []Block{
		{Name: "半导体", Type: 2, Codes: []market.Code{market.MustCode("688981.SH"), market.MustCode("002371.SZ"), market.MustCode("430047.BJ"), market.MustCode("920001.BJ")}},
		{Name: "融资融券", Type: 2, Codes: codesN(400), Truncated: true},
		{Name: "empty", Type: 7},
	}
	data := writeBlockDat(t, in)
	if len(data) != 386+3*2813 || !bytes.HasPrefix(data, []byte(blockHeaderText)) {
		t.Fatalf("size %d", len(data))
	}
	path := filepath.Join(t.TempDir(), "block_gn.dat")
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	out, err := ReadBlockDat(path)
	if err != nil {
		t.Fatal(err)
	}
	if len(out) != len(in) {
		t.Fatalf("%d blocks", len(out))
	}
	for i := range in {
		if out[i].Name != in[i].Name || out[i].Type != in[i].Type || out[i].Truncated != in[i].Truncated ||
			fmt.Sprint(out[i].Codes) != fmt.Sprint(in[i].Codes) {
			t.Errorf("block %d: %+v, want %+v", i, out[i], in[i])
		}
	}
	for _, bad := range [][]Block{
		{{Name: "太长的板块名称", Codes: nil}}, // 14 GBK bytes
		{{Name: "x", Codes: codesN(401)}},
		{{Name: "x", Codes: []market.Code{{Symbol: "60000", Exchange: market.SH}}}},
	} {
		if err := WriteBlockDat(&bytes.Buffer{}, bad); err == nil {
			t.Errorf("WriteBlockDat(%q…) accepted an unwritable block", bad[0].Name)
		}
	}
}

func TestBlockDatMalformed(t *testing.T) {
	good := writeBlockDat(t, []Block{{Name: "甲", Type: 2, Codes: codesN(3)}, {Name: "乙", Type: 2, Codes: codesN(2)}})
	overCount := bytes.Clone(good)
	binary.LittleEndian.PutUint16(overCount[386+9:], 401)
	badSlot := bytes.Clone(good)
	copy(badSlot[386+13+7:], "60A001")
	tests := []struct {
		name    string
		data    []byte
		blocks  int
		wantErr string
		off     int64
	}{
		{name: "empty file", data: nil, wantErr: "shorter than the 386-byte header", off: 0},
		{name: "header only, count 0", data: good[:386:386], wantErr: "does not match", off: 384},
		{name: "wrong size: one byte short", data: good[:len(good)-1], wantErr: "does not match", off: 384},
		{name: "wrong size: one byte extra", data: append(bytes.Clone(good), 0), wantErr: "does not match", off: 384},
		{name: "count over 400", data: overCount, blocks: 1, wantErr: "exceeds", off: 386 + 9},
		{name: "bad member code", data: badSlot, blocks: 1, wantErr: "not a six-digit code", off: 386 + 13 + 7},
	}
	dir := t.TempDir()
	for i, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(dir, fmt.Sprintf("block_%d.dat", i))
			if err := os.WriteFile(path, tc.data, 0o644); err != nil {
				t.Fatal(err)
			}
			blocks, err := ReadBlockDat(path)
			var fe *FormatError
			if !errors.As(err, &fe) || !strings.Contains(fe.Reason, tc.wantErr) || fe.Offset != tc.off || fe.File != path {
				t.Fatalf("err %v, want a *FormatError in %s at %d containing %q", err, path, tc.off, tc.wantErr)
			}
			if len(blocks) != tc.blocks {
				t.Errorf("%d blocks, want %d", len(blocks), tc.blocks)
			}
		})
	}
	// The streaming form finds a short file at the record that is cut.
	var got []error
	for _, err := range Blocks(bytes.NewReader(good[:len(good)-100])) {
		got = append(got, err)
	}
	if len(got) != 2 || got[0] != nil || got[1] == nil || !strings.Contains(got[1].Error(), "file ends") {
		t.Errorf("streaming a short file: %v", got)
	}
}
