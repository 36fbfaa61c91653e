package archive

import (
	"math"
	"runtime"
	"slices"
	"strings"
	"sync"

	"mdqs/db"
	"mdqs/internal/market"
	"mdqs/internal/tdx"
)

// TerminalSource is the source the terminal bridge gives the bars it
// imports (bridge.Source; a test holds the two equal). A stored side of
// this source is the terminal's own file: it is not compared with itself.
const TerminalSource = "tdx"

// Names of the comparisons with the terminal's files.
const (
	PairTerminalDay     = "terminal_day"     // the terminal's .day bar against the store's daily bar
	PairTerminalMinutes = "terminal_minutes" // the terminal's .lc1 minutes against the archive's
)

// Comparison is one pair of sources holding the same day, side A against
// side B, field by field. The store keeps one row per code, frequency and
// day, so the second source of a pair is read where it lives: the
// terminal's files beside mdqs, seeked to the day (tdx.DayOn, MinutesOn).
type Comparison struct {
	Name               string // PairTerminalDay, PairTerminalMinutes
	A, B               string // what each side is, for a reader
	Compared           int    // codes whose day both sides hold (whole, for minutes)
	ASources, BSources map[string]int
	// SameSource counts codes whose B side came from the terminal itself
	// (imported from these files): comparing them would compare a file
	// with its copy.
	SameSource int
	// Partial counts codes whose terminal minutes of the day are not a
	// whole session (a day downloaded mid-session); Unreadable those whose
	// file failed for the day (a bad record, a read error).
	Partial, Unreadable int
	Fields              []PairField
}

// PairField is one field's disagreements within a comparison; the shape
// of FieldQuality with sides A and B instead of minutes and day.
type PairField struct {
	Field     string
	Tolerance string
	Compared  int
	Disagree  int
	Worst     []PairDisagreement // the largest first, at most 5
}

// PairDisagreement is one code's disagreeing values. For minutes it is
// the code's worst minute on the field: its end (TS) and how many of the
// day's minutes disagree on the field (Minutes).
type PairDisagreement struct {
	Code       market.Code
	A, B       float64
	ASrc, BSrc string
	Off        float64 // relative difference, |a - b| / |b|
	TS         int64   // the minute's end, Unix seconds; 0 for a daily bar
	Minutes    int
}

// pairFields are the fields compared and their tolerances: prices exactly
// (to 0.001 yuan), volume and amount within 0.5 %. A minute's volume also
// agrees within one lot (100 shares, its floor): sources that count in
// lots round each minute to one, and 0.5 % of a quiet minute is less.
//
// Units: both sides are in shares and yuan. tdx.ScaleFor widens the
// terminal's volumes to shares (A shares and funds are stored in shares,
// indices in lots of 100, bonds in lots of 10 pieces), an index's minute
// volumes included (tdx.Terminal.MinutesOn), and the store holds
// market.Bar.Volume in shares whatever the source (push2his's lots are
// widened on the way in). So the figures are compared as they are.
var pairFields = []struct {
	name      string
	tolerance float64 // relative; 0: a price, within 0.001 yuan
	lot       float64 // minutes: an absolute difference this small agrees
	of        func(b market.Bar) float64
}{
	{"open", 0, 0, func(b market.Bar) float64 { return b.Open }},
	{"high", 0, 0, func(b market.Bar) float64 { return b.High }},
	{"low", 0, 0, func(b market.Bar) float64 { return b.Low }},
	{"close", 0, 0, func(b market.Bar) float64 { return b.Close }},
	{"volume", sumTolerance, 100, func(b market.Bar) float64 { return float64(b.Volume) }},
	{"amount", sumTolerance, 0, func(b market.Bar) float64 { return b.Amount }},
}

// disagrees reports whether a differs from b beyond field i's tolerance,
// and by how much relative to b.
func disagrees(i int, a, b float64, minute bool) (off float64, bad bool) {
	f := pairFields[i]
	off = relative(a, b)
	if f.tolerance == 0 {
		return off, math.Abs(a-b) > 0.001
	}
	if minute && math.Abs(a-b) <= f.lot {
		return off, false
	}
	return off, off > f.tolerance
}

func newComparison(name, a, b string, minute bool) Comparison {
	c := Comparison{Name: name, A: a, B: b, ASources: map[string]int{}, BSources: map[string]int{}}
	for _, f := range pairFields {
		tol := "0.001 yuan"
		if f.tolerance > 0 {
			tol = "0.5%"
			if minute && f.lot > 0 {
				tol = "0.5% or 100 shares"
			}
		}
		c.Fields = append(c.Fields, PairField{Field: f.name, Tolerance: tol})
	}
	return c
}

// finish keeps each field's five worst, the largest first (ties by code,
// so the answer does not depend on the order the workers finished in).
func (c *Comparison) finish() {
	for i := range c.Fields {
		w := c.Fields[i].Worst
		slices.SortFunc(w, func(a, b PairDisagreement) int {
			if o := compareFloat(b.Off, a.Off); o != 0 {
				return o
			}
			return strings.Compare(a.Code.String(), b.Code.String())
		})
		c.Fields[i].Worst = w[:min(len(w), 5)]
	}
}

// terminalDays compares the terminal's .day bar of day with the store's
// daily bar for every code of codes (the day's universe) that has both
// and whose stored bar is not the terminal's.
func terminalDays(term *tdx.Terminal, day market.Day, codes []market.Code, daily map[market.Code]db.SourcedBar) Comparison {
	c := newComparison(PairTerminalDay, "the terminal's .day bar", "the store's daily bar", false)
	var todo []market.Code
	for _, code := range codes {
		d, ok := daily[code]
		if _, has := term.DayFile(code); !ok || !has {
			continue
		}
		if d.Source == TerminalSource {
			c.SameSource++
			continue
		}
		todo = append(todo, code)
	}
	type read struct {
		bar    market.Bar
		ok     bool
		failed bool
	}
	got := make([]read, len(todo))
	inParallel(len(todo), func(i int) {
		bar, ok, err := term.DayOn(todo[i], day)
		got[i] = read{bar, ok, err != nil}
	})
	for i, code := range todo {
		r, d := got[i], daily[code]
		switch {
		case r.failed:
			c.Unreadable++
			continue
		case !r.ok: // the terminal lacks the day: nothing to compare
			continue
		}
		c.Compared++
		c.ASources[TerminalSource]++
		c.BSources[d.Source]++
		for fi, f := range pairFields {
			a, b := f.of(r.bar), f.of(d.Bar)
			if !market.IsKnown(a) || !market.IsKnown(b) {
				continue
			}
			c.Fields[fi].Compared++
			if off, bad := disagrees(fi, a, b, false); bad {
				c.Fields[fi].Disagree++
				c.Fields[fi].Worst = append(c.Fields[fi].Worst, PairDisagreement{Code: code, A: a, B: b,
					ASrc: TerminalSource, BSrc: d.Source, Off: off})
			}
		}
	}
	c.finish()
	return c
}

// terminalMinutes compares the terminal's .lc1 minutes of day with the
// archive's, minute by minute, for every code whose archived day is whole
// and not the terminal's. A code disagrees on a field when any minute
// does; its worst minute is the example, with how many minutes disagree.
// Minute by minute rather than the day's aggregates: a shifted or missing
// minute, or a wrong price inside the session, leaves the day's high, low
// and sums alone and would pass unseen. Opens derived from the previous
// close (derived: the archive record's OpensGiven is false) are not
// compared, as in the minutes-against-day comparison.
func terminalMinutes(term *tdx.Terminal, day market.Day, minutes []db.MinuteDay, derived map[market.Code]bool) Comparison {
	c := newComparison(PairTerminalMinutes, "the terminal's .lc1 minutes", "the archive's 1-minute bars", true)
	has := map[market.Code]bool{}
	for _, f := range term.Find(tdx.KindLC1) {
		has[f.Code] = true
	}
	var todo []db.MinuteDay
	for _, m := range minutes {
		if !has[m.Code] || len(m.Bars) != 240 {
			continue
		}
		if m.Source == TerminalSource {
			c.SameSource++
			continue
		}
		todo = append(todo, m)
	}
	type read struct {
		bars   []market.Bar
		failed bool
	}
	got := make([]read, len(todo))
	inParallel(len(todo), func(i int) {
		bars, err := term.MinutesOn(todo[i].Code, day)
		got[i] = read{bars, err != nil}
	})
	for i, m := range todo {
		r := got[i]
		switch {
		case r.failed:
			c.Unreadable++
			continue
		case len(r.bars) == 0:
			continue
		case len(r.bars) != 240:
			c.Partial++
			continue
		}
		c.Compared++
		c.ASources[TerminalSource]++
		c.BSources[m.Source]++
		for fi := range pairFields {
			if pairFields[fi].name == "open" && derived[m.Code] {
				continue
			}
			if w, ok := worstMinute(fi, r.bars, m.Bars); ok {
				c.Fields[fi].Compared++
				if w.Minutes > 0 {
					w.Code, w.ASrc, w.BSrc = m.Code, TerminalSource, m.Source
					c.Fields[fi].Disagree++
					c.Fields[fi].Worst = append(c.Fields[fi].Worst, w)
				}
			}
		}
	}
	c.finish()
	return c
}

// worstMinute walks the two days' minutes by their end time and returns
// the worst disagreement of field fi with the count of disagreeing
// minutes (0: they agree). ok is false when no minute of both carries the
// field.
func worstMinute(fi int, a, b []market.Bar) (w PairDisagreement, ok bool) {
	of := pairFields[fi].of
	for i, j := 0, 0; i < len(a) && j < len(b); {
		switch {
		case a[i].TS < b[j].TS:
			i++
			continue
		case a[i].TS > b[j].TS:
			j++
			continue
		}
		x, y := of(a[i]), of(b[j])
		if market.IsKnown(x) && market.IsKnown(y) {
			ok = true
			if off, bad := disagrees(fi, x, y, true); bad {
				if w.Minutes++; w.Minutes == 1 || off > w.Off {
					w.A, w.B, w.Off, w.TS = x, y, off, a[i].TS
				}
			}
		}
		i, j = i+1, j+1
	}
	return w, ok
}

// inParallel calls fn for 0..n-1 on a few goroutines: the terminal reads
// are a file open and a few small reads each, so they overlap their waits.
func inParallel(n int, fn func(i int)) {
	workers := min(n, 2*runtime.GOMAXPROCS(0))
	var wg sync.WaitGroup
	for k := range workers {
		wg.Go(func() {
			for i := k; i < n; i += workers {
				fn(i)
			}
		})
	}
	wg.Wait()
}
