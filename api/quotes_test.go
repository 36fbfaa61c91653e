package api

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"

	"mdqs/internal/market"
)

type quoteView struct {
	Code      string   `json:"code"`
	Name      string   `json:"name"`
	Type      string   `json:"type"`
	Last      *float64 `json:"last"`
	PrevClose *float64 `json:"prev_close"`
	Volume    *int64   `json:"volume"`
	LimitUp   *float64 `json:"limit_up"`
	LimitDown *float64 `json:"limit_down"`
	LimitFrom *string  `json:"limit_from"`
	Status    string   `json:"status"`
	Phase     string   `json:"phase"`
	Auction   *struct {
		Price   *float64 `json:"price"`
		Volume  *int64   `json:"volume"`
		Matched bool     `json:"matched"`
	} `json:"auction"`
	Bids   []levelItem `json:"bids"`
	AsOf   string      `json:"as_of"`
	Source string      `json:"source"`
}

func (h *harness) quotes(t *testing.T, tok, codes string) (response, []quoteView) {
	t.Helper()
	r := h.signed(http.MethodGet, "/v1/api/quotes?codes="+codes, tok, nil)
	var d struct {
		Quotes []quoteView `json:"quotes"`
		Count  int         `json:"count"`
	}
	json.Unmarshal(r.data, &d)
	if r.status == 200 && d.Count != len(d.Quotes) {
		t.Fatalf("count %d for %d quotes", d.Count, len(d.Quotes))
	}
	return r, d.Quotes
}

func TestQuotesStocksAndIndices(t *testing.T) {
	h := newHarness(t)
	h.addClient("m", "secret-m", clientOpts{scopes: "market"})
	tok := h.token("m", "secret-m")
	// Any form the K-line endpoint takes; duplicates answered once.
	r, qs := h.quotes(t, tok, "sh600519,000001.SZ,000001.SH,399001.SZ,399006.SZ,600519")
	if r.status != 200 || len(qs) != 5 {
		t.Fatalf("%d %s", r.status, r.raw)
	}
	want := []struct{ code, typ string }{{"600519.SH", "stock"}, {"000001.SZ", "stock"}, {"000001.SH", "index"}, {"399001.SZ", "index"}, {"399006.SZ", "index"}}
	for i, w := range want {
		q := qs[i]
		if q.Code != w.code || q.Type != w.typ || q.Status != "trading" || q.Phase != "morning" || q.Source != "demo" ||
			q.Last == nil || q.PrevClose == nil || q.AsOf != "2026-11-23 10:00:00" || q.Auction != nil || q.Bids != nil {
			t.Errorf("%s: %+v", w.code, q)
		}
		if (w.typ == "index") != (q.LimitUp == nil) {
			t.Errorf("%s limits %v/%v", w.code, q.LimitUp, q.LimitDown)
		}
	}
	if q := qs[0]; q.Name != "贵州茅台" || *q.LimitFrom != "source" || !(*q.LimitUp > *q.PrevClose) {
		t.Errorf("600519: %+v", q)
	}
	// The answer is the demo market's own quote.
	demoQs, _ := h.demo.Quotes(t.Context())
	for _, d := range demoQs {
		if d.Code == market.MustCode("000001.SZ") && (*qs[1].Last != d.Price || *qs[1].Volume != d.Volume) {
			t.Errorf("000001.SZ last %v volume %v, demo %v %v", *qs[1].Last, *qs[1].Volume, d.Price, d.Volume)
		}
	}
}

func TestQuotesFailures(t *testing.T) {
	h := newHarness(t)
	h.addClient("m", "secret-m", clientOpts{scopes: "market"})
	h.addClient("k", "secret-k", clientOpts{scopes: "kline"})
	tok := h.token("m", "secret-m")
	if r, _ := h.quotes(t, tok, "600519.SH,688999.SH,399998.SZ"); r.status != 404 || !strings.Contains(r.detail, "399998.SZ, 688999.SH") {
		t.Errorf("unknown codes: %d %s", r.status, r.raw)
	}
	many := make([]string, 101)
	for i := range many {
		many[i] = market.Code{Symbol: "6" + strings.Repeat("0", 2) + string(rune('0'+i/100)) + string(rune('0'+i/10%10)) + string(rune('0'+i%10)), Exchange: market.SH}.String()
	}
	if r, _ := h.quotes(t, tok, strings.Join(many, ",")); r.status != 400 || !strings.Contains(r.detail, "at most 100") {
		t.Errorf("101 codes: %d %s", r.status, r.raw)
	}
	for _, q := range []string{"", "60051", "600519.XX"} {
		if r, _ := h.quotes(t, tok, q); r.status != 400 {
			t.Errorf("codes=%q: %d %s", q, r.status, r.raw)
		}
	}
	if r, _ := h.quotes(t, h.token("k", "secret-k"), "600519.SH"); r.status != 403 {
		t.Errorf("without the market scope: %d", r.status)
	}
}

func TestQuotesStatusesThroughTheDay(t *testing.T) {
	h := newHarness(t)
	h.addClient("m", "secret-m", clientOpts{scopes: "market"})
	day := market.DayOf(t0)
	for _, tt := range []struct {
		at     time.Time
		status string
	}{
		{day.At(8, 0, 0), "closed"}, {day.At(9, 20, 0), "auction"}, {day.At(9, 27, 0), "auction"}, {day.At(10, 30, 0), "trading"},
		{day.At(12, 0, 0), "break"}, {day.At(14, 58, 0), "trading"}, {day.At(15, 30, 0), "closed"}, {day.AddDays(-2).At(10, 0, 0), "closed"},
	} {
		h.clock.Set(tt.at)
		tok := h.token("m", "secret-m") // tokens live two hours of the pinned clock
		r, qs := h.quotes(t, tok, "600519.SH,000001.SH")
		if r.status != 200 {
			t.Fatalf("%s: %d %s", market.FormatTime(tt.at), r.status, r.raw)
		}
		for _, q := range qs {
			if q.Status != tt.status {
				t.Errorf("%s %s: %s, want %s", market.FormatTime(tt.at), q.Code, q.Status, tt.status)
			}
		}
		if tt.status == "auction" {
			a := qs[0].Auction
			switch {
			case a == nil:
				t.Errorf("%s: no auction figures", market.FormatTime(tt.at))
			case tt.at.Minute() == 20 && (a.Price != nil || a.Matched):
				t.Errorf("09:20: %+v; the demo has no indicative price", a)
			case tt.at.Minute() == 27 && (a.Price == nil || *a.Price != *qs[0].Last || !a.Matched || *a.Volume <= 0):
				t.Errorf("09:27: %+v", a)
			}
		}
	}
}

// A screen and a quote request within the age cost one snapshot call.
func TestQuotesShareTheScreenerSnapshot(t *testing.T) {
	h := newHarness(t)
	h.addClient("s", "secret-s", clientOpts{scopes: "screener,market"})
	tok := h.token("s", "secret-s")
	_, v := h.screen(t, tok, `{"expression":"price > 0","limit":5}`)
	if v := h.waitScreen(t, tok, v.ID); v.State != "succeeded" {
		t.Fatalf("screen %+v", v)
	}
	if n := h.api.Quotes.Calls(); n != 1 {
		t.Fatalf("%d source calls after a screen", n)
	}
	if r, _ := h.quotes(t, tok, "600519.SH,000001.SZ"); r.status != 200 {
		t.Fatalf("%d %s", r.status, r.raw)
	}
	if n := h.api.Quotes.Calls(); n != 1 {
		t.Errorf("%d source calls after a screen and a quote request, want 1", n)
	}
	h.clock.Advance(time.Minute)
	h.quotes(t, tok, "600519.SH")
	if n := h.api.Quotes.Calls(); n != 2 {
		t.Errorf("%d source calls once the age passed, want 2", n)
	}
}

// Each snapshot refresh pushes the listed codes whose quote changed.
func TestQuoteRefreshesArePushedToTheStream(t *testing.T) {
	h := newHarness(t)
	h.addClient("c", "secret-c", clientOpts{scopes: "market"})
	tok := h.token("c", "secret-c")
	st, _ := h.openStream(t, tok, "topics=quotes&codes=600519.SH", nil, false)
	if _, err := h.api.Quotes.Quotes(context.Background()); err != nil {
		t.Fatal(err)
	}
	ev, ok := st.next()
	var q struct {
		Code string  `json:"code"`
		Last float64 `json:"last"`
	}
	if !ok || ev.Name != "quote" || json.Unmarshal([]byte(ev.Data), &q) != nil || q.Code != "600519.SH" || !(q.Last > 0) {
		t.Fatalf("first refresh: %+v", ev)
	}
	// The same snapshot again (younger than its age): no new event.
	h.api.Quotes.Quotes(context.Background())
	st.nothingFor(200 * time.Millisecond)
}
