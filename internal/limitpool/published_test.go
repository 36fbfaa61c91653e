package limitpool_test

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"mdqs/db"
	"mdqs/db/dbtest"
	"mdqs/internal/limitpool"
	"mdqs/internal/market"
	"mdqs/internal/upstream"
)

// fakePublisher answers each (kind, day) from a table: the pool's own day
// (qdate) and rows, or an error; it counts the requests.
type fakePublisher struct {
	mu    sync.Mutex
	qdate func(kind upstream.PoolKind, asked market.Day) market.Day
	err   error
	asked []market.Day
}

func (f *fakePublisher) Pool(_ context.Context, kind upstream.PoolKind, day market.Day) (upstream.Pool, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.asked = append(f.asked, day)
	if f.err != nil {
		return upstream.Pool{}, f.err
	}
	q := f.qdate(kind, day)
	p := upstream.Pool{Kind: kind, Asked: day, Day: q, Rows: []upstream.PoolRow{}}
	if q != 0 && kind == upstream.PoolUp {
		p.Rows = append(p.Rows, upstream.PoolRow{Code: market.MustCode("600198.SH"), Name: "大 唐电信", Price: 8.5, Boards: 5,
			FirstSeal: 33901, LastSeal: 33901, OpenedTimes: 0, CountDays: 5, CountUp: 5})
		p.Total = 1
	}
	return p, nil
}

func newImporter(t *testing.T, at time.Time, src limitpool.Publisher) (*limitpool.Importer, *db.Store) {
	t.Helper()
	store := dbtest.Open(t)
	im := limitpool.NewImporter(limitpool.ImportConfig{WindowDays: 3}, store, src, market.DefaultCalendar(), market.NewFixedClock(at), nil, nil)
	return im, store
}

// A day is stored under the day the source says its pools are of, never
// merely under the date asked: a reply of the day before (the source's
// fallback before the day is out) is "not out yet" and stores nothing; a
// kind answered without a day (data:null) is empty on a day another kind
// named; nothing is asked before import_at.
func TestImportFilesPoolsUnderTheirOwnDay(t *testing.T) {
	ctx := context.Background()
	day := market.Day(20240923)
	f := &fakePublisher{qdate: func(kind upstream.PoolKind, asked market.Day) market.Day {
		if kind == upstream.PoolDown {
			return 0
		}
		return asked
	}}
	im, store := newImporter(t, day.At(16, 0, 0), f)
	got, err := im.Import(ctx, day)
	if err != nil || got.Day != day || len(got.Pools) != len(upstream.PoolKinds) {
		t.Fatalf("Import = %+v, %v", got, err)
	}
	held, err := store.PublishedPools(ctx, day)
	if err != nil {
		t.Fatal(err)
	}
	if up, _ := held.Pool("up"); len(up.Rows) != 1 || up.Rows[0].Name != "大 唐电信" || up.Rows[0].FirstSeal != 33901 {
		t.Errorf("up held %+v", up)
	}
	if down, ok := held.Pool("down"); !ok || len(down.Rows) != 0 {
		t.Errorf("down held %+v %v, want an empty pool", down, ok)
	}

	// The source answers Friday's pools for Monday: not out yet, nothing stored.
	f2 := &fakePublisher{qdate: func(upstream.PoolKind, market.Day) market.Day { return 20240920 }}
	im2, store2 := newImporter(t, day.At(16, 0, 0), f2)
	if _, err := im2.Import(ctx, day); !errors.Is(err, limitpool.ErrNotPublished) {
		t.Errorf("a reply of another day: %v, want ErrNotPublished", err)
	}
	for _, d := range []market.Day{day, 20240920} {
		if _, err := store2.PublishedPools(ctx, d); market.KindOf(err) != market.KindNotFound {
			t.Errorf("%v after a reply of another day: %v, want nothing stored", d, err)
		}
	}
	// Every kind empty without a day: not out yet either.
	f3 := &fakePublisher{qdate: func(upstream.PoolKind, market.Day) market.Day { return 0 }}
	im3, _ := newImporter(t, day.At(16, 0, 0), f3)
	if _, err := im3.Import(ctx, day); !errors.Is(err, limitpool.ErrNotPublished) {
		t.Errorf("empty replies: %v, want ErrNotPublished", err)
	}
	// Before import_at nothing is asked.
	f4 := &fakePublisher{qdate: func(_ upstream.PoolKind, a market.Day) market.Day { return a }}
	im4, _ := newImporter(t, day.At(15, 10, 0), f4)
	if _, err := im4.Import(ctx, day); !errors.Is(err, limitpool.ErrNotPublished) || len(f4.asked) != 0 {
		t.Errorf("before 15:30: %v, %d requests", err, len(f4.asked))
	}
	if _, err := im4.Import(ctx, 20240922); market.KindOf(err) != market.KindInvalid {
		t.Errorf("a Sunday: %v, want invalid", err)
	}
}

// The source down: an unavailable error naming push2ex, and the day held
// before stays whole.
func TestImportSourceDownKeepsTheDayHeld(t *testing.T) {
	ctx := context.Background()
	day := market.Day(20240923)
	f := &fakePublisher{qdate: func(_ upstream.PoolKind, a market.Day) market.Day { return a }}
	im, store := newImporter(t, day.At(16, 0, 0), f)
	if _, err := im.Import(ctx, day); err != nil {
		t.Fatal(err)
	}
	f.err = &upstream.Error{Kind: upstream.KindHTTPStatus, Source: upstream.SourcePush2Ex, Status: 502}
	_, err := im.Import(ctx, day)
	if market.KindOf(err) != market.KindUnavailable || !strings.Contains(err.Error(), "push2ex") {
		t.Errorf("source down: %v, want unavailable naming push2ex", err)
	}
	if held, err := store.PublishedPools(ctx, day); err != nil || len(held.Pools) != len(upstream.PoolKinds) {
		t.Errorf("the day held before: %+v, %v", held, err)
	}
}

// The job keeps the window's latest trading days: it imports the days
// out, leaves the day not out yet for its next run without an error, and
// asks nothing again for days it holds.
func TestImportJobWindow(t *testing.T) {
	ctx := context.Background()
	today := market.Day(20240923) // Monday; the window of 3: 09-19, 09-20, 09-23
	f := &fakePublisher{qdate: func(_ upstream.PoolKind, a market.Day) market.Day {
		if a == today {
			return 20240920 // not out yet: the source still answers Friday's
		}
		return a
	}}
	im, store := newImporter(t, today.At(15, 45, 0), f)
	if due := im.Due(today.At(15, 45, 0)); len(due) != 3 || due[0] != 20240919 || due[2] != today {
		t.Fatalf("Due = %v", due)
	}
	if due := im.Due(today.At(10, 0, 0)); len(due) != 3 || due[2] != 20240920 {
		t.Errorf("Due before import_at = %v, want up to Friday", due)
	}
	if err := im.Job(ctx); err != nil {
		t.Fatal(err)
	}
	days, _ := store.PublishedPoolDays(ctx, 0, 0)
	if len(days) != 2 || days[0] != 20240919 || days[1] != 20240920 {
		t.Errorf("held after the first run: %v", days)
	}
	f.asked = nil
	if err := im.Job(ctx); err != nil {
		t.Fatal(err)
	}
	for _, d := range f.asked {
		if d != today {
			t.Errorf("the second run asked again for %v, which is held", d)
		}
	}
}
