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
//     on about one stock in twelve;
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
// The demo's bars are not gapped at ex-dates: the price walk knows nothing
// of these events and stays as it was, so unadjusted demo prices do not
// drop by the dividend on its ex-date as real prices do, and adjusting
// them shifts the history before each event by its amount instead.

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
			F: [4]float32{0, 0, float32(float64(s.fs) / 1e4), float32(float64(s.total) / 1e4)}})
	}
	ps := newStream(hash2(s.key, tagActions), 0)
	payer := ps.unit() < 0.8 && s.eps > 0
	bonus := ps.unit() < 0.08
	payout := ps.between(0.15, 0.5)
	offset := ps.intn(350) // days after 5 January
	if ps.unit() < 0.6 {
		offset = 116 + ps.intn(90) // 1 May to 29 July
	}
	for y := m.days[0].Year(); payer && y <= last.Year(); y++ {
		ys := newStream(hash2(s.key, tagActions), uint64(y))
		want := market.NewDay(y, 1, 5).AddDays(offset + ys.intn(15) - 7)
		i, _ := slices.BinarySearch(m.days, want)
		if i >= len(m.days) {
			break
		}
		if i <= s.first || i > s.last || m.days[i] > last || s.haltedOn(m.days[i]) {
			continue // an ex-date is a day the stock trades
		}
		cash := round2(mul(mul(mul(10, s.eps), payout), ys.between(0.8, 1.2)))
		var shares float32
		if bonus && ys.unit() < 0.4 {
			shares = [...]float32{2, 3, 4, 5, 10}[ys.intn(5)]
		}
		if cash <= 0 && shares == 0 {
			continue
		}
		out = append(out, tdx.GBBQEvent{Code: s.code, Day: m.days[i], Category: tdx.Dividend, F: [4]float32{float32(cash), 0, shares, 0}})
	}
	if r := m.rights; r.si == si && m.days[r.day] <= last {
		out = addRights(out, tdx.GBBQEvent{Code: s.code, Day: m.days[r.day], Category: tdx.Dividend, F: [4]float32{0, r.price, 0, 3}})
	}
	slices.SortStableFunc(out, func(a, b tdx.GBBQEvent) int {
		if c := cmp.Compare(a.Day, b.Day); c != 0 {
			return c
		}
		return cmp.Compare(a.Category, b.Category)
	})
	return out
}

// addRights adds the rights issue, into the dividend of its day when there
// is one: the terminal keeps one 除权除息 record per day, with cash and
// rights side by side.
func addRights(out []tdx.GBBQEvent, r tdx.GBBQEvent) []tdx.GBBQEvent {
	for i, e := range out {
		if e.Day == r.Day && e.Category == tdx.Dividend {
			out[i].F[1], out[i].F[3] = r.F[1], r.F[3]
			return out
		}
	}
	return append(out, r)
}
