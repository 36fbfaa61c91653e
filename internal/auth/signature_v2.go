package auth

import (
	"crypto/sha256"
	"crypto/subtle"
	"encoding/hex"
	"fmt"
	"mdqs/internal/market"
	"slices"
	"strings"
)

// Signature versions, as X-Signature-Version names them.
//
// Version 1 is the specification's: MD5 of token + timestamp + nonce +
// body. It is the same for every GET and every empty-body POST, so headers
// made for one request pass on another (issue 27). Version 2 binds the
// request: X-Signature is the lowercase hex HMAC-SHA256, keyed with the
// token's text, of
//
//	METHOD \n PATH \n CANONICAL_QUERY \n X-Timestamp \n X-Nonce \n hex(SHA-256(body))
//
// PATH is the request target's path as sent (its %-escapes untouched);
// CANONICAL_QUERY is CanonicalQuery of the query as sent.
const (
	SignatureV1 = 1
	SignatureV2 = 2
)

// MalformedQueryError is a query string with no canonical form: a %
// not followed by two hex digits.
type MalformedQueryError struct {
	Escape string // the bad escape, at most 3 bytes from its %
}

func (e *MalformedQueryError) Error() string {
	return fmt.Sprintf("malformed %%-escape %q in the query string", e.Escape)
}

// CanonicalQuery is the query string (as sent, without its '?') in the
// form version 2 signs: every pair's name and value decoded as form
// encoding (%XX, and + as a space), then %-encoded byte by byte with only
// RFC 3986's unreserved characters (A-Z a-z 0-9 - _ . ~) bare and
// upper-case hex; the pairs sorted by encoded name, then encoded value
// (byte-wise), joined name=value with &. A pair without '=' has an empty
// value; empty pairs (&&, a trailing &) are skipped; ';' is an ordinary
// character. A malformed %-escape is a *MalformedQueryError.
func CanonicalQuery(raw string) (string, error) {
	if raw == "" {
		return "", nil
	}
	type pair struct{ name, value string }
	pairs := make([]pair, 0, strings.Count(raw, "&")+1)
	size := 0
	for raw != "" {
		var part string
		part, raw, _ = strings.Cut(raw, "&")
		if part == "" {
			continue
		}
		name, value, _ := strings.Cut(part, "=")
		n, err := canonicalComponent(name)
		if err != nil {
			return "", err
		}
		v, err := canonicalComponent(value)
		if err != nil {
			return "", err
		}
		pairs = append(pairs, pair{n, v})
		size += len(n) + len(v) + 2
	}
	slices.SortFunc(pairs, func(a, b pair) int {
		if c := strings.Compare(a.name, b.name); c != 0 {
			return c
		}
		return strings.Compare(a.value, b.value)
	})
	var sb strings.Builder
	sb.Grow(size)
	for i, p := range pairs {
		if i > 0 {
			sb.WriteByte('&')
		}
		sb.WriteString(p.name)
		sb.WriteByte('=')
		sb.WriteString(p.value)
	}
	return sb.String(), nil
}

// canonicalComponent decodes one name or value as form encoding and
// encodes the bytes again, unreserved characters bare.
func canonicalComponent(s string) (string, error) {
	clean := true
	for i := 0; i < len(s); i++ {
		if !unreserved(s[i]) {
			clean = false
			break
		}
	}
	if clean {
		return s, nil // nothing to decode or encode: no copy
	}
	const upperhex = "0123456789ABCDEF"
	out := make([]byte, 0, len(s)+len(s)/2)
	for i := 0; i < len(s); i++ {
		b := s[i]
		switch b {
		case '+':
			b = ' '
		case '%':
			if i+2 >= len(s) || !isHex(s[i+1]) || !isHex(s[i+2]) {
				return "", &MalformedQueryError{Escape: s[i:min(i+3, len(s))]}
			}
			b = unhex(s[i+1])<<4 | unhex(s[i+2])
			i += 2
		}
		if unreserved(b) {
			out = append(out, b)
		} else {
			out = append(out, '%', upperhex[b>>4], upperhex[b&15])
		}
	}
	return string(out), nil
}

func unreserved(c byte) bool {
	return 'A' <= c && c <= 'Z' || 'a' <= c && c <= 'z' || '0' <= c && c <= '9' ||
		c == '-' || c == '_' || c == '.' || c == '~'
}

func isHex(c byte) bool {
	return '0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F'
}

func unhex(c byte) byte {
	switch {
	case c <= '9':
		return c - '0'
	case c >= 'a':
		return c - 'a' + 10
	}
	return c - 'A' + 10
}

// StringToSignV2 is the message version 2's HMAC covers, canonical being
// CanonicalQuery of the query.
func StringToSignV2(method, path, canonical, timestamp, nonce string, body []byte) string {
	sum := sha256.Sum256(body)
	return method + "\n" + path + "\n" + canonical + "\n" + timestamp + "\n" + nonce + "\n" + hex.EncodeToString(sum[:])
}

// SignV2 computes the version 2 signature of a request: method as sent,
// path as sent (its %-escapes untouched), rawQuery the query string as sent
// without its '?'. The error is a *MalformedQueryError.
func SignV2(token, method, path, rawQuery, timestamp, nonce string, body []byte) (string, error) {
	canonical, err := CanonicalQuery(rawQuery)
	if err != nil {
		return "", err
	}
	sum := sumV2(token, method, path, canonical, timestamp, nonce, body)
	return hex.EncodeToString(sum[:]), nil
}

// sumV2 is the version 2 HMAC. It is computed as RFC 2104 writes it,
// with sha256.Sum256 over buffers on the stack when the message fits (a
// GET's does): crypto/hmac's hash.Hash made every part escape to the heap,
// 12 allocations a request. TestHMACAgreesWithCryptoHMAC checks the two agree.
func sumV2(token, method, path, canonical, timestamp, nonce string, body []byte) [sha256.Size]byte {
	bodySum := sha256.Sum256(body)
	var key [sha256.BlockSize]byte // the key padded with zeros; a longer one hashed first
	if len(token) > sha256.BlockSize {
		sum := sha256.Sum256([]byte(token))
		copy(key[:], sum[:])
	} else {
		copy(key[:], token)
	}
	var stack [sha256.BlockSize + 512]byte
	inner := stack[:0]
	if n := sha256.BlockSize + len(method) + len(path) + len(canonical) + len(timestamp) + len(nonce) + 5 + hex.EncodedLen(sha256.Size); n > len(stack) {
		inner = make([]byte, 0, n)
	}
	for _, k := range key {
		inner = append(inner, k^0x36)
	}
	for _, part := range [...]string{method, path, canonical, timestamp, nonce} {
		inner = append(append(inner, part...), '\n')
	}
	inner = hex.AppendEncode(inner, bodySum[:])
	innerSum := sha256.Sum256(inner)
	var outer [sha256.BlockSize + sha256.Size]byte
	for i, k := range key {
		outer[i] = k ^ 0x5c
	}
	copy(outer[sha256.BlockSize:], innerSum[:])
	return sha256.Sum256(outer[:])
}

// signatureV2Matches compares a received version 2 signature with the
// expected one in constant time; upper-case hex is accepted.
func signatureV2Matches(sig, token, method, path, canonical, timestamp, nonce string, body []byte) bool {
	var got [sha256.Size]byte
	if len(sig) != hex.EncodedLen(sha256.Size) {
		return false
	}
	if _, err := hex.Decode(got[:], []byte(sig)); err != nil {
		return false
	}
	want := sumV2(token, method, path, canonical, timestamp, nonce, body)
	return subtle.ConstantTimeCompare(got[:], want[:]) == 1
}

// RequestTarget splits a request target as received (http.Request's
// RequestURI) into the path and the query string version 2 signs: the
// path as sent, %-escapes untouched, and the query without its '?'. An
// absolute-form target (http://host/path?q) gives its path.
func RequestTarget(requestURI string) (path, query string) {
	path, query, _ = strings.Cut(requestURI, "?")
	if path != "" && path[0] != '/' {
		if _, rest, ok := strings.Cut(path, "://"); ok {
			path = "/"
			if i := strings.IndexByte(rest, '/'); i >= 0 {
				path = rest[i:]
			}
		}
	}
	return path, query
}

// The versions a server accepts, as the token answer lists them and the
// X-Signature-Versions header writes them.
var (
	versionsBoth   = []int{SignatureV1, SignatureV2}
	versionsV2Only = []int{SignatureV2}
	headerBoth     = []string{"1, 2"}
	headerV2Only   = []string{"2"}
)

// SignatureVersions lists the signature versions the server accepts:
// [1 2], or [2] with auth.signature_v1 = false. Shared: do not modify.
func (s *Service) SignatureVersions() []int {
	if s.cfg.RefuseSignatureV1 {
		return versionsV2Only
	}
	return versionsBoth
}

// SignatureVersionsHeader is SignatureVersions as the value of the
// X-Signature-Versions header ("1, 2" or "2"). Shared: do not modify.
func (s *Service) SignatureVersionsHeader() []string {
	if s.cfg.RefuseSignatureV1 {
		return headerV2Only
	}
	return headerBoth
}

// The details of a signature refused for its version or its query.
const (
	detailV1Refused = "this server refuses signature version 1 (MD5; auth.signature_v1 = false): " +
		"sign with X-Signature-Version: 2 (HMAC-SHA256 over the method, path, query, timestamp, nonce and body; see docs/security.md)"
	detailVersionBoth   = "X-Signature-Version must be 1 (MD5, also when the header is absent) or 2 (HMAC-SHA256)"
	detailVersionV2Only = "X-Signature-Version must be 2 (HMAC-SHA256): this server refuses version 1 (auth.signature_v1 = false)"
)

// checkSignature checks X-Signature by the version the request names.
// Version 1 stays on its allocation-free path (signatureMatches).
func (s *Service) checkSignature(token string, h Signed, body []byte) error {
	switch h.Version {
	case "", "1":
		if s.cfg.RefuseSignatureV1 {
			return unauthorized(detailV1Refused)
		}
		if !signatureMatches(h.Signature, token, h.Timestamp, h.Nonce, body) {
			return unauthorized("signature mismatch")
		}
		return nil
	case "2":
		canonical, err := CanonicalQuery(h.Query)
		if err != nil {
			return unauthorized("signature version 2: the query string has no canonical form (" + err.Error() +
				"): escape a literal % as %25")
		}
		if !signatureV2Matches(h.Signature, token, h.Method, h.Path, canonical, h.Timestamp, h.Nonce, body) {
			return unauthorized(mismatchV2(h.Method, h.Path, canonical))
		}
		if name, ok := reorderable(canonical); ok {
			// The canonical query sorts a repeated parameter's values, so
			// their order is not signed, and a handler reads the first:
			// whoever alters the request in flight could choose it.
			return market.Errorf(market.KindInvalid, "parameter %s is given more than once with different values: "+
				"signature version 2 does not bind their order, and the server reads the first; send it once", cut(name, 64))
		}
		return nil
	}
	if s.cfg.RefuseSignatureV1 {
		return unauthorized(detailVersionV2Only)
	}
	return unauthorized(detailVersionBoth)
}

// reorderable reports the first name a canonical query repeats with
// different values (the pairs are sorted, so a name's pairs are adjacent).
func reorderable(canonical string) (string, bool) {
	var prevName, prevValue string
	first := true
	for canonical != "" {
		var pair string
		pair, canonical, _ = strings.Cut(canonical, "&")
		name, value, _ := strings.Cut(pair, "=")
		if !first && name == prevName && value != prevValue {
			return name, true
		}
		prevName, prevValue, first = name, value, false
	}
	return "", false
}

func cut(s string, most int) string {
	if len(s) > most {
		return s[:most] + "..."
	}
	return s
}

// mismatchV2 is the detail of a version 2 signature that does not match:
// what the server signed, so a client's author can compare (cut short; it
// is the caller's own request, nothing secret).
func mismatchV2(method, path, canonical string) string {
	const most = 200
	return fmt.Sprintf("signature mismatch (version 2: the server signed method %q, path %q, canonical query %q, "+
		"then X-Timestamp, X-Nonce and the body's SHA-256, one per line)", cut(method, most), cut(path, most), cut(canonical, most))
}
