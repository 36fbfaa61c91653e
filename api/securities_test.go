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
