package minutepack

import (
	"encoding/binary"
	"math"
	"math/bits"

	"mdqs/internal/market"
)

// BarAt is the bar of rec whose TS is ts and the bar before it in the
// record (zero when it is the first), bit for bit what Decode gives for
// them; ok is false when no bar has that TS (of several, the first is
// taken). It is what a cross-section of one minute reads from thousands of
// records, at half (a .lc1 day) to two thirds (a demo day) of Decode's
// cost: it allocates nothing (the inflated body and the flate reader are
// pooled) and computes the two bars' values only, passing over the
// others' varints; inflating is most of what is left.
//
// It walks every column to the record's end, as Decode does, so a record
// cut short, a count, run or bitmap that disagrees with the bars, a bad
// varint or a byte too many is refused (ErrCorrupt) here too. What it does
// not do is check the values of the bars it passes over (a price or
// amount beyond ±2⁵³ units there): a record Decode refuses for those alone
// can still give its other bars here. The store reads back what it
// wrote, so that costs nothing in practice.
func BarAt(rec []byte, ts int64) (bar, prev market.Bar, ok bool, err error) {
	h, body, err := readHeader(rec)
	if err != nil {
		return bar, prev, false, err
	}
	if h.Deflated {
		c := scratch.Get().(*columns)
		defer scratch.Put(c)
		if body, err = c.inflate(body, maxBody(h.Bars)); err != nil {
			return bar, prev, false, err
		}
	}
	r := &reader{b: body}
	n := h.Bars
	k, prevTS := timeIndex(r, n, ts)
	at := [2]int{k - 1, k} // the bar before and the bar; negative: none
	if k < 0 {
		at[0] = -1
	}
	var b [2]market.Bar
	typ, ticks := pricesAt(r, n, at, &b)
	g := int64(r.uvarint())
	pos := 0
	for s, i := range at {
		if i >= 0 {
			r.skip(i - pos)
			b[s].Volume = r.varint() * g
			pos = i + 1
		}
	}
	r.skip(n - pos)
	for _, col := range floatColumns {
		var pred *[2]float64
		if col.predicted && ticks {
			pred = &[2]float64{float64(b[0].Volume) * float64(typ[0]), float64(b[1].Volume) * float64(typ[1])}
		}
		v := floatsAt(r, n, at, pred)
		*col.field(&b[0]), *col.field(&b[1]) = v[0], v[1]
	}
	if r.err != nil {
		return market.Bar{}, market.Bar{}, false, r.err
	}
	if r.off != len(body) {
		return market.Bar{}, market.Bar{}, false, corrupt("%d bytes after the last column", len(body)-r.off)
	}
	if k < 0 {
		return market.Bar{}, market.Bar{}, false, nil
	}
	b[1].Day, b[1].TS = h.Day, ts
	if k > 0 {
		prev = b[0]
		prev.Day, prev.TS = h.Day, prevTS
	}
	return b[1], prev, true, nil
}

// timeIndex reads the time column (see readTimes, whose checks it makes)
// and returns the index of the first bar at ts, -1 when none is, and the
// TS of the bar before it.
func timeIndex(r *reader, n int, ts int64) (k int, prevTS int64) {
	t := r.varint()
	k = -1
	if t == ts {
		k = 0
	}
	if n == 1 {
		return k, 0
	}
	step := int64(r.uvarint())
	runs := r.uvarint()
	if runs < 1 || runs > uint64(n-1) {
		r.fail("time runs")
		return -1, 0
	}
	i := 1
	for range runs {
		m := r.uvarint()
		gap := r.varint() * step
		if r.err != nil {
			return -1, 0
		}
		if m < 1 || m > uint64(n-i) {
			r.fail("time run length")
			return -1, 0
		}
		for range m {
			if k < 0 && t+gap == ts {
				k, prevTS = i, t
			}
			t += gap
			i++
		}
	}
	if i != n {
		r.fail("time runs end early")
	}
	return k, prevTS
}

// pricesAt reads the price block (see readPrices, whose checks it makes
// for the bars it computes) into the prices of b[s] for the bars at[s];
// it returns their typical prices in store units and whether the prices
// are ticks (not raw), for the amount's prediction.
func pricesAt(r *reader, n int, at [2]int, b *[2]market.Bar) (typ [2]int64, ticks bool) {
	var mode byte
	switch r.byte() {
	case pricesRaw:
		raw := r.bytes(4 * 8 * n)
		for s, i := range at {
			if i >= 0 && raw != nil {
				f := func(col int) float64 { return math.Float64frombits(binary.LittleEndian.Uint64(raw[(col*n+i)*8:])) }
				b[s].Open, b[s].High, b[s].Low, b[s].Close = f(0), f(1), f(2), f(3)
			}
		}
		return typ, false
	case pricesOrdered, pricesUnordered:
		mode = r.b[r.off-1]
	default:
		r.fail("price mode")
		return typ, false
	}
	tick := r.uvarint()
	if tick < 1 || tick >= maxMag {
		r.fail("price tick")
		return typ, false
	}
	st := stepper{r: r, tick: int64(tick), lim: maxMag / int64(tick)}
	// Closes up to the bar: the two bars' and the one before the first,
	// which its open is against (the first bar's own close for bar 0).
	k := at[1]
	var c [3]int64 // closes of bars k-2, k-1, k
	prev := int64(0)
	for i := 0; i <= k; i++ {
		prev = st.step(prev, r.varint())
		c[0], c[1], c[2] = c[1], c[2], prev
	}
	r.skip(n - k - 1)
	closeOf := func(i int) int64 { return c[2-(k-i)] }
	first := max(at[0], 0)
	if k < 0 {
		first = n
	}
	for i := range n {
		od, hx, lx := readShape(r)
		if i < first || i > k {
			continue
		}
		dh, dl := int64(hx), int64(lx)
		if mode == pricesUnordered {
			dh, dl = unzigzag(hx), unzigzag(lx)
		} else if dh < 0 || dl < 0 {
			r.fail("bar shape")
		}
		base := closeOf(max(i-1, 0))
		ci := closeOf(i)
		o := st.step(base, unzigzag(od))
		h := st.step(max(o, ci), dh)
		l := st.step(min(o, ci), -dl)
		s := 1 - (k - i)
		b[s].Open, b[s].High, b[s].Low, b[s].Close = float64(o)/priceScale, float64(h)/priceScale, float64(l)/priceScale, float64(ci)/priceScale
		typ[s] = (o + h + l + ci) / 4
	}
	return typ, r.err == nil
}

// floatsAt reads a float column (see readFloats, whose checks it makes for
// the values it computes) and returns the values of the bars at[s]; pred,
// when not nil, is their amounts' predictions.
func floatsAt(r *reader, n int, at [2]int, pred *[2]float64) (v [2]float64) {
	switch r.byte() {
	case floatsUnknown:
		return [2]float64{market.Unknown(), market.Unknown()}
	case floatsDecimals:
	default:
		r.fail("float column kind")
		return v
	}
	e := int(r.byte())
	g := r.uvarint()
	nexc := r.uvarint()
	if r.err != nil {
		return v
	}
	if e > maxDecimals || g < 1 || g >= maxMag || nexc > uint64(n) {
		r.fail("float column header")
		return v
	}
	var bitmap []byte
	if nexc > 0 {
		bitmap = r.bytes((n + 7) / 8)
		if r.err != nil {
			return v
		}
		ones := 0
		for _, b := range bitmap {
			ones += bits.OnesCount8(b)
		}
		if last := n % 8; last != 0 && bitmap[len(bitmap)-1]>>last != 0 || uint64(ones) != nexc {
			r.fail("exception bitmap")
			return v
		}
	}
	// The exceptions' tags, in the bars' order.
	for j, x := range bitmap {
		for ; x != 0; x &= x - 1 {
			i := 8*j + bits.TrailingZeros8(x)
			var f float64
			switch r.byte() {
			case tagUnknown:
				f = market.Unknown()
			case tagRaw:
				f = r.float()
			default:
				r.fail("exception tag")
			}
			for s := range at {
				if at[s] == i {
					v[s] = f
				}
			}
		}
	}
	// The other values, one varint each in the bars' order: the ones
	// before a bar are passed over.
	isExc := func(i int) bool { return bitmap != nil && bitmap[i/8]&(1<<(i%8)) != 0 }
	excBefore := func(i int) int {
		m := 0
		for j := 0; j < i/8 && bitmap != nil; j++ {
			m += bits.OnesCount8(bitmap[j])
		}
		if bitmap != nil && i%8 != 0 {
			m += bits.OnesCount8(bitmap[i/8] & (1<<(i%8) - 1))
		}
		return m
	}
	f := predScale(e, int64(g))
	gi := int64(g)
	lim := maxMag / gi
	pos := 0 // values read so far
	for s, i := range at {
		if i < 0 || isExc(i) {
			continue
		}
		seq := i - excBefore(i)
		r.skip(seq - pos)
		pos = seq + 1
		q := r.varint()
		if pred != nil {
			q += roundInt(pred[s] * f)
		}
		if q > lim || q < -lim {
			r.fail("decimal out of range")
		}
		if r.err != nil {
			return v
		}
		x := q * gi
		if x >= maxMag || x <= -maxMag {
			r.fail("decimal out of range")
			return v
		}
		v[s] = float64(x) / pow10[e]
	}
	r.skip(n - int(nexc) - pos)
	return v
}
