package minutepack

import (
	"bytes"
	"compress/flate"
	"io"
	"sync"
)

// A flate writer allocates about a megabyte of tables; the pools keep
// Encode and Decode of a few hundred bytes from paying that every call.
var (
	writers = sync.Pool{New: func() any {
		w, _ := flate.NewWriter(nil, flate.DefaultCompression)
		return w
	}}
	readers = sync.Pool{New: func() any { return flate.NewReader(nil) }}
)

func deflate(body []byte) []byte {
	var buf bytes.Buffer
	w := writers.Get().(*flate.Writer)
	defer writers.Put(w)
	w.Reset(&buf)
	w.Write(body) // a bytes.Buffer cannot fail
	w.Close()
	return buf.Bytes()
}

// inflate reads at most limit bytes of body; a record whose body inflates
// past it, or ends before its final block, is corrupt.
func inflate(z []byte, limit int) ([]byte, error) {
	r := readers.Get().(io.ReadCloser)
	defer readers.Put(r)
	br := bytes.NewReader(z)
	if err := r.(flate.Resetter).Reset(br, nil); err != nil {
		return nil, corrupt("deflate: %v", err)
	}
	out, err := io.ReadAll(io.LimitReader(r, int64(limit)+1))
	if err != nil {
		return nil, corrupt("deflate: %v", err)
	}
	if len(out) > limit {
		return nil, corrupt("body inflates past %d bytes", limit)
	}
	if br.Len() != 0 {
		return nil, corrupt("%d bytes after the deflate stream", br.Len())
	}
	return out, nil
}
