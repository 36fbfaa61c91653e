package api

import (
	"context"
	"encoding/json"
	"net/http"
	"testing"

	"mdqs/db"
	"mdqs/internal/market"
)

type barsDailyAnswer struct {
	Date     string `json:"date"`
	Total    int    `json:"total"`
	Page     int    `json:"page"`
	PageSize int    `json:"page_size"`
	Items    []struct {
		Code      string   `json:"code"`
		Name      string   `json:"name"`
		Suspended bool     `json:"suspended"`
		Close     *float64 `json:"close"`
		PrevClose *float64 `json:"prev_close"`
		Pct       *float64 `json:"pct"`
		Volume    *int64   `json:"volume"`
	} `json:"items"`
	UniverseSource string `json:"universe_source"`
}

// Issue 29: the whole market's daily bars of one day in one request, over
// that day's universe: a code delisted since is there with its bar, each
// bar is the K-line's of that day, and the pages cut one list.
func TestBarsDailyIsTheMarketOfADay(t *testing.T) {
	h := newHarness(t, withSecurityHistory(60))
	ctx := context.Background()
	cal := market.DefaultCalendar()
	code, delisted, today := afterFirstDelisting(t, h, 10)
	// The store's daily bars, as the demo's end-of-day seed stores them.
	err := h.demo.EachDailyHistory(ctx, today, 30, func(c market.Code, bars []market.Bar) error {
		_, err := h.store.IngestBars(ctx, []db.BarBatch{{Code: c, Freq: market.Daily, Source: "demo", Bars: bars}})
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	h.addClient("c", "secret-c", clientOpts{scopes: "kline"})
	tok := h.token("c", "secret-c")
	get := func(path string) barsDailyAnswer {
		t.Helper()
		r := h.signed(http.MethodGet, path, tok, nil)
		r.expect(t, 200, "OK")
		var a barsDailyAnswer
		if err := json.Unmarshal(r.data, &a); err != nil {
			t.Fatal(err)
		}
		return a
	}
	last := cal.Prev(delisted)
	all := get("/v1/api/bars/daily?date=" + last.String() + "&page_size=10000")
	if want := len(h.demo.NamesOn(last)); all.Total != want || len(all.Items) != want {
		t.Fatalf("%v: %d items of %d; the market listed %d", last, len(all.Items), all.Total, want)
	}
	found, compared := false, 0
	for i, it := range all.Items {
		if i > 0 && all.Items[i-1].Code >= it.Code {
			t.Fatalf("items not in code order at %s", it.Code)
		}
		c := market.MustCode(it.Code)
		found = found || c == code
		if c != code && i%25 != 0 {
			continue
		}
		bars, err := h.demo.Klines(ctx, c, market.Daily, cal.Prev(cal.Prev(last)), last)
		if err != nil {
			t.Fatal(err)
		}
		n := len(bars)
		switch {
		case n > 0 && bars[n-1].Day == last:
			compared++
			if it.Close == nil || *it.Close != bars[n-1].Close || it.Volume == nil || *it.Volume != bars[n-1].Volume {
				t.Fatalf("%s on %v: close %v volume %v; the K-line says %v, %v", it.Code, last, it.Close, it.Volume, bars[n-1].Close, bars[n-1].Volume)
			}
			if n > 1 && (it.PrevClose == nil || *it.PrevClose != bars[n-2].Close) {
				t.Fatalf("%s: prev_close %v, the K-line's day before %v", it.Code, it.PrevClose, bars[n-2].Close)
			}
		default: // no bar that day: suspended
			if it.Close != nil || !it.Suspended {
				t.Fatalf("%s has no K-line on %v, yet close %v suspended %v", it.Code, last, it.Close, it.Suspended)
			}
		}
	}
	if !found || compared < 5 {
		t.Fatalf("%v (delisted %v) in the cross-section of its last day: %v; %d bars compared", code, delisted, found, compared)
	}
	if gone := get("/v1/api/bars/daily?date=" + delisted.String() + "&codes=" + code.String()); gone.Total != 0 {
		t.Fatalf("%v on its delisting day: %+v", code, gone.Items)
	}
	// Pages cut the same list.
	p2 := get("/v1/api/bars/daily?date=" + last.String() + "&page=2&page_size=100")
	if p2.Total != all.Total || len(p2.Items) != 100 || p2.Items[0].Code != all.Items[100].Code {
		t.Fatalf("page 2 of 100: total %d, %d items from %s; want from %s", p2.Total, len(p2.Items), p2.Items[0].Code, all.Items[100].Code)
	}
	for path, status := range map[string]int{
		"/v1/api/bars/daily":                                            400,
		"/v1/api/bars/daily?date=2026-13-01":                            400,
		"/v1/api/bars/daily?date=2019-01-02":                            404,
		"/v1/api/bars/daily?date=" + last.String() + "&page_size=10001": 400,
	} {
		if r := h.signed(http.MethodGet, path, tok, nil); r.status != status {
			t.Errorf("%s: %d %s; want %d", path, r.status, r.data, status)
		}
	}
}
