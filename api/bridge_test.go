package api

import (
	"bytes"
	"encoding/json"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"mdqs/internal/bridge/bridgetest"
	"mdqs/internal/market"
	"mdqs/internal/tdx"
)

func TestBridgeEndToEnd(t *testing.T) {
	h := newHarness(t, withTerminal(t))
	h.addClient("b", "secret-b", clientOpts{scopes: "bridge,kline"})
	h.addClient("a", "secret-a", clientOpts{scopes: "*"})
	tok, admin := h.token("b", "secret-b"), h.token("a", "secret-a")

	// Refresh needs admin.
	h.signed(http.MethodPost, "/v1/api/refresh", tok, []byte("{}")).expect(t, 403, "forbidden")
	r := h.signed(http.MethodPost, "/v1/api/refresh", admin, []byte("{}"))
	r.expect(t, 200, "OK")
	var rep struct {
		FilesChanged int            `json:"files_changed"`
		BarsWritten  int            `json:"bars_written"`
		Names        int            `json:"names"`
		Blocks       map[string]int `json:"blocks"`
		Problems     []any          `json:"problems"`
	}
	json.Unmarshal(r.data, &rep)
	if rep.BarsWritten != 303 || rep.Names != 4 || rep.Blocks["concept"] != 3 || len(rep.Problems) != 0 {
		t.Fatalf("refresh = %s", r.data)
	}

	var stocks struct {
		Items []struct{ Code, Name, Market, Type, Source string }
		Total int
	}
	r = h.signed(http.MethodGet, "/v1/api/meta/stocks?market=SH&type=stock", tok, nil)
	json.Unmarshal(r.data, &stocks)
	if stocks.Total != 2 || stocks.Items[0].Code != "600519.SH" || stocks.Items[0].Name != "贵州茅台" || stocks.Items[1].Market != "SH" {
		t.Fatalf("meta/stocks = %s", r.data)
	}
	r = h.signed(http.MethodGet, "/v1/api/meta/stocks?keyword="+url.QueryEscape("平安"), tok, nil)
	json.Unmarshal(r.data, &stocks)
	if stocks.Total != 1 || stocks.Items[0].Code != "000001.SZ" {
		t.Fatalf("keyword 平安 = %s", r.data)
	}

	var blocks struct {
		Items []struct {
			Kind, Name, FullName, Code string
			MemberCount                int  `json:"member_count"`
			Truncated                  bool `json:"truncated"`
		}
	}
	r = h.signed(http.MethodGet, "/v1/api/blocks?kind=industry", tok, nil)
	json.Unmarshal(r.data, &blocks)
	if len(blocks.Items) != 4 || blocks.Items[1].Name != "煤炭开采" || blocks.Items[1].Code != "880302.SH" {
		t.Fatalf("industry blocks = %s", r.data)
	}
	r = h.signed(http.MethodGet, "/v1/api/blocks?kind=concept", tok, nil)
	json.Unmarshal(r.data, &blocks)
	truncated := 0
	for _, b := range blocks.Items {
		if b.Truncated && b.MemberCount == 400 {
			truncated++
		}
	}
	if len(blocks.Items) != 3 || truncated != 1 {
		t.Fatalf("concept blocks = %s", r.data)
	}

	var members struct {
		Name    string
		Code    string
		Members []struct{ Code, Name string }
	}
	for _, q := range []string{"block=" + url.QueryEscape("煤炭") + "&kind=industry", "code=880301"} {
		r = h.signed(http.MethodGet, "/v1/api/block/members?"+q, tok, nil)
		r.expect(t, 200, "OK")
		json.Unmarshal(r.data, &members)
		if members.Name != "煤炭" || len(members.Members) != 1 || members.Members[0].Name != "中国神华" {
			t.Fatalf("members by %s = %s", q, r.data)
		}
	}
	h.signed(http.MethodGet, "/v1/api/block/members?block="+url.QueryEscape("没有"), tok, nil).expect(t, 404, "not found")
	h.signed(http.MethodGet, "/v1/api/block/members", tok, nil).expect(t, 400, "missing or invalid params")

	var minutes struct {
		Source string
		Count  int
		Rows   []map[string]any
	}
	r = h.signed(http.MethodGet, "/v1/api/minutes?code=600519&freq=5m&day=2026-11-20", tok, nil)
	json.Unmarshal(r.data, &minutes)
	if minutes.Count != 48 || minutes.Rows[47]["time"] != "2026-11-20 15:00:00" || minutes.Source != "tdx" {
		t.Fatalf("minutes = %d rows", minutes.Count)
	}
	r = h.signed(http.MethodGet, "/v1/api/minutes?code=600519", tok, nil)
	json.Unmarshal(r.data, &minutes)
	if minutes.Count != 240 {
		t.Fatalf("minutes of the newest day = %d, want 240", minutes.Count)
	}
	h.signed(http.MethodGet, "/v1/api/minutes?code=300750&day=2026-11-20", tok, nil).expect(t, 404, "not found")

	// kline?source=tdx reads the terminal's file; the default reads the
	// store, which the refresh filled: its rows are the terminal's (only the
	// warm-up days before 11-16, outside that coverage, come from the source).
	for _, src := range []string{"&source=tdx", ""} {
		_, k := h.kline(t, tok, "/v1/api/kline?code=600519.SH&freq=D&start=2026-11-16&end=2026-11-20"+src)
		if len(k.Rows) != 5 || num(k.Rows[4], "close") != 1504 {
			t.Fatalf("kline%s = %+v", src, k.Rows)
		}
	}

	// A second refresh imports nothing.
	h.clock.Advance(time.Minute)
	r = h.signed(http.MethodPost, "/v1/api/refresh", admin, nil)
	json.Unmarshal(r.data, &rep)
	if rep.FilesChanged != 0 || rep.BarsWritten != 0 {
		t.Fatalf("second refresh = %s", r.data)
	}
	h.signed(http.MethodPost, "/v1/api/refresh", admin, []byte(`{"full":true}`)).expect(t, 400, "missing or invalid params")
}

func TestBridgeWithoutAFolderIs503(t *testing.T) {
	h := newHarness(t)
	h.addClient("a", "secret-a", clientOpts{scopes: "*"})
	tok := h.token("a", "secret-a")
	for _, p := range []string{"/v1/api/meta/stocks", "/v1/api/blocks", "/v1/api/block/members?block=x", "/v1/api/minutes?code=600519",
		"/v1/api/kline?code=600519.SH&freq=D&start=2026-11-16&end=2026-11-20&source=tdx"} {
		r := h.signed(http.MethodGet, p, tok, nil)
		r.expect(t, 503, "service unavailable")
		if !strings.Contains(r.detail, "tdx.dir") {
			t.Fatalf("%s: detail %q does not say how to configure the folder", p, r.detail)
		}
	}
	h.signed(http.MethodPost, "/v1/api/refresh", tok, nil).expect(t, 503, "service unavailable")
}

// A block the terminal lists without members answers 200 with an empty
// list, as /v1/api/blocks lists it; a statistic index is typed as such and
// its counts are flagged in the refresh, not reported as a problem.
func TestBridgeEmptyBlockAndStatisticIndex(t *testing.T) {
	dir := t.TempDir()
	bridgetest.Write(t, dir)
	put := func(rel string, fill func(*bytes.Buffer) error) {
		t.Helper()
		var b bytes.Buffer
		if err := fill(&b); err != nil {
			t.Fatal(err)
		}
		p := filepath.Join(dir, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, b.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	put("T0002/blocknew/blocknew.cfg", func(b *bytes.Buffer) error {
		return tdx.WriteBlockNewCfg(b, []tdx.UserBlock{{Name: "我的白马", Stem: "WDBM"}, {Name: "空的", Stem: "KONG"}})
	})
	put("T0002/blocknew/KONG.blk", func(*bytes.Buffer) error { return nil })
	put("vipdoc/sh/lday/sh880006.day", func(b *bytes.Buffer) error {
		_, err := b.Write(tdx.AppendDayRecord(nil, tdx.DayRecord{Date: 20261120, Open: 4500, Low: 1200}))
		return err
	})
	put("T0002/hq_cache/shm.tnf", func(b *bytes.Buffer) error {
		return tdx.WriteTNF(b, tdx.TNFHeader{Server: "fake"}, tdx.TNF314, []tdx.Security{
			{Code: market.MustCode("600519.SH"), Name: "贵州茅台", Decimals: 2, LotSize: 100},
			{Code: market.MustCode("880006.SH"), Name: "停板家数", Decimals: 2, LotSize: 100},
		})
	})
	h := newHarness(t, func(c *harnessConfig) { c.terminal = dir })
	h.addClient("a", "secret-a", clientOpts{scopes: "*"})
	tok := h.token("a", "secret-a")

	r := h.signed(http.MethodPost, "/v1/api/refresh", tok, []byte("{}"))
	r.expect(t, 200, "OK")
	var rep struct {
		Problems []any
		Flagged  []struct {
			File    string
			Reason  string
			Records int
		}
	}
	json.Unmarshal(r.data, &rep)
	if len(rep.Problems) != 0 || len(rep.Flagged) != 1 || rep.Flagged[0].File != "vipdoc/sh/lday/sh880006.day" || rep.Flagged[0].Records != 1 {
		t.Fatalf("refresh = %s", r.data)
	}

	var blocks struct {
		Items []struct {
			Name        string
			MemberCount int `json:"member_count"`
		}
	}
	json.Unmarshal(h.signed(http.MethodGet, "/v1/api/blocks?kind=user", tok, nil).data, &blocks)
	listed := false
	for _, b := range blocks.Items {
		listed = listed || (b.Name == "空的" && b.MemberCount == 0)
	}
	if !listed {
		t.Fatalf("user blocks %+v do not list the empty one", blocks.Items)
	}
	r = h.signed(http.MethodGet, "/v1/api/block/members?block="+url.QueryEscape("空的"), tok, nil)
	r.expect(t, 200, "OK")
	if !strings.Contains(string(r.data), `"members":[]`) || !strings.Contains(string(r.data), `"total":0`) {
		t.Fatalf("members of the empty block = %s", r.data)
	}

	var stocks struct {
		Items []struct{ Code, Type string }
		Total int
	}
	r = h.signed(http.MethodGet, "/v1/api/meta/stocks?type=statistic", tok, nil)
	r.expect(t, 200, "OK")
	json.Unmarshal(r.data, &stocks)
	if stocks.Total != 1 || stocks.Items[0].Code != "880006.SH" || stocks.Items[0].Type != "statistic" {
		t.Fatalf("statistic securities = %s", r.data)
	}
}
