package movement

import (
	"cmp"
	"math"
	"slices"
	"strings"
	"time"

	"mdqs/internal/market"
)

// Sort fields of the sector queries.
var SortFields = []string{"pct", "main_net", "amount", "turnover"}

// Filter is the common parameters of spec 4.4, applied together (AND).
type Filter struct {
	Sort        string // one of SortFields; "" means pct
	Asc         bool   // order=asc; the default is descending
	Top         int    // 0: every row
	MinAmount   float64
	MinTurnover float64
	MinMainNet  float64         // NaN: no bound (for all three)
	Exclude     map[string]bool // excode: board codes left out
	Code        string          // exact board code, case-insensitive
	Name        string          // fuzzy: a case-insensitive substring of the name
}

// NoBound is the "not given" value of the Min fields.
func NoBound() float64 { return math.NaN() }

// Row is a sector snapshot row (spec 2.4) with the sector's context.
type Row struct {
	BoardCode    string     `json:"board_code"`
	BoardName    string     `json:"board_name"`
	Type         string     `json:"type"`
	Pct          market.Num `json:"pct"`
	Amount       market.Num `json:"amount"`
	Turnover     market.Num `json:"turnover"`
	MainNet      market.Num `json:"main_net"`
	MainNetRatio market.Num `json:"main_net_ratio"`
	Up           int        `json:"up"`
	Down         int        `json:"down"`
	LeaderCode   string     `json:"leader_code"`
	LeaderName   string     `json:"leader_name"`
	LeaderPct    market.Num `json:"leader_pct"`
	// EventTS is when the sector first reached a movement threshold that
	// day (YYYY-MM-DD HH:MM:SS), null if it has not.
	EventTS *string `json:"event_ts"`
}

// matchesBoard reports whether a sector is the one code or name asks for.
func (f Filter) matchesBoard(x market.Sector) bool {
	if f.Code != "" && !strings.EqualFold(x.Code, f.Code) {
		return false
	}
	if f.Name != "" && !fuzzy(x.Name, f.Name) {
		return false
	}
	return true
}

// fuzzy matches a name by case-insensitive substring, ignoring spaces, so
// "ai" finds "AI芯片" and "半导" finds "半导体".
func fuzzy(name, pattern string) bool {
	norm := func(s string) string { return strings.ToLower(strings.Join(strings.Fields(s), "")) }
	return strings.Contains(norm(name), norm(pattern))
}

func (f Filter) keeps(x market.Sector) bool {
	if f.Exclude[strings.ToUpper(x.Code)] || !f.matchesBoard(x) {
		return false
	}
	atLeast := func(v, bound float64) bool { return math.IsNaN(bound) || (market.IsKnown(v) && v >= bound) }
	return atLeast(x.Amount, f.MinAmount) && atLeast(x.Turnover, f.MinTurnover) && atLeast(x.MainNet, f.MinMainNet)
}

func sortKey(x market.Sector, field string) float64 {
	switch field {
	case "main_net":
		return x.MainNet
	case "amount":
		return x.Amount
	case "turnover":
		return x.Turnover
	}
	return x.Pct
}

// apply filters, sorts and cuts a family's sectors into rows. Unknown
// values sort last whatever the order. matched reports whether code/name
// (when given) named any sector at all, before the other filters.
func (f Filter) apply(kind market.SectorKind, sectors []market.Sector, firstMoved map[string]time.Time) (rows []Row, matched bool) {
	field := cmp.Or(f.Sort, "pct")
	kept := make([]market.Sector, 0, len(sectors))
	matched = f.Code == "" && f.Name == ""
	for _, x := range sectors {
		if (f.Code != "" || f.Name != "") && f.matchesBoard(x) {
			matched = true
		}
		if f.keeps(x) {
			kept = append(kept, x)
		}
	}
	slices.SortStableFunc(kept, func(a, b market.Sector) int {
		va, vb := sortKey(a, field), sortKey(b, field)
		switch an, bn := math.IsNaN(va), math.IsNaN(vb); {
		case an && bn:
			return cmp.Compare(a.Name, b.Name)
		case an:
			return 1
		case bn:
			return -1
		}
		c := cmp.Compare(vb, va)
		if f.Asc {
			c = -c
		}
		return cmp.Or(c, cmp.Compare(a.Name, b.Name))
	})
	if f.Top > 0 && f.Top < len(kept) {
		kept = kept[:f.Top]
	}
	rows = make([]Row, len(kept))
	for i, x := range kept {
		rows[i] = Row{
			BoardCode: x.Code, BoardName: x.Name, Type: string(kind),
			Pct: market.Num(x.Pct), Amount: market.Num(x.Amount), Turnover: market.Num(x.Turnover),
			MainNet: market.Num(x.MainNet), MainNetRatio: market.Num(x.MainNetRatio), Up: x.Up, Down: x.Down,
			LeaderCode: x.LeaderCode, LeaderName: x.LeaderName, LeaderPct: market.Num(x.LeaderPct),
		}
		if t, ok := firstMoved[x.Name]; ok {
			s := market.FormatTime(t)
			rows[i].EventTS = &s
		}
	}
	return rows, matched
}
