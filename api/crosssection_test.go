package api

import (
	"context"
	"encoding/json"
	"net/http"
	"slices"
	"strings"
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

type barsMinuteAnswer struct {
	Date     string `json:"date"`
	Time     string `json:"time"`
	Total    int    `json:"total"`
	PageSize int    `json:"page_size"`
	Items    []struct {
		Code      string   `json:"code"`
		Suspended bool     `json:"suspended"`
		Time      *string  `json:"time"`
		Open      *float64 `json:"open"`
		Close     *float64 `json:"close"`
		PrevClose *float64 `json:"prev_close"`
		Pct       *float64 `json:"pct"`
		Volume    *int64   `json:"volume"`
		Amount    *float64 `json:"amount"`
	} `json:"items"`
	Source string `json:"source"`
}

// Issue 29: the whole market's 1-minute bars at one minute in one request,
// over that day's universe: each bar is the K-line's 1-minute bar ending at
// that minute, prev_close the minute before's; a code whose day is not
// stored has nulls; minutes without a bar are refused saying which have
// one.
func TestBarsMinuteIsTheMarketAtAMinute(t *testing.T) {
	h := newHarness(t, withSecurityHistory(60))
	ctx := context.Background()
	cal := market.DefaultCalendar()
	code, delisted, _ := afterFirstDelisting(t, h, 10)
	last := cal.Prev(delisted)
	listed := h.demo.NamesOn(last)
	var days []db.MinuteDay
	var unstored market.Code
	for c := range listed {
		if unstored.IsZero() && c != code {
			unstored = c
			continue
		}
		bars, err := h.demo.Klines(ctx, c, market.Min1, last, last)
		if err != nil {
			t.Fatal(err)
		}
		if len(bars) > 0 {
			days = append(days, db.MinuteDay{Code: c, Freq: market.Min1, Day: last, Bars: bars, Source: "demo"})
		}
	}
	if err := h.store.PutMinuteDays(ctx, days); err != nil {
		t.Fatal(err)
	}
	h.addClient("c", "secret-c", clientOpts{scopes: "kline"})
	tok := h.token("c", "secret-c")
	get := func(path string) barsMinuteAnswer {
		t.Helper()
		r := h.signed(http.MethodGet, path, tok, nil)
		r.expect(t, 200, "OK")
		var a barsMinuteAnswer
		if err := json.Unmarshal(r.data, &a); err != nil {
			t.Fatal(err)
		}
		return a
	}
	for _, hhmm := range []string{"09:31", "10:30", "13:01", "15:00"} {
		all := get("/v1/api/bars/minute?date=" + last.String() + "&time=" + hhmm + "&page_size=10000")
		if all.Total != len(listed) || len(all.Items) != len(listed) || all.Time != hhmm || all.Date != last.String() {
			t.Fatalf("%v %s: %d items of %d, at %s %s; the market listed %d", last, hhmm, len(all.Items), all.Total, all.Date, all.Time, len(listed))
		}
		at, _ := market.ParseTimeOfDay(hhmm)
		ts := at.On(last).Unix()
		found, compared := false, 0
		for i, it := range all.Items {
			if i > 0 && all.Items[i-1].Code >= it.Code {
				t.Fatalf("items not in code order at %s", it.Code)
			}
			c := market.MustCode(it.Code)
			found = found || c == code
			if c != code && c != unstored && i%20 != 0 {
				continue
			}
			bars, err := h.demo.Klines(ctx, c, market.Min1, last, last)
			if err != nil {
				t.Fatal(err)
			}
			k := slices.IndexFunc(bars, func(b market.Bar) bool { return b.TS == ts })
			switch {
			case c == unstored || k < 0: // not stored, or no bar that day (suspended)
				if it.Close != nil || it.Time != nil || it.Volume != nil || it.PrevClose != nil {
					t.Fatalf("%s at %s: no stored bar, yet close %v time %v", it.Code, hhmm, it.Close, it.Time)
				}
			default:
				compared++
				b := bars[k]
				if it.Close == nil || *it.Close != b.Close || *it.Open != b.Open || *it.Volume != b.Volume || *it.Amount != b.Amount ||
					it.Time == nil || *it.Time != last.String()+" "+hhmm+":00" {
					t.Fatalf("%s at %s: %+v; the K-line's bar %+v", it.Code, hhmm, it, b)
				}
				if k == 0 {
					if it.PrevClose != nil || it.Pct != nil {
						t.Fatalf("%s at the day's first bar: prev_close %v pct %v; want null", it.Code, it.PrevClose, it.Pct)
					}
				} else if it.PrevClose == nil || *it.PrevClose != bars[k-1].Close || it.Pct == nil {
					t.Fatalf("%s at %s: prev_close %v pct %v; the minute before closed at %v", it.Code, hhmm, it.PrevClose, it.Pct, bars[k-1].Close)
				}
			}
		}
		if !found || compared < 5 {
			t.Fatalf("%v (delisted %v) in the cross-section of its last day at %s: %v; %d bars compared", code, delisted, hhmm, found, compared)
		}
	}
	// codes= narrows it, and pages cut one list.
	one := get("/v1/api/bars/minute?date=" + last.String() + "&time=10:30&codes=" + code.String())
	if one.Total != 1 || one.Items[0].Code != code.String() || one.Source != "store" {
		t.Fatalf("codes=%v: %+v", code, one)
	}
	all := get("/v1/api/bars/minute?date=" + last.String() + "&time=10:30&page_size=10000")
	p2 := get("/v1/api/bars/minute?date=" + last.String() + "&time=10:30&page=2&page_size=100")
	if p2.Total != all.Total || len(p2.Items) != 100 || p2.Items[0].Code != all.Items[100].Code {
		t.Fatalf("page 2 of 100: total %d, %d items from %s; want from %s", p2.Total, len(p2.Items), p2.Items[0].Code, all.Items[100].Code)
	}
	base := "/v1/api/bars/minute?date=" + last.String()
	for path, status := range map[string]int{
		"/v1/api/bars/minute?time=10:30":     400,
		base:                                 400,
		base + "&time=09:30":                 400,
		base + "&time=12:00":                 400,
		base + "&time=15:01":                 400,
		base + "&time=9:31":                  400,
		base + "&time=10:30:00":              400,
		base + "&time=24:00":                 400,
		base + "&time=10:30&page_size=10001": 400,
		"/v1/api/bars/minute?date=2026-13-01&time=10:30":            400,
		"/v1/api/bars/minute?date=2099-01-05&time=10:30":            400,
		"/v1/api/bars/minute?date=2019-01-02&time=10:30":            404,
		"/v1/api/bars/minute?date=" + last.String() + "&time=11:30": 200,
	} {
		r := h.signed(http.MethodGet, path, tok, nil)
		if r.status != status {
			t.Errorf("%s: %d %s; want %d", path, r.status, r.data, status)
		}
		if status == 400 && strings.HasPrefix(path, base) && !strings.Contains(path, "page_size") && !strings.Contains(r.detail, "09:31 to 11:30 and 13:01 to 15:00") {
			t.Errorf("%s: detail %q does not say which minutes have a bar", path, r.detail)
		}
	}
	if r := h.signed(http.MethodGet, base+"&time=09:30", tok, nil); !strings.Contains(r.detail, "folded into the 09:31 bar") {
		t.Errorf("time=09:30: detail %q does not say where the auction went", r.detail)
	}
}
