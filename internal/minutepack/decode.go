package minutepack

import (
	"mdqs/internal/market"
)

// Decode unpacks a record written by Encode. A record of another version
// is ErrVersion; a truncated or inconsistent one ErrCorrupt. It never
// allocates for more than MaxBars bars, whatever the record claims.
func Decode(b []byte) ([]market.Bar, error) {
	h, body, err := readHeader(b)
	if err != nil {
		return nil, err
	}
	if h.Deflated {
		if body, err = inflate(body, maxBody(h.Bars)); err != nil {
			return nil, err
		}
	}
	bars := make([]market.Bar, h.Bars)
	for i := range bars {
		bars[i].Day = h.Day
	}
	r := &reader{b: body}
	readTimes(r, bars)
	p := readPrices(r, bars)
	readVolumes(r, bars)
	col := make([]float64, len(bars))
	for _, c := range floatColumns {
		var pred []float64
		if c.predicted {
			pred = amountPrediction(bars, p)
		}
		readFloats(r, col, pred)
		if r.err != nil {
			break
		}
		for i := range bars {
			*c.field(&bars[i]) = col[i]
		}
	}
	if r.err != nil {
		return nil, r.err
	}
	if r.off != len(body) {
		return nil, corrupt("%d bytes after the last column", len(body)-r.off)
	}
	return bars, nil
}

func readVolumes(r *reader, bars []market.Bar) {
	g := int64(r.uvarint())
	for i := range bars {
		bars[i].Volume = r.varint() * g
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
