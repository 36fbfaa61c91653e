package db_test

import (
	"context"
	"fmt"
	"slices"
	"testing"

	"mdqs/db"
	"mdqs/db/dbtest"
	"mdqs/internal/market"
)

// rankingOf is a ranking whose lists have n entries each, named after the
// list, with names that JSON and SQL must both carry as they are.
func rankingOf(day market.Day, n int, tag string) *market.Ranking {
	r := &market.Ranking{Day: day.Compact(), Source: "push2", UpdatedMS: 1_764_000_000_000 + int64(n), TS: 1_764_000_000}
	for _, lt := range market.ListTypes() {
		list := make([]market.RankedSector, n)
		for i := range list {
			list[i] = market.RankedSector{Rank: i, SectorName: fmt.Sprintf(`%s "%s" 板块\%d`, tag, lt, i), Count: 10,
				Pct: 1.5, Turnover: 2, MainNet: float64(n - i), Flow: "in", Signal: "none", FlowTag: "x"}
		}
		r.SetList(lt, list)
	}
	return r
}

func names(list []market.RankedSector) []string {
	out := []string{}
	for _, e := range list {
		out = append(out, e.SectorName)
	}
	return out
}

// TestDailyStatsKeptWithTheRanking: storing a day's ranking keeps its
// stats in the same write (the first 100 names of each list, in rank
// order, the ranking's source and time), a range reads every kept day in
// it and no other, storing the day again replaces both, and stats saved on
// their own (a ranking stored before the table) read back the same.
func TestDailyStatsKeptWithTheRanking(t *testing.T) {
	s := dbtest.Open(t)
	ctx := context.Background()
	mon, tue, wed := market.Day(20261123), market.Day(20261124), market.Day(20261125)
	long := rankingOf(mon, 130, "长")
	if err := s.SaveDailyRanking(ctx, mon, long); err != nil {
		t.Fatal(err)
	}
	if err := s.SaveDailyRanking(ctx, wed, rankingOf(wed, 3, "短")); err != nil {
		t.Fatal(err)
	}
	got, err := s.DailyStats(ctx, mon, tue)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 1 {
		t.Fatalf("DailyStats(%v, %v) = %d days, want only %v", mon, tue, len(got), mon)
	}
	st := got[mon]
	for _, tc := range []struct {
		name string
		got  []string
		list []market.RankedSector
	}{
		{"industry_in", st.IndustryIn, long.Industry}, {"concept_in", st.ConceptIn, long.Concept},
		{"industry_out", st.IndustryOut, long.IndustryOut}, {"concept_out", st.ConceptOut, long.ConceptOut},
		{"sectors_in", st.SectorsIn, long.Sectors},
	} {
		if want := names(tc.list)[:db.StatsDepth]; !slices.Equal(tc.got, want) {
			t.Errorf("%s = %d names %q..., want the first %d of the ranking's in order", tc.name, len(tc.got), tc.got[:min(2, len(tc.got))], db.StatsDepth)
		}
	}
	if st.Day != mon || st.Source != long.Source || st.UpdatedMS != long.UpdatedMS {
		t.Errorf("stats of %v = day %v source %q updated %d, want the ranking's %q %d", mon, st.Day, st.Source, st.UpdatedMS, long.Source, long.UpdatedMS)
	}
	// The ranking itself is whole beside its stats.
	if r, err := s.DailyRanking(ctx, mon); err != nil || len(r.Industry) != 130 || !slices.Equal(names(r.Industry), names(long.Industry)) {
		t.Fatalf("DailyRanking(%v) = %v, %v; want the 130 entries stored", mon, r, err)
	}

	// Stored again: the day's stats follow its new ranking.
	short := rankingOf(mon, 2, "新")
	if err := s.SaveDailyRanking(ctx, mon, short); err != nil {
		t.Fatal(err)
	}
	got, err = s.DailyStats(ctx, mon, wed)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 || !slices.Equal(got[mon].ConceptOut, names(short.ConceptOut)) || !slices.Equal(got[wed].SectorsIn, names(rankingOf(wed, 3, "短").Sectors)) {
		t.Errorf("after storing %v again: %+v, want its new names and %v's", mon, got, wed)
	}

	// Stats saved on their own; empty lists read back empty, not null.
	alone := db.DayStats{Day: tue, Source: "demo", UpdatedMS: 7, IndustryIn: []string{"半导体", `a"b`}, SectorsIn: []string{"x"}}
	if err := s.SaveDailyStats(ctx, alone); err != nil {
		t.Fatal(err)
	}
	got, err = s.DailyStats(ctx, tue, tue)
	if err != nil {
		t.Fatal(err)
	}
	back := got[tue]
	if back.Source != "demo" || back.UpdatedMS != 7 || !slices.Equal(back.IndustryIn, alone.IndustryIn) || !slices.Equal(back.SectorsIn, alone.SectorsIn) ||
		back.ConceptIn == nil || len(back.ConceptIn) != 0 || back.ConceptOut == nil {
		t.Errorf("SaveDailyStats then DailyStats = %+v, want %+v with empty lists", back, alone)
	}
}

// TestStatsOfCutsAtTheDepth: StatsOf keeps the first StatsDepth names of
// each list and all of a shorter one.
func TestStatsOfCutsAtTheDepth(t *testing.T) {
	for _, n := range []int{0, 1, db.StatsDepth, db.StatsDepth + 1, 500} {
		st := db.StatsOf(20261123, rankingOf(20261123, n, "t"))
		if want := min(n, db.StatsDepth); len(st.IndustryIn) != want || len(st.SectorsIn) != want {
			t.Errorf("StatsOf(%d entries) kept %d and %d names, want %d", n, len(st.IndustryIn), len(st.SectorsIn), want)
		}
	}
}
