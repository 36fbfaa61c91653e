package indexmembers

import (
	"context"
	"time"

	"mdqs/db"
	"mdqs/internal/market"
)

// History is a market that knows its indices' past members: the demo's,
// whose levels are computed from exactly these lists.
type History interface {
	IndexMembersOn(day market.Day) map[market.Code][]market.Code
}

// Backfill records, for each trading day from the last recorded one (or
// days sessions back) up to the day before today, the members History
// gives, as the demo market's observations (file "demo market"): the
// history a terminal would have accrued had mdqs run every day. Indices
// mdqs cannot name are left out.
func Backfill(ctx context.Context, store *db.Store, h History, cal *market.Calendar, source string, today market.Day, days int, now time.Time) (db.IndexRecording, error) {
	if h == nil || days <= 0 {
		return db.IndexRecording{}, nil
	}
	start := today
	for range days {
		start = cal.Prev(start)
	}
	latest := market.Day(0)
	all, err := store.IndexesObserved(ctx)
	if err != nil {
		return db.IndexRecording{}, err
	}
	for _, o := range all {
		latest = max(latest, o.Day)
	}
	var obs []db.IndexObservation
	for d := cal.Next(max(start, latest.AddDays(1)).AddDays(-1)); d < today; d = cal.Next(d) {
		for code, ms := range h.IndexMembersOn(d) {
			name := NameOf(code)
			if name == "" {
				continue
			}
			obs = append(obs, db.IndexObservation{Index: code, Day: d, Source: source, File: FileDemo, Block: name, Members: ms})
		}
	}
	if len(obs) == 0 {
		return db.IndexRecording{}, nil
	}
	return store.RecordIndexObservations(ctx, obs, now)
}
