package db_test

import (
	"context"
	"math"
	"testing"
	"time"

	"mdqs/db"
	"mdqs/db/dbtest"
	"mdqs/internal/demo"
	"mdqs/internal/market"
)

// minuteFixture is three demo stocks' 1m, 5m and daily bars of a week.
func minuteFixture(t *testing.T) []db.BarBatch {
	t.Helper()
	ctx := context.Background()
	clock := market.NewFixedClock(time.Date(2026, 11, 27, 16, 0, 0, 0, market.Shanghai()))
	dm, err := demo.New(demo.Config{Seed: 11, Stocks: 20, Industries: 5, Concepts: 5}, clock)
	if err != nil {
		t.Fatal(err)
	}
	var out []db.BarBatch
	for _, s := range dm.Stocks()[:3] {
		for _, f := range []market.Freq{market.Min1, market.Min5, market.Daily} {
			bars, err := dm.Klines(ctx, s.Code, f, 20261123, 20261127)
			if err != nil {
				t.Fatal(err)
			}
			out = append(out, db.BarBatch{Code: s.Code, Freq: f, Source: "demo", Bars: bars,
				Cover: &db.Span{First: 20261123, Last: 20261127}})
		}
	}
	return out
}

// minuteQueries are the shapes of range read the services make.
func minuteQueries(code market.Code, f market.Freq) map[string]db.BarQuery {
	mid := time.Date(2026, 11, 25, 10, 17, 0, 0, market.Shanghai()).Unix()
	return map[string]db.BarQuery{
		"all":                {Code: code, Freq: f},
		"from a minute on":   {Code: code, Freq: f, FromTS: mid},
		"to a minute":        {Code: code, Freq: f, ToTS: mid},
		"newest 7 before":    {Code: code, Freq: f, ToTS: mid, Newest: true, Limit: 7},
		"newest 500":         {Code: code, Freq: f, Newest: true, Limit: 500},
		"the first":          {Code: code, Freq: f, Limit: 1},
		"one day":            {Code: code, Freq: f, FromTS: market.Day(20261124).Start().Unix(), ToTS: market.Day(20261124).At(23, 59, 59).Unix()},
		"a day with nothing": {Code: code, Freq: f, FromTS: market.Day(20261128).Start().Unix()},
	}
}

// Intraday bars kept as packed days behave as the rows of bars did: the
// same counts from every ingest (fresh, again, changed in part, out of
// order, a time offered twice) and the same answer to every shape of read,
// on either store. The rows are the store's own code of before, kept for
// this comparison.
func TestPackedMinutesBehaveAsRows(t *testing.T) {
	ctx := context.Background()
	packed, rows := dbtest.Open(t), dbtest.Open(t)
	fixture := minuteFixture(t)
	changed := func(b db.BarBatch) db.BarBatch {
		lo := len(b.Bars) / 3
		bars := append([]market.Bar(nil), b.Bars[lo:lo+len(b.Bars)/4]...)
		for i := range bars {
			bars[i].Close += 0.01 * float64(i%3)
			bars[i].TurnoverRate = math.NaN()
		}
		bars[0], bars[len(bars)-1] = bars[len(bars)-1], bars[0] // out of order
		b.Bars, b.Source = bars, "tdx"
		return b
	}
	// A time offered twice in one batch: the later offer wins. (Counted
	// once written on PostgreSQL's rows, twice on SQLite's: the counts of
	// that step are not compared.)
	twice := func(b db.BarBatch) db.BarBatch {
		x := b.Bars[len(b.Bars)/2]
		y := x
		y.Volume += 100
		b.Bars = []market.Bar{x, y}
		return b
	}
	var again, dup []db.BarBatch
	for _, b := range fixture {
		again, dup = append(again, changed(b)), append(dup, twice(b))
	}
	for step, batches := range [][]db.BarBatch{fixture, fixture, again, again, dup} {
		pc, err := packed.IngestBars(ctx, batches)
		if err != nil {
			t.Fatal(err)
		}
		rc, err := rows.IngestBarRows(ctx, batches)
		if err != nil {
			t.Fatal(err)
		}
		if pc != rc && step != 4 {
			t.Fatalf("ingest %d: packed counts %+v, rows counted %+v", step, pc, rc)
		}
	}
	for _, b := range fixture {
		for name, q := range minuteQueries(b.Code, b.Freq) {
			got, err := packed.Bars(ctx, q)
			if err != nil {
				t.Fatal(err)
			}
			want, err := rows.BarRows(ctx, q)
			if err != nil {
				t.Fatal(err)
			}
			if !exactBars(got, want) {
				t.Fatalf("%s %s, %s: %d bars packed, %d as rows, or different values", b.Code, b.Freq, name, len(got), len(want))
			}
		}
		if n, _ := packed.BarCount(ctx, b.Code, b.Freq); n != len(b.Bars) {
			t.Fatalf("%s %s: %d bars counted, %d offered", b.Code, b.Freq, n, len(b.Bars))
		}
		if isIntraday(b.Freq) {
			if left, _ := packed.BarRows(ctx, db.BarQuery{Code: b.Code, Freq: b.Freq}); len(left) != 0 {
				t.Fatalf("%s %s: %d intraday bars written as rows", b.Code, b.Freq, len(left))
			}
		}
	}
	// A changed day carries the source of the write that changed it.
	days, err := packed.MinuteDays(ctx, fixture[0].Code, market.Min1, 20261123, 20261127)
	if err != nil || len(days) != 5 || days[0].Source != "demo" || days[1].Source != "tdx" || days[4].Source != "demo" {
		t.Fatalf("%d days, %v: sources %v", len(days), err, sources(days))
	}
}

func isIntraday(f market.Freq) bool { return f == market.Min1 || f == market.Min5 }

func sources(days []db.MinuteDay) []string {
	var out []string
	for _, d := range days {
		out = append(out, d.Source)
	}
	return out
}

// A store whose intraday bars are rows (schema version 19) is migrated to
// packed days on open: every query answers what the rows answered, the
// rows are gone, daily bars and coverage untouched, each day with the
// source of its last row.
func TestMigrationPacksTheMinuteRows(t *testing.T) {
	ctx := context.Background()
	target := dbtest.Target(t)
	s := dbtest.OpenAt(t, target)
	fixture := minuteFixture(t)
	if _, err := s.IngestBarRows(ctx, fixture); err != nil {
		t.Fatal(err)
	}
	late := fixture[0]
	// The first day's last ten minutes again, changed, from another source.
	late.Bars, late.Source, late.Cover = append([]market.Bar(nil), late.Bars[230:240]...), "tdx", nil
	for i := range late.Bars {
		late.Bars[i].Volume += 100
	}
	if _, err := s.IngestBarRows(ctx, []db.BarBatch{late}); err != nil {
		t.Fatal(err)
	}
	want := map[string][]market.Bar{}
	for _, b := range fixture {
		for name, q := range minuteQueries(b.Code, b.Freq) {
			bars, err := s.BarRows(ctx, q)
			if err != nil {
				t.Fatal(err)
			}
			want[b.Code.String()+string(b.Freq)+name] = bars
		}
	}
	if err := s.SetSchemaVersion(ctx, 19, dbtest.UndoAfter(t, 19)); err != nil {
		t.Fatal(err)
	}
	s.Close()

	s = dbtest.OpenAt(t, target)
	for _, b := range fixture {
		for name, q := range minuteQueries(b.Code, b.Freq) {
			got, err := s.Bars(ctx, q)
			if err != nil {
				t.Fatal(err)
			}
			if w := want[b.Code.String()+string(b.Freq)+name]; !exactBars(got, w) || (name == "all" && len(got) != len(b.Bars)) {
				t.Fatalf("%s %s, %s: %d bars after the migration, %d before", b.Code, b.Freq, name, len(got), len(w))
			}
		}
		rows, err := s.BarRows(ctx, db.BarQuery{Code: b.Code, Freq: b.Freq})
		if err != nil {
			t.Fatal(err)
		}
		if left := len(rows); isIntraday(b.Freq) && left != 0 || !isIntraday(b.Freq) && left != len(b.Bars) {
			t.Fatalf("%s %s: %d rows of bars after the migration", b.Code, b.Freq, left)
		}
		if span, source, ok, err := s.Coverage(ctx, b.Code, b.Freq); err != nil || !ok || span != *b.Cover || source != "demo" {
			t.Fatalf("%s %s: coverage %v from %s (%v, %v)", b.Code, b.Freq, span, source, ok, err)
		}
	}
	days, err := s.MinuteDays(ctx, fixture[0].Code, market.Min1, 20261123, 20261127)
	if err != nil || len(days) != 5 || days[0].Source != "tdx" || days[1].Source != "demo" {
		t.Fatalf("%d days, %v: sources %v", len(days), err, sources(days))
	}
}
