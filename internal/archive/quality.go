package archive

import (
	"context"
	"math"
	"slices"

	"mdqs/db"
	"mdqs/internal/market"
	"mdqs/internal/tdx"
)

// Quality is one day's measured quality: what the archive did with the
// day's universe, and where two sources hold the same day (the 1-minute
// bars of one, the daily bar of another: trends2 against the quote list's
// close or the terminal's .day) how often and how far they disagree, field
// by field, with the worst examples. It answers "free data is unstable"
// with a rate.
type Quality struct {
	Day                              market.Day
	Universe                         int // codes the archive owes on the day
	Archived, Flagged, Gaps, Missing int // Missing: owed and not recorded yet
	Compared                         int // codes with both a whole minute day and a daily bar
	MinuteSources, DaySources        map[string]int
	Fields                           []FieldQuality
	DerivedOpens                     int // codes whose opens were derived, so open was not compared
	// Comparisons are the pairs read from the terminal's files when a
	// terminal folder is configured (Config.TerminalDir): its .day bars
	// against the store's daily bars, its .lc1 minutes against the
	// archive's. TerminalError says why there are none although one is
	// configured (the folder cannot be read).
	Comparisons   []Comparison
	TerminalError string
}

// FieldQuality is one field's disagreements between the two sources.
type FieldQuality struct {
	Field     string // open, high, low, close, volume, amount
	Compared  int
	Disagree  int
	Tolerance string
	Worst     []Disagreement // the largest first, at most 5
}

// Disagreement is one code's value from each source.
type Disagreement struct {
	Code              market.Code
	Minutes, Day      float64 // the minutes' aggregate and the daily bar's
	MinuteSrc, DaySrc string
	Off               float64 // relative difference, |minutes - day| / |day|
}

// qualityFields are the fields compared, each with how the minutes make it
// and how far they may be from the day's bar: prices exactly (to a tenth
// of a cent), volume and amount within 0.5 % (the sources round each
// minute's amount).
var qualityFields = []struct {
	name      string
	tolerance float64 // relative; 0: prices, compared to 0.001 yuan
	of        func(min []market.Bar) float64
	day       func(b market.Bar) float64
}{
	{"open", 0, func(m []market.Bar) float64 { return m[0].Open }, func(b market.Bar) float64 { return b.Open }},
	{"high", 0, func(m []market.Bar) float64 { return maxOf(m, func(b market.Bar) float64 { return b.High }) },
		func(b market.Bar) float64 { return b.High }},
	{"low", 0, func(m []market.Bar) float64 { return -maxOf(m, func(b market.Bar) float64 { return -b.Low }) },
		func(b market.Bar) float64 { return b.Low }},
	{"close", 0, func(m []market.Bar) float64 { return m[len(m)-1].Close }, func(b market.Bar) float64 { return b.Close }},
	{"volume", sumTolerance, func(m []market.Bar) float64 { return sumOf(m, func(b market.Bar) float64 { return float64(b.Volume) }) },
		func(b market.Bar) float64 { return float64(b.Volume) }},
	{"amount", sumTolerance, func(m []market.Bar) float64 { return sumOf(m, func(b market.Bar) float64 { return b.Amount }) },
		func(b market.Bar) float64 { return b.Amount }},
}

func maxOf(bars []market.Bar, f func(market.Bar) float64) float64 {
	v := math.Inf(-1)
	for _, b := range bars {
		v = max(v, f(b))
	}
	return v
}

func sumOf(bars []market.Bar, f func(market.Bar) float64) float64 {
	var v float64
	for _, b := range bars {
		v += f(b)
	}
	return v
}

// Quality measures day. A day the security master did not record is not
// known (its error).
func (s *Service) Quality(ctx context.Context, day market.Day) (Quality, error) {
	q := Quality{Day: day, MinuteSources: map[string]int{}, DaySources: map[string]int{}}
	secs, err := s.universeOf(ctx, day, false)
	if err != nil {
		return q, err
	}
	recs, err := s.store.ArchiveDays(ctx, day)
	if err != nil {
		return q, err
	}
	owed := map[market.Code]bool{}
	for _, sec := range secs {
		if !sec.Suspended {
			owed[sec.Code] = true
		}
	}
	q.Universe = len(owed)
	derived := map[market.Code]bool{}
	for _, a := range recs {
		switch a.Status {
		case db.ArchiveArchived:
			q.Archived++
		case db.ArchiveFlagged:
			q.Flagged++
		case db.ArchiveGap:
			q.Gaps++
		}
		if a.Status != db.ArchiveGap && !a.OpensGiven {
			derived[a.Code] = true
		}
		delete(owed, a.Code)
	}
	q.Missing = len(owed)
	q.DerivedOpens = len(derived)

	minutes, err := s.store.MinuteDaysOn(ctx, day, market.Min1)
	if err != nil {
		return q, err
	}
	codes := make([]market.Code, 0, len(minutes))
	for _, m := range minutes {
		codes = append(codes, m.Code)
	}
	term, terr := s.terminal()
	var universe []market.Code
	if term != nil {
		// The daily bars of the universe's codes with a .day file too, for
		// the terminal's comparison; those of the minutes' codes are read
		// once for both.
		held := map[market.Code]bool{}
		for _, c := range codes {
			held[c] = true
		}
		for _, sec := range secs {
			universe = append(universe, sec.Code)
			if _, ok := term.DayFile(sec.Code); ok && !held[sec.Code] {
				codes = append(codes, sec.Code)
			}
		}
	}
	daily, err := s.store.DailyBarsOn(ctx, day, codes)
	if err != nil {
		return q, err
	}
	fields := make([]FieldQuality, len(qualityFields))
	for i, f := range qualityFields {
		fields[i] = FieldQuality{Field: f.name, Tolerance: "0.001 yuan"}
		if f.tolerance > 0 {
			fields[i].Tolerance = "0.5%"
		}
	}
	for _, m := range minutes {
		d, ok := daily[m.Code]
		if !ok || len(m.Bars) != 240 {
			continue
		}
		q.Compared++
		q.MinuteSources[m.Source]++
		q.DaySources[d.Source]++
		for i, f := range qualityFields {
			if f.name == "open" && derived[m.Code] {
				continue
			}
			got, want := f.of(m.Bars), f.day(d.Bar)
			if !market.IsKnown(got) || !market.IsKnown(want) {
				continue
			}
			fields[i].Compared++
			off := relative(got, want)
			bad := off > f.tolerance
			if f.tolerance == 0 {
				bad = math.Abs(got-want) > 0.001
			}
			if !bad {
				continue
			}
			fields[i].Disagree++
			fields[i].Worst = append(fields[i].Worst, Disagreement{Code: m.Code, Minutes: got, Day: want,
				MinuteSrc: m.Source, DaySrc: d.Source, Off: off})
		}
	}
	for i := range fields {
		w := fields[i].Worst
		slices.SortFunc(w, func(a, b Disagreement) int { return compareFloat(b.Off, a.Off) })
		fields[i].Worst = w[:min(len(w), 5)]
	}
	q.Fields = fields
	switch {
	case term != nil:
		q.Comparisons = []Comparison{terminalDays(term, day, universe, daily), terminalMinutes(term, day, minutes, derived)}
	case terr != nil:
		q.TerminalError = terr.Error()
	}
	return q, nil
}

// terminal scans the configured terminal folder for this request (nil and
// no error when none is configured): the terminal adds and replaces files
// while mdqs runs, and the scan lists names only, without reading a file.
func (s *Service) terminal() (*tdx.Terminal, error) {
	if s.cfg.TerminalDir == "" {
		return nil, nil
	}
	term, err := tdx.Open(s.cfg.TerminalDir)
	if err != nil {
		return nil, err
	}
	term.Clock = s.clock
	return term, nil
}

func compareFloat(a, b float64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}
