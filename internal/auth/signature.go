package auth

import (
	"crypto/md5"
	"crypto/subtle"
	"encoding/hex"
	"io"
	"strconv"
	"time"
)

// Sign computes the spec's request signature: lowercase hex MD5 of token +
// timestamp + nonce + raw body, over the exact header strings sent.
func Sign(token, timestamp, nonce string, body []byte) string {
	h := md5.New()
	h.Write([]byte(token))
	h.Write([]byte(timestamp))
	h.Write([]byte(nonce))
	h.Write(body)
	return hex.EncodeToString(h.Sum(nil))
}

// signatureMatches compares a received signature with the expected one in
// constant time. Upper-case hex is accepted: it is the same digest.
//
// A GET's signed bytes (token, timestamp, nonce) fit a buffer on the
// stack and are summed with md5.Sum, which allocates nothing; writing them
// through a hash.Hash copied every string into a fresh slice (four
// allocations a request, issue 19). Longer bodies stream.
func signatureMatches(sig, token, timestamp, nonce string, body []byte) bool {
	var got [md5.Size]byte
	if len(sig) != hex.EncodedLen(md5.Size) {
		return false
	}
	if _, err := hex.Decode(got[:], []byte(sig)); err != nil {
		return false
	}
	var want [md5.Size]byte
	var stack [512]byte
	if n := len(token) + len(timestamp) + len(nonce) + len(body); n <= len(stack) {
		b := append(append(append(append(stack[:0], token...), timestamp...), nonce...), body...)
		want = md5.Sum(b)
	} else {
		h := md5.New()
		io.WriteString(h, token)
		io.WriteString(h, timestamp)
		io.WriteString(h, nonce)
		h.Write(body)
		h.Sum(want[:0])
	}
	return subtle.ConstantTimeCompare(got[:], want[:]) == 1
}

// parseTimestamp reads X-Timestamp: decimal epoch seconds.
func parseTimestamp(s string) (time.Time, bool) {
	if len(s) == 0 || len(s) > 13 { // 13 digits: milliseconds, rejected later with a hint
		return time.Time{}, false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return time.Time{}, false
		}
	}
	v, err := strconv.ParseInt(s, 10, 64)
	if err != nil {
		return time.Time{}, false
	}
	return time.Unix(v, 0), true
}

// MaxNonceLen bounds X-Nonce so the replay set's memory stays bounded.
const MaxNonceLen = 128

// validNonce: 1..128 visible ASCII characters (no spaces, no controls).
func validNonce(s string) bool {
	if len(s) == 0 || len(s) > MaxNonceLen {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < 0x21 || s[i] > 0x7e {
			return false
		}
	}
	return true
}
