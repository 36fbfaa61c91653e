package demo

import (
	"math"
	"testing"

	"mdqs/internal/market"
)

// checkLimits: close, high, low and open of a bar within the limit prices
// of the previous close.
func checkLimits(t *testing.T, what string, b market.Bar, prev float64, limit int32) {
	t.Helper()
	lo, hi := limits(toCents(prev), limit)
	for _, p := range []float64{b.Open, b.High, b.Low, b.Close} {
		if c := toCents(p); c < lo || c > hi {
			t.Fatalf("%s %v: price %v outside the limits %v..%v of the previous close %v", what, b.Day, p, cents(lo), cents(hi), prev)
		}
	}
	if b.Low > math.Min(b.Open, b.Close) || b.High < math.Max(b.Open, b.Close) || b.Low < 1 || b.High > 3000 {
		t.Fatalf("%s %v: bar %+v is not a bar in 1..3000 yuan", what, b.Day, b)
	}
}

func TestLimitRulesHoldOverTheWholeHistory(t *testing.T) {
	m, _ := newMarket(t, DefaultConfig(), at(20270331, 16, 0, 0))
	// Every tenth stock's daily walk from 2015 to 2027, without bars.
	for si := 0; si < len(m.u.stocks); si += 10 {
		s := &m.u.stocks[si]
		prev, closes := m.stockCloses(s, len(m.days)-1)
		for k, c := range closes {
			if k > 0 {
				prev = s.refOf(s.first+k, prev) // the reference price on an ex-date
			}
			lo, hi := limits(prev, s.limit)
			if c < lo || c > hi || c < min(minCents, hi) || c > maxCents {
				t.Fatalf("%v: close %d after %d breaks the %d %% limit or the price range", s.code, c, prev, s.limit)
			}
			prev = c
		}
	}
	// Full bars, minute bars included, for a sample of every board.
	for _, c := range sample(m, 1009) {
		limit := limitsOf(m, c)
		bars := klines(t, m, c, market.Daily, 0, 0)
		ev := exMaps(m, c)
		prev := func(i int) float64 { return refClose(ev, bars[i].Day, bars[i-1].Close) }
		for i := 1; i < len(bars); i++ {
			checkLimits(t, c.String(), bars[i], prev(i), limit)
		}
		for _, i := range []int{1, len(bars) / 2, len(bars) - 1} {
			d := bars[i].Day
			for _, b := range klines(t, m, c, market.Min1, d, d) {
				checkLimits(t, c.String()+" minute", b, prev(i), limit)
			}
		}
	}
}

func TestRealisticRanges(t *testing.T) {
	m, _ := newMarket(t, DefaultConfig(), at(20261120, 16, 0, 0))
	limitUp := 0
	for _, d := range []market.Day{20160315, 20230601, 20261117, 20261120} {
		qs := quotesAt(t, m, at(d, 15, 0, 0))
		var amount, turnover float64
		for _, q := range qs {
			limit := limitsOf(m, q.Code)
			lo, hi := limits(toCents(q.PrevClose), limit)
			if c := toCents(q.Price); c < lo || c > hi || q.Price < 1 || q.Price > 3000 {
				t.Fatalf("%v %v: price %v outside the limits of %v or 1..3000", q.Code, d, q.Price, q.PrevClose)
			}
			if c := toCents(q.Price); c == hi {
				limitUp++
			}
			// Rounding to the cent lets a low price pass the nominal limit
			// by half a cent's worth.
			if math.Abs(q.Pct) > float64(limit)+50/q.PrevClose+0.01 {
				t.Fatalf("%v %v: pct %v beyond the %d %% limit", q.Code, d, q.Pct, limit)
			}
			if q.Volume <= 0 || q.Volume%100 != 0 || q.Amount < 1e4 || q.Amount > 5e10 {
				t.Fatalf("%v %v: volume %d amount %v", q.Code, d, q.Volume, q.Amount)
			}
			if avg := q.Amount / float64(q.Volume); avg < q.Low-0.005 || avg > q.High+0.005 {
				t.Fatalf("%v %v: average price %v outside the day's range %v..%v", q.Code, d, avg, q.Low, q.High)
			}
			if q.Turnover < 0 || q.Turnover > 60 || math.Abs(q.MainNetRatio) > 100 || q.FloatCap > q.MarketCap+1 || q.FloatCap < 1e7 {
				t.Fatalf("%v %v: turnover %v main-net ratio %v caps %v/%v", q.Code, d, q.Turnover, q.MainNetRatio, q.FloatCap, q.MarketCap)
			}
			amount += q.Amount
			turnover += q.Turnover
		}
		// The A-share market trades 0.5 to 3 trillion yuan a day, at an
		// average turnover of one to four percent.
		if amount < 3e11 || amount > 4e12 {
			t.Errorf("%v: market amount %.3g yuan", d, amount)
		}
		if avg := turnover / float64(len(qs)); avg < 1 || avg > 4 {
			t.Errorf("%v: average turnover %.2f %%", d, avg)
		}
		for _, kind := range []market.SectorKind{market.Industry, market.Concept} {
			for _, s := range sectorsAt(t, m, kind, at(d, 15, 0, 0)).Sectors {
				if math.Abs(s.Pct) > 20 || s.Price < 100 || s.Price > 200000 || s.Amount <= 0 || s.Turnover <= 0 || s.Turnover > 40 {
					t.Fatalf("%s %s %v: %+v", kind, s.Name, d, s)
				}
			}
		}
	}
	if limitUp < 4*10 {
		t.Errorf("%d limit-up closes on four days; the A-share market has dozens a day", limitUp)
	}
}
