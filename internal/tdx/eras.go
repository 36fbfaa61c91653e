package tdx

import (
	"fmt"
	"math"

	"mdqs/internal/market"
)

// Flag is something a reader of a file's bars should know although nothing
// is wrong with the file: records kept as the terminal shows them although
// they break a price rule, or a decision the data could not settle. An
// import lists flags apart from problems, so a file that is fine is not
// reported as broken on every import.
type Flag struct {
	Reason  string
	Records int // bars concerned
}

// Bands of the divisor vote. A bond's amount is close × pieces under the
// right divisor and 10× that under the wrong one; a factor of 2.5 either
// side keeps the two bands apart (1 ± 2.5× and 10 ± 2.5× do not meet) and
// still holds every record of the real sh113011 and sz123002 (0.94–1.04).
// A repo's close is an annual rate: 0.8–8 % holds 95 % of the real sh204001
// and sz131810 records at the right divisor and, being one decade wide, can
// hold a record under one divisor only.
const (
	bondRatioSlack = 2.5
	repoRateLow    = 0.8
	repoRateHigh   = 8.0
	// decisiveShare is the share of the voting records one divisor needs.
	decisiveShare = 0.8
)

// decideDivisor chooses a bond or repo .day file's divisor between
// s.PriceDiv (newer installs: ÷10000) and s.OlderDiv (older ones: a 2014
// install stores 110015.SH's 110.17 as 110170 and 204001.SH's 3.24 % as
// 3240) from the file's bars, decoded at s.PriceDiv. One decision per file:
// a terminal writes a whole file in one scale.
//
// Bonds: amount = price per 100 face × pieces traded holds under one
// divisor only (tdx.md §3.1: amount ÷ volume ≈ raw ÷ 1000 with ÷10000).
// Repo: amount ÷ volume is the money lent per lot (1000 or 10000 yuan on
// the real files) whatever the rate, so it cannot tell the divisor; the
// rate's level does, since a plausible annual rate (0.8–8 %) under one
// divisor is 10× off under the other. A file no record of which decides
// (no volumes, or rates outside the band), or split between the two, keeps
// s.PriceDiv, the current terminals' scale, and note says so.
func decideDivisor(bars []market.Bar, s Scale) (div float64, note string) {
	if s.OlderDiv == 0 || s.OlderDiv == s.PriceDiv {
		return s.PriceDiv, ""
	}
	k := s.PriceDiv / s.OlderDiv // how much larger prices are under the older divisor
	inBand := func(x, lo, hi float64) bool { return x >= lo && x < hi }
	newer, older := 0, 0
	for i := range bars {
		b := &bars[i]
		if s.Type == market.TypeRepo {
			switch {
			case inBand(b.Close, repoRateLow, repoRateHigh):
				newer++
			case inBand(b.Close*k, repoRateLow, repoRateHigh):
				older++
			}
			continue
		}
		if b.Volume <= 0 || !(b.Amount > 0) || !(b.Close > 0) {
			continue
		}
		r := b.Amount / (b.Close * float64(b.Volume))
		switch {
		case inBand(r, 1/bondRatioSlack, bondRatioSlack):
			newer++
		case inBand(r/k, 1/bondRatioSlack, bondRatioSlack):
			older++
		}
	}
	votes := float64(newer + older)
	switch {
	case votes > 0 && float64(newer) >= decisiveShare*votes:
		return s.PriceDiv, ""
	case votes > 0 && float64(older) >= decisiveShare*votes:
		return s.OlderDiv, ""
	}
	what := "amount ÷ (close × volume)"
	if s.Type == market.TypeRepo {
		what = fmt.Sprintf("a rate of %g–%g %%", repoRateLow, repoRateHigh)
	}
	return s.PriceDiv, fmt.Sprintf("price divisor undecided: %s fits ÷%g (newer terminals) in %d records and ÷%g (older ones) in %d of %d; served at ÷%g",
		what, s.PriceDiv, newer, s.OlderDiv, older, len(bars), s.PriceDiv)
}

// repoVolumes turns a repo file's volumes into one unit, pieces of 100
// yuan lent, record by record. ScaleFor takes the volume word as lots of
// 10 pieces (1,000 yuan), which every record of the real sz131810 is; but
// sh204001 of a 2023 install counts lots of 10,000 yuan, and on six of its
// days lots of 1,000 again, so a file-wide unit served its volumes 10× too
// small on most days. A repo is lent at face value, so amount ÷ volume is
// the money a unit stands for, exactly: 100 yuan a piece where the lot is
// 1,000 yuan, 1,000 where it is 10,000 (×10 more). A record with neither
// (it never happens in the real files) keeps lots of 10 pieces and is
// counted in odd; one without volume or amount says nothing and is left.
func repoVolumes(bars []market.Bar) (odd int) {
	const piece = 100 // yuan lent a piece
	for i := range bars {
		b := &bars[i]
		if b.Volume <= 0 || !(b.Amount > 0) {
			continue
		}
		switch r := b.Amount / float64(b.Volume) / piece; {
		case r > 0.9 && r < 1.1:
		case r > 9 && r < 11:
			b.Volume *= 10
		default:
			odd++
		}
	}
	return odd
}

// rescale turns prices decoded at ÷from into prices at ÷to. The stored
// integer is recovered exactly (it is below 2^32), so the result is the
// double nearest raw ÷ to, as a direct decode would give.
func rescale(bars []market.Bar, from, to float64) {
	f := func(p float64) float64 { return math.Round(p*from) / to }
	for i := range bars {
		b := &bars[i]
		b.Open, b.High, b.Low, b.Close = f(b.Open), f(b.High), f(b.Low), f(b.Close)
	}
}

// unorderedFlag counts an index's days that close or open outside
// low..high. Early-1990s index records do; the terminal shows them, so they
// are kept and flagged rather than rejected.
func unorderedFlag(bars []market.Bar) (Flag, bool) {
	n := 0
	for i := range bars {
		if b := &bars[i]; unordered(b.Open, b.High, b.Low, b.Close) {
			n++
		}
	}
	return Flag{Reason: "days whose open or close lies outside low..high (early-1990s index records), kept as the terminal shows them", Records: n}, n > 0
}

// indexMinuteVolumes replaces an index's minute volumes with shares. The
// terminal's index minute "volume" holds amount ÷ 100, not lots (its 5-minute
// volumes add up to about 10× the day's), while the daily bar's volume is
// in lots of 100 member shares. A minute's shares are therefore its amount
// × the day's shares per yuan (day volume ÷ day amount), so the minutes of
// a day add up to the day's volume as closely as their amounts add up to
// its amount. This holds whatever the volume word holds, so it is not read.
//
// A day the .day file lacks (today's session before the terminal writes
// the daily bar) takes the nearest earlier day's rate, else the nearest
// later one, and is counted in estimated. ok is false when days has no
// usable bar at all.
func indexMinuteVolumes(mins, days []market.Bar) (estimated int, ok bool) {
	type rate struct {
		day     market.Day
		perYuan float64
	}
	rates := make([]rate, 0, len(days))
	for _, d := range days {
		if d.Volume > 0 && d.Amount > 0 {
			rates = append(rates, rate{d.Day, float64(d.Volume) / d.Amount})
		}
	}
	if len(rates) == 0 {
		return 0, false
	}
	j := 0
	for i := range mins {
		m := &mins[i]
		for j+1 < len(rates) && rates[j+1].day <= m.Day {
			j++
		}
		if rates[j].day != m.Day {
			estimated++
		}
		// Garbage (a day amount of 1e-40) must not overflow int64.
		m.Volume = int64(min(math.Round(m.Amount*rates[j].perYuan), maxVolume))
	}
	return estimated, true
}

// maxVolume bounds a computed volume: far above any real one (a day's
// whole-market turnover is below 1e12 shares) and exact as a float64.
const maxVolume = 1 << 53
