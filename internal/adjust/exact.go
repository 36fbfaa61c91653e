package adjust

import (
	"bytes"
	"math"
	"math/big"
	"strconv"
	"sync"

	"mdqs/internal/market"
)

// Written is the float64 nearest the decimal a stored value was written
// as: a float32 (gbbq's fields) is its shortest float32 decimal, 1.58 for
// 1.58000004; any other value is itself. Integers, and halves, quarters
// and the like, are their own decimals.
func Written(v float64) float64 {
	if v == math.Trunc(v) || float64(float32(v)) != v {
		return v
	}
	w, err := strconv.ParseFloat(strconv.FormatFloat(v, 'g', -1, 32), 64)
	if err != nil {
		return v
	}
	return w
}

// writtenRat is the decimal v was written as, exactly: the shortest
// float32 form of a float32 (Written), else the shortest float64 form, as
// prices are (9.49, never 9.4900000000000002131628).
func writtenRat(v float64) *big.Rat {
	bits := 64
	if float64(float32(v)) == v {
		bits = 32
	}
	r, ok := new(big.Rat).SetString(strconv.FormatFloat(v, 'g', -1, bits))
	if !ok { // NaN or an infinity: check refuses them in events, and a price is neither
		r = new(big.Rat)
	}
	return r
}

// ratMap is an affine map p ↦ a·p + b in rationals.
type ratMap struct{ a, b *big.Rat }

// intMap is an affine map p ↦ (a·p + b)/d in integers: rounding a price
// through it needs no greatest common divisor, which rationals compute
// at every step.
type intMap struct{ a, b, d *big.Int }

// exactSchedule is a Schedule's steps again in exact arithmetic, made the
// first time a price needs them (a few per thousand do: those whose float
// value lies within its error bound of a midpoint), and the same ever
// after: a Schedule is never changed once made.
type exactSchedule struct {
	events []Event // sorted and checked
	mode   Mode
	anchor market.Day
	steps  int // len(Schedule.Steps), which the maps line up with

	once sync.Once
	maps []intMap // nil when they do not line up (never expected): the float map decides
}

// round is p mapped by step i (-1: the identity) and rounded to 1/unit
// (0.01, a fund's 0.001), halves away from zero, all in exact arithmetic; ok is false when the
// maps did not line up with the steps (never expected, see build).
func (x *exactSchedule) round(i int, p float64, unit int64) (rounded float64, ok bool) {
	x.once.Do(x.build)
	num, pow := writtenInt(p) // p = num/pow as written
	den := pow
	if i >= 0 {
		if x.maps == nil {
			return 0, false
		}
		m := x.maps[i]
		num.Mul(num, m.a).Add(num, new(big.Int).Mul(m.b, pow))
		den = new(big.Int).Mul(m.d, pow)
	}
	return roundUnits(num, den, unit), true
}

// writtenInt is the decimal p was written as (its shortest float64 form,
// 9.49 and never 9.4900000000000002131628) as num/10^k.
func writtenInt(p float64) (num, pow *big.Int) {
	var buf [32]byte
	b := strconv.AppendFloat(buf[:0], p, 'f', -1, 64)
	k := 0
	if dot := bytes.IndexByte(b, '.'); dot >= 0 {
		k = len(b) - dot - 1
		b = append(b[:dot], b[dot+1:]...)
	}
	num, ok := new(big.Int).SetString(string(b), 10)
	if !ok { // NaN or an infinity: a price is neither
		num = new(big.Int)
	}
	return num, new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(k)), nil)
}

// roundUnits rounds num/den (den > 0) to 1/unit, halves away from zero:
// ⌊(2·unit·|num| + den) / 2·den⌋ units with num's sign, then the float64
// nearest them.
func roundUnits(num, den *big.Int, unit int64) float64 {
	neg := num.Sign() < 0
	n := new(big.Int).Abs(num)
	n.Mul(n, big.NewInt(2*unit)).Add(n, den)
	c := n.Quo(n, new(big.Int).Lsh(den, 1))
	if neg {
		c.Neg(c)
	}
	if c.IsInt64() {
		return float64(c.Int64()) / float64(unit)
	}
	f, _ := new(big.Rat).SetFrac(c, big.NewInt(unit)).Float64()
	return f
}

// build composes the events as qfq and hfq do in floats, one map per
// step.
func (x *exactSchedule) build() {
	ten := big.NewRat(10, 1)
	type ev struct {
		day  market.Day
		m, c *big.Rat
	}
	evs := make([]ev, len(x.events))
	for i, e := range x.events {
		// m = (10 + bonus + rights)/10, c = (cash − price·rights)/10.
		m := new(big.Rat).Add(ten, writtenRat(e.BonusPer10))
		m.Add(m, writtenRat(e.RightsPer10)).Quo(m, ten)
		c := new(big.Rat).Mul(writtenRat(e.RightsPrice), writtenRat(e.RightsPer10))
		c.Sub(writtenRat(e.CashPer10), c).Quo(c, ten)
		evs[i] = ev{e.Day, m, c}
	}
	type step struct {
		from market.Day
		f    ratMap
	}
	identity := func() ratMap { return ratMap{big.NewRat(1, 1), new(big.Rat)} }
	var steps []step
	switch x.mode {
	case None:
		steps = []step{{0, identity()}}
	case QFQ:
		n := 0
		for n < len(evs) && evs[n].day <= x.anchor {
			n++
		}
		steps = make([]step, n+1)
		a, b := big.NewRat(1, 1), new(big.Rat)
		for i := n; i >= 0; i-- {
			steps[i].f = ratMap{new(big.Rat).Set(a), new(big.Rat).Set(b)}
			if i > 0 {
				steps[i].from = evs[i-1].day
				a.Quo(a, evs[i-1].m)
				b.Sub(b, new(big.Rat).Mul(a, evs[i-1].c))
			}
		}
	case HFQ:
		i := 0
		for i < len(evs) && evs[i].day <= x.anchor {
			i++
		}
		steps = append(steps, step{0, identity()})
		a, b := big.NewRat(1, 1), new(big.Rat)
		for ; i < len(evs); i++ {
			b.Add(b, new(big.Rat).Mul(a, evs[i].c))
			a.Mul(a, evs[i].m)
			steps = append(steps, step{evs[i].day, ratMap{new(big.Rat).Set(a), new(big.Rat).Set(b)}})
		}
	}
	// Events of one day: the last map of a day is the one in force, as
	// dedupe keeps it.
	out := steps[:0]
	for _, s := range steps {
		if len(out) > 0 && out[len(out)-1].from == s.from {
			out[len(out)-1] = s
			continue
		}
		out = append(out, s)
	}
	if len(out) != x.steps {
		return
	}
	x.maps = make([]intMap, len(out))
	for i, s := range out {
		// a/da·p + b/db = (a·db·p + b·da)/(da·db)
		da, db := s.f.a.Denom(), s.f.b.Denom()
		x.maps[i] = intMap{
			a: new(big.Int).Mul(s.f.a.Num(), db),
			b: new(big.Int).Mul(s.f.b.Num(), da),
			d: new(big.Int).Mul(da, db),
		}
	}
}
