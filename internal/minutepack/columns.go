package minutepack

import (
	"bytes"
	"compress/flate"
	"io"
	"slices"
	"sync"

	"mdqs/internal/market"
)

// columns is a record read column by column into scratch a decoder keeps:
// Decode copies it into bars, BarAt reads one bar of it. Both take it from
// a pool, so reading a record allocates nothing but what Decode returns;
// a cross-section reads thousands of records in a row.
type columns struct {
	n                      int
	ts                     []int64
	open, high, low, close []float64
	vol                    []int64
	floats                 [3][]float64 // amount, turnover rate, large-order net (floatColumns' order)

	units []int64   // prices in store units, four columns of n (ticks mode)
	typ   []int64   // the typical price of each bar, store units
	pred  []float64 // the amount's prediction of each bar
	body  []byte    // the inflated body
	zr    bytes.Reader
	fr    io.ReadCloser // a flate reader, reset for each record
}

var scratch = sync.Pool{New: func() any { return new(columns) }}

// read checks rec's header and reads its body into c: the one decoder
// behind Decode and BarAt, so they refuse the same records.
func (c *columns) read(rec []byte) (Header, error) {
	h, body, err := readHeader(rec)
	if err != nil {
		return h, err
	}
	if h.Deflated {
		if body, err = c.inflate(body, maxBody(h.Bars)); err != nil {
			return h, err
		}
	}
	c.resize(h.Bars)
	r := &reader{b: body}
	readTimes(r, c.ts)
	p := readPrices(r, c)
	readVolumes(r, c.vol)
	for k, col := range floatColumns {
		var pred []float64
		if col.predicted && p != nil {
			pred = c.pred
			for i, v := range c.vol {
				pred[i] = float64(v) * float64(p[i])
			}
		}
		readFloats(r, c.floats[k], pred)
		if r.err != nil {
			break
		}
	}
	if r.err != nil {
		return h, r.err
	}
	if r.off != len(body) {
		return h, corrupt("%d bytes after the last column", len(body)-r.off)
	}
	return h, nil
}

func (c *columns) resize(n int) {
	c.n = n
	c.ts = grow(c.ts, n)
	c.open, c.high, c.low, c.close = grow(c.open, n), grow(c.high, n), grow(c.low, n), grow(c.close, n)
	c.vol = grow(c.vol, n)
	for k := range c.floats {
		c.floats[k] = grow(c.floats[k], n)
	}
	c.units, c.typ, c.pred = grow(c.units, 4*n), grow(c.typ, n), grow(c.pred, n)
}

// grow is s with length n, its old storage when that is enough.
func grow[T any](s []T, n int) []T {
	if cap(s) < n {
		return make([]T, n)
	}
	return s[:n]
}

// bar is bar i of a record of day.
func (c *columns) bar(day market.Day, i int) market.Bar {
	return market.Bar{Day: day, TS: c.ts[i], Open: c.open[i], High: c.high[i], Low: c.low[i], Close: c.close[i],
		Volume: c.vol[i], Amount: c.floats[0][i], TurnoverRate: c.floats[1][i], LargeOrderNet: c.floats[2][i]}
}

// inflate reads at most limit bytes of z into c's body; a record whose
// body inflates past it, or ends before its final block, is corrupt.
func (c *columns) inflate(z []byte, limit int) ([]byte, error) {
	c.zr.Reset(z)
	if c.fr == nil {
		c.fr = flate.NewReader(&c.zr) // a bytes.Reader is an io.ByteReader: no buffering ahead
	} else if err := c.fr.(flate.Resetter).Reset(&c.zr, nil); err != nil {
		return nil, corrupt("deflate: %v", err)
	}
	buf := c.body[:0]
	for {
		if len(buf) == cap(buf) {
			buf = slices.Grow(buf, min(max(len(buf), 4096), limit+1-len(buf)))
		}
		n, err := c.fr.Read(buf[len(buf):min(cap(buf), limit+1)])
		buf = buf[:len(buf)+n]
		c.body = buf
		if len(buf) > limit {
			return nil, corrupt("body inflates past %d bytes", limit)
		}
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, corrupt("deflate: %v", err)
		}
	}
	if c.zr.Len() != 0 {
		return nil, corrupt("%d bytes after the deflate stream", c.zr.Len())
	}
	return buf, nil
}
