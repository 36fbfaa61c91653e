package limitpool

import (
	"cmp"
	"context"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	"mdqs/db"
	"mdqs/internal/market"
)

// SealTolerance is how far a derived seal time may be from the published
// one and still agree: mdqs's are minute ends (a seal inside a minute is
// dated at its end), EastMoney's are to the second.
const SealTolerance = 60 // seconds

// worstKept is how many worst examples a field keeps.
const worstKept = 5

// Comparison is a day's published pools set against the derived ones.
type Comparison struct {
	Day market.Day
	// Status: "compared"; "not_imported" (no published pools of the day
	// in the store); "not_derived" (the day's pools cannot be derived:
	// Detail says why); "off" (the import does not run: demo mode, or
	// limit_pools.import = false).
	Status     string
	Detail     string
	Source     string    // the published pools' source (push2ex)
	ImportedAt time.Time // when they were imported
	Kinds      []KindComparison
}

// KindComparison is one pool kind's comparison. Both sides are compared
// on the common universe: EastMoney's topic leaves ST and STAR stocks
// out, so derived rows of those are Excluded, not "only derived".
type KindComparison struct {
	Kind          string
	Published     int // rows of the published pool
	Derived       int // rows of the derived pool, excluded ones included
	Both          []string
	OnlyPublished []string // codes, with the name
	OnlyDerived   []string
	Excluded      []Excluded
	Fields        []FieldComparison
}

// Excluded is a derived row outside the published topic's universe.
type Excluded struct {
	Code, Name, Why string // Why: "st" or "star"
	Published       bool   // the published pool has it all the same
}

// FieldComparison is one field over the codes in both pools.
type FieldComparison struct {
	Field     string
	Compared  int // codes where both sides have the field
	Disagree  int
	Below     int // opened_times only: derived lower than published, which minute bars explain (two openings in a minute count once)
	Missing   int // codes in both where the derived side lacks the field (no archived minutes of the day)
	Tolerance string
	Worst     []FieldDiff
}

// FieldDiff is one code's disagreement: the values as shown (times
// HH:MM:SS) and how far apart, in seconds for times, else in the field's
// unit.
type FieldDiff struct {
	Code, Name         string
	Published, Derived string
	Off                float64
}

// PublishedOff says why the import does not run (""; it runs).
func (s *Service) PublishedOff(why string) { s.publishedOff = why }

// Compare sets day's published pools, as the store holds them, against
// the pools derived for day. A day without an import, or that cannot be
// derived, is a comparison with that status, not an error: the quality
// answer it is part of still stands.
func (s *Service) Compare(ctx context.Context, day market.Day) (Comparison, error) {
	out := Comparison{Day: day, Kinds: []KindComparison{}}
	pub, err := s.store.PublishedPools(ctx, day)
	switch {
	case market.KindOf(err) == market.KindNotFound && s.publishedOff != "":
		out.Status, out.Detail = "off", s.publishedOff
		return out, nil
	case market.KindOf(err) == market.KindNotFound:
		out.Status, out.Detail = "not_imported", err.Error()+": the import asks for each trading day from limit_pools.import_at while the source keeps it (about two weeks)"
		return out, nil
	case err != nil:
		return out, err
	}
	out.Source, out.ImportedAt = pub.Source, pub.ImportedAt
	derived, err := s.Derive(ctx, day)
	switch k := market.KindOf(err); {
	case err == nil:
	case k == market.KindNotFound || k == market.KindInvalid || k == market.KindUnavailable:
		out.Status, out.Detail = "not_derived", err.Error()
		return out, nil
	default:
		return out, err
	}
	out.Status = "compared"
	for _, kind := range Kinds {
		p, _ := pub.Pool(kind)
		out.Kinds = append(out.Kinds, compareKind(kind, p, derived.Pool(kind)))
	}
	// The strong pool is EastMoney's selection by thresholds it does not
	// state: membership measures how far mdqs's stated ones agree. Days
	// imported before mdqs imported it hold none.
	if p, ok := pub.Pool("strong"); ok {
		strong, err := s.Strong(ctx, day)
		if err != nil {
			return out, err
		}
		out.Kinds = append(out.Kinds, compareKind("strong", p, strong.Pool("strong")))
	}
	return out, nil
}

// excludedWhy is why code is outside EastMoney's topic: "st" (a risk
// warning that day), "star" (the STAR market), "" inside it.
func excludedWhy(r Row) string {
	switch {
	case r.ST != "":
		return "st"
	case r.Board == "star":
		return "star"
	}
	return ""
}

func compareKind(kind string, pub db.PublishedPool, derived []Row) KindComparison {
	out := KindComparison{Kind: kind, Published: len(pub.Rows), Derived: len(derived), Both: []string{}, OnlyPublished: []string{},
		OnlyDerived: []string{}, Excluded: []Excluded{}, Fields: []FieldComparison{}}
	pubBy := map[market.Code]db.PublishedRow{}
	for _, r := range pub.Rows {
		pubBy[r.Code] = r
	}
	type pair struct {
		p db.PublishedRow
		d Row
	}
	var both []pair
	seen := map[market.Code]bool{}
	for _, d := range derived {
		p, inPub := pubBy[d.Code]
		seen[d.Code] = true
		if why := excludedWhy(d); why != "" {
			out.Excluded = append(out.Excluded, Excluded{Code: d.Code.String(), Name: d.Name, Why: why, Published: inPub})
			continue
		}
		if !inPub {
			out.OnlyDerived = append(out.OnlyDerived, d.Code.String())
			continue
		}
		out.Both = append(out.Both, d.Code.String())
		both = append(both, pair{p, d})
	}
	for _, p := range pub.Rows {
		if !seen[p.Code] {
			out.OnlyPublished = append(out.OnlyPublished, p.Code.String())
		}
	}
	slices.Sort(out.OnlyPublished)

	// Each field: how to read both sides (ok false: that side lacks it),
	// and whether a difference is a disagreement.
	type field struct {
		name, tolerance string
		pub             func(db.PublishedRow) (float64, bool)
		der             func(Row) (float64, bool)
		show            func(float64) string
		disagree        func(p, d float64) bool
		below           bool
	}
	seals := func(r Row) *Seals {
		if kind == "down" {
			return r.DownSeals
		}
		return r.UpSeals
	}
	secs := func(v int) (float64, bool) { return float64(v), v >= 0 }
	count := func(v int) (float64, bool) { return float64(v), v >= 0 }
	timeField := func(name string, pub func(db.PublishedRow) int, der func(*Seals) market.TimeOfDay) field {
		return field{name: name, tolerance: "60 s: mdqs's times are minute ends, the source's to the second",
			pub: func(p db.PublishedRow) (float64, bool) { return secs(pub(p)) },
			der: func(r Row) (float64, bool) {
				if sl := seals(r); sl != nil && sl.Sealed {
					return float64(der(sl)) * 60, true
				}
				return 0, false
			},
			show: clockText, disagree: func(p, d float64) bool { return math.Abs(d-p) > SealTolerance }}
	}
	exact := func(p, d float64) bool { return p != d }
	var fields []field
	price := field{name: "price", tolerance: "half a cent: the published latest price against the day's close",
		pub:  func(p db.PublishedRow) (float64, bool) { return p.Price, !math.IsNaN(p.Price) },
		der:  func(r Row) (float64, bool) { return r.Bar.Close, r.Bar.Traded() },
		show: func(v float64) string { return strconv.FormatFloat(v, 'f', 2, 64) }, disagree: func(p, d float64) bool { return math.Abs(d-p) >= 0.005 }}
	boards := func(der func(Row) int) field {
		return field{name: "boards", tolerance: "exact",
			pub: func(p db.PublishedRow) (float64, bool) { return count(p.Boards) }, der: func(r Row) (float64, bool) { return float64(der(r)), true },
			show: countText, disagree: exact}
	}
	opened := field{name: "opened_times", tolerance: "derived at most the published: minute bars count two openings inside a minute once",
		pub: func(p db.PublishedRow) (float64, bool) { return count(p.OpenedTimes) },
		der: func(r Row) (float64, bool) {
			if sl := seals(r); sl != nil {
				return float64(sl.Opened), true
			}
			return 0, false
		},
		show: countText, disagree: func(p, d float64) bool { return d > p }, below: true}
	first := timeField("first_seal", func(p db.PublishedRow) int { return p.FirstSeal }, func(s *Seals) market.TimeOfDay { return s.First })
	last := timeField("last_seal", func(p db.PublishedRow) int { return p.LastSeal }, func(s *Seals) market.TimeOfDay { return s.Last })
	switch kind {
	case "up":
		fields = []field{price, boards(func(r Row) int { return r.Boards }), first, last, opened}
	case "broken":
		fields = []field{price, first, opened}
	case "down":
		fields = []field{price, boards(func(r Row) int { return r.DownDays }), last, opened}
	case "yesterday":
		fields = []field{price, boards(func(r Row) int { return r.YesterdayBoards })}
	case "strong":
		fields = []field{price}
	}
	for _, f := range fields {
		fc := FieldComparison{Field: f.name, Tolerance: f.tolerance, Worst: []FieldDiff{}}
		var diffs []FieldDiff
		for _, b := range both {
			pv, pok := f.pub(b.p)
			dv, dok := f.der(b.d)
			if !pok {
				continue
			}
			if !dok {
				fc.Missing++
				continue
			}
			fc.Compared++
			if f.below && dv < pv {
				fc.Below++
			}
			if f.disagree(pv, dv) {
				fc.Disagree++
				diffs = append(diffs, FieldDiff{Code: b.d.Code.String(), Name: b.d.Name, Published: f.show(pv), Derived: f.show(dv), Off: dv - pv})
			}
		}
		slices.SortStableFunc(diffs, func(a, b FieldDiff) int {
			return cmp.Or(cmp.Compare(math.Abs(b.Off), math.Abs(a.Off)), strings.Compare(a.Code, b.Code))
		})
		fc.Worst = append(fc.Worst, diffs[:min(len(diffs), worstKept)]...)
		out.Fields = append(out.Fields, fc)
	}
	return out
}

func clockText(sec float64) string {
	s := int(sec)
	return fmt.Sprintf("%02d:%02d:%02d", s/3600, s/60%60, s%60)
}

func countText(v float64) string { return strconv.Itoa(int(v)) }
