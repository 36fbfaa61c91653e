package demo

import (
	"cmp"
	"slices"

	"mdqs/internal/market"
	"mdqs/internal/tdx"
)

// Corporate actions, as the terminal's gbbq holds them (tdx.GBBQEvent), so
// that the demo terminal's folder carries one and adjusted prices have
// events to work on:
//
//   - a cash dividend every year on most profitable stocks (80 % of those
//     with positive earnings), paying 15-50 % of a year's earnings per
//     share, give or take a fifth;
//   - bonus shares (送转, 2 to 10 per 10) with the dividend in some years
//     on about one in ten of the stocks priced 10 yuan or more at the
//     anchor (a 2-yuan stock giving 10 per 10 would fall under a yuan);
//   - one rights issue in the market, 3 shares per 10 at 70 % of the
//     stock's anchor price, about 320 sessions before the anchor;
//   - a listing record (category 5, float and total before zero) for a
//     stock that lists inside the history, as the terminal's newer stocks
//     have, which anchors 后复权 there.
//
// Ex-dates are trading days after a stock's first bar, and 60 % of the
// payers go ex between May and July as A shares mostly do; the others are
// spread over the year, so that at any date some ex-date lies within the
// next days, which a gbbq of that day already holds (announced, not yet
// effective).
//
// The price walk goes ex on these events (exrights.go): on an ex-date the
// day moves from the reference price, so unadjusted demo prices drop by
// the dividend as real prices do, and 前复权 runs on across the ex-date.

// announceDays is how far past its own day a gbbq holds ex-dates: the real
// files hold announced ones up to about a week ahead (adjust.md §1.2).
const announceDays = 10

// rightsBack is how many sessions before the anchor the rights issue goes
// ex: a past event, inside any history of more than a year and a half.
const rightsBack = 320

// rightsIssue is the market's one rights issue.
type rightsIssue struct {
	si    int32 // the stock; -1 when no stock qualifies
	day   int   // timeline index of the ex-date
	price float32
}

// pickRights chooses the rights issue from the seed among the profitable,
// non-ST main-board stocks trading before its day.
func (m *Market) pickRights() rightsIssue {
	day := max(m.anchor-rightsBack, 1)
	var cands []int32
	for i := range m.u.stocks {
		s := &m.u.stocks[i]
		if s.lb == boardMain && !s.st && s.life == nil && s.eps > 0 && s.first < day {
			cands = append(cands, int32(i))
		}
	}
	if len(cands) == 0 {
		return rightsIssue{si: -1}
	}
	s := newStream(hash2(m.seed, tagActions), 1)
	si := cands[s.intn(len(cands))]
	// The walk pulls prices toward the anchor price, so 70 % of it is an
	// offer below the market, as a rights issue's price is.
	price := float32(float64(int64Round(mul(float64(m.u.stocks[si].base), 0.7))) / 100)
	return rightsIssue{si: si, day: day, price: price}
}

// Actions is a code's corporate actions as a gbbq written today (by the
// market's clock) holds them; see ActionsAsOf.
func (m *Market) Actions(code market.Code) []tdx.GBBQEvent {
	return m.ActionsAsOf(code, market.DayOf(m.clock.Now()))
}

// ActionsAsOf is a code's corporate actions as a gbbq of asOf holds them:
// every event up to asOf and those announced for the following
// announceDays days, by day then category. A code outside the universe
// has none. Events are a function of the seed and the scale only: a later
// asOf adds events, it never changes one.
func (m *Market) ActionsAsOf(code market.Code, asOf market.Day) []tdx.GBBQEvent {
	si, ok := m.u.byCode[code]
	if !ok {
		return nil
	}
	s := &m.u.stocks[si]
	last := asOf.AddDays(announceDays)
	var out []tdx.GBBQEvent
	if s.listed >= m.days[0] && s.listed <= last {
		out = append(out, tdx.GBBQEvent{Code: s.code, Day: s.listed, Category: tdx.ShareChange,
			F: [4]float64{0, 0, stored(float64(s.fs) / 1e4), stored(float64(s.total) / 1e4)}})
	}
	for k := range s.ex {
		if d := m.days[s.ex[k].i]; d <= last {
			out = append(out, s.ex[k].gbbqEvent(s.code, d))
		}
	}
	slices.SortStableFunc(out, func(a, b tdx.GBBQEvent) int {
		if c := cmp.Compare(a.Day, b.Day); c != 0 {
			return c
		}
		return cmp.Compare(a.Category, b.Category)
	})
	return out
}

// stored is x as a gbbq holds it: a float32, read back as its shortest
// decimal (tdx.Decimal32), so the events equal those decoded from the
// demo terminal's file. A share count of 123456.7891 万股 is 123456.79.
func stored(x float64) float64 { return tdx.Decimal32(float32(x)) }
