package api

import (
	"net/http"
	"net/netip"
	"strings"

	"mdqs/internal/market"
)

// HostCheck says which Host headers the server answers (issue 27). A web
// page whose own name its DNS server points at 127.0.0.1 (DNS rebinding)
// is same-origin with that name, so the browser lets it read the answers
// of a server on loopback: in demo mode it could take a token with the
// public demo secret, and anywhere it could read /metrics and
// /debug/pprof, which trust loopback callers. The one thing such a request
// cannot change is its Host: the page's name. So a server on loopback
// answers only requests whose Host is localhost, a loopback address (a name
// cannot be rebound when there is none) or a name of
// server.allowed_hosts, and refuses the rest with 421 before any handler.
//
// The zero value checks nothing, and trusts only local names (see Local).
type HostCheck struct {
	enforce  bool     // refuse a request whose Host is not known
	loopback bool     // the server listens on loopback: of the IP addresses only loopback ones are known
	any      bool     // "*": every Host is known, nothing is refused
	names    []string // exact names, lower case, without a trailing dot
	suffixes []string // ".example.lan" entries: the name and its subdomains
}

// AnyHost as the only entry of server.allowed_hosts turns the check off.
const AnyHost = "*"

// NewHostCheck is the check of a server that listens on loopback or not,
// with the names of server.allowed_hosts: names without a port, any case,
// a trailing dot or not; ".example.lan" allows example.lan and every name
// under it; "*" turns the check off. On loopback the check is on; off
// loopback it is on once the list names anything, so a LAN deployment can
// opt in (the list is validated by config).
func NewHostCheck(loopback bool, allowed []string) HostCheck {
	c := HostCheck{enforce: loopback || len(allowed) > 0, loopback: loopback}
	for _, a := range allowed {
		a = strings.TrimSuffix(strings.ToLower(strings.TrimSpace(a)), ".")
		switch {
		case a == AnyHost:
			c.any, c.enforce = true, false
		case strings.HasPrefix(a, ".") && len(a) > 1:
			c.suffixes = append(c.suffixes, a)
		case a != "":
			c.names = append(c.names, a)
		}
	}
	return c
}

// Enforced reports whether the check refuses anything.
func (c HostCheck) Enforced() bool { return c.enforce }

// Off reports that server.allowed_hosts holds "*".
func (c HostCheck) Off() bool { return c.any }

// known reports whether a Host header value names this server: localhost,
// an IP address, a configured name, or anything with "*".
func (c HostCheck) known(host string) bool {
	if c.any {
		return true
	}
	name, ip, ok := hostName(host)
	switch {
	case !ok:
		return false
	case ip && (!c.loopback || isLoopbackIP(name)):
		// No name, nothing to rebind; but a server on loopback is reached
		// by a loopback address, or one listed (a port forward).
		return true
	case name == "localhost":
		return true
	}
	for _, n := range c.names {
		if name == n {
			return true
		}
	}
	for _, s := range c.suffixes {
		if strings.HasSuffix(name, s) || name == s[1:] {
			return true
		}
	}
	return false
}

// Local reports whether a request that comes from loopback may be trusted
// as this machine's (the rule of /metrics and /debug/pprof): only when its
// Host is known too, whatever the listener. On 0.0.0.0 the check refuses
// nothing by default, but a page in a browser on this machine that rebinds
// its name to 127.0.0.1 still arrives from loopback: it must then sign as
// an admin like any remote caller.
func (c HostCheck) Local(r *http.Request) bool { return c.known(r.Host) }

// check is nil for a request the server answers, else the 421 saying why
// and which setting to change. r.Host is the request's effective host: the
// Host header, or the authority of an absolute-form target
// (GET http://name/path), which net/http puts there in its place.
func (c HostCheck) check(r *http.Request) error {
	if !c.enforce || c.known(r.Host) {
		return nil
	}
	answers := "this server answers to localhost, 127.0.0.1, [::1] (any port) and the names in server.allowed_hosts"
	if !c.loopback {
		answers = "this server answers to localhost, any IP address (any port) and the names in server.allowed_hosts"
	}
	if r.Host == "" {
		return market.Errorf(market.KindMisdirected,
			"the request has no Host header, and %s: send Host: 127.0.0.1:PORT (or the name you reach it by), as HTTP/1.1 requires", answers)
	}
	return market.Errorf(market.KindMisdirected,
		"the Host header names %q, and %s: a web page whose name is pointed at this machine (DNS rebinding) is refused this way. "+
			"To reach mdqs by this name, add it to server.allowed_hosts in config.toml", shorten(r.Host, 100), answers)
}

func isLoopbackIP(s string) bool {
	a, err := netip.ParseAddr(s)
	return err == nil && a.Unmap().IsLoopback()
}

// hostName reads a Host header value, uri-host [":" port] (RFC 9110 7.2):
// the host in lower case without a trailing dot, whether it is an IP
// address (an IPv6 one in brackets, "[::1]:8080"; a bare "::1" is taken
// too), and ok false for an empty or malformed value: no host, a port
// that is not digits, brackets around anything but an IPv6 address.
func hostName(h string) (name string, ip bool, ok bool) {
	if strings.HasPrefix(h, "[") {
		end := strings.IndexByte(h, ']')
		if end < 0 || !portOK(h[end+1:]) {
			return "", false, false
		}
		a, err := netip.ParseAddr(h[1:end])
		if err != nil || !a.Is6() {
			return "", false, false
		}
		return strings.ToLower(h[1:end]), true, true
	}
	if strings.Count(h, ":") > 1 { // no brackets: a bare IPv6 address, or nothing
		if _, err := netip.ParseAddr(h); err != nil {
			return "", false, false
		}
		return strings.ToLower(h), true, true
	}
	if i := strings.IndexByte(h, ':'); i >= 0 {
		if !portOK(h[i:]) {
			return "", false, false
		}
		h = h[:i]
	}
	h = strings.ToLower(strings.TrimSuffix(h, "."))
	if h == "" {
		return "", false, false
	}
	if strings.ContainsFunc(h, func(r rune) bool { return (r < '0' || r > '9') && r != '.' }) {
		return h, false, true // not an IPv4 address; asking ParseAddr would cost its error
	}
	_, err := netip.ParseAddr(h)
	return h, err == nil, true
}

// portOK accepts what may follow a host: nothing, or ":" and a port of
// digits (RFC 3986 allows an empty one).
func portOK(s string) bool {
	if s == "" {
		return true
	}
	if s[0] != ':' || len(s) > 6 {
		return false
	}
	for _, c := range s[1:] {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}
