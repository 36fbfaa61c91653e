package demo

import (
	"context"
	"time"

	"mdqs/internal/market"
)

// SessionSectors is what a collector polling every minute would have seen
// of both board families on a trading day: a snapshot at the 09:25 auction
// and at each minute bar's end, in time order, through until (or the
// close). Each equals SectorsAt of its instant; they are made in one pass
// over the members' paths (241 SectorsAt calls would regenerate every path
// 241 times: 37x slower at real scale, see BenchmarkSessionReplay). A day
// that is not a trading day has none.
func (m *Market) SessionSectors(ctx context.Context, day market.Day, until time.Time) (industry, concept []market.SectorSnapshot, err error) {
	defer m.observe(m.clock.Now(), &err)
	if err := ctxErr(ctx); err != nil {
		return nil, nil, err
	}
	i, ok := m.index(day)
	if !ok {
		if day < m.days[0] || day > m.days[len(m.days)-1] {
			return nil, nil, market.Errorf(market.KindNotFound, "demo: %v is outside the demo history %v..%v", day, m.days[0], m.days[len(m.days)-1])
		}
		return nil, nil, nil
	}
	last := 240
	if market.DayOf(until) <= day {
		end, err := m.resolve(until)
		if err != nil {
			return nil, nil, err
		}
		if end.idx != i || end.k < 0 {
			return nil, nil, nil // the session has not begun by then
		}
		last = end.k
	}
	ds := m.dayState(i)
	br := m.bridgesOf(i)
	ind, con := make([]boardSums, last+1), make([]boardSums, last+1)
	for k := range ind {
		ind[k], con[k] = m.newBoardSums(market.Industry), m.newBoardSums(market.Concept)
	}
	p := new(dayPath)
	for si := range m.u.stocks {
		if si%256 == 0 {
			if err := ctxErr(ctx); err != nil {
				return nil, nil, err
			}
		}
		if ds.prev[si] <= 0 {
			continue
		}
		m.pathOf(p, si, day, ds, br)
		q := p.state(ds.prev[si], 0)
		for k := range ind {
			if k > 0 {
				p.step(&q)
			}
			m.addMember(&ind[k], market.Industry, si, &q)
			m.addMember(&con[k], market.Concept, si, &q)
		}
	}
	snaps := func(kind market.SectorKind, sums []boardSums) []market.SectorSnapshot {
		out := make([]market.SectorSnapshot, len(sums))
		for k := range sums {
			at := day.At(9, 25, 0)
			if k > 0 {
				at = time.Unix(barEnd(day, k), 0).In(market.Shanghai())
			}
			out[k] = market.SectorSnapshot{Kind: kind, Source: Source, At: at, Sectors: m.boards(&sums[k], kind, ds)}
		}
		return out
	}
	return snaps(market.Industry, ind), snaps(market.Concept, con), nil
}
