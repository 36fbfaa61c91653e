package tdx

import (
	"strings"

	"mdqs/internal/market"
)

// isSymbol reports six ASCII digits, the only code form the files use.
func isSymbol(b []byte) bool {
	if len(b) != 6 {
		return false
	}
	for _, c := range b {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}

// exchangeOfDigit maps the terminal's market number (tdxhy.cfg, .blk,
// infoharbor, .tnf) to an exchange.
func exchangeOfDigit(c byte) (market.Exchange, bool) {
	switch c {
	case '0':
		return market.SZ, true
	case '1':
		return market.SH, true
	case '2':
		return market.BJ, true
	}
	return "", false
}

// digitOfExchange is the inverse, for the writers.
func digitOfExchange(ex market.Exchange) (byte, bool) {
	switch ex {
	case market.SZ:
		return '0', true
	case market.SH:
		return '1', true
	case market.BJ:
		return '2', true
	}
	return 0, false
}

// exchangeOfPrefix maps a folder or file prefix (sh, sz, bj, any case).
func exchangeOfPrefix(p string) (market.Exchange, bool) {
	switch strings.ToLower(p) {
	case "sh":
		return market.SH, true
	case "sz":
		return market.SZ, true
	case "bj":
		return market.BJ, true
	}
	return "", false
}

// inferCode is for files that carry no market (block_*.dat members, tdxzs
// block codes): the market is guessed from the code ranges by
// market.InferExchange, whose order (92 and 899 before 9 and 8, 88 before 8)
// follows tdx.md §2.
func inferCode(sym []byte) market.Code {
	s := string(sym)
	return market.Code{Symbol: s, Exchange: market.InferExchange(s)}
}

// ParseBarName reads a bar file name such as "sh600000.day", "SZ000001.LC1"
// or "bj430047.5": market prefix, six-digit code, extension. It is
// case-insensitive because Windows installs differ in case.
func ParseBarName(name string) (market.Code, Kind, bool) {
	dot := strings.LastIndexByte(name, '.')
	if dot != 8 {
		return market.Code{}, "", false
	}
	ex, ok := exchangeOfPrefix(name[:2])
	if !ok || !isSymbol([]byte(name[2:8])) {
		return market.Code{}, "", false
	}
	var k Kind
	switch strings.ToLower(name[dot+1:]) {
	case "day":
		k = KindDay
	case "lc1":
		k = KindLC1
	case "lc5":
		k = KindLC5
	case "1":
		k = KindMin1
	case "5":
		k = KindMin5
	default:
		return market.Code{}, "", false
	}
	return market.Code{Symbol: name[2:8], Exchange: ex}, k, true
}
