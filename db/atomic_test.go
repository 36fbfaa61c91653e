package db_test

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"mdqs/db"
	"mdqs/db/dbtest"
	"mdqs/internal/market"
)

// failFileState makes the store refuse a file state whose path is
// "boom": the last statement of an import's transaction fails, after its
// bars and coverage were written in it.
func failFileState(t *testing.T, s *db.Store) {
	t.Helper()
	ctx := context.Background()
	stmts := []string{`CREATE TRIGGER boom BEFORE INSERT ON tdx_files WHEN NEW.path = 'boom'
		BEGIN SELECT RAISE(ABORT, 'boom'); END`}
	if s.IsPostgresStore() {
		stmts = []string{`CREATE FUNCTION boom() RETURNS trigger LANGUAGE plpgsql AS $$
			BEGIN IF NEW.path = 'boom' THEN RAISE EXCEPTION 'boom'; END IF; RETURN NEW; END $$`,
			`CREATE TRIGGER boom BEFORE INSERT ON tdx_files FOR EACH ROW EXECUTE FUNCTION boom()`}
	}
	for _, q := range stmts {
		if err := s.WriterExec(ctx, q); err != nil {
			t.Fatal(err)
		}
	}
}

// An import that fails at its last statement leaves nothing of itself:
// neither the new bars (copied on PostgreSQL, upserted on SQLite) nor the
// changed ones nor their coverage nor any file's state. The next import
// then does it all.
func TestFailedImportLeavesNothing(t *testing.T) {
	s := dbtest.Open(t)
	ctx := context.Background()
	now := time.Date(2026, 11, 23, 16, 0, 0, 0, time.UTC)
	old := market.MustCode("600519.SH")
	bars := dayBars(120)
	if _, err := s.IngestBars(ctx, []db.BarBatch{{Code: old, Freq: market.Daily, Source: "tdx", Bars: bars[:100],
		Cover: &db.Span{First: bars[0].Day, Last: bars[99].Day}}}); err != nil {
		t.Fatal(err)
	}
	failFileState(t, s)
	changed := append([]market.Bar(nil), bars...)
	changed[5].Close = 88.88
	fresh := market.MustCode("000001.SZ")
	batches := []db.BarBatch{
		{Code: old, Freq: market.Daily, Source: "tdx", Bars: changed, Cover: &db.Span{First: bars[0].Day, Last: bars[119].Day}},
		{Code: fresh, Freq: market.Daily, Source: "tdx", Bars: bars, Cover: &db.Span{First: bars[0].Day, Last: bars[119].Day}},
	}
	files := []db.FileState{{Path: "vipdoc/sh/lday/sh600519.day", Kind: "day", Records: 120, ModTime: now},
		{Path: "boom", Kind: "day", Records: 120, ModTime: now}}
	if _, err := s.IngestFiles(ctx, batches, files, now); err == nil || !strings.Contains(err.Error(), "boom") {
		t.Fatalf("the import whose file state is refused: %v, want the trigger's error", err)
	}
	if got, _ := s.Bars(ctx, db.BarQuery{Code: old, Freq: market.Daily}); len(got) != 100 || got[5].Close != bars[5].Close {
		t.Errorf("%s after the failed import: %d bars, close of the sixth %v; want the 100 stored before, unchanged", old, len(got), got[5].Close)
	}
	if n, _ := s.BarCount(ctx, fresh, market.Daily); n != 0 {
		t.Errorf("%s after the failed import: %d bars, want none", fresh, n)
	}
	if span, _, _, _ := s.Coverage(ctx, old, market.Daily); span.Last != bars[99].Day {
		t.Errorf("coverage after the failed import ends %v, want %v", span.Last, bars[99].Day)
	}
	if _, _, ok, _ := s.Coverage(ctx, fresh, market.Daily); ok {
		t.Errorf("coverage of %s after the failed import", fresh)
	}
	if states, _ := s.FileStates(ctx); len(states) != 0 {
		t.Errorf("file states after the failed import: %v", states)
	}
	c, err := s.IngestFiles(ctx, batches, files[:1], now)
	if err != nil || c.Written != 20+1+120 {
		t.Errorf("the import again: %+v, %v; want 141 bars written (20 new, 1 changed, 120 of a new code)", c, err)
	}
}

// Writers on the same store take turns: eight importers offering the
// same new bars at once write each exactly once between them (on
// PostgreSQL two COPYs of one fresh batch would collide), and each one's
// own news items all land.
func TestConcurrentWritersTakeTurns(t *testing.T) {
	s := dbtest.Open(t)
	ctx := context.Background()
	code := market.MustCode("600519.SH")
	bars := dayBars(300)
	const writers = 8
	var wg sync.WaitGroup
	start := make(chan struct{})
	written := make([]int, writers)
	errs := make([]error, writers)
	for w := range writers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-start
			for n := range 30 {
				i := n * 10
				if w%2 == 1 {
					i = 290 - i // from the other end: batches meet in the middle
				}
				c, err := s.IngestBars(ctx, []db.BarBatch{{Code: code, Freq: market.Daily, Source: "tdx", Bars: bars[i : i+10]}})
				if err != nil {
					errs[w] = err
					return
				}
				written[w] += c.Written
			}
			var items []db.NewsRecord
			for i := range 5 {
				items = append(items, newsItem(fmt.Sprintf("w%d-%d", w, i), "标题", "正文", 1, "2026-11-23 09:31:00"))
			}
			if _, err := s.UpsertNews(ctx, items, infoNow); err != nil {
				errs[w] = err
			}
		}()
	}
	close(start)
	wg.Wait()
	total := 0
	for w := range writers {
		if errs[w] != nil {
			t.Errorf("writer %d: %v", w, errs[w])
		}
		total += written[w]
	}
	if total != 300 {
		t.Errorf("the writers wrote %d bars between them (%v), want each of the 300 once", total, written)
	}
	if n, _ := s.BarCount(ctx, code, market.Daily); n != 300 {
		t.Errorf("%d bars stored, want 300", n)
	}
	if _, n, err := s.News(ctx, db.NewsQuery{}); err != nil || n != writers*5 {
		t.Errorf("%d news items stored (%v), want %d", n, err, writers*5)
	}
}
