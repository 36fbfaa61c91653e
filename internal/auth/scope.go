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
	// ScopeAll grants every scope.
	ScopeAll Scope = "*"
)

// AllScopes lists the grantable scopes in a stable order.
var allScopes = []Scope{ScopeMarket, ScopeKline, ScopeHotRank, ScopeNews, ScopeFinance, ScopeScreener, ScopeBridge, ScopeAdmin}

func AllScopes() []Scope { return slices.Clone(allScopes) }

// DefaultScopes are granted when `mdqs client add` is given none: every
// read scope, but not admin, which changes data.
func DefaultScopes() Scopes {
	var s Scopes
	for _, sc := range allScopes {
		if sc != ScopeAdmin {
			s = s.With(sc)
		}
	}
	return s
}

// Scopes is a set of scopes as a bit mask, so a request's check is one AND.
type Scopes uint16

const allBits = Scopes(1<<8 - 1)

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

// String renders the set as ParseScopes reads it; "*" when it holds all.
func (s Scopes) String() string {
	if s&allBits == allBits {
		return "*"
	}
	var names []Scope
	for _, sc := range allScopes {
		if s.Has(sc) {
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
