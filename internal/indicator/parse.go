package indicator

import (
	"math"
	"strconv"
	"strings"

	"mdqs/internal/market"
)

// SpecKind is an indicator family of the kline `indicators` parameter.
type SpecKind uint8

const (
	SpecMA   SpecKind = iota + 1 // maN: SMA(close, N)
	SpecEMA                      // emaN: EMA(close, N), terminal convention
	SpecVMA                      // vmaN: SMA(volume, N)
	SpecMACD                     // macd: MACD(12, 26, 9), terminal convention
)

func (k SpecKind) prefix() string {
	switch k {
	case SpecMA:
		return "ma"
	case SpecEMA:
		return "ema"
	case SpecVMA:
		return "vma"
	case SpecMACD:
		return "macd"
	}
	return ""
}

// Spec is one parsed indicator. Period is 0 for macd.
type Spec struct {
	Kind   SpecKind
	Period int
}

// Limits of an indicator list: enough for any chart, small enough that one
// request cannot ask for unbounded work.
const (
	MaxSpecs   = 16
	MaxListLen = 512
)

// Validate rejects a Spec that ParseList could not have produced.
func (s Spec) Validate() error {
	switch s.Kind {
	case SpecMA, SpecEMA, SpecVMA:
		return checkPeriod(s.Kind.prefix(), s.Period)
	case SpecMACD:
		if s.Period == 0 {
			return nil
		}
	}
	return market.Errorf(market.KindInvalid, "indicator: invalid spec {kind %d, period %d}", s.Kind, s.Period)
}

// Name is the canonical token: "ma5", "ema12", "vma5", "macd".
func (s Spec) Name() string {
	switch s.Kind {
	case SpecMACD:
		return "macd"
	case SpecMA, SpecEMA, SpecVMA:
		return s.Kind.prefix() + strconv.Itoa(s.Period)
	}
	return "invalid"
}

// Columns are the output columns the spec adds to a kline row.
func (s Spec) Columns() []string {
	if s.Kind == SpecMACD {
		return []string{"macd_dif", "macd_dea", "macd_hist"}
	}
	return []string{s.Name()}
}

// emaLookbackTolerance is the weight the seed may keep in a terminal-style
// EMA for it to count as warmed up.
const emaLookbackTolerance = 1e-3

// Lookback is how many bars before the first requested row a caller should
// load so that the row's value matches the terminal, which averages over
// the stock's whole history: N-1 for ma and vma (exact), and for an EMA the
// k at which the seed's weight ((N-1)/(N+1))^k drops below 0.1%; macd adds
// the lookbacks of EMA26 and EMA9 (90 + 31 = 121).
func (s Spec) Lookback() int {
	switch s.Kind {
	case SpecMA, SpecVMA:
		return max(s.Period-1, 0)
	case SpecEMA:
		return emaLookback(s.Period)
	case SpecMACD:
		p := DefaultMACDParams()
		return emaLookback(p.Slow) + emaLookback(p.Signal)
	}
	return 0
}

func emaLookback(n int) int {
	if n <= 1 {
		return 0
	}
	decay := float64(n-1) / float64(n+1)
	return int(math.Ceil(math.Log(emaLookbackTolerance) / math.Log(decay)))
}

// ParseList parses the kline `indicators` parameter: comma-separated names,
// case-insensitive, blanks around names ignored. A name is maN, emaN or vmaN
// with N a decimal period 1..250 without sign or leading zeros, or macd. A
// repeated name counts once, in the place of its first occurrence. An empty
// or all-blank list is no indicator. Errors are KindInvalid (HTTP 400) and
// name the offending token.
func ParseList(s string) ([]Spec, error) {
	if len(s) > MaxListLen {
		return nil, market.Errorf(market.KindInvalid, "indicators: list longer than %d bytes", MaxListLen)
	}
	if strings.TrimSpace(s) == "" {
		return nil, nil
	}
	var specs []Spec
	for i, tok := range strings.Split(s, ",") {
		spec, err := parseToken(strings.TrimSpace(tok), i+1)
		if err != nil {
			return nil, err
		}
		dup := false
		for _, have := range specs {
			dup = dup || have == spec
		}
		if dup {
			continue
		}
		if len(specs) == MaxSpecs {
			return nil, market.Errorf(market.KindInvalid, "indicators: more than %d distinct indicators", MaxSpecs)
		}
		specs = append(specs, spec)
	}
	return specs, nil
}

func parseToken(tok string, pos int) (Spec, error) {
	if tok == "" {
		return Spec{}, market.Errorf(market.KindInvalid, "indicators: empty name at position %d", pos)
	}
	name := strings.ToLower(tok)
	if name == "macd" {
		return Spec{Kind: SpecMACD}, nil
	}
	for _, k := range [...]SpecKind{SpecVMA, SpecEMA, SpecMA} {
		digits, ok := strings.CutPrefix(name, k.prefix())
		if !ok || digits == "" || !isDigits(digits) {
			continue
		}
		if len(digits) > 1 && digits[0] == '0' {
			return Spec{}, market.Errorf(market.KindInvalid,
				"indicators: %s: write the period without leading zeros", quoteToken(tok))
		}
		// More than three digits is out of range whatever they say, and
		// stopping there keeps Atoi away from overflow.
		n, err := strconv.Atoi(digits)
		if len(digits) > 3 || err != nil || n < MinPeriod || n > MaxPeriod {
			return Spec{}, market.Errorf(market.KindInvalid,
				"indicators: %s: period out of range %d..%d", quoteToken(tok), MinPeriod, MaxPeriod)
		}
		return Spec{Kind: k, Period: n}, nil
	}
	return Spec{}, market.Errorf(market.KindInvalid,
		"indicators: unknown indicator %s at position %d (want maN, emaN or vmaN with N in %d..%d, or macd)",
		quoteToken(tok), pos, MinPeriod, MaxPeriod)
}

func isDigits(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

// quoteToken quotes a token for an error message, shortened so that a
// hostile parameter cannot inflate the response.
func quoteToken(tok string) string {
	const limit = 32
	if len(tok) > limit {
		return strconv.Quote(tok[:limit]) + "..."
	}
	return strconv.Quote(tok)
}

// FormatList is the canonical form of specs, which ParseList reads back to
// the same specs.
func FormatList(specs []Spec) string {
	names := make([]string, len(specs))
	for i, s := range specs {
		names[i] = s.Name()
	}
	return strings.Join(names, ",")
}
