package api

import (
	"bytes"
	"encoding/json"
	"net/http"
	"strconv"
	"sync"
)

// success is the spec's envelope around a payload.
type success struct {
	Code    int    `json:"code"`
	Message string `json:"message"`
	Data    any    `json:"data"`
}

// Header values every answer of a kind carries are shared, never modified
// slices: assigning one costs no allocation, where Header.Set makes a slice
// per call (small answers pay that on every request, issue 19). The keys
// they go under are written in canonical form.
const jsonType = "application/json; charset=utf-8"

var (
	jsonTypeValue = []string{jsonType}
	varyEncoding  = []string{"Accept-Encoding"}
	gzipEncoding  = []string{"gzip"}
	nosniffValue  = []string{"nosniff"}
	noStoreValue  = []string{"no-store"}
)

var bufPool = sync.Pool{New: func() any { return new(bytes.Buffer) }}

// writeJSON encodes v fully before writing, so an encoding failure becomes a
// clean 500 instead of half a body, and Content-Length is always set.
func writeJSON(w http.ResponseWriter, status int, v any) {
	buf := bufPool.Get().(*bytes.Buffer)
	buf.Reset()
	defer bufPool.Put(buf)
	enc := json.NewEncoder(buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		buf.Reset()
		buf.WriteString(`{"code":0,"message":"internal error"}` + "\n")
		status = http.StatusInternalServerError
	}
	writeBytes(w, status, jsonType, buf.Bytes())
}

func writeBytes(w http.ResponseWriter, status int, contentType string, b []byte) {
	h := w.Header()
	if contentType == jsonType {
		h["Content-Type"] = jsonTypeValue
	} else {
		h.Set("Content-Type", contentType)
	}
	h["Content-Length"] = []string{strconv.Itoa(len(b))}
	w.WriteHeader(status)
	w.Write(b)
}

// ok writes a 200 envelope with data.
func ok(w http.ResponseWriter, data any) error {
	writeJSON(w, http.StatusOK, success{Code: 1, Message: "OK", Data: data})
	return nil
}

// bufs holds answer buffers the hand-written encoders reuse: a K-line
// answer is 60–300 KB, and allocating it fresh every request fed the
// collector a third of the path's allocation (issue 19). A buffer is
// back in the pool once writeBytes returned (the server has copied it).
var bufs = sync.Pool{New: func() any { return new([]byte) }}

// maxPooledBuf keeps a rare huge answer from pinning its buffer.
const maxPooledBuf = 4 << 20

func getBuf(size int) *[]byte {
	p := bufs.Get().(*[]byte)
	if cap(*p) < size {
		*p = make([]byte, 0, size)
	}
	return p
}

func putBuf(p *[]byte) {
	if cap(*p) <= maxPooledBuf {
		*p = (*p)[:0]
		bufs.Put(p)
	}
}
