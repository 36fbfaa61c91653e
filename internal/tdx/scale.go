package tdx

import (
	"math"
	"strings"

	"mdqs/internal/market"
)

// Scale turns a file's stored numbers into prices and shares. The terminal
// stores .day prices as integers whose divisor depends on the security type,
// and the volumes of indices and bonds in lots, so the same bytes mean
// different things in sh000001.day and sz000001.day.
//
// The zero Scale means the A-share scale (÷100, 2 decimals, volume in shares).
type Scale struct {
	PriceDiv  float64 // .day integer price ÷ PriceDiv = price
	Decimals  int     // price decimals; float prices are rounded to them
	VolumeMul int64   // stored volume × VolumeMul = shares (bonds: pieces of 100 yuan face)
	// OlderDiv is the .day divisor older terminal installs used for the
	// type (bonds and repo: 1000 where newer ones use 10000), 0 when it
	// never changed. A file's divisor is then decided from its data; see
	// decideDivisor.
	OlderDiv float64
	// Type is what the scale was chosen for. It decides the checks a
	// record must pass (statistic indices hold counts; index days may close
	// outside low..high) and that an index's minute volumes are converted
	// with its daily bars.
	Type market.SecurityType
}

// maxPrice rejects float prices no A-share, index level or bond comes near;
// a float read from the wrong layout or from garbage usually lands far off.
const maxPrice = 1e8

// ScaleFor is the scale of a code per market.Classify (tdx.md §3.1):
// A shares, preferred shares and SZ B shares ÷100; funds, SH B shares and
// asset-backed securities ÷1000; bonds and repo ÷10000 (÷1000 in older
// installs: OlderDiv) with volume in lots of 10 pieces, except SH 751xxx,
// which the terminal stores ÷100; indices and the terminal's block indices
// ÷100 with volume in lots of 100 shares; its statistic indices (counts)
// ÷100 with volume as stored. Lots are widened so that market.Bar.Volume
// is never in lots. Unclassified codes get the A-share scale.
func ScaleFor(c market.Code) Scale {
	typ := market.Classify(c)
	switch typ {
	case market.TypeFund, market.TypeABS:
		return Scale{PriceDiv: 1000, Decimals: 3, VolumeMul: 1, Type: typ}
	case market.TypeBShare:
		if c.Exchange == market.SH {
			return Scale{PriceDiv: 1000, Decimals: 3, VolumeMul: 1, Type: typ} // USD, quoted to 3 decimals
		}
		return Scale{PriceDiv: 100, Decimals: 2, VolumeMul: 1, Type: typ}
	case market.TypeBond, market.TypeRepo:
		if c.Exchange == market.SH && strings.HasPrefix(c.Symbol, "751") {
			return Scale{PriceDiv: 100, Decimals: 2, VolumeMul: 10, Type: typ}
		}
		return Scale{PriceDiv: 10000, Decimals: 3, VolumeMul: 10, OlderDiv: 1000, Type: typ}
	case market.TypeIndex, market.TypeBlock:
		return Scale{PriceDiv: 100, Decimals: 2, VolumeMul: 100, Type: typ}
	case market.TypeStatistic:
		// Counts, all of it: the volume word is kept as stored, as the
		// terminal shows it, not widened as lots of 100 member shares.
		return Scale{PriceDiv: 100, Decimals: 2, VolumeMul: 1, Type: typ}
	}
	return Scale{PriceDiv: 100, Decimals: 2, VolumeMul: 1, Type: typ}
}

// countsOnly reports the statistic indices, whose "prices" are counts that
// may be zero and need not be ordered.
func (s Scale) countsOnly() bool { return s.Type == market.TypeStatistic }

// indexLike reports the types whose days may close outside low..high
// (early-1990s index records): indices, block and statistic indices.
func (s Scale) indexLike() bool {
	return s.Type == market.TypeIndex || s.Type == market.TypeBlock || s.Type == market.TypeStatistic
}

// minutesUseDay reports the types whose minute volumes are computed with
// the daily bars (indexMinuteVolumes); a statistic index's are kept as
// they are, like the rest of its values.
func (s Scale) minutesUseDay() bool { return s.indexLike() && !s.countsOnly() }

// MinutesUseDay reports whether the minute bars of c are computed with its
// .day file, as an index's volumes are, so that an importer re-reads them
// when that file changes.
func MinutesUseDay(c market.Code) bool { return ScaleFor(c).minutesUseDay() }

// norm makes the zero Scale, and any nonsensical field, mean the A-share
// scale, so a caller that leaves it unset still gets sane prices.
func (s Scale) norm() Scale {
	if s == (Scale{}) {
		return Scale{PriceDiv: 100, Decimals: 2, VolumeMul: 1}
	}
	if !(s.PriceDiv > 0) || math.IsInf(s.PriceDiv, 0) {
		s.PriceDiv = 100
	}
	if s.Decimals < 0 || s.Decimals > 6 {
		s.Decimals = 2
	}
	if s.VolumeMul <= 0 {
		s.VolumeMul = 1
	}
	if !(s.OlderDiv > 0) || math.IsInf(s.OlderDiv, 0) {
		s.OlderDiv = 0
	}
	return s
}

// roundTo rounds to d decimals. Float32 prices are the nearest binary value
// (36.70 is stored as 36.70000076), so serving them unrounded leaks noise.
func roundTo(x float64, d int) float64 {
	p := math.Pow10(d)
	return math.Round(x*p) / p
}
