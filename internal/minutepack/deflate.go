package minutepack

import (
	"bytes"
	"compress/flate"
	"sync"
)

// A flate writer allocates about a megabyte of tables; the pool keeps
// Encode of a few hundred bytes from paying that every call (Decode's
// readers live in its scratch columns).
var writers = sync.Pool{New: func() any {
	w, _ := flate.NewWriter(nil, flate.DefaultCompression)
	return w
}}

func deflate(body []byte) []byte {
	var buf bytes.Buffer
	w := writers.Get().(*flate.Writer)
	defer writers.Put(w)
	w.Reset(&buf)
	w.Write(body) // a bytes.Buffer cannot fail
	w.Close()
	return buf.Bytes()
}
