package api

import (
	"context"
	"encoding/json"
	"math"
	"strings"
	"testing"

	"mdqs/internal/etf"
	"mdqs/internal/market"
	"mdqs/internal/upstream"
)

type etfAnswer struct {
	Source   string    `json:"source"`
	AsOf     *string   `json:"as_of"`
	DataDate *string   `json:"data_date"`
	Stale    bool      `json:"stale"`
	Problem  *string   `json:"problem"`
	Partial  *string   `json:"partial"`
	Sort     string    `json:"sort"`
	Order    string    `json:"order"`
	Total    int       `json:"total"`
	Count    int       `json:"count"`
	ETFs     []etfItem `json:"etfs"`
}

func (h *harness) etfs(t *testing.T, tok, query string) (response, etfAnswer) {
	t.Helper()
	r := h.signed("GET", "/v1/api/etfs"+query, tok, nil)
	var a etfAnswer
	if r.status == 200 {
		if err := json.Unmarshal(r.data, &a); err != nil {
			t.Fatalf("%v: %s", err, r.raw)
		}
	}
	return r, a
}

// On the demo: the funds of the demo market, their premium computed from
// last and IOPV, the IOPV the tracked index's level times its ratio.
func TestETFsDemo(t *testing.T) {
	h := newHarness(t)
	h.addClient("m", "secret-m", clientOpts{scopes: "market"})
	h.addClient("k", "secret-k", clientOpts{scopes: "kline"})
	tok := h.token("m", "secret-m")
	r, a := h.etfs(t, tok, "")
	if r.status != 200 || a.Source != "demo" || a.Count != 5 || a.Total != 5 || a.Stale || a.Partial != nil ||
		a.DataDate == nil || *a.DataDate != "2026-11-23" || a.AsOf == nil || *a.AsOf != "2026-11-23 10:00:00" || a.Sort != "code" || a.Order != "asc" {
		t.Fatalf("%d %s", r.status, r.raw)
	}
	for _, e := range a.ETFs {
		if e.Last == nil || e.IOPV == nil || e.PremiumPct == nil || e.DiscountPct == nil {
			t.Fatalf("%s: %s", e.Code, r.raw)
		}
		if want := math.Round((*e.Last-*e.IOPV) / *e.IOPV * 100 * 1e4) / 1e4; *e.PremiumPct != want {
			t.Errorf("%s premium %v, want %v", e.Code, *e.PremiumPct, want)
		}
		if e.Tracks == nil {
			continue
		}
		q, err := h.demo.Quote(context.Background(), market.MustCode(*e.Tracks))
		if err != nil {
			t.Fatal(err)
		}
		if ratio := *e.IOPV / q.Price; ratio < 0.0002 || ratio > 0.0011 {
			t.Errorf("%s IOPV %v against %s at %v", e.Code, *e.IOPV, *e.Tracks, q.Price)
		}
	}
	r, a = h.etfs(t, tok, "?category=a_share&sort=premium&limit=2")
	if r.status != 200 || a.Count != 2 || a.Total != 4 || a.Order != "desc" || *a.ETFs[0].PremiumPct < *a.ETFs[1].PremiumPct {
		t.Errorf("%d %s", r.status, r.raw)
	}
	// A category without funds is an empty list, never a 404.
	if r, a := h.etfs(t, tok, "?category=gold"); r.status != 200 || a.Count != 0 || a.ETFs == nil {
		t.Errorf("%d %s", r.status, r.raw)
	}
	for q, want := range map[string]string{"?category=bond": "category", "?sort=nav": "sort", "?order=up": "order", "?limit=0": "limit", "?limit=x": "limit"} {
		if r, _ := h.etfs(t, tok, q); r.status != 400 || !strings.HasPrefix(r.detail, want) {
			t.Errorf("%s: %d %s", q, r.status, r.raw)
		}
	}
	if r, _ := h.etfs(t, h.token("k", "secret-k"), ""); r.status != 403 {
		t.Errorf("without the market scope: %d", r.status)
	}
}

type downSource struct{}

func (downSource) ETFs(context.Context) ([]market.ETF, error) {
	return nil, &upstream.Error{Kind: upstream.KindTransport, Source: "push2", Path: "/api/qt/clist/get", Detail: "connection refused"}
}

// A source down with nothing held: 503 naming it; no service: 503 too.
func TestETFsOutage(t *testing.T) {
	h := newHarness(t)
	h.addClient("m", "secret-m", clientOpts{scopes: "market"})
	tok := h.token("m", "secret-m")
	h.api.ETFs = etf.New(downSource{}, h.api.Clock, etf.Config{Source: "push2"})
	r, _ := h.etfs(t, tok, "")
	if r.status != 503 || !strings.Contains(r.detail, "the ETF list from push2 failed") || !strings.Contains(r.detail, "connection refused") {
		t.Errorf("%d %s", r.status, r.raw)
	}
	h.api.ETFs = nil
	if r, _ := h.etfs(t, tok, ""); r.status != 503 || !strings.Contains(r.detail, "not configured") {
		t.Errorf("%d %s", r.status, r.raw)
	}
}
