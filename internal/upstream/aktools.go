package upstream

import (
	"net"
	"net/url"
)

// unreachable rewrites the detail of an AKTools call that could not
// connect, so the error says what AKTools is and how to start it: in auto
// mode the industries come from a local Python server the trader runs,
// and "connection refused" alone does not tell them so. A circuit opened
// by such failures gets the same words; one opened by AKTools' own 5xx
// (akshare failing behind it) does not, since AKTools is running then.
func (c *AKShare) unreachable(err error) error {
	e, ok := err.(*Error)
	if !ok {
		return err
	}
	switch e.Kind {
	case KindTransport:
	case KindCircuitOpen:
		if c.f.status.snapshot().LastErrorKind != KindTransport {
			return err
		}
	default:
		return err
	}
	hint := "AKTools at " + c.f.base.Scheme + "://" + c.f.base.Host + " is not reachable: " + startAKTools(c.f.base)
	if e.Detail != "" {
		hint += " (" + e.Detail + ")"
	}
	e.Detail = hint
	return e
}

// startAKTools says how to serve AKTools where the base URL points.
// AKTools' own default port is 8080, mdqs's, hence always --port.
func startAKTools(base *url.URL) string {
	port := base.Port()
	switch {
	case port != "":
	case base.Scheme == "https":
		port = "443"
	default:
		port = "80"
	}
	host := base.Hostname()
	if ip := net.ParseIP(host); host == "localhost" || ip != nil && ip.IsLoopback() {
		return "start it with `python -m aktools --port " + port + "`"
	}
	return "start it on " + host + " with `python -m aktools --host 0.0.0.0 --port " + port + "`"
}
