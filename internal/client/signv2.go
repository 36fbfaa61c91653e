package client

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"sort"
	"strconv"
	"strings"
)

// The signature versions a request may be signed with (X-Signature-Version):
// 1, the spec's MD5 of token + timestamp + nonce + body; 2, an HMAC-SHA256
// that binds the method, path, query and body (docs/security.md).
const (
	SignatureV1 = 1
	SignatureV2 = 2
)

// CanonicalQuery is the query string version 2 signs: each pair's name
// and value form-decoded (%XX, + as a space) and %-encoded again with only
// A-Z a-z 0-9 - _ . ~ bare (upper-case hex), sorted by name then value,
// joined name=value with &. A pair without '=' has an empty value; empty
// pairs are skipped. A malformed %-escape has no canonical form: an error.
//
// Written apart from the server's (internal/auth): the two meet only in
// testdata/signature-v2-vectors.json.
func CanonicalQuery(raw string) (string, error) {
	type pair struct{ name, value string }
	var pairs []pair
	for _, part := range strings.Split(raw, "&") {
		if part == "" {
			continue
		}
		name, value, _ := strings.Cut(part, "=")
		n, err := recode(name)
		if err != nil {
			return "", err
		}
		v, err := recode(value)
		if err != nil {
			return "", err
		}
		pairs = append(pairs, pair{n, v})
	}
	sort.Slice(pairs, func(i, j int) bool {
		if pairs[i].name != pairs[j].name {
			return pairs[i].name < pairs[j].name
		}
		return pairs[i].value < pairs[j].value
	})
	out := make([]string, len(pairs))
	for i, p := range pairs {
		out[i] = p.name + "=" + p.value
	}
	return strings.Join(out, "&"), nil
}

// recode form-decodes s and %-encodes every byte but the unreserved ones.
func recode(s string) (string, error) {
	var decoded []byte
	for i := 0; i < len(s); i++ {
		switch c := s[i]; c {
		case '+':
			decoded = append(decoded, ' ')
		case '%':
			if i+2 >= len(s) {
				return "", fmt.Errorf("malformed %%-escape %q in the query string: escape a literal %% as %%25", s[i:])
			}
			b, err := strconv.ParseUint(s[i+1:i+3], 16, 8)
			if err != nil {
				return "", fmt.Errorf("malformed %%-escape %q in the query string: escape a literal %% as %%25", s[i:i+3])
			}
			decoded = append(decoded, byte(b))
			i += 2
		default:
			decoded = append(decoded, c)
		}
	}
	var sb strings.Builder
	for _, b := range decoded {
		if 'A' <= b && b <= 'Z' || 'a' <= b && b <= 'z' || '0' <= b && b <= '9' || strings.IndexByte("-_.~", b) >= 0 {
			sb.WriteByte(b)
		} else {
			fmt.Fprintf(&sb, "%%%02X", b)
		}
	}
	return sb.String(), nil
}

// SignatureHMAC is the version 2 signature: lowercase hex HMAC-SHA256, keyed
// with the token, of method, path (as sent, %-escapes untouched), the
// canonical query of rawQuery (as sent, without '?'), timestamp, nonce and
// the lowercase hex SHA-256 of body, joined by newlines.
func SignatureHMAC(token, method, path, rawQuery, timestamp, nonce string, body []byte) (string, error) {
	canonical, err := CanonicalQuery(rawQuery)
	if err != nil {
		return "", err
	}
	bodySum := sha256.Sum256(body)
	m := hmac.New(sha256.New, []byte(token))
	m.Write([]byte(strings.Join([]string{method, path, canonical, timestamp, nonce, hex.EncodeToString(bodySum[:])}, "\n")))
	return hex.EncodeToString(m.Sum(nil)), nil
}

// parseVersions reads X-Signature-Versions ("1, 2"); nil when absent or
// unreadable.
func parseVersions(h string) []int {
	var vs []int
	for _, f := range strings.Split(h, ",") {
		if v, err := strconv.Atoi(strings.TrimSpace(f)); err == nil {
			vs = append(vs, v)
		}
	}
	return vs
}
