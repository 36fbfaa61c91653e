package minutepack

import (
	"encoding/binary"

	"mdqs/internal/market"
)

// The time column is the first TS, the step (the gcd of the gaps, 60 for
// one-minute bars), and the gaps in steps as runs: a normal day is two
// runs of 1 around the lunch gap, a few bytes for the whole day.
//
//	first: zigzag varint (Unix seconds)
//	if bars > 1: step uvarint, runs uvarint, runs × (length uvarint ≥ 1, gap/step zigzag varint)
//
// Gaps are int64 differences, wrapping like the decoder's sums, so any
// TS sequence comes back.
func appendTimes(dst []byte, bars []market.Bar) []byte {
	dst = binary.AppendVarint(dst, bars[0].TS)
	if len(bars) == 1 {
		return dst
	}
	gaps := make([]int64, len(bars)-1)
	for i := range gaps {
		gaps[i] = bars[i+1].TS - bars[i].TS
	}
	step := gcdOf(gaps)
	dst = binary.AppendUvarint(dst, uint64(step))
	runs := 0
	for i := range gaps {
		if i == 0 || gaps[i] != gaps[i-1] {
			runs++
		}
	}
	dst = binary.AppendUvarint(dst, uint64(runs))
	for i := 0; i < len(gaps); {
		j := i + 1
		for j < len(gaps) && gaps[j] == gaps[i] {
			j++
		}
		dst = binary.AppendUvarint(dst, uint64(j-i))
		dst = binary.AppendVarint(dst, gaps[i]/step)
		i = j
	}
	return dst
}

func readTimes(r *reader, out []int64) {
	ts := r.varint()
	out[0] = ts
	if len(out) == 1 {
		return
	}
	step := int64(r.uvarint())
	runs := r.uvarint()
	if runs < 1 || runs > uint64(len(out)-1) {
		r.fail("time runs")
		return
	}
	i := 1
	for range runs {
		n := r.uvarint()
		gap := r.varint() * step
		if r.err != nil {
			return
		}
		if n < 1 || n > uint64(len(out)-i) {
			r.fail("time run length")
			return
		}
		for range n {
			ts += gap
			out[i] = ts
			i++
		}
	}
	if i != len(out) {
		r.fail("time runs end early")
	}
}
