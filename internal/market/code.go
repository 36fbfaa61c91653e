package market

import (
	"fmt"
	"strings"
)

// Exchange is the listing market of a security.
type Exchange string

const (
	SH Exchange = "SH"
	SZ Exchange = "SZ"
	BJ Exchange = "BJ"
)

// ParseExchange accepts SH/SZ/BJ in any case, and the terminal's market
// numbers 0 (SZ), 1 (SH), 2 (BJ).
func ParseExchange(s string) (Exchange, error) {
	switch strings.ToUpper(strings.TrimSpace(s)) {
	case "SH", "1":
		return SH, nil
	case "SZ", "0":
		return SZ, nil
	case "BJ", "2":
		return BJ, nil
	}
	return "", fmt.Errorf("market %q: want SH, SZ or BJ", s)
}

// Code is a security in the service's canonical form "600519.SH".
type Code struct {
	Symbol   string // six digits
	Exchange Exchange
}

func (c Code) String() string { return c.Symbol + "." + string(c.Exchange) }

// IsZero reports an unset code.
func (c Code) IsZero() bool { return c.Symbol == "" }

// ParseCode normalises the forms scripts and upstreams use: "600519.SH",
// "sh600519", "SH600519", "1.600519" (an EastMoney secid, 0 = SZ/BJ) and a
// bare "600519", whose exchange is inferred from the code ranges (a bare
// "000001" is Ping An Bank on SZ, never the SSE Composite).
func ParseCode(s string) (Code, error) {
	raw := strings.TrimSpace(s)
	u := strings.ToUpper(raw)
	var sym string
	var ex Exchange
	switch {
	case len(u) == 9 && u[6] == '.':
		sym = u[:6]
		e, err := ParseExchange(u[7:])
		if err != nil {
			return Code{}, fmt.Errorf("code %q: %w", raw, err)
		}
		ex = e
	case len(u) == 8 && (strings.HasPrefix(u, "SH") || strings.HasPrefix(u, "SZ") || strings.HasPrefix(u, "BJ")):
		sym, ex = u[2:], Exchange(u[:2])
	case len(u) == 8 && (u[0] == '0' || u[0] == '1') && u[1] == '.':
		sym = u[2:]
		if u[0] == '1' {
			ex = SH
		} else if ex = InferExchange(sym); ex == SH {
			ex = SZ // secid 0 is SZ or BJ, never SH
		}
	case len(u) == 6:
		sym = u
		ex = InferExchange(sym)
	default:
		return Code{}, fmt.Errorf("code %q: want a form such as 600519.SH, sh600519 or 600519", raw)
	}
	if !allDigits(sym) {
		return Code{}, fmt.Errorf("code %q: the symbol must be six digits", raw)
	}
	return Code{Symbol: sym, Exchange: ex}, nil
}

// MustCode is ParseCode for literals in tests and generated data.
func MustCode(s string) Code {
	c, err := ParseCode(s)
	if err != nil {
		panic(err)
	}
	return c
}

// InferExchange guesses the exchange of a bare six-digit code. Order matters:
// 92 (Beijing's current range) before the 9 -> SH rule, 88 (terminal block
// indices, SH) before 8 -> BJ, and 899 (Beijing indices) before 88.
func InferExchange(sym string) Exchange {
	switch {
	case strings.HasPrefix(sym, "92"), strings.HasPrefix(sym, "899"):
		return BJ
	case strings.HasPrefix(sym, "88"):
		return SH
	case strings.HasPrefix(sym, "4"), strings.HasPrefix(sym, "8"):
		return BJ
	case strings.HasPrefix(sym, "5"), strings.HasPrefix(sym, "6"), strings.HasPrefix(sym, "7"),
		strings.HasPrefix(sym, "9"), strings.HasPrefix(sym, "11"), strings.HasPrefix(sym, "204"):
		return SH
	default:
		return SZ
	}
}

// SecurityType is what a code denotes; it decides price scaling in terminal
// files and which securities take part in A-share statistics.
type SecurityType string

const (
	TypeStock  SecurityType = "stock"
	TypeIndex  SecurityType = "index"
	TypeFund   SecurityType = "fund"
	TypeBond   SecurityType = "bond"
	TypeBShare SecurityType = "b_share"
	TypeRepo   SecurityType = "repo"
	TypeBlock  SecurityType = "block" // the terminal's own sector indices (880/881)
	// TypeStatistic is the terminal's statistic "indices" (880006, 880016,
	// 880026, 880036, and SZ 395xxx such as 395001 主板Ａ股): their bars
	// hold counts of stocks, not prices, so no price rule (low <= close <=
	// high, nonzero) applies to them.
	TypeStatistic SecurityType = "statistic"
	TypePreferred SecurityType = "preferred" // SZ 140xxx preferred shares
	TypeABS       SecurityType = "abs"       // SZ 190xxx/191xxx asset-backed securities
	TypeOther     SecurityType = "other"
)

// SecurityTypes lists every type Classify can answer, for validating a
// type a client asks for.
func SecurityTypes() []SecurityType {
	return []SecurityType{TypeStock, TypeIndex, TypeFund, TypeBond, TypeBShare, TypeRepo, TypeBlock,
		TypeStatistic, TypePreferred, TypeABS, TypeOther}
}

// isStatistic reports the terminal's statistic codes. They sit inside the
// 880 block range, so they are listed one by one rather than by prefix.
func isStatistic(sym string) bool {
	switch sym {
	case "880006", "880016", "880026", "880036":
		return true
	}
	return false
}

// Classify tells the type of a code from the exchanges' code ranges.
func Classify(c Code) SecurityType {
	s := c.Symbol
	has := func(prefixes ...string) bool {
		for _, p := range prefixes {
			if strings.HasPrefix(s, p) {
				return true
			}
		}
		return false
	}
	switch c.Exchange {
	case SH:
		switch {
		case has("60", "68"):
			return TypeStock
		case has("900"):
			return TypeBShare
		case has("000", "999"):
			return TypeIndex
		case isStatistic(s):
			return TypeStatistic
		case has("880", "881"):
			return TypeBlock
		case has("50", "51", "52", "56", "58"):
			return TypeFund
		case has("01", "02", "10", "11", "12", "13"):
			return TypeBond
		case has("204"):
			return TypeRepo
		case has("751"):
			return TypeBond // traded in lots of 10 as bonds are, though priced ÷100 in the terminal (tdx.ScaleFor)
		}
	case SZ:
		switch {
		case has("00", "30"):
			return TypeStock
		case has("200", "201"):
			return TypeBShare
		case has("395"):
			// The terminal's statistics of the Shenzhen market (tdx.md
			// §2): 395001 主板Ａ股's "close" is its count of stocks.
			return TypeStatistic
		case has("399"):
			return TypeIndex
		case has("15", "16", "18"):
			return TypeFund
		case has("131"):
			return TypeRepo
		case has("140"):
			return TypePreferred // inside the bond range, but priced per share like a stock
		case has("10", "11", "12", "13", "14"):
			return TypeBond
		case has("190", "191"):
			return TypeABS
		}
	case BJ:
		switch {
		case has("899"):
			return TypeIndex
		case has("92", "43", "83", "87", "40", "82", "88"):
			return TypeStock
		}
	}
	return TypeOther
}

func allDigits(s string) bool {
	if len(s) != 6 {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}
