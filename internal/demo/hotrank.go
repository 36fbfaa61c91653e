package demo

import (
	"cmp"
	"context"
	"math"
	"slices"
	"time"

	"mdqs/internal/market"
	"mdqs/internal/upstream"
)

// Stream tags of the information data, apart from rng.go's.
const (
	tagHotRank uint64 = 101 + iota
	tagNews
	tagFinance
)

// HotRankDepth is how many stocks the demo's popularity list ranks, as
// deep as EastMoney's (100 rows, nothing past them).
const HotRankDepth = 100

// HotRankPage is page (from 1) of the demo's popularity list of day at
// size rows per page, in rank order. The list of today is as of the
// clock's now; a past day's is as of its close (a non-trading day shows the
// last session's). A stock is popular when it moves, trades heavily and is
// large: score = 2|pct| + 1.5 turnover + size + its own daily noise, with
// a bonus at the daily limit, so the list follows the demo's prices. Days
// after today are refused, as an upstream cannot rank the future.
func (m *Market) HotRankPage(ctx context.Context, day market.Day, page, size int) (p upstream.HotRankPage, err error) {
	defer m.observe(m.clock.Now(), &err)
	if err := ctxErr(ctx); err != nil {
		return p, err
	}
	if page < 1 || size < 1 || size > upstream.HotRankMaxPageSize {
		return p, market.Errorf(market.KindInvalid, "hot rank page %d size %d: want page >= 1 and size 1..%d", page, size, upstream.HotRankMaxPageSize)
	}
	rows, asOf, err := m.hotRank(ctx, day)
	if err != nil {
		return p, err
	}
	p = upstream.HotRankPage{Page: page, Size: size, Rows: []upstream.HotRankRow{}, At: asOf}
	lo := (page - 1) * size
	if lo < len(rows) {
		p.Rows = append(p.Rows, rows[lo:min(lo+size, len(rows))]...)
	}
	return p, nil
}

// hotRank is the whole list of a day.
func (m *Market) hotRank(ctx context.Context, day market.Day) ([]upstream.HotRankRow, time.Time, error) {
	now := m.clock.Now()
	today := market.DayOf(now)
	t := day.At(15, 0, 0)
	switch {
	case day > today:
		return nil, time.Time{}, market.Errorf(market.KindInvalid, "demo: no hot rank for %v, after today %v", day, today)
	case day == today && now.Before(t):
		t = now
	}
	inst, err := m.resolve(t)
	if err != nil {
		return nil, time.Time{}, err
	}
	ss := m.snapshot(inst)
	day = m.days[inst.idx] // the session the snapshot is of
	type scored struct {
		si    int
		score float64
	}
	list := make([]scored, 0, len(ss.qs))
	for si := range ss.qs {
		q := &ss.qs[si]
		s := &m.u.stocks[si]
		if q.prev <= 0 || s.haltedOn(day) {
			continue // not listed yet, or suspended
		}
		pct := pctOf(q.price, q.prev)
		turnover := float64(q.vol*100) / s.fsF * 100
		ns := newStream(hash3(m.seed, tagHotRank, codeKey(s.code)), uint64(day))
		score := mul(2, abs(pct)) + mul(1.5, turnover) + mul(8, ns.unit())
		// Size: about 4.4 for a float cap of 1 billion yuan, 7.9 for 10 billion.
		score += math.Sqrt(math.Sqrt(float64(q.price)*s.fsF/100)) / 40
		if abs(pct) >= float64(s.limitOn(day))-0.2 {
			score += 10 // limit up or down: everyone looks
		}
		list = append(list, scored{si, score})
	}
	slices.SortFunc(list, func(a, b scored) int {
		if c := cmp.Compare(b.score, a.score); c != 0 {
			return c
		}
		return cmp.Compare(a.si, b.si) // stocks are in code order
	})
	n := min(HotRankDepth, len(list))
	rows := make([]upstream.HotRankRow, n)
	for i := range rows {
		s := &m.u.stocks[list[i].si]
		rows[i] = upstream.HotRankRow{Code: s.code, Name: s.nameOn(day), Rank: i + 1}
	}
	return rows, inst.at, nil
}

func abs(x float64) float64 {
	if x < 0 {
		return -x
	}
	return x
}
