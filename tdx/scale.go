package tdx

import (
	"math"

	"mdqs/market"
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
}

// maxPrice rejects float prices no A-share, index level or bond comes near;
// a float read from the wrong layout or from garbage usually lands far off.
const maxPrice = 1e8

// ScaleFor is the scale of a code per market.Classify (tdx.md §3.1):
// A shares and SZ B shares ÷100; funds and SH B shares ÷1000; bonds and repo
// ÷10000 with volume in lots of 10 pieces; indices and the terminal's block
// indices ÷100 with volume in lots of 100 shares. Lots are widened so that
// market.Bar.Volume is never in lots. Unclassified codes get the A-share scale.
func ScaleFor(c market.Code) Scale {
	switch market.Classify(c) {
	case market.TypeFund:
		return Scale{PriceDiv: 1000, Decimals: 3, VolumeMul: 1}
	case market.TypeBShare:
		if c.Exchange == market.SH {
			return Scale{PriceDiv: 1000, Decimals: 3, VolumeMul: 1} // USD, quoted to 3 decimals
		}
		return Scale{PriceDiv: 100, Decimals: 2, VolumeMul: 1}
	case market.TypeBond, market.TypeRepo:
		return Scale{PriceDiv: 10000, Decimals: 3, VolumeMul: 10}
	case market.TypeIndex, market.TypeBlock:
		return Scale{PriceDiv: 100, Decimals: 2, VolumeMul: 100}
	}
	return Scale{PriceDiv: 100, Decimals: 2, VolumeMul: 1}
}

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
	return s
}

// roundTo rounds to d decimals. Float32 prices are the nearest binary value
// (36.70 is stored as 36.70000076), so serving them unrounded leaks noise.
func roundTo(x float64, d int) float64 {
	p := math.Pow10(d)
	return math.Round(x*p) / p
}
