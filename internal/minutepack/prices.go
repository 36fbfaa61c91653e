package minutepack

import (
	"encoding/binary"
	"math"

	"mdqs/internal/market"
)

// priceScale is the store's precision (db: prices are integer
// ten-thousandths of a yuan); a price is kept in ticks only when it is
// exactly what the store would give back.
const priceScale = 10_000

// Price block modes.
const (
	pricesRaw = iota // 4 × bars float64 bits, LE: open, high, low, close columns
	// tick uvarint, close column, shape column (see shape.go) whose high
	// and low beyond open and close are unsigned: every bar of the day
	// has low <= open, close <= high.
	pricesOrdered
	// the same with high and low beyond open and close zigzag encoded, for
	// days with a bar outside its own range.
	pricesUnordered
)

// storeUnits is v in ten-thousandths of a yuan, as the store rounds it, and
// whether that integer gives v back bit for bit.
func storeUnits(v float64) (int64, bool) {
	x := v * priceScale
	if !(math.Abs(x) < maxMag) {
		return 0, false
	}
	u := int64(math.Round(x))
	return u, math.Float64bits(float64(u)/priceScale) == math.Float64bits(v)
}

// appendPrices writes the price block and returns the bars' prices in
// store units (nil when the day is kept raw) for the amount's prediction.
//
// In ticks the columns are: close minus the previous close (the first
// against 0), open minus the previous close (the first against its close),
// high minus max(open, close), min(open, close) minus low. A minute opens
// where the last one closed and its high and low are mostly at its open or
// close, so most of those are 0: one byte, and runs flate folds.
func appendPrices(dst []byte, bars []market.Bar) ([]byte, []int64) {
	n := len(bars)
	u := make([]int64, 4*n) // o, h, l, c columns
	for i, b := range bars {
		for k, v := range [4]float64{b.Open, b.High, b.Low, b.Close} {
			x, ok := storeUnits(v)
			if !ok {
				dst = append(dst, pricesRaw)
				for _, col := range [4]func(market.Bar) float64{openOf, highOf, lowOf, closeOf} {
					for _, b := range bars {
						dst = binary.LittleEndian.AppendUint64(dst, math.Float64bits(col(b)))
					}
				}
				return dst, nil
			}
			u[k*n+i] = x
		}
	}
	tick := gcdOf(u)
	o, h, l, c := u[:n], u[n:2*n], u[2*n:3*n], u[3*n:]
	mode := byte(pricesOrdered)
	for i := range n {
		if h[i] < max(o[i], c[i]) || l[i] > min(o[i], c[i]) {
			mode = pricesUnordered
		}
	}
	dst = append(dst, mode)
	dst = binary.AppendUvarint(dst, uint64(tick))
	prev := int64(0)
	for i := range n {
		dst = binary.AppendVarint(dst, (c[i]-prev)/tick)
		prev = c[i]
	}
	prev = c[0]
	for i := range n {
		hx, lx := uint64((h[i]-max(o[i], c[i]))/tick), uint64((min(o[i], c[i])-l[i])/tick)
		if mode == pricesUnordered {
			hx, lx = zigzag(int64(hx)), zigzag(int64(lx))
		}
		dst = appendShape(dst, zigzag((o[i]-prev)/tick), hx, lx)
		prev = c[i]
	}
	return dst, typical(make([]int64, n), o, h, l, c)
}

// readPrices fills c's price columns and returns the bars' typical prices
// in store units (nil when the day is kept raw); see appendPrices.
func readPrices(r *reader, c *columns) []int64 {
	n := c.n
	var mode byte
	switch r.byte() {
	case pricesRaw:
		for _, col := range [4][]float64{c.open, c.high, c.low, c.close} {
			for i := range col {
				col[i] = r.float()
			}
		}
		return nil
	case pricesOrdered, pricesUnordered:
		mode = r.b[r.off-1]
	default:
		r.fail("price mode")
		return nil
	}
	tick := r.uvarint()
	if tick < 1 || tick >= maxMag {
		r.fail("price tick")
		return nil
	}
	o, h, l, cl := c.units[:n], c.units[n:2*n], c.units[2*n:3*n], c.units[3*n:4*n]
	s := stepper{r: r, tick: int64(tick), lim: maxMag / int64(tick)}
	// Sums are checked against maxMag as they go, so no column can wrap
	// into a price the encoder never wrote.
	prev := int64(0)
	for i := range n {
		prev = s.step(prev, r.varint())
		cl[i] = prev
	}
	prev = cl[0]
	for i := range n {
		od, hx, lx := readShape(r)
		dh, dl := int64(hx), int64(lx)
		if mode == pricesUnordered {
			dh, dl = unzigzag(hx), unzigzag(lx)
		} else if dh < 0 || dl < 0 {
			r.fail("bar shape")
		}
		o[i] = s.step(prev, unzigzag(od))
		h[i] = s.step(max(o[i], cl[i]), dh)
		l[i] = s.step(min(o[i], cl[i]), -dl)
		prev = cl[i]
	}
	if r.err != nil {
		return nil
	}
	for i := range n {
		c.open[i] = float64(o[i]) / priceScale
		c.high[i] = float64(h[i]) / priceScale
		c.low[i] = float64(l[i]) / priceScale
		c.close[i] = float64(cl[i]) / priceScale
	}
	return typical(c.typ, o, h, l, cl)
}

// stepper adds ticks to prices, failing its reader outside ±maxMag; lim
// is maxMag/tick, divided once a record rather than four times a bar.
type stepper struct {
	r         *reader
	tick, lim int64
}

// step is base + d·tick.
func (s stepper) step(base, d int64) int64 {
	if d > s.lim || d < -s.lim {
		s.r.fail("price out of range")
		return 0
	}
	v := base + d*s.tick
	if v >= maxMag || v <= -maxMag {
		s.r.fail("price out of range")
		return 0
	}
	return v
}

// typical fills p with each bar's (open + high + low + close) / 4 in store
// units, the price the amount is predicted at.
func typical(p, o, h, l, c []int64) []int64 {
	for i := range p {
		p[i] = (o[i] + h[i] + l[i] + c[i]) / 4
	}
	return p
}

func openOf(b market.Bar) float64  { return b.Open }
func highOf(b market.Bar) float64  { return b.High }
func lowOf(b market.Bar) float64   { return b.Low }
func closeOf(b market.Bar) float64 { return b.Close }
