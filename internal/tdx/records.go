package tdx

import (
	"errors"
	"io"
)

// recordsPerRead sizes the reused read buffer: large enough that a .day file
// of a few thousand records takes a handful of reads, small enough to stay
// in L1/L2 cache.
const recordsPerRead = 256

// BarRecordSize is the size of every .day, .lc1, .lc5, .1 and .5 record.
const BarRecordSize = 32

// eachRecord reads r in whole records of size bytes through one reused
// buffer and calls fn with each record and its byte offset until fn returns
// false. A trailing incomplete record is returned as a *PartialRecordError;
// stopped reports that fn asked to stop.
func eachRecord(r io.Reader, size int, fn func(off int64, rec []byte) bool) (stopped bool, err error) {
	return eachChunk(r, size, func(off int64, chunk []byte) bool {
		for i := 0; i < len(chunk); i += size {
			if !fn(off+int64(i), chunk[i:i+size:i+size]) {
				return false
			}
		}
		return true
	})
}

// eachChunk is eachRecord a buffer at a time: fn gets every whole record
// read so far (at least one) as one slice starting at file offset off, so
// a decoder can loop over them without a call per record.
func eachChunk(r io.Reader, size int, fn func(off int64, chunk []byte) bool) (stopped bool, err error) {
	buf := make([]byte, size*recordsPerRead)
	var off int64 // file offset of buf[0]
	n := 0        // bytes held in buf
	for {
		m, rerr := r.Read(buf[n:])
		n += m
		if whole := n - n%size; whole > 0 {
			if !fn(off, buf[:whole:whole]) {
				return true, nil
			}
			off += int64(whole)
			n = copy(buf, buf[whole:n])
		}
		switch {
		case rerr == nil:
			continue
		case errors.Is(rerr, io.EOF):
			if n > 0 {
				return false, &PartialRecordError{Offset: off, Len: n, RecordSize: size}
			}
			return false, nil
		default:
			return false, rerr
		}
	}
}
