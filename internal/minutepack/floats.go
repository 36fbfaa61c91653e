package minutepack

import (
	"encoding/binary"
	"math"
	"math/bits"

	"mdqs/internal/market"
)

// A float column (amount, turnover rate, large-order net) is one of:
//
//	0: every value is market.Unknown(): nothing follows
//	1: decimals: e byte (0..maxDecimals), g uvarint, exceptions uvarint,
//	   then, when there are exceptions, a bitmap of them (bit i of byte
//	   i/8, LSB first) and per exception a tag byte (0: market.Unknown(),
//	   1: raw, 8 bytes of float64 bits LE follow); then per other value
//	   zigzag varint of value·10^e/g minus the prediction.
//
// A value is a decimal when float64(n)/10^e gives it back bit for bit: a
// yuan amount is n with e = 0, a turnover of 2 decimals n with e = 2.
// Everything else is an exception, so the column is exact for any float64.
const (
	floatsUnknown  byte = 0
	floatsDecimals byte = 1

	tagUnknown byte = 0
	tagRaw     byte = 1
)

// maxDecimals bounds e: sources give at most 4 decimals; a value needing
// more than 9 is an exception rather than a column of huge integers.
const maxDecimals = 9

var pow10 = [maxDecimals + 1]float64{1, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9}

var unknownBits = math.Float64bits(market.Unknown())

// decimalAt is v·10^e as an integer, if float64(n)/10^e is v bit for bit.
func decimalAt(v float64, e int) (int64, bool) {
	x := v * pow10[e]
	if !(math.Abs(x) < maxMag) {
		return 0, false
	}
	n := int64(math.Round(x))
	return n, math.Float64bits(float64(n)/pow10[e]) == math.Float64bits(v)
}

// appendFloats writes column vs. pred, when not nil, is each value's
// expected size in ten-thousandths of a yuan (volume × price): the amount
// is stored as its difference from that, a few bits instead of a few bytes.
func appendFloats(dst []byte, vs []float64, pred []float64) []byte {
	allUnknown := true
	for _, v := range vs {
		allUnknown = allUnknown && math.Float64bits(v) == unknownBits
	}
	if allUnknown {
		return append(dst, floatsUnknown)
	}
	// The column's e is the most any value needs, so each is exact at it.
	e := 0
	for _, v := range vs {
		for k := e; k <= maxDecimals; k++ {
			if _, ok := decimalAt(v, k); ok {
				e = k
				break
			}
		}
	}
	ns := make([]int64, len(vs))
	exc := make([]bool, len(vs))
	nexc := 0
	for i, v := range vs {
		n, ok := decimalAt(v, e)
		ns[i], exc[i] = n, !ok
		if !ok {
			nexc++
		}
	}
	g := gcdOf(ns)
	dst = append(dst, floatsDecimals, byte(e))
	dst = binary.AppendUvarint(dst, uint64(g))
	dst = binary.AppendUvarint(dst, uint64(nexc))
	if nexc > 0 {
		bitmap := make([]byte, (len(vs)+7)/8)
		for i, x := range exc {
			if x {
				bitmap[i/8] |= 1 << (i % 8)
			}
		}
		dst = append(dst, bitmap...)
		for i, x := range exc {
			switch {
			case !x:
			case math.Float64bits(vs[i]) == unknownBits:
				dst = append(dst, tagUnknown)
			default:
				dst = append(dst, tagRaw)
				dst = binary.LittleEndian.AppendUint64(dst, math.Float64bits(vs[i]))
			}
		}
	}
	f := predScale(e, g)
	for i, n := range ns {
		if !exc[i] {
			dst = binary.AppendVarint(dst, n/g-predicted(pred, i, f))
		}
	}
	return dst
}

// readFloats reads a column into vs; see appendFloats.
func readFloats(r *reader, vs []float64, pred []float64) {
	switch r.byte() {
	case floatsUnknown:
		for i := range vs {
			vs[i] = market.Unknown()
		}
		return
	case floatsDecimals:
	default:
		r.fail("float column kind")
		return
	}
	e := int(r.byte())
	g := r.uvarint()
	nexc := r.uvarint()
	if r.err != nil {
		return
	}
	if e > maxDecimals || g < 1 || g >= maxMag || nexc > uint64(len(vs)) {
		r.fail("float column header")
		return
	}
	var bitmap []byte
	if nexc > 0 {
		bitmap = r.bytes((len(vs) + 7) / 8)
		if r.err != nil {
			return
		}
		ones := 0
		for _, b := range bitmap {
			ones += bits.OnesCount8(b)
		}
		if last := len(vs) % 8; last != 0 && bitmap[len(bitmap)-1]>>last != 0 || uint64(ones) != nexc {
			r.fail("exception bitmap")
			return
		}
	}
	isExc := func(i int) bool { return bitmap != nil && bitmap[i/8]&(1<<(i%8)) != 0 }
	for i := range vs {
		if !isExc(i) {
			continue
		}
		switch r.byte() {
		case tagUnknown:
			vs[i] = market.Unknown()
		case tagRaw:
			vs[i] = r.float()
		default:
			r.fail("exception tag")
		}
	}
	f := predScale(e, int64(g))
	gi := int64(g)
	lim := maxMag / gi
	for i := range vs {
		if isExc(i) {
			continue
		}
		q := r.varint() + predicted(pred, i, f)
		if q > lim || q < -lim {
			r.fail("decimal out of range")
		}
		if r.err != nil {
			return
		}
		n := q * gi
		if n >= maxMag || n <= -maxMag {
			r.fail("decimal out of range")
			return
		}
		vs[i] = float64(n) / pow10[e]
	}
}

// predScale turns a prediction in ten-thousandths of a yuan into the
// column's units of 10^-e/g.
func predScale(e int, g int64) float64 { return pow10[e] / (priceScale * float64(g)) }

// predicted is the prediction of value i in column units, 0 without one.
// Encoder and decoder compute it from the same integers with the same
// two roundings, so it needs no bits of its own.
func predicted(pred []float64, i int, f float64) int64 {
	if pred == nil {
		return 0
	}
	return roundInt(pred[i] * f)
}
