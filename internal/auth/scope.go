package auth

import (
	"fmt"
	"slices"
	"strings"
)

// Scope names what a client may do; every protected route declares one.
type Scope string

const (
	ScopeMarket   Scope = "market"
	ScopeKline    Scope = "kline"
	ScopeHotRank  Scope = "hot_rank"
	ScopeNews     Scope = "news"
	ScopeFinance  Scope = "finance"
	ScopeScreener Scope = "screener"
	ScopeBridge   Scope = "bridge"
	// ScopeAdmin guards every POST that changes data: imports, refreshes,
	// news updates.
	ScopeAdmin Scope = "admin"
	// ScopeMCP opens /mcp, the MCP endpoint, which takes a bare bearer
	// token: MCP clients cannot sign requests, so a token that leaks from
	// an agent's configuration can be replayed there until it expires.
	// That is a weaker door than the signed API's, so a client must be
	// given it by name: "*" does not hold it (see ScopeAll). The tools
	// behind the door call the signed API with the same token, so what a
	// tool may read is still the client's other scopes.
	ScopeMCP Scope = "mcp"
	// ScopeAll grants every scope of the signed API, not mcp: a client
	// given "*" before /mcp existed must not gain the bearer-only door
	// silently (its stored mask, 255, keeps meaning what it meant).
	ScopeAll Scope = "*"
)

// AllScopes lists the grantable scopes in a stable order; allBits are the
// first eight, the signed API's, which "*" grants.
var allScopes = []Scope{ScopeMarket, ScopeKline, ScopeHotRank, ScopeNews, ScopeFinance, ScopeScreener, ScopeBridge, ScopeAdmin, ScopeMCP}

func AllScopes() []Scope { return slices.Clone(allScopes) }

// DefaultScopes are granted when `mdqs client add` is given none: every
// read scope, but not admin, which changes data, nor mcp, which must be
// asked for.
func DefaultScopes() Scopes {
	var s Scopes
	for _, sc := range allScopes {
		if sc != ScopeAdmin && sc != ScopeMCP {
			s = s.With(sc)
		}
	}
	return s
}

// Scopes is a set of scopes as a bit mask, so a request's check is one AND.
type Scopes uint16

const allBits = Scopes(1<<8 - 1)

// demoBits are the demo client's: every scope and mcp, so a desktop agent
// can try /mcp on the demo market as the README's calls try the API.
const demoBits = allBits | 1<<8

func bit(s Scope) Scopes {
	if s == ScopeAll {
		return allBits
	}
	i := slices.Index(allScopes, s)
	if i < 0 {
		return 0
	}
	return 1 << i
}

func (s Scopes) With(sc Scope) Scopes { return s | bit(sc) }

// Has reports whether the set grants sc.
func (s Scopes) Has(sc Scope) bool {
	b := bit(sc)
	return b != 0 && s&b == b
}

// ParseScopes reads a comma-separated list such as "market,kline" or "*".
func ParseScopes(list string) (Scopes, error) {
	var s Scopes
	for _, name := range strings.Split(list, ",") {
		name = strings.TrimSpace(name)
		if name == "" {
			continue
		}
		b := bit(Scope(name))
		if b == 0 {
			return 0, fmt.Errorf("unknown scope %q (known: %s, or * for all)", name, joinScopes(allScopes))
		}
		s |= b
	}
	if s == 0 {
		return 0, fmt.Errorf("no scope given")
	}
	return s, nil
}

// String renders the set as ParseScopes reads it; "*" when it holds every
// scope of the signed API, followed by ",mcp" when it holds that too.
func (s Scopes) String() string {
	var names []Scope
	if s&allBits == allBits {
		names = append(names, ScopeAll)
	}
	for _, sc := range allScopes {
		if s.Has(sc) && (bit(sc)&allBits == 0 || s&allBits != allBits) {
			names = append(names, sc)
		}
	}
	return joinScopes(names)
}

func joinScopes(list []Scope) string {
	parts := make([]string, len(list))
	for i, s := range list {
		parts[i] = string(s)
	}
	return strings.Join(parts, ",")
}
