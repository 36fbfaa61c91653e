package market

import (
	"math"
	"strconv"
	"unicode/utf8"
)

// Unknown measures are NaN in the domain and null on the wire; encoding/json
// refuses NaN, so the types that carry them encode themselves.

// AppendJSONFloat writes the shortest decimal that reads back as v, or null
// for NaN and infinities.
func AppendJSONFloat(b []byte, v float64) []byte {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return append(b, "null"...)
	}
	// Prices are ten-thousandths of a yuan (the store's integers), and
	// strconv's shortest-float search was a third of a K-line answer's
	// encoding. When v is the double nearest to n/10⁴ and |v| < 1e11 (an
	// ulp below 10⁻⁴), that decimal is the unique shortest one that reads
	// back as v, so writing it is what strconv would write.
	if v != 0 && v > -1e11 && v < 1e11 {
		if n := math.Round(v * 1e4); n/1e4 == v {
			return appendTenThousandths(b, int64(n))
		}
	}
	return strconv.AppendFloat(b, v, 'f', -1, 64)
}

// appendTenThousandths writes n/10⁴ without trailing zeros.
func appendTenThousandths(b []byte, n int64) []byte {
	if n < 0 {
		b = append(b, '-')
		n = -n
	}
	b = strconv.AppendInt(b, n/10000, 10)
	frac := n % 10000
	if frac == 0 {
		return b
	}
	digits := [4]byte{byte('0' + frac/1000), byte('0' + frac/100%10), byte('0' + frac/10%10), byte('0' + frac%10)}
	k := 4
	for digits[k-1] == '0' {
		k--
	}
	b = append(b, '.')
	return append(b, digits[:k]...)
}

const hexDigits = "0123456789abcdef"

// AppendJSONString writes a JSON string: quotes, backslashes and control
// characters escaped, invalid UTF-8 replaced, everything else (Chinese
// names) as UTF-8.
func AppendJSONString(b []byte, s string) []byte {
	b = append(b, '"')
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			switch {
			case c == '"' || c == '\\':
				b = append(b, '\\', c)
			case c < 0x20:
				b = append(b, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xf])
			default:
				b = append(b, c)
			}
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			b = append(b, `\ufffd`...)
		} else {
			b = append(b, s[i:i+size]...)
		}
		i += size
	}
	return append(b, '"')
}

// AppendJSON writes the entry as spec 2.3 lists its fields.
func (e RankedSector) AppendJSON(b []byte) []byte {
	b = append(b, `{"sector_name":`...)
	b = AppendJSONString(b, e.SectorName)
	b = append(b, `,"count":`...)
	b = strconv.AppendInt(b, int64(e.Count), 10)
	b = append(b, `,"pct":`...)
	b = AppendJSONFloat(b, e.Pct)
	b = append(b, `,"turnover":`...)
	b = AppendJSONFloat(b, e.Turnover)
	b = append(b, `,"main_net":`...)
	b = AppendJSONFloat(b, e.MainNet)
	b = append(b, `,"flow":`...)
	b = AppendJSONString(b, e.Flow)
	b = append(b, `,"signal":`...)
	b = AppendJSONString(b, e.Signal)
	b = append(b, `,"signal_rank":`...)
	b = strconv.AppendInt(b, int64(e.SignalRank), 10)
	b = append(b, `,"flow_tag":`...)
	b = AppendJSONString(b, e.FlowTag)
	b = append(b, `,"rank":`...)
	b = strconv.AppendInt(b, int64(e.Rank), 10)
	return append(b, '}')
}

func (e RankedSector) MarshalJSON() ([]byte, error) { return e.AppendJSON(nil), nil }

// Num is a float64 that encodes NaN (unknown) as null, for payload structs
// encoded with encoding/json.
type Num float64

func (n Num) MarshalJSON() ([]byte, error) { return AppendJSONFloat(nil, float64(n)), nil }
