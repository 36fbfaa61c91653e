package movement

import (
	"context"
	"errors"
	"maps"
	"slices"
	"testing"
	"time"

	"mdqs/db"
	"mdqs/db/dbtest"
	"mdqs/internal/board"
	"mdqs/internal/market"
)

// minutePath is a replayable source of one day: industry A climbs 0.1 % a
// minute from 09:31, concept B drops 0.5 % a minute from 13:01.
type minutePath struct {
	calls int
}

func (p *minutePath) Session(ctx context.Context, source string, day market.Day, until time.Time) (ind, con []board.Stored, ok bool, err error) {
	if source != "demo" {
		return nil, nil, false, nil
	}
	p.calls++
	at := func(k int) time.Time {
		if k == 0 {
			return day.At(9, 25, 0)
		}
		if k <= 120 {
			return day.At(9, 30, 0).Add(time.Duration(k) * time.Minute)
		}
		return day.At(13, 0, 0).Add(time.Duration(k-120) * time.Minute)
	}
	for k := 0; k <= 240 && !at(k).After(until); k++ {
		a := 0.1 * float64(k)
		b := 0.0
		if k > 120 {
			b = -0.5 * float64(k-120)
		}
		mk := func(kind market.SectorKind, name string, pct float64) board.Stored {
			return board.Stored{SectorSnapshot: market.SectorSnapshot{Kind: kind, Source: source, At: at(k),
				Sectors: []market.Sector{{Name: name, Code: "BK" + name, Pct: pct, MainNet: 1}}}, CollectedAt: at(k)}
		}
		ind = append(ind, mk(market.Industry, "A", a))
		con = append(con, mk(market.Concept, "B", b))
	}
	return ind, con, true, nil
}

func timeline(t *testing.T, store *db.Store, day market.Day) map[string]string {
	t.Helper()
	evs, err := store.Events(context.Background(), db.EventFilter{Day: day, Source: "demo"})
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	var last int64
	for _, e := range evs {
		got[string(e.Kind)+"/"+e.BoardName+"/"+e.Trigger] = market.FormatTime(e.At)
		if e.At.UnixMilli() <= last {
			t.Fatalf("event times not increasing: %v", evs)
		}
		last = e.At.UnixMilli()
	}
	return got
}

// A source that can replay its sessions has its events dated at the minute
// each sector first crossed, whenever the server saw the day: a server
// started after the close (its first collection is the 15:00 state) used
// to date every event of the day 15:00:00, and past days had none.
func TestReplayedTimelineDatesEachFirstCrossing(t *testing.T) {
	th := Thresholds{Pct: 2, Speed: 1, SpeedWindow: 5 * time.Minute}
	day := market.Day(20261120)
	// A reaches +2.0 at 09:50 and never moves 1 % in five minutes. B's
	// oldest point inside 13:03's window is 13:01 (-0.5; lunch is out of
	// it): -1.0 within five minutes at 13:03, -2.0 at 13:04.
	want := map[string]string{
		"industry/A/pct_up":  "2026-11-20 09:50:00",
		"concept/B/plunge":   "2026-11-20 13:03:00",
		"concept/B/pct_down": "2026-11-20 13:04:00",
	}

	for _, tt := range []struct {
		name string
		now  time.Time
		run  func(ctx context.Context, d *Detector) error
	}{
		{"first collection after the close", day.At(16, 0, 0), func(ctx context.Context, d *Detector) error {
			st := board.Stored{SectorSnapshot: market.SectorSnapshot{Kind: market.Industry, Source: "demo", At: day.At(15, 0, 0),
				Sectors: []market.Sector{{Name: "A", Pct: 24}}}}
			return d.Observe(ctx, st)
		}},
		{"the events endpoint on a later day", day.AddDays(3).At(8, 0, 0), func(ctx context.Context, d *Detector) error {
			_, err := d.Complete(ctx, "demo", day, day.At(15, 0, 0))
			return err
		}},
		{"minute by minute through the session", day.At(9, 0, 0), nil},
	} {
		t.Run(tt.name, func(t *testing.T) {
			store := dbtest.Open(t)
			clock := market.NewFixedClock(tt.now)
			src := &minutePath{}
			d := NewDetector(th, store, clock, src)
			ctx := context.Background()
			if tt.run != nil {
				if err := tt.run(ctx, d); err != nil {
					t.Fatal(err)
				}
			} else {
				for m := day.At(9, 25, 0); !m.After(day.At(15, 0, 0)); m = m.Add(time.Minute) {
					clock.Set(m.Add(20 * time.Second))
					st := board.Stored{SectorSnapshot: market.SectorSnapshot{Kind: market.Concept, Source: "demo", At: m}}
					if err := d.Observe(ctx, st); err != nil {
						t.Fatal(err)
					}
				}
			}
			if got := timeline(t, store, day); !maps.Equal(got, want) {
				t.Fatalf("timeline %v, want %v", got, want)
			}
			// Complete again: nothing replayed, nothing added.
			calls := src.calls
			if _, err := d.Complete(ctx, "demo", day, day.At(15, 0, 0)); err != nil || src.calls != calls {
				t.Fatalf("a complete day was replayed again (%d calls, %v)", src.calls-calls, err)
			}
		})
	}
}

// A day being replayed during its session is replayed at most once a
// minute: the replay's instants are whole minutes.
func TestTimelineIsReplayedOnceAMinute(t *testing.T) {
	day := market.Day(20261120)
	store := dbtest.Open(t)
	src := &minutePath{}
	d := NewDetector(Thresholds{Pct: 2, Speed: 1, SpeedWindow: 5 * time.Minute}, store, market.NewFixedClock(day.At(10, 31, 10)), src)
	ctx := context.Background()
	for i, tt := range []struct {
		until time.Time
		calls int
	}{
		{day.At(10, 31, 10), 1}, {day.At(10, 31, 50), 1}, {day.At(10, 32, 5), 2}, {day.At(12, 0, 0), 3}, {day.At(12, 0, 40), 3},
	} {
		if _, err := d.Complete(ctx, "demo", day, tt.until); err != nil {
			t.Fatal(err)
		}
		if src.calls != tt.calls {
			t.Fatalf("step %d (until %v): %d replays, want %d", i, tt.until, src.calls, tt.calls)
		}
	}
	if got := timeline(t, store, day); got["industry/A/pct_up"] != "2026-11-20 09:50:00" || len(got) != 1 {
		t.Fatalf("timeline through lunch: %v", got)
	}
}

// failingTimeline is a real store whose timeline cannot be written, as one
// opened read-only answers.
type failingTimeline struct{ *db.Store }

func (failingTimeline) RecordTimeline(context.Context, market.Day, string, []market.MovementEvent, time.Time, bool) ([]market.MovementEvent, error) {
	return nil, market.Errorf(market.KindUnavailable, "record timeline: database not writable")
}

// A store that cannot record the replayed timeline still answers the
// events endpoint with it, dated as a writable store would have recorded
// them, and after the cursor asked for; nothing is recorded, so the next
// request replays again.
func TestUnrecordedTimelineIsAnsweredAnyway(t *testing.T) {
	day := market.Day(20261120)
	store := dbtest.Open(t)
	clock := market.NewFixedClock(day.At(13, 10, 0))
	src := &minutePath{}
	d := NewDetector(Thresholds{Pct: 2, Speed: 1, SpeedWindow: 5 * time.Minute}, failingTimeline{store}, clock, src)
	ctx := context.Background()

	_, err := d.Complete(ctx, "demo", day, day.At(13, 10, 0))
	var nr *NotRecorded
	if !errors.As(err, &nr) || market.KindOf(err) != market.KindUnavailable || len(nr.Events) != 3 {
		t.Fatalf("Complete on a store that cannot write = %v; want NotRecorded with the 3 replayed events", err)
	}

	svc := NewService(nil, store, market.DefaultCalendar(), clock, market.Window{Start: 9*60 + 25, End: 15 * 60}, d)
	tl, err := svc.Events(ctx, "", "demo", day, day.At(9, 55, 0).UnixMilli(), 0, Filter{})
	if err != nil {
		t.Fatalf("events on a store that cannot write: %v", err)
	}
	var got []string
	for _, e := range tl.Items {
		got = append(got, e.Type+"/"+e.BoardName+"/"+e.Trigger+" "+e.EventTS)
	}
	want := []string{"concept/B/plunge 2026-11-20 13:03:00", "concept/B/pct_down 2026-11-20 13:04:00"} // A's 09:50 is before the cursor
	if !slices.Equal(got, want) || tl.NextSince != day.At(13, 4, 0).UnixMilli() {
		t.Fatalf("events = %v (next_since %d), want %v", got, tl.NextSince, want)
	}
	if recorded := timeline(t, store, day); len(recorded) != 0 {
		t.Fatalf("a store that cannot write holds %v", recorded)
	}
	calls := src.calls
	if _, err := svc.Events(ctx, market.Industry, "demo", day, 0, 0, Filter{}); err != nil || src.calls != calls+1 {
		t.Fatalf("the next request did not replay again (%d replays, %v)", src.calls-calls, err)
	}
}

// The sector answer's first-movement times take the unrecorded events'
// where they are earlier than the stored ones or there are none.
func TestFirstTimesAddsUnrecordedEvents(t *testing.T) {
	day := market.Day(20261120)
	stored := map[string]time.Time{"A": day.At(10, 0, 0), "C": day.At(9, 40, 0)}
	unrecorded := []market.MovementEvent{
		{Kind: market.Industry, BoardName: "A", At: day.At(11, 0, 0)}, // later than stored: stored stays
		{Kind: market.Industry, BoardName: "B", At: day.At(13, 5, 0)}, // new
		{Kind: market.Industry, BoardName: "B", At: day.At(13, 1, 0)}, // earlier of two
		{Kind: market.Concept, BoardName: "C", At: day.At(9, 31, 0)},  // other family: ignored
	}
	got := firstTimes(maps.Clone(stored), unrecorded, market.Industry)
	want := map[string]time.Time{"A": day.At(10, 0, 0), "B": day.At(13, 1, 0), "C": day.At(9, 40, 0)}
	if !maps.EqualFunc(got, want, time.Time.Equal) {
		t.Fatalf("firstTimes = %v, want %v", got, want)
	}
}
