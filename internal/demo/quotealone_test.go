package demo

import (
	"testing"
	"time"

	"mdqs/internal/market"
	"mdqs/internal/tdx"
)

// quoteAlone, the one stock's quote that TestExDatesDropByTheEventsMap
// reads on each ex-date, is QuotesAt's quote of that stock, field for field
// (NaN for NaN), for every stock of the market: at every phase of a day
// (before the auction, the auction, the morning, the lunch break, the
// close, the evening), on a closed day, on days with suspended stocks and
// on ex-dates; and a stock QuotesAt leaves out (not listed yet) is the
// zero Quote.
func TestQuoteAloneIsQuotesAts(t *testing.T) {
	now := at(20270331, 16, 0, 0)
	m, _ := newMarket(t, smallConfig(21), now) // the market of the ex-date test
	var instants []time.Time
	for _, hm := range [][2]int{{8, 0}, {9, 26}, {10, 17}, {12, 0}, {15, 0}, {16, 0}} {
		instants = append(instants, at(20261120, hm[0], hm[1], 0))
	}
	instants = append(instants, at(20261122, 11, 0, 0)) // a Sunday
	var exDays, haltDays int
	for _, c := range exSample(m, 97) {
		for _, e := range m.Actions(c) {
			if e.Category == tdx.Dividend && e.Day < market.DayOf(now) && exDays < 3 && len(klines(t, m, c, market.Daily, e.Day, e.Day)) == 1 {
				instants = append(instants, at(e.Day, 15, 0, 0))
				exDays++
			}
		}
	}
	for d := market.Day(20261120); haltDays < 2 && d > 20250101; d = d.AddDays(-1) {
		if len(m.SuspendedOn(d)) > 0 {
			instants = append(instants, at(d, 10, 30, 0), at(d, 15, 0, 0))
			haltDays++
		}
	}
	if exDays < 3 || haltDays < 2 {
		t.Fatalf("found %d ex-dates and %d days with a suspension, want 3 and 2", exDays, haltDays)
	}
	leftOut := 0
	for _, ts := range instants {
		all := quotesAt(t, m, ts)
		in := map[market.Code]bool{}
		for _, q := range all {
			in[q.Code] = true
			if got, want := fingerprint(t, quoteAlone(t, m, q.Code, ts)), fingerprint(t, q); got != want {
				t.Errorf("%v at %v: quoteAlone\n%s\nQuotesAt\n%s", q.Code, ts, got, want)
			}
		}
		for _, s := range m.Stocks() {
			if !in[s.Code] {
				if q := quoteAlone(t, m, s.Code, ts); fingerprint(t, q) != fingerprint(t, market.Quote{}) {
					t.Errorf("%v at %v: left out of QuotesAt, quoteAlone %+v", s.Code, ts, q)
				}
				leftOut++
			}
		}
	}
	if leftOut == 0 {
		t.Error("every stock was listed at every instant: the left-out case is not tested")
	}
}
