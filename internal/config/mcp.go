package config

import (
	"net/url"
	"strings"
	"time"
)

// MCP configures /mcp, the MCP endpoint for agents that connect by URL
// (mdqs mcp, the stdio server, is a client of the API and reads none of
// this). Off by default: it takes a bare bearer token, a weaker door than
// the signed API's (docs/mcp.md's threat model).
type MCP struct {
	// HTTP serves MCP's Streamable HTTP transport at /mcp.
	HTTP bool `toml:"http"`
	// Remote answers /mcp from other machines too. Off, only callers on
	// this machine (a loopback peer) are answered, whatever server.addr
	// is: a token sent in clear over a network can be read and replayed.
	Remote bool `toml:"remote"`
	// AllowedOrigins are the web origins (scheme://host[:port]) whose
	// pages may call /mcp, besides the server's own; a request with any
	// other Origin header is 403, as the MCP specification asks against
	// DNS rebinding. Agents outside a browser send no Origin.
	AllowedOrigins []string `toml:"allowed_origins"`
	// SessionIdle closes an MCP session that has had no request for this
	// long (a session is state in memory: its client may vanish without
	// ending it).
	SessionIdle Duration `toml:"session_idle"`
}

func defaultMCP() MCP {
	return MCP{AllowedOrigins: []string{}, SessionIdle: dur(30 * time.Minute)}
}

func (c Config) validateMCP(bad func(key, format string, args ...any)) {
	m := c.MCP
	for _, o := range m.AllowedOrigins {
		if _, ok := origin(o); !ok {
			bad("mcp.allowed_origins", `want origins as a browser sends them, scheme://host[:port] with scheme http or https and nothing after the host, such as "http://127.0.0.1:3000", got %q`, o)
		}
	}
	if d := m.SessionIdle.Duration; d < time.Minute || d > 24*time.Hour {
		bad("mcp.session_idle", "want 1m..24h, got %s", d)
	}
}

// Origins are mcp.allowed_origins as browsers write an Origin header:
// scheme and host in lower case, without the scheme's default port. Call
// after Validate.
func (m MCP) Origins() []string {
	out := make([]string, 0, len(m.AllowedOrigins))
	for _, o := range m.AllowedOrigins {
		if n, ok := origin(o); ok {
			out = append(out, n)
		}
	}
	return out
}

// origin normalises a serialised origin (RFC 6454): http or https, a host,
// an optional port, no user, path, query or fragment.
func origin(s string) (string, bool) {
	u, err := url.Parse(strings.TrimSpace(s))
	if err != nil || (u.Scheme != "http" && u.Scheme != "https" && u.Scheme != "HTTP" && u.Scheme != "HTTPS") ||
		u.Host == "" || u.User != nil || u.Path != "" || u.RawQuery != "" || u.Fragment != "" || u.Opaque != "" || strings.HasSuffix(s, "?") || strings.HasSuffix(s, "#") {
		return "", false
	}
	scheme := strings.ToLower(u.Scheme)
	host, port := strings.ToLower(u.Hostname()), u.Port()
	if host == "" {
		return "", false
	}
	if strings.Contains(host, ":") {
		host = "[" + host + "]"
	}
	if port == "" || (scheme == "http" && port == "80") || (scheme == "https" && port == "443") {
		return scheme + "://" + host, true
	}
	return scheme + "://" + host + ":" + port, true
}
