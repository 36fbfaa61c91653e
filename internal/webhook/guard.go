package webhook

import (
	"errors"
	"fmt"
	"net"
	"net/netip"
	"syscall"
)

// AllowKey is the configuration key that lets webhooks reach private
// addresses; every refusal names it.
const AllowKey = "alerts.webhook_allow_private"

// ErrPrivate is a webhook address the guard refuses.
var ErrPrivate = errors.New("private address")

// blocked are the ranges a webhook may not reach unless allowed: the
// host itself, the trader's LAN, the carrier's NAT, link-local (the cloud
// metadata service at 169.254.169.254 among them), and addresses that are
// not one host. netip's predicates cover loopback, RFC 1918 and fc00::/7
// (IsPrivate), link-local, multicast and unspecified; these add the rest.
var blocked = []netip.Prefix{
	netip.MustParsePrefix("0.0.0.0/8"),      // "this network"
	netip.MustParsePrefix("100.64.0.0/10"),  // carrier-grade NAT (RFC 6598)
	netip.MustParsePrefix("192.0.0.0/24"),   // IETF protocol assignments
	netip.MustParsePrefix("198.18.0.0/15"),  // benchmarking
	netip.MustParsePrefix("240.0.0.0/4"),    // reserved, and the broadcast address
	netip.MustParsePrefix("64:ff9b:1::/48"), // local-use NAT64
	netip.MustParsePrefix("2001:db8::/32"),  // documentation
	netip.MustParsePrefix("fec0::/10"),      // the old site-local
	netip.MustParsePrefix("100::/64"),       // discard-only
	netip.MustParsePrefix("2002::/16"),      // 6to4, which embeds any IPv4 address
	netip.MustParsePrefix("2001::/32"),      // Teredo, likewise
	netip.MustParsePrefix("::/128"),         // unspecified
	netip.MustParsePrefix("::1/128"),        // loopback
	netip.MustParsePrefix("127.0.0.0/8"),    // loopback
	netip.MustParsePrefix("169.254.0.0/16"), // link-local, cloud metadata
	netip.MustParsePrefix("fe80::/10"),      // link-local
	netip.MustParsePrefix("fc00::/7"),       // unique local
	netip.MustParsePrefix("10.0.0.0/8"),     // RFC 1918
	netip.MustParsePrefix("172.16.0.0/12"),  // RFC 1918
	netip.MustParsePrefix("192.168.0.0/16"), // RFC 1918
	netip.MustParsePrefix("224.0.0.0/4"),    // multicast
	netip.MustParsePrefix("ff00::/8"),       // multicast
	netip.MustParsePrefix("255.255.255.255/32"),
}

// Private reports that a is an address the guard refuses.
func Private(a netip.Addr) bool {
	a = a.Unmap()
	if !a.IsValid() || a.IsLoopback() || a.IsPrivate() || a.IsLinkLocalUnicast() || a.IsLinkLocalMulticast() ||
		a.IsInterfaceLocalMulticast() || a.IsMulticast() || a.IsUnspecified() {
		return true
	}
	for _, p := range blocked {
		if p.Contains(a) {
			return true
		}
	}
	return false
}

// control is the dialer's check of every address it connects to, after
// DNS: a name that resolves (or later re-resolves: DNS rebinding) to a
// private address is refused where it matters, at the connection, and so
// is a proxy or a redirect's target, since each is dialled through here.
func control(allowPrivate bool) func(network, address string, c syscall.RawConn) error {
	return func(network, address string, _ syscall.RawConn) error {
		if allowPrivate {
			return nil
		}
		ap, err := netip.ParseAddrPort(address)
		if err != nil {
			return fmt.Errorf("webhook: dial %s: %w", address, err)
		}
		if Private(ap.Addr()) {
			return refusal(ap.Addr().Unmap().String())
		}
		return nil
	}
}

func refusal(addr string) error {
	return fmt.Errorf("webhook: %s is %s (%w)", addr, notPublic, ErrPrivate)
}

// notPublic is why an address is refused, and how to allow it.
const notPublic = "a loopback, private, link-local or otherwise non-public address; set " + AllowKey +
	" = true to send to hosts on this machine or its network"

// dialer is a net.Dialer with the guard.
func dialer(allowPrivate bool) *net.Dialer {
	return &net.Dialer{Timeout: dialTimeout, Control: control(allowPrivate)}
}
