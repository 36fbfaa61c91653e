package adjust

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"sort"

	"mdqs/internal/market"
)

// Mode is the kind of adjustment, named as the kline API's adj parameter.
type Mode uint8

const (
	None Mode = iota // unadjusted prices, as traded
	QFQ              // 前复权: anchored at the latest bar, earlier prices moved
	HFQ              // 后复权: anchored at the listing day, later prices moved
)

func (m Mode) String() string {
	switch m {
	case None:
		return "none"
	case QFQ:
		return "qfq"
	case HFQ:
		return "hfq"
	}
	return fmt.Sprintf("mode(%d)", uint8(m))
}

// ParseMode accepts the adj parameter's values: "" or none, qfq, hfq.
func ParseMode(s string) (Mode, error) {
	switch s {
	case "", "none":
		return None, nil
	case "qfq":
		return QFQ, nil
	case "hfq":
		return HFQ, nil
	}
	return None, fmt.Errorf("adj %q: want none, qfq or hfq", s)
}

// Event is one ex-rights/ex-dividend event (除权除息; gbbq category 1), with
// the values as the terminal stores them: per 10 shares, except the rights
// price. Pass float32 values widened exactly, never rounded to the cent.
type Event struct {
	Day         market.Day // ex-date; need not be a trading day
	CashPer10   float64    // 分红: cash dividend, yuan per 10 shares
	RightsPrice float64    // 配股价: rights issue price, yuan per share
	BonusPer10  float64    // 送转股: bonus and transferred shares per 10
	RightsPer10 float64    // 配股: rights shares offered per 10
}

// Ex is the event's ex-reference map p ↦ (p − c)/m, with
// m = (10 + bonus + rights)/10 and c = (cash − rights price·rights)/10:
// the price a cum-event price p corresponds to after the event.
func (e Event) Ex() Affine {
	m, c := e.mc()
	return Affine{A: 1 / m, B: -c / m}
}

// mc returns the event's divisor m and per-share cash c.
func (e Event) mc() (m, c float64) {
	return (10 + e.BonusPer10 + e.RightsPer10) / 10, (e.CashPer10 - e.RightsPrice*e.RightsPer10) / 10
}

func (e Event) check() error {
	for _, v := range [...]float64{e.CashPer10, e.RightsPrice, e.BonusPer10, e.RightsPer10} {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return fmt.Errorf("adjust: event %s: value %v", e.Day, v)
		}
	}
	if m, _ := e.mc(); !(m > 0) {
		return fmt.Errorf("adjust: event %s: bonus %v and rights %v per 10 leave no shares", e.Day, e.BonusPer10, e.RightsPer10)
	}
	return nil
}

// Affine is the price map p ↦ A·p + B. Every adjustment of the terminal's
// method is one: a composition of events' maps is affine again, and its A
// and B depend only on the events, never on prices.
type Affine struct{ A, B float64 }

// Identity is the map that leaves prices as they are.
var Identity = Affine{A: 1}

// Price maps p without rounding.
func (f Affine) Price(p float64) float64 { return f.A*p + f.B }

// Step is the map for the days from From up to the next step's From.
type Step struct {
	From market.Day // the first step's From is 0: every day before the second step
	Affine
}

// Schedule is an adjustment as a step function of the day: a bar dated d
// gets At(d). Steps change on ex-dates, so a schedule holds one step more
// than the events it applies.
type Schedule struct {
	Mode   Mode
	Anchor market.Day // QFQ: the as-of day; HFQ: the listing day; None: 0
	Steps  []Step     // ascending From, never empty
	// Decimals are the security's price decimals, which Apply rounds to:
	// 0 means a stock's 2; a fund is quoted to 3 (0.001), and a cent
	// would lose its last digit even where no event moves a price.
	Decimals int
}

// At is the map for a bar (daily or minute) dated d.
func (s Schedule) At(d market.Day) Affine {
	i := sort.Search(len(s.Steps), func(i int) bool { return s.Steps[i].From > d })
	if i == 0 {
		return Identity
	}
	return s.Steps[i-1].Affine
}

// Round is the terminal's final rounding: to 0.01, halves away from zero,
// on the float64 value (math.Round(x·100)/100). Only output prices are
// rounded, never events or coefficients.
func Round(x float64) float64 { return math.Round(x*100) / 100 }

// RoundTo is Round to decimals places (3 for a fund's 0.001), halves away
// from zero on the float64 value.
func RoundTo(x float64, decimals int) float64 {
	p := math.Pow10(decimals)
	return math.Round(x*p) / p
}

// Apply returns a copy of bars with open, high, low and close mapped by the
// step of each bar's day and rounded to the schedule's decimals (RoundTo).
// Volume, amount and the other fields are copied unchanged, as the
// terminal and EastMoney leave them.
// Bars in ascending order cost one step lookup per ex-date; any order works.
func (s Schedule) Apply(bars []market.Bar) []market.Bar {
	out := make([]market.Bar, len(bars))
	s.ApplyTo(out, bars)
	return out
}

// ApplyTo is Apply into dst, which must be at least as long as bars; dst
// and bars may be the same slice.
func (s Schedule) ApplyTo(dst, bars []market.Bar) {
	dst = dst[:len(bars)]
	steps := s.Steps
	i, f := -1, Identity // steps[i] holds f; -1: before the first step
	p := 100.0           // Round's cent; a fund's 0.001 is 1000 (RoundTo), once a call
	if s.Decimals > 0 {
		p = math.Pow10(s.Decimals)
	}
	for k, b := range bars {
		if i >= 0 && b.Day < steps[i].From || i+1 < len(steps) && b.Day >= steps[i+1].From {
			i = sort.Search(len(steps), func(j int) bool { return steps[j].From > b.Day }) - 1
			f = Identity
			if i >= 0 {
				f = steps[i].Affine
			}
		}
		b.Open = math.Round(f.Price(b.Open)*p) / p
		b.High = math.Round(f.Price(b.High)*p) / p
		b.Low = math.Round(f.Price(b.Low)*p) / p
		b.Close = math.Round(f.Price(b.Close)*p) / p
		dst[k] = b
	}
}

// sorted validates events and returns them sorted by day; events of one day
// keep their order.
func sorted(events []Event) ([]Event, error) {
	for _, e := range events {
		if err := e.check(); err != nil {
			return nil, err
		}
	}
	evs := slices.Clone(events)
	slices.SortStableFunc(evs, func(a, b Event) int { return cmp.Compare(a.Day, b.Day) })
	return evs, nil
}

// exMap is an event reduced to its ex-reference map p ↦ (p − c)/m.
type exMap struct {
	day  market.Day
	m, c float64
}

// Factors builds the terminal's schedule (adjust.md §4) from category-1
// events. QFQ anchors at asOf, the day of the latest bar: a bar dated d gets
// every event with d < ex-date ≤ asOf, oldest first; later events (gbbq holds
// announced ones) are ignored. HFQ anchors at the listing day: a bar dated d
// gets the inverse of every event with listing < ex-date ≤ d; events on or
// before listing (000001 has one) are ignored. None gives the identity.
func Factors(events []Event, mode Mode, anchor market.Day) (Schedule, error) {
	evs, err := sorted(events)
	if err != nil {
		return Schedule{}, err
	}
	maps := make([]exMap, len(evs))
	for i, e := range evs {
		m, c := e.mc()
		maps[i] = exMap{e.Day, m, c}
	}
	return build(maps, mode, anchor)
}

func build(maps []exMap, mode Mode, anchor market.Day) (Schedule, error) {
	switch mode {
	case None:
		return Schedule{Mode: None, Steps: []Step{{Affine: Identity}}}, nil
	case QFQ:
		return qfq(maps, anchor), nil
	case HFQ:
		return hfq(maps, anchor), nil
	}
	return Schedule{}, fmt.Errorf("adjust: unknown mode %v", mode)
}

// qfq walks back from the anchor: crossing an event composes the map so far
// with the event's, A ← A/m, then B ← B − A·c.
func qfq(evs []exMap, asOf market.Day) Schedule {
	n := 0
	for n < len(evs) && evs[n].day <= asOf {
		n++
	}
	steps := make([]Step, n+1)
	f := Identity
	for i := n; i >= 0; i-- {
		steps[i].Affine = f
		if i > 0 {
			steps[i].From = evs[i-1].day
			f.A /= evs[i-1].m
			f.B -= f.A * evs[i-1].c
		}
	}
	return Schedule{Mode: QFQ, Anchor: asOf, Steps: dedupe(steps)}
}

// hfq walks forward from the listing day: crossing an event composes the
// map so far with the event's inverse p ↦ m·p + c, B ← B + A·c, then A ← A·m.
func hfq(evs []exMap, listing market.Day) Schedule {
	i := 0
	for i < len(evs) && evs[i].day <= listing {
		i++
	}
	steps := make([]Step, 0, len(evs)-i+1)
	f := Identity
	steps = append(steps, Step{From: 0, Affine: f})
	for ; i < len(evs); i++ {
		f.B += f.A * evs[i].c
		f.A *= evs[i].m
		steps = append(steps, Step{From: evs[i].day, Affine: f})
	}
	return Schedule{Mode: HFQ, Anchor: listing, Steps: dedupe(steps)}
}

// dedupe keeps the last of steps sharing a From: events of one day all
// apply, and only their composition is ever in force.
func dedupe(steps []Step) []Step {
	out := steps[:0]
	for _, s := range steps {
		if len(out) > 0 && out[len(out)-1].From == s.From {
			out[len(out)-1] = s
			continue
		}
		out = append(out, s)
	}
	return out
}
