package minutepack

import "encoding/binary"

// A bar's shape is its open against the previous close and its high and
// low beyond its open and close: three small numbers, mostly 0 to 3. Their
// bits interleaved make one uvarint, so a bar whose three fit in two bits
// each costs one byte instead of three.
//
// Numbers of 21 bits or more (a price jump of 2 million ticks) do not
// interleave into 63 bits: the shape is then the escape, the uvarint 2^63,
// followed by the three as uvarints.
const shapeEscape = 1 << 63

func appendShape(dst []byte, a, b, c uint64) []byte {
	if (a|b|c)>>21 != 0 {
		dst = binary.AppendUvarint(dst, shapeEscape)
		dst = binary.AppendUvarint(dst, a)
		dst = binary.AppendUvarint(dst, b)
		return binary.AppendUvarint(dst, c)
	}
	var v uint64
	for k := 0; (a|b|c)>>k != 0; k++ {
		v |= (a>>k&1)<<(3*k) | (b>>k&1)<<(3*k+1) | (c>>k&1)<<(3*k+2)
	}
	return binary.AppendUvarint(dst, v)
}

func readShape(r *reader) (a, b, c uint64) {
	v := r.uvarint()
	if v == shapeEscape {
		return r.uvarint(), r.uvarint(), r.uvarint()
	}
	if v>>63 != 0 {
		r.fail("bar shape")
		return 0, 0, 0
	}
	for k := 0; v>>(3*k) != 0; k++ {
		a |= (v >> (3 * k) & 1) << k
		b |= (v >> (3*k + 1) & 1) << k
		c |= (v >> (3*k + 2) & 1) << k
	}
	return a, b, c
}
