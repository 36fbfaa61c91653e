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
// price. Pass the decimals the gbbq's float32s stand for (tdx.Decimal32,
// as the terminal's import stores them) or float32 values widened
// exactly, never rounded to the cent: either way each value counts as the
// decimal it was written as (Written), 1.58 and not 1.58000004.
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

// mc returns the event's divisor m and per-share cash c, from the values
// as written.
func (e Event) mc() (m, c float64) {
	cash, price, bonus, rights := Written(e.CashPer10), Written(e.RightsPrice), Written(e.BonusPer10), Written(e.RightsPer10)
	return (10 + bonus + rights) / 10, (cash - price*rights) / 10
}

// storedMC is mc from the values as stored, float32 noise and all: what
// the ratio method's providers were reproduced with (ratio.go). A value
// given as its decimal (tdx.Decimal32, as the terminal's import reads it)
// is the same float32 again.
func (e Event) storedMC() (m, c float64) {
	cash, price, bonus, rights := stored32(e.CashPer10), stored32(e.RightsPrice), stored32(e.BonusPer10), stored32(e.RightsPer10)
	return (10 + bonus + rights) / 10, (cash - price*rights) / 10
}

// stored32 is v as the gbbq stores it, a float32 widened: the same for a
// value given so, and for its decimal (1.58 is 1.5800000429153442).
// Values beyond float32's range stay as they are.
func stored32(v float64) float64 {
	if f := float64(float32(v)); !math.IsInf(f, 0) || math.IsInf(v, 0) {
		return f
	}
	return v
}

func (e Event) check() error {
	for _, v := range [...]float64{e.CashPer10, e.RightsPrice, e.BonusPer10, e.RightsPer10} {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return fmt.Errorf("adjust: event %s: value %v", e.Day, v)
		}
	}
	if m, _ := e.storedMC(); !(m > 0) {
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
	// mag bounds the terms B was summed from (Σ|A·c|), which bound its
	// float error: see Schedule.round.
	mag float64
}

// Schedule is an adjustment as a step function of the day: a bar dated d
// gets At(d). Steps change on ex-dates, so a schedule holds one step more
// than the events it applies.
type Schedule struct {
	Mode   Mode
	Anchor market.Day // QFQ: the as-of day; HFQ: the listing day; None: 0
	Steps  []Step     // ascending From, never empty
	// exact gives each step's map in exact rationals, for the prices the
	// float map leaves within a hair of a rounding midpoint; nil (Ratio, a
	// schedule made by hand): the float map decides.
	exact *exactSchedule
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

// Round rounds a float64 to 0.01, halves away from zero
// (math.Round(x·100)/100). It is exact only where x is: a price computed
// in floats that should sit on a midpoint may sit a hair below it and go
// toward zero, so adjusted prices are rounded by Schedule.Price and Apply,
// which settle those in exact arithmetic.
func Round(x float64) float64 { return math.Round(x*100) / 100 }

// RoundTo is Round to decimals places (3 for a fund's 0.001), halves away
// from zero on the float64 value.
func RoundTo(x float64, decimals int) float64 {
	p := math.Pow10(decimals)
	return math.Round(x*p) / p
}

// Price is p's adjusted price on day d rounded to the schedule's decimals
// (0.01, a fund's 0.001), halves away from zero, as exact arithmetic on
// the decimals written (the events' values and p) rounds it: the float map
// decides unless its value lies within its error bound of a midpoint, and
// then rationals do.
func (s Schedule) Price(d market.Day, p float64) float64 {
	r := s.rounder(sort.Search(len(s.Steps), func(i int) bool { return s.Steps[i].From > d }) - 1)
	return r.round(p)
}

// rounder maps and rounds prices by one step of a schedule.
type rounder struct {
	f     Affine
	scale float64 // |B| + mag: with |A·p|, what the float error is relative to
	i     int     // the step; -1: before the first, the identity
	exact *exactSchedule
	unit  int64 // 100 for a cent, 1000 for a fund's 0.001
}

func (s *Schedule) rounder(i int) rounder {
	r := rounder{f: Identity, i: i, exact: s.exact, unit: 100}
	if s.Decimals > 0 {
		r.unit = int64(math.Pow10(s.Decimals))
	}
	if i >= 0 {
		st := &s.Steps[i]
		r.f, r.scale = st.Affine, math.Abs(st.B)+st.mag
	}
	return r
}

// round maps p and rounds it. The float value's error is below n·ε of the
// terms it sums (n operations, ε = 2⁻⁵³): 1e-12 of them is over 40 times
// that for 200 events, so outside that band around a midpoint the float's
// rounding is the exact one.
func (r *rounder) round(p float64) float64 {
	ap := r.f.A * p
	u := float64(r.unit)
	x := (ap + r.f.B) * u
	n := math.Round(x)
	if r.exact != nil && math.Abs(math.Abs(x-n)-0.5) <= 1e-12*u*(math.Abs(ap)+r.scale) {
		return r.slow(p, n)
	}
	return n / u
}

// slow is round in rationals; n is the float's rounding, kept should the
// exact maps be missing. Not inlined, so that round is.
//
//go:noinline
func (r *rounder) slow(p, n float64) float64 {
	if c, ok := r.exact.round(r.i, p, r.unit); ok {
		return c
	}
	return n / float64(r.unit)
}

// Apply returns a copy of bars with open, high, low and close mapped by the
// step of each bar's day and rounded to the schedule's decimals (Price). Volume, amount and the other
// fields are copied unchanged, as the terminal and EastMoney leave them.
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
	i := -1 // the step of the bar before; -1: before the first step
	r := s.rounder(i)
	for k, b := range bars {
		if i >= 0 && b.Day < steps[i].From || i+1 < len(steps) && b.Day >= steps[i+1].From {
			i = sort.Search(len(steps), func(j int) bool { return steps[j].From > b.Day }) - 1
			r = s.rounder(i)
		}
		b.Open = r.round(b.Open)
		b.High = r.round(b.High)
		b.Low = r.round(b.Low)
		b.Close = r.round(b.Close)
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
	s, err := build(maps, mode, anchor)
	if err == nil {
		s.exact = &exactSchedule{events: evs, mode: mode, anchor: anchor, steps: len(s.Steps)}
	}
	return s, err
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
	f, mag := Identity, 0.0
	for i := n; i >= 0; i-- {
		steps[i].Affine, steps[i].mag = f, mag
		if i > 0 {
			steps[i].From = evs[i-1].day
			f.A /= evs[i-1].m
			f.B -= f.A * evs[i-1].c
			mag += math.Abs(f.A * evs[i-1].c)
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
	f, mag := Identity, 0.0
	steps = append(steps, Step{From: 0, Affine: f})
	for ; i < len(evs); i++ {
		f.B += f.A * evs[i].c
		mag += math.Abs(f.A * evs[i].c)
		f.A *= evs[i].m
		steps = append(steps, Step{From: evs[i].day, Affine: f, mag: mag})
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
