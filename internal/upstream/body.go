package upstream

import (
	"bytes"
	"compress/flate"
	"compress/gzip"
	"compress/zlib"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strings"
)

// readBody reads and decompresses a reply. Compression is decoded here, not
// by the Transport, because we send a browser's Accept-Encoding ourselves
// and because a gzip stream cut short must count as Truncated (and be
// retried), which the Transport's transparent decoding would blur.
func readBody(ctx context.Context, resp *http.Response, max int64) ([]byte, error) {
	raw, err := io.ReadAll(io.LimitReader(resp.Body, max+1))
	if err != nil {
		return nil, readErr(ctx, err)
	}
	if int64(len(raw)) > max {
		return nil, &Error{Kind: KindMalformed, Detail: fmt.Sprintf("body exceeds %d bytes", max)}
	}
	enc := strings.ToLower(strings.TrimSpace(resp.Header.Get("Content-Encoding")))
	var zr io.Reader
	switch {
	case enc == "gzip" || enc == "x-gzip" || enc == "" && bytes.HasPrefix(raw, []byte{0x1f, 0x8b}):
		gz, err := gzip.NewReader(bytes.NewReader(raw))
		if err != nil {
			return nil, compressErr(err)
		}
		zr = gz
	case enc == "deflate":
		// "deflate" is meant to be zlib-wrapped; some servers send it raw.
		if z, err := zlib.NewReader(bytes.NewReader(raw)); err == nil {
			zr = z
		} else {
			zr = flate.NewReader(bytes.NewReader(raw))
		}
	case enc == "" || enc == "identity":
		return raw, nil
	default:
		return nil, &Error{Kind: KindMalformed, Detail: fmt.Sprintf("unsupported Content-Encoding %q", clip(enc, 20))}
	}
	out, err := io.ReadAll(io.LimitReader(zr, max+1))
	if err != nil {
		return nil, compressErr(err)
	}
	if int64(len(out)) > max {
		return nil, &Error{Kind: KindMalformed, Detail: fmt.Sprintf("decompressed body exceeds %d bytes", max)}
	}
	return out, nil
}

func compressErr(err error) error {
	if errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF) {
		return &Error{Kind: KindTruncated, Detail: "compressed body cut short", Err: err}
	}
	return &Error{Kind: KindMalformed, Detail: "bad compressed body", Err: err}
}

// readErr classifies a failure while reading the body: a short body (the
// server closed before Content-Length) is Truncated and retried like any
// truncation.
func readErr(ctx context.Context, err error) error {
	if ctx.Err() != nil {
		return &Error{Kind: KindCanceled, Err: ctx.Err()}
	}
	if errors.Is(err, io.ErrUnexpectedEOF) {
		return &Error{Kind: KindTruncated, Detail: "body shorter than announced", Err: err}
	}
	if isTimeout(err) {
		return &Error{Kind: KindTimeout, Detail: "reading body", Err: err}
	}
	return &Error{Kind: KindTransport, Detail: "reading body", Err: err}
}

// transportErr classifies a failed round trip. The *url.Error wrapper is
// dropped: its text repeats the full URL, query included.
func transportErr(ctx context.Context, err error) error {
	if ctx.Err() != nil {
		return &Error{Kind: KindCanceled, Err: ctx.Err()}
	}
	timeout := isTimeout(err)
	var ue *url.Error
	if errors.As(err, &ue) && ue.Err != nil {
		err = ue.Err
	}
	if timeout {
		return &Error{Kind: KindTimeout, Err: err}
	}
	return &Error{Kind: KindTransport, Err: err}
}

func isTimeout(err error) bool {
	var ne net.Error
	return errors.As(err, &ne) && ne.Timeout() || errors.Is(err, context.DeadlineExceeded)
}

// looksHTML spots the pages that come instead of JSON: a ban or captcha
// page, a proxy portal, an nginx error page served with 200.
func looksHTML(body []byte, contentType string) bool {
	t := bytes.TrimSpace(bytes.TrimPrefix(bytes.TrimSpace(body), []byte("\xef\xbb\xbf")))
	if len(t) > 0 && t[0] == '<' {
		return true
	}
	if strings.Contains(strings.ToLower(contentType), "text/html") {
		return len(t) == 0 || t[0] != '{' && t[0] != '['
	}
	return false
}

// bodyDetail is a short, printable description of an error body: the
// AKTools {"error": ...} message, an HTML title, or the first words of text.
func bodyDetail(body []byte) string {
	t := bytes.TrimSpace(body)
	if len(t) == 0 {
		return ""
	}
	if t[0] == '{' {
		var e struct {
			Error  string `json:"error"`
			Detail any    `json:"detail"`
		}
		if json.Unmarshal(t, &e) == nil {
			if e.Error != "" {
				return clip(e.Error, 160)
			}
			if e.Detail != nil {
				return clip(fmt.Sprint(e.Detail), 160)
			}
		}
	}
	if title, ok := htmlTitle(t); ok {
		return clip(title, 120)
	}
	return clip(strings.ToValidUTF8(string(t), ""), 120)
}

func htmlTitle(b []byte) (string, bool) {
	// ASCII-only folding keeps byte offsets valid for b.
	lower := make([]byte, len(b))
	for i, c := range b {
		if c >= 'A' && c <= 'Z' {
			c += 'a' - 'A'
		}
		lower[i] = c
	}
	i := bytes.Index(lower, []byte("<title"))
	if i < 0 {
		return "", false
	}
	j := bytes.IndexByte(lower[i:], '>')
	if j < 0 {
		return "", false
	}
	start := i + j + 1
	end := bytes.Index(lower[start:], []byte("</title"))
	if end < 0 {
		return "", false
	}
	return strings.ToValidUTF8(string(b[start:start+end]), ""), true
}
