package tdx

import (
	"fmt"
	"strings"
	"testing"
)

func TestInconRealFile(t *testing.T) {
	es, err := ReadIncon(sample("mootdx-2022/incon.dat"))
	if err != nil {
		t.Fatal(err)
	}
	if len(es) != 3161 {
		t.Errorf("%d entries, want 3161", len(es))
	}
	sections := map[string]int{}
	var order []string
	for _, e := range es {
		if sections[e.Section] == 0 {
			order = append(order, e.Section)
		}
		sections[e.Section]++
	}
	want := "ZJHHY TDXNHY SWHY HKHY MGHY FUND_LB FUND_TZLB ZB_GPXT FUND_TZStyle FUND_Company SBHY_TZ SBQS_TZ TDXXHYFL TDXRSHY ZXHY CJHY ZZHY"
	if got := strings.Join(order, " "); got != want {
		t.Errorf("sections %s\nwant %s", got, want)
	}
	if es[0] != (InconEntry{Section: "ZJHHY", Code: "A", Name: "农林牧渔业"}) {
		t.Errorf("first %+v", es[0])
	}
	if last := es[len(es)-1]; last != (InconEntry{Section: "ZZHY", Code: "ZZ09010501", Name: "电网"}) {
		t.Errorf("last %+v", last)
	}
	find := func(sec, code string) InconEntry {
		for _, e := range es {
			if e.Section == sec && e.Code == code {
				return e
			}
		}
		return InconEntry{}
	}
	for _, tc := range []struct{ sec, code, name, extra string }{
		{"TDXNHY", "T0101", "煤炭", ""},
		{"TDXRSHY", "X500102", "股份制银行", ""},
		{"ZB_GPXT", "1", "MACD金叉", "1"},
		{"SBHY_TZ", "20101013", "房地产服务", ""}, // the section the file never closes
		{"SBQS_TZ", "qsgn0000647", "财达证券", ""},
	} {
		if e := find(tc.sec, tc.code); e.Name != tc.name || e.Extra != tc.extra {
			t.Errorf("%s %s: %+v, want name %q extra %q", tc.sec, tc.code, e, tc.name, tc.extra)
		}
	}
}

func TestInconMalformed(t *testing.T) {
	in := "A|outside\r\n#S1\r\nA|\xbc\xd7\r\nnobar\r\n|empty code\r\n######\r\nB|after close\r\n#S2\r\nC|c|d|e"
	es, lines, _ := collectLineErrs(t, InconEntries(strings.NewReader(in)))
	if fmt.Sprint(lines) != "[1 4 5 7]" {
		t.Errorf("bad lines %v, want [1 4 5 7]", lines)
	}
	if len(es) != 2 || es[0] != (InconEntry{"S1", "A", "甲", ""}) || es[1] != (InconEntry{"S2", "C", "e", "c|d"}) {
		t.Errorf("entries %+v", es)
	}
}
