package api

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"
)

type calendarView struct {
	Start          string   `json:"start"`
	End            string   `json:"end"`
	Today          string   `json:"today"`
	Phase          string   `json:"phase"`
	LastTradingDay string   `json:"last_trading_day"`
	NextTradingDay string   `json:"next_trading_day"`
	TradingDays    []string `json:"trading_days"`
	Count          int      `json:"count"`
	Closed         []struct{ Date, Name string }
	CoversRange    bool   `json:"covers_range"`
	Note           string `json:"note"`
	Source         string `json:"source"`
}

// The trading calendar as the server knows it (the built-in holidays, the
// configured file, the imported years): an agent's resource for the day
// forms a call takes, and what its "today" and "last session" are.
func TestCalendar(t *testing.T) {
	h := newHarness(t)
	h.addClient("m", "secret-m", clientOpts{scopes: "market"})
	tok := h.token("m", "secret-m")
	for _, tt := range []struct {
		query       string
		start, end  string
		first, last string // first and last trading day listed
		count       int
		closed      string // the closed weekdays, comma-separated
		covers      bool
		note        string
	}{
		// t0 is Monday 2026-11-23, 10:00, in session.
		{"", "2026-10-24", "2026-12-23", "2026-10-26", "2026-12-23", 43, "", true, ""},
		{"?start=2026-09-28&end=2026-10-09", "2026-09-28", "2026-10-09", "2026-09-28", "2026-10-09", 5, "2026-10-01,2026-10-02,2026-10-05,2026-10-06,2026-10-07", true, ""},
		{"?start=20261228&end=20270105", "2026-12-28", "2027-01-05", "2026-12-28", "2027-01-05", 7, "", false, "2027"},
	} {
		r := h.signed(http.MethodGet, "/v1/api/calendar"+tt.query, tok, nil)
		r.expect(t, 200, "OK")
		var a calendarView
		if err := json.Unmarshal(r.data, &a); err != nil {
			t.Fatal(err)
		}
		var closed []string
		for _, c := range a.Closed {
			closed = append(closed, c.Date)
		}
		if a.Start != tt.start || a.End != tt.end || len(a.TradingDays) == 0 || a.TradingDays[0] != tt.first || a.TradingDays[len(a.TradingDays)-1] != tt.last ||
			a.Count != tt.count || len(a.TradingDays) != a.Count || strings.Join(closed, ",") != tt.closed || a.CoversRange != tt.covers ||
			!strings.Contains(a.Note, tt.note) || (tt.note == "") != (a.Note == "") {
			t.Errorf("GET /v1/api/calendar%s = %s", tt.query, r.raw)
		}
		if a.Today != "2026-11-23" || a.LastTradingDay != "2026-11-23" || a.NextTradingDay != "2026-11-24" || a.Phase == "" || a.Source != "calendar" {
			t.Errorf("GET /v1/api/calendar%s: today, last and next trading day, phase, source: %s", tt.query, r.raw)
		}
	}
	for _, q := range []string{"?start=2026-13-01", "?start=2026-11-30&end=2026-11-01", "?start=2020-01-01&end=2026-01-01", "?end=x"} {
		h.signed(http.MethodGet, "/v1/api/calendar"+q, tok, nil).expect(t, 400, "")
	}
}
