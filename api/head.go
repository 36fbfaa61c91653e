package api

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"

	"mdqs/internal/market"
)

// The bounds of a request's head. A request over them is answered with
// the envelope: 414 for the request target, 431 for the header fields,
// naming the field to shorten. The longest legitimate head is a signed
// request with a token and a 50-code query: under 2 KiB.
const (
	maxURIBytes    = 64 << 10 // the request target: path and query string, escaped (a query string over maxQueryBytes is the query helper's 400)
	maxHeaderBytes = 64 << 10 // every header field, names and values

	// ReadHeaderLimit is the http.Server's MaxHeaderBytes: above the
	// bounds, so that a head over them reaches Handler, which says what
	// to fix. A head over this one too is refused by net/http before any
	// handler runs; Listener turns that answer into the envelope as well.
	ReadHeaderLimit = 1 << 20
)

// checkHead is the request's head against the bounds; nil if within.
func checkHead(r *http.Request) error {
	if n := len(r.RequestURI); n > maxURIBytes {
		return market.Errorf(market.KindURITooLong,
			"the request target (path and query string) is %d bytes; at most %d are accepted: send fewer or shorter parameters", n, maxURIBytes)
	}
	total, largest, largestBytes := 0, "", 0
	for name, values := range r.Header {
		for _, v := range values {
			n := len(name) + len(v) + 4 // "Name: value\r\n"
			total += n
			if n > largestBytes {
				largest, largestBytes = name, n
			}
		}
	}
	if total > maxHeaderBytes {
		if len(largest) > 64 {
			largest = largest[:64] + "..."
		}
		return market.Errorf(market.KindHeaderTooLarge,
			"the header fields are %d bytes; at most %d are accepted (the largest, %s, is %d bytes): send shorter header fields",
			total, maxHeaderBytes, largest, largestBytes)
	}
	return nil
}

// Listener makes every answer of a server serving ln the envelope, even
// those net/http writes itself, before any handler, on a request it cannot
// read: a head over ReadHeaderLimit (431), a malformed request line or
// header (400), an HTTP version or transfer coding it does not speak, an
// Expect it does not meet. It recognises them by their exact form (plain
// text, no Date header, which every handler's answer has) and writes the
// same status's envelope instead (400 for the ones no error kind has).
func Listener(ln net.Listener) net.Listener { return envelopeListener{ln} }

type envelopeListener struct{ net.Listener }

func (l envelopeListener) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err != nil {
		return nil, err
	}
	return envelopeConn{c}, nil
}

type envelopeConn struct{ net.Conn }

func (c envelopeConn) Write(p []byte) (int, error) {
	// Only an error status ("HTTP/1.1 4xx" or "5xx") is looked at further.
	if len(p) > 9 && p[9] >= '4' && bytes.HasPrefix(p, []byte("HTTP/1.1 ")) {
		if e := netHTTPError(p); e != nil {
			if _, err := c.Conn.Write(envelopeResponse(e)); err != nil {
				return 0, err
			}
			return len(p), nil
		}
	}
	return c.Conn.Write(p)
}

// CloseWrite lets net/http half-close after its 431, so that the client
// reads the answer before the connection goes.
func (c envelopeConn) CloseWrite() error {
	if cw, ok := c.Conn.(interface{ CloseWrite() error }); ok {
		return cw.CloseWrite()
	}
	return nil
}

// ReadFrom keeps sendfile for bodies copied from files.
func (c envelopeConn) ReadFrom(r io.Reader) (int64, error) {
	if rf, ok := c.Conn.(io.ReaderFrom); ok {
		return rf.ReadFrom(r)
	}
	return io.Copy(struct{ io.Writer }{c.Conn}, r)
}

// netHTTPError is the error of an answer net/http wrote by itself, nil if
// p is anything else. The forms are net/http's (server.go, conn.serve):
//
//	HTTP/1.1 431 Request Header Fields Too Large<errorHeaders>431 Request Header Fields Too Large
//	HTTP/1.1 400 Bad Request<errorHeaders>400 Bad Request
//	HTTP/1.1 400 Bad Request: TEXT<errorHeaders>400 Bad Request: TEXT (and 505 likewise)
//	HTTP/1.1 501 Not Implemented<errorHeaders>Unsupported transfer encoding
//	HTTP/1.1 417 Expectation Failed\r\nConnection: close\r\nDate: ...\r\nContent-Length: 0\r\n\r\n
func netHTTPError(p []byte) *market.Error {
	const errorHeaders = "\r\nContent-Type: text/plain; charset=utf-8\r\nConnection: close\r\n\r\n"
	if bytes.HasPrefix(p, []byte("HTTP/1.1 417 Expectation Failed\r\n")) {
		return market.Errorf(market.KindInvalid, "the Expect header asks for something this server does not do: send no Expect, or Expect: 100-continue").(*market.Error)
	}
	i := bytes.Index(p, []byte(errorHeaders))
	if i < 0 {
		return nil
	}
	status, body := string(p[len("HTTP/1.1 "):i]), string(p[i+len(errorHeaders):])
	switch {
	case strings.ContainsAny(status, "\r\n"):
		return nil
	case status == "431 Request Header Fields Too Large" && body == status:
		return market.Errorf(market.KindHeaderTooLarge,
			"the request line and header fields are over %d bytes; a request target is accepted up to %d bytes and header fields up to %d in all",
			ReadHeaderLimit, maxURIBytes, maxHeaderBytes).(*market.Error)
	case status == "501 Not Implemented" && body == "Unsupported transfer encoding":
		return market.Errorf(market.KindInvalid, "the Transfer-Encoding is not supported: send the body with Content-Length, or chunked").(*market.Error)
	case body == status && (strings.HasPrefix(status, "400 Bad Request") || strings.HasPrefix(status, "505 ")):
		why := "malformed request line or header field"
		if _, text, ok := strings.Cut(status, ": "); ok {
			why = text
		}
		return market.Errorf(market.KindInvalid, "the request is not valid HTTP/1.1 (%s): send a well-formed request", why).(*market.Error)
	}
	return nil
}

// envelopeResponse is a whole HTTP/1.1 answer carrying e's envelope, for
// a connection that closes after it.
func envelopeResponse(e *market.Error) []byte {
	body, _ := json.Marshal(failure{Code: 0, Message: e.Message, Detail: e.Detail})
	status := statusOf(e.Kind)
	return fmt.Appendf(nil, "HTTP/1.1 %d %s\r\nContent-Type: application/json; charset=utf-8\r\nX-Content-Type-Options: nosniff\r\n"+
		"Cache-Control: no-store\r\nConnection: close\r\nContent-Length: %d\r\n\r\n%s", status, http.StatusText(status), len(body), body)
}
