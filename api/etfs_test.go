package api

import (
	"context"
	"encoding/json"
	"math"
	"strings"
	"testing"
	"time"

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

// The demo's ETFs are first-class instruments: /quotes answers each fund
// (type fund, the demo's own limit prices in the 0.001 tick) with the ETF
// list's price and volume of the same instant, and the K-lines' last
// daily and 1-minute closes of the instant are that price too.
func TestETFsAreQuotedAndHaveKlines(t *testing.T) {
	h := newHarness(t)
	h.addClient("m", "secret-m", clientOpts{scopes: "market,kline"})
	for _, now := range []time.Time{t0, t0.Add(4*time.Hour + 31*time.Minute + 20*time.Second)} {
		h.clock.Set(now)
		tok := h.token("m", "secret-m")
		r, a := h.etfs(t, tok, "")
		if r.status != 200 || a.Count != 5 {
			t.Fatalf("%d %s", r.status, r.raw)
		}
		codes := make([]string, len(a.ETFs))
		for i, e := range a.ETFs {
			codes[i] = e.Code
		}
		r, qs := h.quotes(t, tok, strings.Join(codes, ","))
		if r.status != 200 || len(qs) != len(a.ETFs) {
			t.Fatalf("%v: quotes of %v: %d %s", now, codes, r.status, r.raw)
		}
		for i, e := range a.ETFs {
			q := qs[i]
			if q.Code != e.Code || q.Name != e.Name || q.Type != "fund" || q.Source != "demo" || q.Status != "trading" ||
				q.Last == nil || *q.Last != *e.Last || *q.PrevClose != *e.PrevClose || *q.Volume != *e.Volume || q.AsOf != e.AsOf {
				t.Errorf("%v: quote %+v; the ETF list says %+v", now, q, e)
			}
			pct := 0.1
			if e.Code == "159915.SZ" {
				pct = 0.2
			}
			if q.LimitUp == nil || q.LimitFrom == nil || *q.LimitFrom != "source" ||
				math.Abs(*q.LimitUp-math.Floor(*q.PrevClose*(1+pct)*1000+0.5)/1000) > 1e-9 {
				t.Errorf("%s limits %v from %v: want ±%v of %v in 0.001", e.Code, q.LimitUp, q.LimitFrom, pct, *q.PrevClose)
			}
			day := market.DayOf(now).String()
			for _, freq := range []string{"D", "1m", "5m"} {
				r, k := h.kline(t, tok, "/v1/api/kline?code="+e.Code+"&freq="+freq+"&start="+day+"&end="+day)
				if r.status != 200 || len(k.Rows) == 0 {
					t.Fatalf("%s %s: %d %s", e.Code, freq, r.status, r.raw)
				}
				last := k.Rows[len(k.Rows)-1]
				if num(last, "close") != *e.Last {
					t.Errorf("%v %s %s: last close %v, the ETF list's price %v", now, e.Code, freq, num(last, "close"), *e.Last)
				}
				if freq == "D" && (num(last, "volume") != float64(*e.Volume) || num(last, "high") != *e.High || num(last, "low") != *e.Low) {
					t.Errorf("%v %s: today's forming bar %v; the ETF list %+v", now, e.Code, last, e)
				}
			}
		}
	}
}
