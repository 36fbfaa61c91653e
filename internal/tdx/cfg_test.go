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

func zsLine(e ZSEntry) string {
	leaf := 0
	if e.Leaf {
		leaf = 1
	}
	return fmt.Sprintf("%s|%s|%d|%d|%d|%s", e.Name, e.Code.Symbol, e.Type, e.Flag, leaf, e.Key)
}

func TestZSCfgRealFiles(t *testing.T) {
	tests := []struct {
		path        string
		n           int
		first, last string
		types       map[ZSType]int
	}{
		{"mootdx-2022/T0002/hq_cache/tdxzs.cfg", 522, "轮动趋势|880081|5|2|0|轮动趋势", "TDX 综企|880993|2|1|0|T13",
			map[ZSType]int{ZSIndustry: 145, ZSRegion: 32, ZSConcept: 216, ZSStyle: 129}},
		{"mootdx-2022/T0002/hq_cache/tdxzs3.cfg", 984, "轮动趋势|880081|5|2|0|轮动趋势", "综合类|881478|12|1|1|X9901",
			map[ZSType]int{ZSIndustry: 145, ZSRegion: 32, ZSConcept: 216, ZSStyle: 129, ZSResearch: 462}},
		{"ginkgo-2020/T0002/hq_cache/tdxzs.cfg", -1, "黑龙江|880201|3|1|0|1", "TDX 综企|880993|2|1|0|T13", nil},
		{"ginkgo-2020/T0002/hq_cache/tdxzs2.cfg", -1, "黑龙江|880201|3|1|0|1", "TDX医药|880995|1|1|0|H06",
			map[ZSType]int{ZSSubIndustry: 266, ZSRegion: 32, ZSConcept: 163, ZSStyle: 117, ZSSWIndustry: 84}},
	}
	for _, tc := range tests {
		t.Run(tc.path, func(t *testing.T) {
			es, err := ReadZSCfg(sample(tc.path))
			if err != nil {
				t.Fatal(err)
			}
			if tc.n >= 0 && len(es) != tc.n {
				t.Errorf("%d entries, want %d", len(es), tc.n)
			}
			if got := zsLine(es[0]); got != tc.first {
				t.Errorf("first %q, want %q", got, tc.first)
			}
			if got := zsLine(es[len(es)-1]); got != tc.last {
				t.Errorf("last %q, want %q", got, tc.last)
			}
			types := map[ZSType]int{}
			for _, e := range es {
				types[e.Type]++
				if e.Code.Exchange != market.SH {
					t.Fatalf("%s: block index must be SH", e.Code)
				}
			}
			if tc.types != nil && fmt.Sprint(types) != fmt.Sprint(tc.types) {
				t.Errorf("type counts %v, want %v", types, tc.types)
			}
		})
	}
}

// The hierarchy rule of tdx.md §5.2 on the real 2022 file: every
// hierarchical key below the top has its parent in the same family, and a
// block marked non-leaf has children.
func TestZSHierarchy(t *testing.T) {
	es, err := ReadZSCfg(sample("mootdx-2022/T0002/hq_cache/tdxzs3.cfg"))
	if err != nil {
		t.Fatal(err)
	}
	keys := map[ZSType]map[string]bool{}
	children := map[string]int{}
	for _, e := range es {
		if keys[e.Type] == nil {
			keys[e.Type] = map[string]bool{}
		}
		keys[e.Type][e.Key] = true
		if p := e.Parent(); p != "" {
			children[p]++
		}
	}
	checked := 0
	for _, e := range es {
		if !e.Type.Hierarchical() {
			if e.Parent() != "" {
				t.Errorf("%s: non-hierarchical type has parent %q", e.Key, e.Parent())
			}
			continue
		}
		if p := e.Parent(); p != "" && !keys[e.Type][p] {
			t.Errorf("%s %s: parent %s missing", e.Name, e.Key, p)
		}
		if !e.Leaf && children[e.Key] == 0 {
			t.Errorf("%s %s: not a leaf but has no children", e.Name, e.Key)
		}
		checked++
	}
	if checked != 145+462 {
		t.Errorf("checked %d hierarchical entries", checked)
	}
	for _, tc := range []struct {
		key, parent string
		level       int
	}{{"T01", "", 1}, {"T0101", "T01", 2}, {"T010101", "T0101", 3}, {"X500102", "X5001", 3}, {"H06", "", 1}, {"5G概念", "", 0}, {"1", "", 0}, {"ab概", "", 0}, {"440101", "", 0}, {"TX1", "", 0}} {
		if p, l := KeyParent(tc.key), KeyLevel(tc.key); p != tc.parent || l != tc.level {
			t.Errorf("%s: parent %q level %d, want %q %d", tc.key, p, l, tc.parent, tc.level)
		}
	}
}

// Concept and style keys name the blocks of block_gn.dat / block_fg.dat,
// and tdxbk.cfg's short names are in the file its kind names (tdx.md §5.2,
// §5.4): a cross-check of the GBK decoding of three formats.
func TestBlockNamesCrossCheck(t *testing.T) {
	hq := func(f string) string { return sample("mootdx-2022/T0002/hq_cache", f) }
	es, err := ReadZSCfg(hq("tdxzs3.cfg"))
	if err != nil {
		t.Fatal(err)
	}
	names := map[Kind]map[string]bool{}
	for _, k := range []Kind{KindBlockGN, KindBlockFG, KindBlockZS} {
		blocks, err := ReadBlockDat(hq(string(k) + ".dat"))
		if err != nil {
			t.Fatal(err)
		}
		names[k] = map[string]bool{}
		for _, b := range blocks {
			names[k][b.Name] = true
		}
	}
	extra := func(k Kind, typ ZSType) []string {
		keys := map[string]bool{}
		for _, e := range es {
			if e.Type == typ {
				keys[e.Key] = true
				if !names[k][e.Key] {
					t.Errorf("%s key %q not a block of %s", typ, e.Key, k)
				}
			}
		}
		var out []string
		for n := range names[k] {
			if !keys[n] {
				out = append(out, n)
			}
		}
		return out
	}
	if got := extra(KindBlockGN, ZSConcept); fmt.Sprint(got) != "[含GDR]" {
		t.Errorf("block_gn names without a concept code: %v, want [含GDR]", got)
	}
	if got := extra(KindBlockFG, ZSStyle); len(got) != 3 || !strings.Contains(fmt.Sprint(got), "融资融券") {
		t.Errorf("block_fg names without a style code: %v, want 融资融券, 沪港通SH, 深港通SZ", got)
	}
	bk, err := ReadBKCfg(hq("tdxbk.cfg"))
	if err != nil {
		t.Fatal(err)
	}
	if len(bk) != 16 {
		t.Errorf("%d tdxbk entries, want 16", len(bk))
	}
	first, last := bk[0], bk[len(bk)-1]
	if first != (BKEntry{KindBlockGN, "有机硅", "有机硅概念", 0}) || last != (BKEntry{KindBlockZS, "科创信息", "科创信息50", 1}) {
		t.Errorf("tdxbk first %+v last %+v", first, last)
	}
	for _, e := range bk {
		if !names[e.Kind][e.Short] {
			t.Errorf("tdxbk short name %q not in %s", e.Short, e.Kind)
		}
	}
}

func hyLine(e HYEntry, older bool) string {
	m, _ := digitOfExchange(e.Code.Exchange)
	if older {
		return fmt.Sprintf("%c|%s|%s|%s|%s", m, e.Code.Symbol, e.TCode, e.SWCode, e.HCode)
	}
	return fmt.Sprintf("%c|%s|%s|||%s", m, e.Code.Symbol, e.TCode, e.XCode)
}

func TestHYCfgRealFiles(t *testing.T) {
	tests := []struct {
		path        string
		older       bool
		n           int
		first, last string
		markets     map[market.Exchange]int
	}{
		{"mootdx-2022/T0002/hq_cache/tdxhy.cfg", false, 4906, "0|000001|T1001|||X500102", "1|900957||||",
			map[market.Exchange]int{market.SZ: 2677, market.SH: 2138, market.BJ: 91}},
		{"ginkgo-2020/T0002/hq_cache/tdxhy.cfg", true, 4267, "0|000001|T1001|440101|H1201", "1|900957|T00|0|", nil},
	}
	for _, tc := range tests {
		t.Run(tc.path, func(t *testing.T) {
			es, err := ReadHYCfg(sample(tc.path))
			if err != nil {
				t.Fatal(err)
			}
			if len(es) != tc.n {
				t.Errorf("%d entries, want %d", len(es), tc.n)
			}
			if got := hyLine(es[0], tc.older); got != tc.first {
				t.Errorf("first %q, want %q", got, tc.first)
			}
			if got := hyLine(es[len(es)-1], tc.older); got != tc.last {
				t.Errorf("last %q, want %q", got, tc.last)
			}
			markets := map[market.Exchange]int{}
			for _, e := range es {
				markets[e.Code.Exchange]++
				if tc.older && e.XCode != "" || !tc.older && (e.SWCode != "" || e.HCode != "") {
					t.Fatalf("%+v: a column of the other layout is set", e)
				}
			}
			if tc.markets != nil && fmt.Sprint(markets) != fmt.Sprint(tc.markets) {
				t.Errorf("markets %v, want %v", markets, tc.markets)
			}
		})
	}
}

func collectLineErrs[T any](t *testing.T, seq func(yield func(T, error) bool)) ([]T, []int, []string) {
	t.Helper()
	var vals []T
	var lines []int
	var reasons []string
	for v, err := range seq {
		if err != nil {
			var fe *FormatError
			if !errors.As(err, &fe) {
				t.Fatalf("not a *FormatError: %v", err)
			}
			lines = append(lines, fe.Line)
			reasons = append(reasons, fe.Reason)
			continue
		}
		vals = append(vals, v)
	}
	return vals, lines, reasons
}

func TestCfgMalformedLines(t *testing.T) {
	zs := "\xc3\xba\xcc\xbf|880301|2|1|0|T0101\r\n" + // 煤炭, GBK, CRLF
		"\r\n" +
		"short|880302|2\r\n" +
		"x|88030|2|1|0|T01\r\n" +
		"x|880303|two|1|0|T01\r\n" +
		"x|880304|2|1|2|T01\r\n" +
		"   \n" +
		"TDX 综企|880993|2|1|0|T13" // UTF-8 bytes decode as GBK garbage but must not fail; no final newline
	es, lines, reasons := collectLineErrs(t, ZSEntries(strings.NewReader(zs)))
	if len(es) != 2 || es[0].Name != "煤炭" || es[0].Key != "T0101" || es[1].Code.Symbol != "880993" {
		t.Errorf("entries %+v", es)
	}
	if fmt.Sprint(lines) != "[3 4 5 6]" {
		t.Errorf("bad lines %v (%q), want [3 4 5 6]", lines, reasons)
	}

	hy := "0|000001|T1001|||X500102\n" +
		"1|600000|T1001|440101|H1201\n" +
		"3|000002|T1001\n" +
		"0|00002|T1001\n" +
		"0|000004\n" +
		"0|000005|T01|Z123|\n" +
		"2|430047|T01\n"
	hes, lines, _ := collectLineErrs(t, HYEntries(strings.NewReader(hy)))
	if fmt.Sprint(lines) != "[3 4 5 6]" || len(hes) != 3 {
		t.Errorf("tdxhy: %d entries, bad lines %v", len(hes), lines)
	}
	if hes[1] != (HYEntry{Code: market.MustCode("600000.SH"), TCode: "T1001", SWCode: "440101", HCode: "H1201"}) ||
		hes[2].Code != market.MustCode("430047.BJ") {
		t.Errorf("tdxhy entries %+v", hes)
	}

	bk := "1|a|b|0\n4|a|b|0\n2|a|b\n3||b|0\n2|a|b|x\n"
	bes, lines, _ := collectLineErrs(t, BKEntries(strings.NewReader(bk)))
	if fmt.Sprint(lines) != "[2 3 4 5]" || len(bes) != 1 {
		t.Errorf("tdxbk: %d entries, bad lines %v", len(bes), lines)
	}

	// The slice form keeps the good lines and names the file in each error.
	path := filepath.Join(t.TempDir(), "tdxzs.cfg")
	if err := os.WriteFile(path, []byte(zs), 0o644); err != nil {
		t.Fatal(err)
	}
	got, err := ReadZSCfg(path)
	var fe *FormatError
	if len(got) != 2 || !errors.As(err, &fe) || fe.File != path || fe.Line != 3 || fe.Offset != int64(len("\xc3\xba\xcc\xbf|880301|2|1|0|T0101\r\n\r\n")) {
		t.Errorf("ReadZSCfg: %d entries, err %v (%+v)", len(got), err, fe)
	}
}

func TestCfgWriteRoundTrip(t *testing.T) {
	zs := []ZSEntry{
		{Name: "煤炭", Code: market.MustCode("880301.SH"), Type: ZSIndustry, Flag: 1, Key: "T0101"},
		{Name: "煤炭开采", Code: market.MustCode("880302.SH"), Type: ZSIndustry, Flag: 1, Leaf: true, Key: "T010101"},
		{Name: "TDX 综企", Code: market.MustCode("880993.SH"), Type: ZSIndustry, Flag: 1, Key: "T13"},
		{Name: "5G概念", Code: market.MustCode("880506.SH"), Type: ZSConcept, Flag: 2, Key: "5G概念"},
	}
	var buf bytes.Buffer
	if err := WriteZSCfg(&buf, zs); err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(buf.Bytes(), []byte("\r\n")) {
		t.Error("writer should use CRLF like the Windows terminal")
	}
	got, lines, _ := collectLineErrs(t, ZSEntries(&buf))
	if fmt.Sprint(got) != fmt.Sprint(zs) || lines != nil {
		t.Errorf("tdxzs round trip: %+v", got)
	}

	hy := []HYEntry{
		{Code: market.MustCode("000001.SZ"), TCode: "T1001", XCode: "X500102"},
		{Code: market.MustCode("900957.SH")},
		{Code: market.MustCode("920001.BJ"), TCode: "T0101"},
	}
	hyOld := []HYEntry{
		{Code: market.MustCode("000001.SZ"), TCode: "T1001", SWCode: "440101", HCode: "H1201"},
		{Code: market.MustCode("900957.SH"), TCode: "T00", SWCode: "0"},
	}
	for _, tc := range []struct {
		in    []HYEntry
		older bool
	}{{hy, false}, {hyOld, true}} {
		buf.Reset()
		if err := WriteHYCfg(&buf, tc.in, tc.older); err != nil {
			t.Fatal(err)
		}
		got, lines, _ := collectLineErrs(t, HYEntries(&buf))
		if fmt.Sprint(got) != fmt.Sprint(tc.in) || lines != nil {
			t.Errorf("tdxhy older=%v round trip: %+v", tc.older, got)
		}
	}

	bk := []BKEntry{{KindBlockGN, "三代半导", "第三代半导体", 0}, {KindBlockZS, "科创信息", "科创信息50", 1}}
	buf.Reset()
	if err := WriteBKCfg(&buf, bk); err != nil {
		t.Fatal(err)
	}
	bgot, lines, _ := collectLineErrs(t, BKEntries(&buf))
	if fmt.Sprint(bgot) != fmt.Sprint(bk) || lines != nil {
		t.Errorf("tdxbk round trip: %+v", bgot)
	}
	if err := WriteZSCfg(&buf, []ZSEntry{{Name: "\U0001F600"}}); err == nil {
		t.Error("a name GBK cannot hold must not be written")
	}
}
