package minutepack

import (
	"encoding/binary"
	"fmt"

	"mdqs/internal/market"
)

// Options choose how a record is written; Decode needs none of them.
type Options struct {
	// Deflate compresses the body with compress/flate (the header says so),
	// when that makes the record smaller.
	Deflate bool
}

// Encode packs bars, one code's bars of one day in any order the caller
// keeps (Decode returns them in the same order), into one record. It fails
// only for an empty day, more than MaxBars bars, or bars of different
// days: every value is kept exactly.
func Encode(bars []market.Bar, opts Options) ([]byte, error) {
	if len(bars) == 0 || len(bars) > MaxBars {
		return nil, fmt.Errorf("minutepack: %d bars (want 1..%d)", len(bars), MaxBars)
	}
	day := bars[0].Day
	for _, b := range bars {
		if b.Day != day {
			return nil, fmt.Errorf("minutepack: bars of %v and %v in one record", day, b.Day)
		}
	}
	h := Header{Version: Version, Bars: len(bars), Day: day}
	body := appendBody(make([]byte, 0, 8*len(bars)+64), bars)
	if opts.Deflate {
		if z := deflate(body); len(z) < len(body) {
			h.Deflated = true
			body = z
		}
	}
	out := appendHeader(make([]byte, 0, len(body)+16), h)
	return append(out, body...), nil
}

// The body is the columns in this order: times, prices, volume, amount,
// turnover rate, large-order net.
func appendBody(dst []byte, bars []market.Bar) []byte {
	dst = appendTimes(dst, bars)
	dst, p := appendPrices(dst, bars)
	dst = appendVolumes(dst, bars)
	col := make([]float64, len(bars))
	for _, c := range floatColumns {
		for i := range bars {
			col[i] = *c.field(&bars[i])
		}
		var pred []float64
		if c.predicted {
			pred = amountPrediction(bars, p)
		}
		dst = appendFloats(dst, col, pred)
	}
	return dst
}

var floatColumns = []struct {
	field     func(*market.Bar) *float64
	predicted bool
}{
	{func(b *market.Bar) *float64 { return &b.Amount }, true},
	{func(b *market.Bar) *float64 { return &b.TurnoverRate }, false},
	{func(b *market.Bar) *float64 { return &b.LargeOrderNet }, false},
}

// amountPrediction is volume × price in ten-thousandths of a yuan, nil
// when the prices are raw.
func amountPrediction(bars []market.Bar, p []int64) []float64 {
	if p == nil {
		return nil
	}
	pred := make([]float64, len(bars))
	for i, b := range bars {
		pred[i] = float64(b.Volume) * float64(p[i])
	}
	return pred
}

// Volumes: g uvarint (the gcd: 100 for a day traded in lots), then
// zigzag varint of volume/g per bar. Int64 arithmetic wraps the same way
// both ways, so any volume comes back.
func appendVolumes(dst []byte, bars []market.Bar) []byte {
	vs := make([]int64, len(bars))
	for i, b := range bars {
		vs[i] = b.Volume
	}
	g := gcdOf(vs)
	dst = binary.AppendUvarint(dst, uint64(g))
	for _, v := range vs {
		dst = binary.AppendVarint(dst, v/g)
	}
	return dst
}
