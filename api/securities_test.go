package api

import (
	"context"
	"encoding/json"
	"net/http"
	"testing"
	"time"

	"mdqs/db"
	"mdqs/internal/market"
	"mdqs/internal/secmaster"
)

// Issue 28: the universe of a past day is that day's: a code delisted
// since is in it, and a stock's limit follows its status of that day (the
// ST rule on a day it carried the warning, the main board's the day
// before), and ChiNext's rule of the time.
func TestSecuritiesOfAPastDayAreThatDays(t *testing.T) {
	h := newHarness(t)
	h.addClient("c", "secret-c", clientOpts{scopes: "market"})
	tok := h.token("c", "secret-c")
	c := market.MustCode
	for _, d := range []struct {
		day market.Day
		obs []db.SecurityObservation
	}{
		{20200821, []db.SecurityObservation{{Code: c("600001.SH"), Name: "甲钢"}, {Code: c("300750.SZ"), Name: "宁德时代"}}},
		{20200824, []db.SecurityObservation{{Code: c("600001.SH"), Name: "ST甲钢", ST: "ST"}, {Code: c("300750.SZ"), Name: "宁德时代"}}},
		{20200825, []db.SecurityObservation{{Code: c("300750.SZ"), Name: "宁德时代"}}}, // 600001 delisted
	} {
		if _, err := h.store.RecordSecurityDay(context.Background(), secmaster.Source, d.day, d.obs, time.Now()); err != nil {
			t.Fatal(err)
		}
	}
	limits := func(date string) map[string]any {
		t.Helper()
		r := h.signed(http.MethodGet, "/v1/api/securities?date="+date, tok, nil)
		r.expect(t, 200, "OK")
		var a struct {
			Items []struct {
				Code     string `json:"code"`
				ST       *string
				LimitPct *int64 `json:"limit_pct"`
			} `json:"items"`
		}
		if err := json.Unmarshal(r.data, &a); err != nil {
			t.Fatal(err)
		}
		out := map[string]any{}
		for _, it := range a.Items {
			if it.LimitPct != nil {
				out[it.Code] = *it.LimitPct
			} else {
				out[it.Code] = nil
			}
		}
		return out
	}
	if got := limits("2020-08-21"); got["600001.SH"] != int64(10) || got["300750.SZ"] != int64(10) {
		t.Errorf("2020-08-21: %v; want the main board's 10 for both (ChiNext before its reform)", got)
	}
	if got := limits("2020-08-24"); got["600001.SH"] != int64(5) || got["300750.SZ"] != int64(20) {
		t.Errorf("2020-08-24: %v; want the ST rule's 5 for 600001 and ChiNext's new 20", got)
	}
	if got := limits("2020-08-25"); len(got) != 1 {
		t.Errorf("2020-08-25: %v; want 300750 alone, 600001 delisted", got)
	}
}

// Each security of a day carries the shares in force that day (300750's
// real gbbq records: a change dated later does not count), null ones
// without a record; the history lists every record in shares.
func TestSecuritiesCarryTheSharesOfTheirDay(t *testing.T) {
	h := newHarness(t)
	h.addClient("c", "secret-c", clientOpts{scopes: "market"})
	tok := h.token("c", "secret-c")
	ctx := context.Background()
	c := market.MustCode
	for _, d := range []market.Day{20190610, 20190611} {
		obs := []db.SecurityObservation{{Code: c("300750.SZ"), Name: "宁德时代"}, {Code: c("600001.SH"), Name: "甲钢"}}
		if _, err := h.store.RecordSecurityDay(ctx, secmaster.Source, d, obs, time.Now()); err != nil {
			t.Fatal(err)
		}
	}
	// The counts as the import stores the gbbq's float32s: their decimals.
	share := func(day market.Day, f1, f2, f3, f4 float64) db.Action {
		return db.Action{Code: c("300750.SZ"), Day: day, Category: 5, F: [4]float64{f1, f2, f3, f4}}
	}
	if _, err := h.store.ReplaceActions(ctx, "tdx", []db.Action{
		share(20180611, 0, 0, 21724.373, 217243.7),
		share(20180919, 21724.373, 217243.7, 21724.373, 219501.73),
		share(20190611, 21724.373, 219501.73, 119705.62, 219501.73),
	}); err != nil {
		t.Fatal(err)
	}
	type item struct {
		Code         string  `json:"code"`
		TotalShares  *int64  `json:"total_shares"`
		FloatShares  *int64  `json:"float_shares"`
		SharesDay    *string `json:"shares_day"`
		SharesSource *string `json:"shares_source"`
	}
	tests := []struct {
		date              string
		float, total      int64
		sharesDay, source string
	}{
		{"2019-06-10", 217243730, 2195017300, "2018-09-19", "tdx"},
		{"2019-06-11", 1197056200, 2195017300, "2019-06-11", "tdx"},
	}
	for _, tt := range tests {
		r := h.signed(http.MethodGet, "/v1/api/securities?date="+tt.date, tok, nil)
		r.expect(t, 200, "OK")
		var a struct {
			Items []item `json:"items"`
		}
		if err := json.Unmarshal(r.data, &a); err != nil {
			t.Fatal(err)
		}
		got := map[string]item{}
		for _, it := range a.Items {
			got[it.Code] = it
		}
		if it := got["300750.SZ"]; it.FloatShares == nil || *it.FloatShares != tt.float || *it.TotalShares != tt.total ||
			*it.SharesDay != tt.sharesDay || *it.SharesSource != tt.source {
			t.Errorf("%s: 300750.SZ = %s; want float %d total %d from %s", tt.date, r.data, tt.float, tt.total, tt.sharesDay)
		}
		if it, ok := got["600001.SH"]; !ok || it.FloatShares != nil || it.TotalShares != nil || it.SharesDay != nil || it.SharesSource != nil {
			t.Errorf("%s: 600001.SH = %+v; want null shares", tt.date, it)
		}
	}
	r := h.signed(http.MethodGet, "/v1/api/securities/history?code=300750.SZ", tok, nil)
	r.expect(t, 200, "OK")
	var hist struct {
		Shares []struct {
			Day         string `json:"day"`
			Category    int    `json:"category"`
			FloatShares int64  `json:"float_shares"`
			TotalShares int64  `json:"total_shares"`
			Source      string `json:"source"`
		} `json:"shares"`
	}
	if err := json.Unmarshal(r.data, &hist); err != nil {
		t.Fatal(err)
	}
	if len(hist.Shares) != 3 || hist.Shares[0].Day != "2018-06-11" || hist.Shares[0].FloatShares != 217243730 ||
		hist.Shares[2].TotalShares != 2195017300 || hist.Shares[2].Category != 5 || hist.Shares[1].Source != "tdx" {
		t.Errorf("history's shares = %+v", hist.Shares)
	}
}
