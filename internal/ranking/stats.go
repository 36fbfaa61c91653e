package ranking

import (
	"context"
	"fmt"
	"sync/atomic"
	"time"

	"mdqs/db"
	"mdqs/internal/board"
	"mdqs/internal/market"
)

// StatsTop is the largest top of GET /v1/api/market/stats/range: the names
// a day's kept stats hold per list.
const StatsTop = db.StatsDepth

// DailyStats is one trading day of GET /v1/api/market/stats/range.
type DailyStats struct {
	TradeDay            string   `json:"trade_day"`
	IndustryTopInNames  []string `json:"industry_top_in_names"`
	ConceptTopInNames   []string `json:"concept_top_in_names"`
	IndustryTopOutNames []string `json:"industry_top_out_names"`
	ConceptTopOutNames  []string `json:"concept_top_out_names"`
	SectorsTopInNames   []string `json:"sectors_top_in_names"`
	Source              string   `json:"source"`
	UpdatedMS           int64    `json:"updated_ms"`
	Provisional         bool     `json:"provisional"`
}

// statsFill bounds the background work of keeping the stats of the days a
// range asked for: a year of the demo market's replays takes about 15 s.
const statsFill = 10 * time.Minute

// StatsRange lists, for every trading day in [from, to], the first top
// names of each ranking list: the kept stats of each day whose ranking is
// stored (one row a day), the live ranking (provisional until its
// end-of-day copy) for the current day. A past day whose stats are not kept
// yet gets them once: from its stored ranking (one stored before the stats
// were kept), else by building the ranking as top50?day= builds it (from
// its stored collections, or the demo market's replay) and storing it with
// its stats, as the end-of-day job would have: the two endpoints agree on
// which days exist. Days with no ranking are reported in missing.
//
// That first work goes on in the background when the request stops
// waiting (server.upstream_wait): the answer is then a 503 saying how far
// it got, and asking again later finds the days kept.
func (s *Service) StatsRange(ctx context.Context, from, to market.Day, top int) (stats []DailyStats, missing []string, err error) {
	current := s.CurrentDay()
	kept, err := s.store.DailyStats(ctx, from, to)
	if err != nil {
		return nil, nil, err
	}
	days := s.cal.Between(from, to)
	var todo []market.Day
	for _, d := range days {
		if _, ok := kept[d]; !ok && d <= current {
			todo = append(todo, d)
		}
	}
	if len(todo) > 0 {
		if err := s.keepStats(ctx, todo, current, kept); err != nil {
			return nil, nil, err
		}
	}
	stats, missing = []DailyStats{}, []string{}
	for _, d := range days {
		st, ok := kept[d]
		provisional := false
		switch {
		case ok:
		case d == current:
			e, _, err := s.Get(ctx, d, false)
			if err != nil {
				return nil, nil, err
			}
			st, provisional = db.StatsOf(d, e.Ranking), true
		default:
			missing = append(missing, d.Compact())
			continue
		}
		stats = append(stats, viewOf(st, top, provisional))
	}
	return stats, missing, nil
}

// KeepStatsAhead keeps the stats of the past trading days of the last
// days calendar days that have none, as a first range over them would,
// and says how many it kept. The demo market runs it in the background
// (the demo-daily-stats job): its past days are replays, about a second a
// week of them, which a first one-year range would otherwise wait for. A
// run that finds every day kept reads one row a day and replays nothing.
func (s *Service) KeepStatsAhead(ctx context.Context, days int) (int, error) {
	current := s.CurrentDay()
	from, to := current.AddDays(-days), s.cal.Prev(current)
	if to < from {
		return 0, nil
	}
	kept, err := s.store.DailyStats(ctx, from, to)
	if err != nil {
		return 0, err
	}
	var todo []market.Day
	for _, d := range s.cal.Between(from, to) {
		if _, ok := kept[d]; !ok {
			todo = append(todo, d)
		}
	}
	if len(todo) == 0 {
		return 0, nil
	}
	// Day by day under the caller's context, unlike a request's keepStats,
	// whose work outlives the request: a stopping server stops this.
	n := 0
	for _, d := range todo {
		_, ok, err := s.keepDay(ctx, d, current)
		if err != nil {
			return n, err
		}
		if ok {
			n++
		}
	}
	if n > 0 {
		s.log.Info("kept the daily stats ahead", "days", n, "from", todo[0].String(), "to", todo[len(todo)-1].String())
	}
	return n, nil
}

func viewOf(st db.DayStats, top int, provisional bool) DailyStats {
	return DailyStats{
		TradeDay:            st.Day.Compact(),
		IndustryTopInNames:  headNames(st.IndustryIn, top),
		ConceptTopInNames:   headNames(st.ConceptIn, top),
		IndustryTopOutNames: headNames(st.IndustryOut, top),
		ConceptTopOutNames:  headNames(st.ConceptOut, top),
		SectorsTopInNames:   headNames(st.SectorsIn, top),
		Source:              st.Source,
		UpdatedMS:           st.UpdatedMS,
		Provisional:         provisional,
	}
}

func headNames(names []string, n int) []string {
	if n < len(names) {
		names = names[:n]
	}
	if names == nil {
		return []string{}
	}
	return names
}

// keepStats keeps the stats of days (none kept yet, none after current)
// and adds those it could keep to kept: a past day without data has none,
// nor has the current day without a stored ranking (its live ranking
// answers). The work is shared by concurrent requests for the same days
// and goes on when the request stops waiting.
func (s *Service) keepStats(ctx context.Context, days []market.Day, current market.Day, kept map[market.Day]db.DayStats) error {
	key := fmt.Sprintf("stats/%v-%v/%d", days[0], days[len(days)-1], len(days))
	ch := s.flight.DoChan(key, func() (any, error) {
		fctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), statsFill)
		defer cancel()
		done := new(atomic.Int64)
		s.statsDone.Store(key, done)
		defer s.statsDone.Delete(key)
		out := map[market.Day]db.DayStats{}
		for _, d := range days {
			st, ok, err := s.keepDay(fctx, d, current)
			if err != nil {
				return nil, err
			}
			if ok {
				out[d] = st
			}
			done.Add(1)
		}
		return out, nil
	})
	select {
	case r := <-ch:
		if r.Err != nil {
			return r.Err
		}
		for d, st := range r.Val.(map[market.Day]db.DayStats) {
			kept[d] = st
		}
		return nil
	case <-ctx.Done():
		progress := ""
		if done, ok := s.statsDone.Load(key); ok {
			progress = fmt.Sprintf(", %d done", done.(*atomic.Int64).Load())
		}
		return market.Wrap(market.KindUnavailable, ctx.Err(),
			"keeping the daily stats of %d days (%v to %v%s) the first time they are asked for; it goes on in the background, ask again shortly",
			len(days), days[0], days[len(days)-1], progress)
	}
}

// keepDay keeps one day's stats: from its stored ranking (one stored
// before the stats were kept, or by a concurrent range's work since), else
// (a past day) from a ranking built and stored with them. ok is false for
// a day without data, and for the current day without a stored ranking.
func (s *Service) keepDay(ctx context.Context, d, current market.Day) (db.DayStats, bool, error) {
	r, err := s.store.DailyRanking(ctx, d)
	switch {
	case err == nil:
		st := db.StatsOf(d, r)
		return st, true, s.store.SaveDailyStats(ctx, st)
	case !board.IsNotFound(err):
		return db.DayStats{}, false, err
	case d >= current:
		return db.DayStats{}, false, nil
	}
	// Shared with a concurrent range asking for the same day; built
	// without the ranking cache, which a year of past days would flush.
	v, err, _ := s.flight.Do("stats/"+d.Compact(), func() (any, error) {
		r, _, err := s.build(ctx, d, false)
		if err != nil {
			return nil, err
		}
		if err := s.store.SaveDailyRanking(ctx, d, r); err != nil {
			return nil, err
		}
		return r, nil
	})
	if board.IsNotFound(err) {
		return db.DayStats{}, false, nil
	}
	if err != nil {
		return db.DayStats{}, false, err
	}
	return db.StatsOf(d, v.(*market.Ranking)), true, nil
}
