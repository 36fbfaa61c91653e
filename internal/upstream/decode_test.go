package upstream

import (
	"bytes"
	"encoding/json"
	"math"
	"testing"
)

func TestNumOf(t *testing.T) {
	for _, tc := range []struct {
		raw  string
		want float64
		st   state
	}{
		{`2672467968.0`, 2672467968, ok},
		{`10951472128`, 10951472128, ok},
		{`-0.14`, -0.14, ok},
		{`1e3`, 1000, ok},
		{`"12.30"`, 12.3, ok},
		{`" -5 "`, -5, ok},
		{`"+.5"`, 0.5, ok},
		{`"-"`, nan, na},
		{`"--"`, nan, na},
		{`""`, nan, na},
		{`null`, nan, na},
		{``, nan, absent},
		{`"abc"`, nan, bad},
		{`"NaN"`, nan, bad},
		{`"Inf"`, nan, bad},
		{`"0x10"`, nan, bad},
		{`"1_000"`, nan, bad},
		{`"1e999"`, nan, bad},
		{`1e999`, nan, bad},
		{`"1e"`, nan, bad},
		{`"."`, nan, bad},
		{`true`, nan, bad},
		{`{}`, nan, bad},
		{`[1]`, nan, bad},
	} {
		v, st := numOf(json.RawMessage(tc.raw))
		if st != tc.st || !eq(v, tc.want) {
			t.Errorf("numOf(%s) = %v, %d; want %v, %d", tc.raw, v, st, tc.want, tc.st)
		}
	}
}

func TestStrOf(t *testing.T) {
	for _, tc := range []struct {
		raw, want string
		st        state
	}{
		{`"BK0459"`, "BK0459", ok},
		{`"京东方Ａ"`, "京东方Ａ", ok},
		{`"-"`, "", na},
		{`null`, "", na},
		{``, "", absent},
		{`300139`, "", bad},
		{`"\u5f00"`, "开", ok},
		{`"unterminated`, "", bad},
	} {
		s, st := strOf(json.RawMessage(tc.raw))
		if s != tc.want || st != tc.st {
			t.Errorf("strOf(%s) = %q, %d; want %q, %d", tc.raw, s, st, tc.want, tc.st)
		}
	}
}

// Each real JSONP capture unwraps to exactly the bytes of its .json twin.
func TestUnwrapJSONPRealCaptures(t *testing.T) {
	for _, base := range []string{
		"push2_clist_industry_fundflow_2025-10-27",
		"push2_clist_stocks_sh_a_2024-08-08",
		"push2_slist_board_membership_diff_object_2022-01-25",
	} {
		inner, closed := unwrapJSONP(fixture(t, base+".jsonp.txt"))
		if !closed || !bytes.Equal(inner, fixture(t, base+".json")) {
			t.Errorf("%s: closed=%v, inner differs from the .json", base, closed)
		}
	}
	for _, tc := range []struct {
		in, inner string
		closed    bool
	}{
		{`{"a":1}`, `{"a":1}`, true},
		{"\xef\xbb\xbf {\"a\":1}\n", `{"a":1}`, true},
		{`cb({"a":1})`, `{"a":1}`, true},
		{"jQuery1_2 ( {\"a\":1} ) ;\n", `{"a":1}`, true},
		{`cb({"a":1}`, `{"a":1}`, false},
		{`cb(`, ``, false},
		{`null`, `null`, true},
		{`Internal Server Error`, `Internal Server Error`, true},
	} {
		inner, closed := unwrapJSONP([]byte(tc.in))
		if string(inner) != tc.inner || closed != tc.closed {
			t.Errorf("unwrapJSONP(%q) = %q, %v", tc.in, inner, closed)
		}
	}
}

func TestDecodeJSONKinds(t *testing.T) {
	var v map[string]any
	for _, tc := range []struct {
		body string
		kind Kind
	}{
		{`{"rc":0}`, KindNone},
		{``, KindTruncated},
		{`{"rc":0,"data":{"diff":[{"f12":"BK0`, KindTruncated},
		{`{"rc":0,"data":{"diff":[{"f12":1}`, KindTruncated},
		{`cb({"rc":0})`, KindNone},
		{`cb({"rc":0}`, KindTruncated},
		{`{"rc":0,"data":[{"a":1}}}`, KindMalformed},
		{`{"rc":0} trailing`, KindMalformed},
		{`[1]`, KindSchema},
		{`Internal Server Error`, KindMalformed},
	} {
		err := decodeJSON([]byte(tc.body), &v)
		if KindOf(err) != tc.kind {
			t.Errorf("decodeJSON(%q): %v, want %s", tc.body, err, tc.kind)
		}
	}
}

// The real slist capture has diff as an object "0".."19": rows come back
// in numeric key order ("10" after "9").
func TestObjectsDiffObjectRealCapture(t *testing.T) {
	page, err := decodeClist(fixture(t, "push2_slist_board_membership_diff_object_2022-01-25.json"))
	if err != nil {
		t.Fatal(err)
	}
	if page.total != 24 || len(page.rows) != 20 {
		t.Fatalf("total %d rows %d", page.total, len(page.rows))
	}
	want := map[int]string{0: "茅指数", 9: "富时罗素", 10: "预盈预增", 19: "网红直播"}
	for i, name := range want {
		if s, _ := strOf(page.rows[i]["f14"]); s != name {
			t.Errorf("row %d = %q, want %q", i, s, name)
		}
	}
}

// The real board-list row reads by key, whatever the f140/f141 quirk in
// its key order.
func TestBoardRowRealCapture(t *testing.T) {
	var m map[string]json.RawMessage
	if err := json.Unmarshal(fixture(t, "push2_clist_industry_board_row.json"), &m); err != nil {
		t.Fatal(err)
	}
	c := &check{}
	r := row{m: m, where: "row 0", c: c}
	if r.reqStr("f12") != "BK0732" || r.reqStr("f14") != "贵金属" || r.optNum("f8") != 1.91 || r.optCount("f104") != 11 ||
		r.optCount("f105") != 0 || r.optCount("f106") != 1 || r.optStr("f128") != "晓程科技" || r.optStr("f140") != "300139" ||
		r.optNum("f136") != 11.77 || !math.IsNaN(r.optNum("f103")) || c.err != nil || c.driftText() != "" {
		t.Errorf("board row misread: %v %q", c.err, c.driftText())
	}
	r.optNum("f6")
	if c.driftText() != "optional fields: f6 absent in 1 rows" {
		t.Errorf("drift %q", c.driftText())
	}
}

func TestEndsMidValue(t *testing.T) {
	for in, want := range map[string]bool{
		``: true, `  `: true, `{`: true, `{"a":"x`: true, `{"a":"\"`: true, `[1,2`: true,
		`{}`: false, `{"a":[1]}`: false, `{"a":[1}}`: false, `}`: false, `{"a":"}"}`: false, `x`: false,
	} {
		if got := endsMidValue([]byte(in)); got != want {
			t.Errorf("endsMidValue(%q) = %v", in, got)
		}
	}
}

func TestBodyDetail(t *testing.T) {
	for in, want := range map[string]string{
		string(fixture(t, "made_nginx_502.html")):         "502 Bad Gateway",
		string(fixture(t, "made_aktools_404_error.json")): "未找到该接口，请升级 AKShare 到最新版本",
		"Internal Server Error":                           "Internal Server Error",
		`{"detail":"Not Found"}`:                          "Not Found",
		"<HTML><TITLE>Ａccess  denied</TITLE>":             "Ａccess denied",
		"":                                                "",
	} {
		if got := bodyDetail([]byte(in)); got != want {
			t.Errorf("bodyDetail(%.30q) = %q, want %q", in, got, want)
		}
	}
	if !looksHTML([]byte("\n<!DOCTYPE html>"), "") || !looksHTML([]byte("blocked"), "text/html") || looksHTML([]byte(`{"rc":0}`), "text/html") {
		t.Error("looksHTML")
	}
}
