package demo

import (
	"math"
	"testing"

	"mdqs/internal/adjust"
	"mdqs/internal/market"
	"mdqs/internal/tdx"
)

// exSample is every stock with bonus shares or the rights issue, and every
// n-th other one.
func exSample(m *Market, n int) []market.Code {
	var out []market.Code
	for i, s := range m.Stocks() {
		special := false
		for _, e := range m.Actions(s.Code) {
			special = special || e.Category == tdx.Dividend && (e.F[2] > 0 || e.F[3] > 0)
		}
		if special || i%n == 0 {
			out = append(out, s.Code)
		}
	}
	return out
}

// Raw prices drop on their ex-dates by the event's map, as the exchange's
// reference price (除权参考价) says: the day's previous close is
// (10·close − cash + rights price·rights) / (10 + bonus + rights) of the
// close before, per 10 shares, to the cent, and the day moves from there
// within its limits. 前复权 prices then run on across the ex-date as on
// any other day: their move is the day's own, not a gap the raw series
// does not have.
func TestExDatesDropByTheEventsMap(t *testing.T) {
	now := at(20270331, 16, 0, 0)
	m, _ := newMarket(t, smallConfig(21), now)
	// A stock's quote at the close of its ex-date, made from its own
	// session: QuotesAt's, which would make the whole market's each day
	// (TestQuoteAloneIsQuotesAts).
	days := map[market.Day]bool{}
	quoteOn := func(c market.Code, d market.Day) market.Quote {
		days[d] = true
		return quoteAlone(t, m, c, at(d, 15, 0, 0))
	}
	var checked, bonus, rights int
	for _, c := range exSample(m, 17) {
		bars := klines(t, m, c, market.Daily, 0, 0)
		if len(bars) < 2 {
			continue
		}
		byDay := map[market.Day]int{}
		for i, b := range bars {
			byDay[b.Day] = i
		}
		var events []adjust.Event
		for _, e := range m.Actions(c) {
			if e.Category == tdx.Dividend {
				events = append(events, adjust.Event{Day: e.Day, CashPer10: float64(e.F[0]), RightsPrice: float64(e.F[1]),
					BonusPer10: float64(e.F[2]), RightsPer10: float64(e.F[3])})
			}
		}
		sched, err := adjust.Factors(events, adjust.QFQ, bars[len(bars)-1].Day)
		if err != nil {
			t.Fatal(err)
		}
		qfq := sched.Apply(bars)
		limit := float64(limitsOf(m, c)) / 100
		for _, e := range events {
			i, ok := byDay[e.Day]
			if !ok || i == 0 {
				continue // announced, not yet gone ex
			}
			checked++
			if e.BonusPer10 > 0 {
				bonus++
			}
			if e.RightsPer10 > 0 {
				rights++
			}
			before, on := bars[i-1], bars[i]
			// The event's map alone, rounded exactly (a half cent from the
			// written decimals goes up, whatever float noise says).
			one, err := adjust.Factors([]adjust.Event{e}, adjust.QFQ, e.Day)
			if err != nil {
				t.Fatal(err)
			}
			ref := one.Price(before.Day, before.Close)
			q := quoteOn(c, e.Day)
			if math.Abs(q.PrevClose-ref) > 0.0051 {
				t.Errorf("%v ex-date %v (%+v): previous close %v after a close of %v, want the reference price %v",
					c, e.Day, e, q.PrevClose, before.Close, ref)
				continue
			}
			if q.Price != on.Close {
				t.Fatalf("%v %v: quote %v, daily bar %v", c, e.Day, q.Price, on.Close)
			}
			if lo, hi := q.LimitDown, q.LimitUp; on.Close < lo || on.Close > hi || on.Open < lo || on.Open > hi {
				t.Errorf("%v %v: bar %+v outside the limits %v..%v of the reference price %v", c, e.Day, on, lo, hi, ref)
			}
			// The day's minutes start from the reference price too and
			// add up to its daily bar (the service joins a forming day's
			// minutes to the daily history).
			if checked%10 == 1 {
				if one := klines(t, m, c, market.Min1, e.Day, e.Day); len(one) != 240 || !sameOHLCV(aggregateBars(one), on) {
					t.Errorf("%v %v: %d minutes do not add up to the daily bar %+v", c, e.Day, len(one), on)
				}
			}
			// 前复权 continues from the reference price: the day before
			// is the reference price carried by the later events' map
			// (the one the ex-date's bar has), so the series moves across
			// the ex-date by the day's own move, no more (an affine map
			// stretches a move by A·p / (A·p + B)).
			f := sched.At(e.Day)
			if want := adjust.Round(f.Price(ref)); math.Abs(qfq[i-1].Close-want) > 0.011 {
				t.Errorf("%v %v (%+v): 前复权 of the day before %v, the reference price %v carried by the later events %v: a gap of %.2f",
					c, e.Day, e, qfq[i-1].Close, ref, want, qfq[i-1].Close-want)
			}
			move := qfq[i].Close/qfq[i-1].Close - 1
			if most := limit * f.A * ref / f.Price(ref); math.Abs(move) > most+0.011/qfq[i-1].Close+1e-4 {
				t.Errorf("%v %v: 前复权 jumps %.4f across the ex-date, beyond a day's limit %.4f", c, e.Day, move, most)
			}
		}
	}
	if checked < 100 || bonus == 0 || rights != 1 {
		t.Errorf("checked %d ex-dates, %d with bonus shares, %d with rights; want many, some, the one", checked, bonus, rights)
	}
	t.Logf("%d ex-dates checked on %d days (%d with bonus shares)", checked, len(days), bonus)
}
