// Package webhook sends alert messages to the chat apps traders use
// (DingTalk, WeCom, Feishu group robots) and to any HTTP receiver
// (generic: JSON signed with HMAC-SHA256). It builds each vendor's body,
// signs as the vendor documents, reads the vendor's answer (a 200 whose
// errcode or code is not 0 is a failure), and sends through a client whose
// dialer refuses loopback, private and link-local addresses unless the
// configuration allows them, so an alert cannot be pointed into the
// trader's LAN. It knows nothing of the store: the alert service keeps the
// outbox and decides when to try again.
package webhook

import (
	"context"
	"net/netip"
	"net/url"
	"sort"
	"strings"
	"time"
	"unicode/utf8"

	"mdqs/internal/market"
)

// The formats a webhook speaks.
const (
	Generic  = "generic"
	DingTalk = "dingtalk"
	WeCom    = "wecom"
	Feishu   = "feishu"
)

// Formats lists them in the order the API documents.
var Formats = []string{Generic, DingTalk, WeCom, Feishu}

// Target is where a message goes and how it is signed.
type Target struct {
	URL    string `json:"url"`
	Format string `json:"format"`
	Secret string `json:"secret"`
}

// Resolver looks a host name up; net.DefaultResolver.LookupNetIP does.
type Resolver func(ctx context.Context, network, host string) ([]netip.Addr, error)

const (
	maxURL    = 2048
	maxSecret = 256
	// lookupTimeout bounds the create-time look-up of a name: an offline
	// machine should not keep a create waiting (the dialer checks again
	// at every send anyway).
	lookupTimeout = 2 * time.Second
)

// Validate checks a webhook at the alert's creation, with errors that say
// what to fix (400s). The address check here is a courtesy: the dialer
// checks every address it connects to, whatever a name resolves to later.
// resolve may be nil (names are then checked only at send).
func Validate(ctx context.Context, t Target, allowPrivate bool, resolve Resolver) error {
	bad := func(format string, args ...any) error { return market.Errorf(market.KindInvalid, format, args...) }
	if !isFormat(t.Format) {
		return bad("webhook.format %q: want one of %s", t.Format, strings.Join(Formats, ", "))
	}
	if len(t.URL) > maxURL {
		return bad("webhook.url is at most %d bytes", maxURL)
	}
	u, err := url.Parse(t.URL)
	if err != nil || u.Host == "" || u.Opaque != "" {
		return bad("webhook.url %q: want an absolute URL such as https://oapi.dingtalk.com/robot/send?access_token=...", Redact(t.URL))
	}
	if u.Scheme != "http" && u.Scheme != "https" {
		return bad("webhook.url: only http and https URLs are sent to, got %q", u.Scheme)
	}
	q := u.Query()
	switch t.Format {
	case DingTalk:
		if q.Get("access_token") == "" {
			return bad("webhook.url: a DingTalk robot's URL carries access_token=... (copy the whole Webhook address from the robot's settings)")
		}
	case WeCom:
		if q.Get("key") == "" {
			return bad("webhook.url: a WeCom group robot's URL carries key=... (copy the whole Webhook address from the robot's settings)")
		}
		if t.Secret != "" {
			return bad("webhook.secret: a WeCom group robot takes no secret; the key in its URL is the credential")
		}
	case Generic:
		if t.Secret == "" {
			return bad("webhook.secret: a generic webhook is signed (X-Mdqs-Signature); give a secret the receiver also knows")
		}
	}
	// DingTalk and Feishu robots may guard themselves with keywords or an
	// IP allow-list instead of 加签 / 签名校验, so their secret is optional.
	if len(t.Secret) > maxSecret || !utf8.ValidString(t.Secret) || strings.ContainsAny(t.Secret, "\r\n") {
		return bad("webhook.secret: at most %d bytes of text on one line", maxSecret)
	}
	if allowPrivate {
		return nil
	}
	host := u.Hostname()
	if a, err := netip.ParseAddr(strings.TrimSuffix(strings.TrimPrefix(host, "["), "]")); err == nil {
		if Private(a) {
			return bad("webhook.url: %s is %s", a.Unmap(), notPublic)
		}
		return nil
	}
	lower := strings.ToLower(strings.TrimSuffix(host, "."))
	if lower == "localhost" || strings.HasSuffix(lower, ".localhost") {
		return bad("webhook.url: %s is %s", host, notPublic)
	}
	if resolve == nil {
		return nil
	}
	lctx, cancel := context.WithTimeout(ctx, lookupTimeout)
	defer cancel()
	addrs, err := resolve(lctx, "ip", host)
	if err != nil {
		return nil // offline now, or a name not yet published: the dialer decides at send
	}
	for _, a := range addrs {
		if Private(a) {
			return bad("webhook.url: %s resolves to %s, %s", host, a.Unmap(), notPublic)
		}
	}
	return nil
}

func isFormat(f string) bool {
	for _, x := range Formats {
		if f == x {
			return true
		}
	}
	return false
}

// Redact is a webhook URL fit to show and log: the credential of a chat
// robot sits in the URL (DingTalk's access_token, WeCom's key, Feishu's
// hook id in the path), so query values, user info and every path segment
// of 16 or more characters are masked; scheme, host and the short path
// parts stay, which is enough to tell two webhooks apart.
func Redact(raw string) string {
	u, err := url.Parse(raw)
	if err != nil || u.Host == "" || u.Scheme == "" {
		return "(not a URL)"
	}
	var b strings.Builder
	b.WriteString(u.Scheme + "://")
	if u.User != nil {
		b.WriteString("***@")
	}
	b.WriteString(u.Host)
	segs := strings.Split(u.EscapedPath(), "/")
	for i, s := range segs {
		if len(s) >= 16 {
			segs[i] = "***"
		}
	}
	b.WriteString(strings.Join(segs, "/"))
	if q := u.Query(); len(q) > 0 {
		keys := make([]string, 0, len(q))
		for k := range q {
			keys = append(keys, url.QueryEscape(k)+"=***")
		}
		sort.Strings(keys)
		b.WriteString("?" + strings.Join(keys, "&"))
	}
	return b.String()
}

// dialTimeout bounds the connection; the whole exchange is bounded by
// the sender's timeout.
const dialTimeout = 5 * time.Second
