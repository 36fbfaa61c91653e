package minutepack

import (
	"mdqs/internal/market"
)

// Decode unpacks a record written by Encode. A record of another version
// is ErrVersion; a truncated or inconsistent one ErrCorrupt. It never
// allocates for more than MaxBars bars, whatever the record claims.
func Decode(b []byte) ([]market.Bar, error) {
	c := scratch.Get().(*columns)
	defer scratch.Put(c)
	h, err := c.read(b)
	if err != nil {
		return nil, err
	}
	bars := make([]market.Bar, h.Bars)
	for i := range bars {
		bars[i] = c.bar(h.Day, i)
	}
	return bars, nil
}

func readVolumes(r *reader, vol []int64) {
	g := int64(r.uvarint())
	for i := range vol {
		vol[i] = r.varint() * g
	}
}

// maxBody is the largest body Encode can write for n bars: every varint at
// its longest and every float an exception. Inflating stops there, so a
// small hostile record cannot expand into a large allocation.
func maxBody(n int) int {
	const (
		varint = 10
		fixed  = 64         // modes, steps, ticks, counts
		perBar = 2*varint + // a time run
			4*8 + 4*varint + // prices, raw or ticks
			varint + // volume
			3*(1+1+8+varint) // a bitmap bit, tag, raw bits or a varint per float column
	)
	return fixed + n*perBar
}
