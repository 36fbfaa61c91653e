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

// Issue 28: the history of a code an exchange's list states delisted
// gives its delisting day and the list; a code the record saw and no list
// names has none; a code only a list knows is found all the same.
func TestSecurityHistoryGivesTheDelistingDay(t *testing.T) {
	h := newHarness(t)
	h.addClient("c", "secret-c", clientOpts{scopes: "market"})
	tok := h.token("c", "secret-c")
	ctx := context.Background()
	c := market.MustCode
	if _, err := h.store.RecordSecurityDay(ctx, secmaster.Source, 20261120,
		[]db.SecurityObservation{{Code: c("600001.SH"), Name: "*ST甲钢", ST: "*ST"}, {Code: c("000001.SZ"), Name: "平安银行"}}, time.Now()); err != nil {
		t.Fatal(err)
	}
	if err := h.store.ReplaceDelistings(ctx, "sse", []db.Delisting{{Code: c("600001.SH"), Name: "*ST甲钢", Listed: 19980122, Delisted: 20261123}}, time.Now()); err != nil {
		t.Fatal(err)
	}
	if err := h.store.ReplaceDelistings(ctx, "szse", []db.Delisting{{Code: c("000003.SZ"), Name: "PT金田Ａ", Delisted: 20020614}}, time.Now()); err != nil {
		t.Fatal(err)
	}
	type answer struct {
		Listed       *string `json:"listed_day"`
		ListedFrom   *string `json:"listed_day_source"`
		Delisted     *string `json:"delisted_day"`
		DelistedFrom *string `json:"delisted_day_source"`
	}
	str := func(p *string) string {
		if p == nil {
			return "null"
		}
		return *p
	}
	for _, tc := range []struct {
		code                                       string
		listed, listedFrom, delisted, delistedFrom string
	}{
		{"600001.SH", "1998-01-22", "sse", "2026-11-23", "sse"},
		{"000001.SZ", "null", "null", "null", "null"},
		{"000003.SZ", "null", "null", "2002-06-14", "szse"},
	} {
		r := h.signed(http.MethodGet, "/v1/api/securities/history?code="+tc.code, tok, nil)
		r.expect(t, 200, "OK")
		var a answer
		if err := json.Unmarshal(r.data, &a); err != nil {
			t.Fatal(err)
		}
		if str(a.Listed) != tc.listed || str(a.ListedFrom) != tc.listedFrom || str(a.Delisted) != tc.delisted || str(a.DelistedFrom) != tc.delistedFrom {
			t.Errorf("history of %s: listed %s from %s, delisted %s from %s; want %s from %s, %s from %s", tc.code,
				str(a.Listed), str(a.ListedFrom), str(a.Delisted), str(a.DelistedFrom), tc.listed, tc.listedFrom, tc.delisted, tc.delistedFrom)
		}
	}
}
