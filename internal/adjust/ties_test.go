package adjust_test

import (
	"fmt"
	"math/big"
	"strconv"
	"testing"

	"mdqs/internal/adjust"
	"mdqs/internal/market"
)

// Prices whose exact value sits on a midpoint x.xx5 round half away from
// zero, whatever float noise says (issue 32: mdqs rounded 1,047 qfq and
// 12,038 hfq values of a held-out install toward zero). The events hold
// float32 values, as gbbq stores them; each value counts as the decimal it
// was written as, so 1.45 per 10 is 0.145 a share, not 0.1450000048.
func TestTiesRoundHalfAwayFromZero(t *testing.T) {
	f32 := func(v float64) float64 { return float64(float32(v)) }
	tests := []struct {
		name   string
		mode   adjust.Mode
		events []adjust.Event
		raw    float64
		exact  string // the adjusted price, worked out by hand
		want   float64
	}{
		{"qfq, float32 cash above its decimal", adjust.QFQ, []adjust.Event{{Day: 20200701, CashPer10: f32(1.45)}}, 9.49, "9.345", 9.35},
		{"qfq, float32 cash, small price", adjust.QFQ, []adjust.Event{{Day: 20200701, CashPer10: f32(1.45)}}, 1.00, "0.855", 0.86},
		{"qfq, negative: away from zero is down", adjust.QFQ, []adjust.Event{{Day: 20200701, CashPer10: 170.25}}, 1.00, "-16.025", -16.03},
		{"qfq, cash and bonus", adjust.QFQ, []adjust.Event{{Day: 20200701, CashPer10: 0.5, BonusPer10: 2}}, 1.28, "1.025", 1.03},
		{"qfq, half a cent", adjust.QFQ, []adjust.Event{{Day: 20200701, CashPer10: f32(43.74), BonusPer10: 2}}, 4.38, "0.005", 0.01},
		{"qfq, two events", adjust.QFQ, []adjust.Event{{Day: 20200701, CashPer10: f32(1.45)}, {Day: 20210701, CashPer10: f32(1.6)}}, 10.00, "9.695", 9.70},
		{"hfq, bonus", adjust.HFQ, []adjust.Event{{Day: 20200701, CashPer10: 0.5, BonusPer10: 3}}, 1.65, "2.195", 2.20},
		{"hfq, cash and bonus", adjust.HFQ, []adjust.Event{{Day: 20200701, CashPer10: 3.5, BonusPer10: 5}}, 1.15, "2.075", 2.08},
		{"hfq, float32 cash", adjust.HFQ, []adjust.Event{{Day: 20200701, CashPer10: f32(1.05)}}, 1.00, "1.105", 1.11},
	}
	for _, tt := range tests {
		anchor, day := market.Day(20211231), market.Day(20200630) // qfq: a bar before every event
		if tt.mode == adjust.HFQ {
			anchor, day = 19900101, 20211231 // hfq: a bar after every event
		}
		if got := exactValue(t, tt.mode, tt.events, tt.raw); got != tt.exact {
			t.Fatalf("%s: the events give %s exactly, not %s: the case is wrong", tt.name, got, tt.exact)
		}
		s := factors(t, tt.events, tt.mode, anchor)
		if got := s.Price(day, tt.raw); got != tt.want {
			t.Errorf("%s: Price(%v) = %v, want %v (exactly %s)", tt.name, tt.raw, got, tt.want, tt.exact)
		}
		bars := s.Apply([]market.Bar{{Day: day, Open: tt.raw, High: tt.raw, Low: tt.raw, Close: tt.raw}})
		if b := bars[0]; b.Open != tt.want || b.High != tt.want || b.Low != tt.want || b.Close != tt.want {
			t.Errorf("%s: Apply gives %+v, want %v", tt.name, b, tt.want)
		}
	}
}

// exactValue is the adjusted price of raw after every event, in rationals
// from the decimals written, independently of package adjust: qfq
// p ↦ (10p − cash)/(10 + bonus), oldest first; hfq the inverse, newest
// first.
func exactValue(t *testing.T, mode adjust.Mode, events []adjust.Event, raw float64) string {
	t.Helper()
	dec := func(v float64, bits int) *big.Rat {
		r, ok := new(big.Rat).SetString(strconv.FormatFloat(v, 'g', -1, bits))
		if !ok {
			t.Fatalf("%v", v)
		}
		return r
	}
	ten := big.NewRat(10, 1)
	p := dec(raw, 64)
	for i := range events {
		e := events[i]
		if mode == adjust.HFQ {
			e = events[len(events)-1-i]
		}
		m := new(big.Rat).Add(ten, dec(e.BonusPer10, 32))
		cash := dec(e.CashPer10, 32)
		if mode == adjust.QFQ {
			p.Mul(p, ten).Sub(p, cash).Quo(p, m)
		} else {
			p.Mul(p, m).Add(p, cash).Quo(p, ten)
		}
	}
	if !new(big.Rat).Mul(p, big.NewRat(1000, 1)).IsInt() {
		return p.FloatString(20) // not on a midpoint: no case of this test
	}
	return p.FloatString(3)
}

// Every price of the bundled .day files, adjusted both ways with the real
// events, is the exact rounding of the exact value (exactBar, independent
// of package adjust). The counts of midpoints among them, and of those the
// float map alone would round toward zero, keep the case honest: if the
// data stopped holding any, this test would prove nothing.
func TestEveryBundledPriceIsRoundedExactly(t *testing.T) {
	if testing.Short() {
		t.Skip("adjusts 40,000 prices in rationals")
	}
	type series struct {
		code, file string
	}
	total, ties, floatWrong := 0, 0, 0
	for _, sr := range []series{
		{"000001.SZ", "raw/rustdx-2021/sz000001.day"},
		{"600519.SH", "raw/redmine-2023/sh600519.day"},
		{"000002.SZ", "raw/redmine-2023/sz000002.day"},
		{"603777.SH", "raw/redmine-2023/sh603777.day"},
		{"002709.SZ", "raw/redmine-2023/sz002709.day"},
	} {
		events, bars := eventsOf(t, sr.code), barsOf(t, sr.file)
		for _, mode := range []adjust.Mode{adjust.QFQ, adjust.HFQ} {
			anchor := bars[len(bars)-1].Day
			if mode == adjust.HFQ {
				anchor = bars[0].Day - 1 // every event since the file's first bar
			}
			s := factors(t, events, mode, anchor)
			got := s.Apply(bars)
			// A bar's exact map, made once for the bars it adjusts (the
			// days between two ex-dates) and for the four prices of each:
			// exactBar made it again for every price.
			maps := map[string]affine{}
			for i, b := range bars {
				var applied []adjust.Event
				eachApplied(mode, events, anchor, b.Day, func(e adjust.Event) { applied = append(applied, e) })
				key := fmt.Sprint(applied)
				m, ok := maps[key]
				if !ok {
					m = exactMap(mode, events, anchor, b.Day)
					maps[key] = m
				}
				for _, f := range ohlc {
					v := m.of(decimal(field(b, f), 64))
					want, tie := roundHalfAway(v)
					total++
					if tie {
						ties++
						if adjust.Round(s.At(b.Day).Price(field(b, f))) != want {
							floatWrong++
						}
					}
					if g := field(got[i], f); g != want {
						t.Fatalf("%s %v %s %s %v: %v, exactly %s → %v", sr.code, mode, b.Day, f, field(b, f), g, v.FloatString(12), want)
					}
				}
			}
		}
	}
	t.Logf("%d prices, %d on a midpoint, %d of those rounded toward zero by the float map alone", total, ties, floatWrong)
	if ties == 0 || floatWrong == 0 {
		t.Errorf("%d midpoints, %d the float map misses: the bundle no longer tests ties", ties, floatWrong)
	}
}

// exactBar is raw on day d adjusted in rationals from the decimals written:
// qfq applies every event with d < ex-date ≤ anchor oldest first, p ↦
// (10p − cash + price·rights)/(10 + bonus + rights); hfq undoes every event
// with anchor < ex-date ≤ d newest first. It applies those maps composed
// into one, exactMap's (exact in rationals, so the same value as applying
// them in turn, exactInTurn: TestExactMapIsTheEventsInTurn).
func exactBar(t *testing.T, mode adjust.Mode, events []adjust.Event, anchor, d market.Day, raw float64) *big.Rat {
	t.Helper()
	return exactMap(mode, events, anchor, d).of(decimal(raw, 64))
}

// decimal is v as the decimal it was written as (bits: 32 for gbbq's
// float32 fields).
func decimal(v float64, bits int) *big.Rat {
	r, _ := new(big.Rat).SetString(strconv.FormatFloat(v, 'g', -1, bits))
	return r
}

// affine is the map p ↦ a·p + b, in rationals.
type affine struct{ a, b *big.Rat }

func (f affine) of(p *big.Rat) *big.Rat {
	v := new(big.Rat).Mul(f.a, p)
	return v.Add(v, f.b)
}

// exactMap is the map exactBar applies to a price of day d: each event's,
// composed in exactInTurn's order.
func exactMap(mode adjust.Mode, events []adjust.Event, anchor, d market.Day) affine {
	f := affine{big.NewRat(1, 1), new(big.Rat)}
	ten := big.NewRat(10, 1)
	apply := func(e adjust.Event) {
		m, c := eventTerms(e)
		if mode == adjust.QFQ { // (10(a·p + b) − c)/m
			f.a.Mul(f.a, ten).Quo(f.a, m)
			f.b.Mul(f.b, ten).Sub(f.b, c).Quo(f.b, m)
		} else { // (m(a·p + b) + c)/10
			f.a.Mul(f.a, m).Quo(f.a, ten)
			f.b.Mul(f.b, m).Add(f.b, c).Quo(f.b, ten)
		}
	}
	eachApplied(mode, events, anchor, d, apply)
	return f
}

// eventTerms are an event's m = 10 + bonus + rights and c = cash − rights
// price·rights, per 10 shares: qfq maps p to (10p − c)/m.
func eventTerms(e adjust.Event) (m, c *big.Rat) {
	m = new(big.Rat).Add(big.NewRat(10, 1), decimal(e.BonusPer10, 32))
	m.Add(m, decimal(e.RightsPer10, 32))
	c = new(big.Rat).Mul(decimal(e.RightsPrice, 32), decimal(e.RightsPer10, 32))
	c.Sub(decimal(e.CashPer10, 32), c)
	return m, c
}

// eachApplied calls apply with each event that adjusts a price of day d,
// in the order they apply: qfq every event with d < ex-date ≤ anchor,
// oldest first; hfq every event with anchor < ex-date ≤ d, newest first.
func eachApplied(mode adjust.Mode, events []adjust.Event, anchor, d market.Day, apply func(adjust.Event)) {
	if mode == adjust.QFQ {
		for _, e := range events { // eventsOf keeps the file's order: oldest first
			if d < e.Day && e.Day <= anchor {
				apply(e)
			}
		}
		return
	}
	for i := len(events) - 1; i >= 0; i-- {
		if e := events[i]; anchor < e.Day && e.Day <= d {
			apply(e)
		}
	}
}

// exactInTurn is exactBar's value the long way: raw through each event's
// map in turn.
func exactInTurn(mode adjust.Mode, events []adjust.Event, anchor, d market.Day, raw float64) *big.Rat {
	ten := big.NewRat(10, 1)
	p := decimal(raw, 64)
	eachApplied(mode, events, anchor, d, func(e adjust.Event) {
		m, c := eventTerms(e)
		if mode == adjust.QFQ {
			p.Mul(p, ten).Sub(p, c).Quo(p, m)
		} else {
			p.Mul(p, m).Add(p, c).Quo(p, ten)
		}
	})
	return p
}

// roundHalfAway rounds v to the cent, halves away from zero, and says
// whether v was a midpoint.
func roundHalfAway(v *big.Rat) (float64, bool) {
	x := new(big.Rat).Mul(v, big.NewRat(100, 1))
	fl := new(big.Int).Quo(x.Num(), x.Denom()) // toward zero
	frac := new(big.Rat).Sub(x, new(big.Rat).SetInt(fl))
	half := big.NewRat(1, 2)
	tie := new(big.Rat).Abs(frac).Cmp(half) == 0
	if new(big.Rat).Abs(frac).Cmp(half) >= 0 {
		fl.Add(fl, big.NewInt(int64(x.Sign())))
	}
	f, _ := new(big.Rat).SetFrac(fl, big.NewInt(100)).Float64()
	return f, tie
}

// exactBar's composed map gives the value of each event's map applied in
// turn, to the last digit (rationals): every 25th bar of each bundled
// file, its four prices, both ways.
func TestExactMapIsTheEventsInTurn(t *testing.T) {
	checked := 0
	for _, sr := range []struct{ code, file string }{
		{"000001.SZ", "raw/rustdx-2021/sz000001.day"},
		{"600519.SH", "raw/redmine-2023/sh600519.day"},
		{"000002.SZ", "raw/redmine-2023/sz000002.day"},
		{"603777.SH", "raw/redmine-2023/sh603777.day"},
		{"002709.SZ", "raw/redmine-2023/sz002709.day"},
	} {
		events, bars := eventsOf(t, sr.code), barsOf(t, sr.file)
		for _, mode := range []adjust.Mode{adjust.QFQ, adjust.HFQ} {
			anchor := bars[len(bars)-1].Day
			if mode == adjust.HFQ {
				anchor = bars[0].Day - 1
			}
			for i := 0; i < len(bars); i += 25 {
				for _, f := range ohlc {
					raw := field(bars[i], f)
					got, want := exactBar(t, mode, events, anchor, bars[i].Day, raw), exactInTurn(mode, events, anchor, bars[i].Day, raw)
					if got.Cmp(want) != 0 {
						t.Fatalf("%s %v %v %s %v: composed %s, in turn %s", sr.code, mode, bars[i].Day, f, raw, got.RatString(), want.RatString())
					}
					checked++
				}
			}
		}
	}
	if checked < 1000 {
		t.Errorf("compared %d prices, want thousands", checked)
	}
}
