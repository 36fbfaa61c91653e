package minutepack

import (
	"encoding/binary"
	"math"
)

// reader walks a body; the first error sticks, so a decoder checks once per
// column instead of after every varint.
type reader struct {
	b   []byte
	off int
	err error
}

func (r *reader) fail(what string) {
	if r.err == nil {
		r.err = corrupt("%s at byte %d", what, r.off)
	}
}

// uvarint and varint take most values, a byte long, without a call.
func (r *reader) uvarint() uint64 {
	if r.err != nil {
		return 0
	}
	if r.off < len(r.b) && r.b[r.off] < 0x80 {
		r.off++
		return uint64(r.b[r.off-1])
	}
	v, n := binary.Uvarint(r.b[r.off:])
	if n <= 0 {
		r.fail("bad uvarint")
		return 0
	}
	r.off += n
	return v
}

func (r *reader) varint() int64 {
	if r.err != nil {
		return 0
	}
	if r.off < len(r.b) && r.b[r.off] < 0x80 {
		r.off++
		return unzigzag(uint64(r.b[r.off-1]))
	}
	v, n := binary.Varint(r.b[r.off:])
	if n <= 0 {
		r.fail("bad varint")
		return 0
	}
	r.off += n
	return v
}

// skip passes over m varints (signed or not), refusing what Uvarint
// refuses: one cut short, or longer than a uint64.
func (r *reader) skip(m int) {
	if r.err != nil {
		return
	}
	run := 0 // continuation bytes of the varint under way
	for ; m > 0; r.off++ {
		if r.off >= len(r.b) {
			r.fail("bad uvarint")
			return
		}
		if c := r.b[r.off]; c < 0x80 {
			if run == binary.MaxVarintLen64-1 && c > 1 {
				r.fail("bad uvarint")
				return
			}
			m, run = m-1, 0
		} else if run++; run == binary.MaxVarintLen64 {
			r.fail("bad uvarint")
			return
		}
	}
}

func (r *reader) byte() byte {
	if r.err != nil {
		return 0
	}
	if r.off >= len(r.b) {
		r.fail("short record")
		return 0
	}
	r.off++
	return r.b[r.off-1]
}

func (r *reader) bytes(n int) []byte {
	if r.err != nil {
		return nil
	}
	if n < 0 || n > len(r.b)-r.off {
		r.fail("short record")
		return nil
	}
	r.off += n
	return r.b[r.off-n : r.off]
}

func (r *reader) float() float64 {
	p := r.bytes(8)
	if p == nil {
		return 0
	}
	return math.Float64frombits(binary.LittleEndian.Uint64(p))
}
