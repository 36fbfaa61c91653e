package minutepack

import (
	"encoding/binary"
	"math"

	"mdqs/internal/market"
)

// plainVarints is the baseline the issue measured (8.4 bytes a bar on the
// .lc1 day): per bar, in rows, zigzag varints of the time gap, the close
// against the previous close and open, high and low against the close in
// cents, then the volume and the amount in yuan. It keeps only what that
// file holds, so it is a yardstick, not a format.
func plainVarints(bars []market.Bar) []byte {
	var dst []byte
	cents := func(v float64) int64 { return int64(math.Round(v * 100)) }
	prevTS, prevC := int64(0), int64(0)
	for _, b := range bars {
		c := cents(b.Close)
		dst = binary.AppendVarint(dst, b.TS-prevTS)
		dst = binary.AppendVarint(dst, c-prevC)
		dst = binary.AppendVarint(dst, cents(b.Open)-c)
		dst = binary.AppendVarint(dst, cents(b.High)-c)
		dst = binary.AppendVarint(dst, cents(b.Low)-c)
		dst = binary.AppendVarint(dst, b.Volume)
		dst = binary.AppendVarint(dst, int64(math.Round(b.Amount)))
		prevTS, prevC = b.TS, c
	}
	return dst
}

// fixedRows is the store's numbers as fixed-width binary rows (8 bytes
// for each of TS, four prices, volume, amount, turnover and large-order
// net): what the bars weigh before any table overhead.
func fixedRows(bars []market.Bar) []byte {
	dst := make([]byte, 0, 72*len(bars))
	le := binary.LittleEndian
	for _, b := range bars {
		dst = le.AppendUint64(dst, uint64(b.TS))
		for _, v := range []float64{b.Open, b.High, b.Low, b.Close} {
			dst = le.AppendUint64(dst, uint64(int64(math.Round(v*priceScale))))
		}
		dst = le.AppendUint64(dst, uint64(b.Volume))
		for _, v := range []float64{b.Amount, b.TurnoverRate, b.LargeOrderNet} {
			dst = le.AppendUint64(dst, math.Float64bits(v))
		}
	}
	return dst
}

// readFixedRows reads fixedRows back: the decode baseline, as fast as
// bars can come out of bytes without any packing.
func readFixedRows(b []byte, day market.Day) []market.Bar {
	le := binary.LittleEndian
	bars := make([]market.Bar, len(b)/72)
	for i := range bars {
		r := b[72*i:]
		bars[i] = market.Bar{Day: day, TS: int64(le.Uint64(r)),
			Open: float64(int64(le.Uint64(r[8:]))) / priceScale, High: float64(int64(le.Uint64(r[16:]))) / priceScale,
			Low: float64(int64(le.Uint64(r[24:]))) / priceScale, Close: float64(int64(le.Uint64(r[32:]))) / priceScale,
			Volume: int64(le.Uint64(r[40:])), Amount: math.Float64frombits(le.Uint64(r[48:])),
			TurnoverRate: math.Float64frombits(le.Uint64(r[56:])), LargeOrderNet: math.Float64frombits(le.Uint64(r[64:]))}
	}
	return bars
}
