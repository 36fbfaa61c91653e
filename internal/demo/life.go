package demo

import (
	"slices"

	"mdqs/internal/market"
)

// A stock's life (issue 28): the events a point-in-time security master
// has to get right, drawn from the seed so that every consumer of the
// market sees the same history. A few stocks are renamed once, some
// main-board stocks spend a spell under a risk warning (named ST or *ST,
// limited to ±5 % on those days), some are suspended for a few days (no
// bar, no trade, the close carried), and a few are delisted: a *ST spell,
// then no bar from the delisting day on. The well-known stocks keep their
// real, uneventful lives.

// Probabilities per generated stock, over its whole timeline.
const (
	pRename  = 0.05
	pWarning = 0.04 // main board, not financial, not already ST
	pHalt    = 0.06 // one or two suspensions
	pDelist  = 0.02 // main board or ChiNext
)

// warningDays bounds a risk-warning spell; delistTail is the *ST spell
// that ends in a delisting.
const (
	minWarningDays = 120
	maxWarningDays = 400
	delistTail     = 80
	maxHaltDays    = 16
)

// spell is a run of trading days, both ends included.
type spell struct{ from, to market.Day }

func (s spell) has(d market.Day) bool { return d >= s.from && d <= s.to }

// warning is a risk-warning spell; star marks *ST (delisting risk).
type warning struct {
	spell
	star bool
}

// life holds a stock's events; nil for most stocks.
type life struct {
	former   string     // the name before renamed; "" when never renamed
	renamed  market.Day // first day under the stock's own (current) name
	warnings []warning
	halts    []spell
	delisted market.Day // first day no longer listed; 0: never
}

// warnedOn is the warning in force on d, if any.
func (s *stock) warnedOn(d market.Day) (warning, bool) {
	if s.life != nil {
		for _, w := range s.life.warnings {
			if w.has(d) {
				return w, true
			}
		}
	}
	return warning{}, false
}

// limitOn is the daily limit in force on d: ±5 % under a risk warning on
// the main boards, the board's otherwise.
func (s *stock) limitOn(d market.Day) int32 {
	if _, ok := s.warnedOn(d); ok && s.lb == boardMain {
		return 5
	}
	return s.limit
}

// haltedOn says the stock is suspended all day d.
func (s *stock) haltedOn(d market.Day) bool {
	if s.life == nil {
		return false
	}
	for _, h := range s.life.halts {
		if h.has(d) {
			return true
		}
	}
	return false
}

// nameOn is the name the stock traded under on d: its former name before
// the rename, with the warning's prefix during a spell.
func (s *stock) nameOn(d market.Day) string {
	if s.life == nil {
		return s.name
	}
	name := s.name
	if s.life.former != "" && d < s.life.renamed {
		name = s.life.former
	}
	if w, ok := s.warnedOn(d); ok {
		if w.star {
			return "*ST" + name
		}
		return "ST" + name
	}
	return name
}

// delistedDay is the first day the stock is no longer listed; 0: never.
func (s *stock) delistedDay() market.Day {
	if s.life == nil {
		return 0
	}
	return s.life.delisted
}

// listedOn says the stock is listed on d (suspended or not).
func (s *stock) listedOn(d market.Day) bool {
	return d >= s.listed && (s.delistedDay() == 0 || d < s.delistedDay())
}

// formerNames draws the former name of the stocks that will be renamed,
// after every current name exists, so that the current names do not
// depend on them. Well-known stocks are never renamed.
func formerNames(u *universe, seed uint64) {
	used := make(map[string]bool, len(u.stocks))
	for i := range u.stocks {
		used[u.stocks[i].name] = true
	}
	for i := range u.stocks {
		s := &u.stocks[i]
		if s.wk {
			continue
		}
		ls := newStream(hash3(seed, tagLife, codeKey(s.code)), 1)
		if ls.unit() >= pRename {
			continue
		}
		former := companyName(&ls, u.styles[s.ind], used)
		used[former] = true
		s.life = &life{former: former}
	}
}

// drawLives places each stock's events on the timeline: the rename's
// day, warning spells, suspensions and a delisting, in the window from
// sixty days after its listing to two years after the anchor; the
// delistings fall within three years of the anchor, so that any recent
// stretch of days holds some. It runs once the first days are known.
func (m *Market) drawLives() {
	top := min(len(m.days)-1, m.anchor+500)
	// A delisting leaves every board of the stock at least minBoard
	// members, so that no board empties or shrinks below a real one's size.
	const minBoard = 11
	size := make([]int, m.nBoards())
	for i, b := range m.u.industries {
		size[i] = len(b.members)
	}
	for j, b := range m.u.concepts {
		size[m.nInd+j] = len(b.members)
	}
	roomy := func(s *stock) bool {
		ok := size[s.ind] > minBoard
		for _, j := range s.concepts {
			ok = ok && size[m.nInd+int(j)] > minBoard
		}
		return ok
	}
	for si := range m.u.stocks {
		s := &m.u.stocks[si]
		s.last = len(m.days) - 1
		lo, hi := s.first+60, top
		if s.wk || lo >= hi-maxWarningDays {
			s.life = nil // too late a listing for any event inside the window
			continue
		}
		ls := newStream(hash3(m.seed, tagLife, codeKey(s.code)), 2)
		pick := func(a, b int) int { return a + ls.intn(b-a+1) }
		l := s.life
		if l == nil {
			l = &life{}
		}
		if l.former != "" {
			l.renamed = m.days[pick(lo, hi)]
		}
		if (s.lb == boardMain || s.lb == boardChiNext) && ls.unit() < pDelist {
			a, b := max(lo+delistTail, m.anchor-750), min(hi, m.anchor+250)
			if a <= b && roomy(s) {
				size[s.ind]--
				for _, j := range s.concepts {
					size[m.nInd+int(j)]--
				}
				di := pick(a, b)
				l.delisted = m.days[di]
				s.last = di - 1
				l.warnings = append(l.warnings, warning{spell{m.days[di-delistTail], m.days[di-1]}, true})
				hi = s.last
			}
		}
		if l.delisted == 0 && s.lb == boardMain && !s.st && !financial(m.u.styles[s.ind]) && ls.unit() < pWarning {
			n := pick(minWarningDays, maxWarningDays)
			a := pick(lo, max(lo, hi-n))
			l.warnings = append(l.warnings, warning{spell{m.days[a], m.days[min(hi, a+n-1)]}, ls.unit() < 0.5})
		}
		if ls.unit() < pHalt {
			for range 1 + ls.intn(2) {
				n := 1 + int(mul(ls.unit(), ls.unit())*(maxHaltDays-1))
				a := pick(lo, max(lo, hi-n))
				l.halts = append(l.halts, spell{m.days[a], m.days[min(hi, a+n-1)]})
			}
			slices.SortFunc(l.halts, func(x, y spell) int { return int(x.from) - int(y.from) })
		}
		if l.former == "" && l.delisted == 0 && len(l.warnings) == 0 && len(l.halts) == 0 {
			continue
		}
		s.life = l
	}
}
