package api

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"

	"mdqs/db"
	"mdqs/internal/market"
	"mdqs/internal/secmaster"
)

// Issue 28: the history of a code gives every name it had, with its days
// and source: SZSE's change list before the record, the record for its
// days; a null start where no source says since when, a null end while
// current. A code only the change list knows is found.
func TestSecurityHistoryGivesTheNames(t *testing.T) {
	h := newHarness(t)
	h.addClient("c", "secret-c", clientOpts{scopes: "market"})
	tok := h.token("c", "secret-c")
	ctx := context.Background()
	c := market.MustCode
	if _, err := h.store.RecordSecurityDay(ctx, secmaster.Source, 20261120,
		[]db.SecurityObservation{{Code: c("000001.SZ"), Name: "平安银行"}, {Code: c("600519.SH"), Name: "贵州茅台"}}, time.Now()); err != nil {
		t.Fatal(err)
	}
	if err := h.store.ReplaceNameChanges(ctx, "szse", []db.NameChange{
		{Code: c("000001.SZ"), Day: 20120802, Before: "深发展Ａ", After: "平安银行"},
		{Code: c("000013.SZ"), Day: 20040920, Before: "石化A", After: "*ST石化A"},
	}, time.Now()); err != nil {
		t.Fatal(err)
	}
	type name struct {
		Name   string  `json:"name"`
		From   *string `json:"from"`
		To     *string `json:"to"`
		Source string  `json:"source"`
	}
	str := func(p *string) string {
		if p == nil {
			return "null"
		}
		return *p
	}
	for _, tc := range []struct {
		code string
		want []string
	}{
		{"000001.SZ", []string{"深发展Ａ null 2012-08-01 szse", "平安银行 2012-08-02 2026-11-19 szse", "平安银行 null null quotes"}},
		{"600519.SH", []string{"贵州茅台 null null quotes"}},
		// 2004-09-20 is a Monday: the session before is Friday's. The
		// record, where the code is absent, ends its last name before
		// the first recorded day.
		{"000013.SZ", []string{"石化A null 2004-09-17 szse", "*ST石化A 2004-09-20 2026-11-19 szse"}},
	} {
		r := h.signed(http.MethodGet, "/v1/api/securities/history?code="+tc.code, tok, nil)
		r.expect(t, 200, "OK")
		var a struct {
			Names []name `json:"names"`
		}
		if err := json.Unmarshal(r.data, &a); err != nil {
			t.Fatal(err)
		}
		got := make([]string, len(a.Names))
		for i, n := range a.Names {
			got[i] = strings.Join([]string{n.Name, str(n.From), str(n.To), n.Source}, " ")
		}
		if strings.Join(got, "|") != strings.Join(tc.want, "|") {
			t.Errorf("names of %s = %q, want %q", tc.code, got, tc.want)
		}
	}
}
