package board_test

import (
	"context"
	"io"
	"log/slog"
	"testing"
	"time"

	"mdqs/db/dbtest"
	"mdqs/internal/board"
	"mdqs/internal/market"
)

// unstamped is a source like akshare: its rows carry no time of their own.
type unstamped struct{ calls int }

func (u *unstamped) Sectors(ctx context.Context, kind market.SectorKind) (market.SectorSnapshot, error) {
	u.calls++
	return market.SectorSnapshot{Kind: kind, Sectors: []market.Sector{{Name: "银行", Pct: 1.5}}}, nil
}

// replaying is a source like the demo market: it stamps its state with the
// session instant it shows, moves to the next day's pre-open at midnight,
// and can replay any past instant.
type replaying struct {
	clock   market.Clock
	calls   int
	replays []time.Time
}

func (r *replaying) Sectors(ctx context.Context, kind market.SectorKind) (market.SectorSnapshot, error) {
	r.calls++
	return market.SectorSnapshot{Kind: kind, At: r.clock.Now(), Sectors: []market.Sector{{Name: "银行", Pct: 0}}}, nil
}

func (r *replaying) SectorsAt(ctx context.Context, kind market.SectorKind, t time.Time) (market.SectorSnapshot, error) {
	r.replays = append(r.replays, t)
	return market.SectorSnapshot{Kind: kind, At: t, Sectors: []market.Sector{{Name: "银行", Pct: 2.5}}}, nil
}

func sessionCollector(t *testing.T, clock market.Clock, sources map[string]board.SectorSource) *board.Collector {
	t.Helper()
	policy := board.Policy{Calendar: market.DefaultCalendar(), Window: market.Window{Start: 9*60 + 25, End: 15 * 60}, Soft: time.Minute}
	c := board.NewCollector(dbtest.Open(t), sources, clock, slog.New(slog.NewTextHandler(io.Discard, nil)), policy)
	t.Cleanup(c.Close)
	return c
}

// The current trading day before the window opens is the last session. A
// fresh store asked for it must answer it, not 503 because the source's
// clock has moved to the next calendar day (00:11 on a Tuesday failed with
// "demo industry data is of 2026-11-24, not 2026-11-23").
func TestLastSessionIsServedBeforeTheNextOpens(t *testing.T) {
	sh := market.Shanghai()
	monday := market.Day(20261123)
	for _, at := range []time.Time{
		time.Date(2026, 11, 24, 0, 11, 0, 0, sh),  // Tuesday after midnight
		time.Date(2026, 11, 24, 9, 20, 0, 0, sh),  // Tuesday's call auction, window not open
		time.Date(2026, 11, 28, 14, 0, 0, 0, sh),  // Saturday, for Friday
		time.Date(2026, 11, 23, 20, 30, 0, 0, sh), // Monday evening: the same day
	} {
		clock := market.NewFixedClock(at)
		day := market.Window{Start: 9*60 + 25, End: 15 * 60}.CurrentTradingDay(market.DefaultCalendar(), at)
		if at.Day() == 24 && day != monday {
			t.Fatalf("current trading day at %v = %v", at, day)
		}
		ak := &unstamped{}
		demo := &replaying{clock: clock}
		c := sessionCollector(t, clock, map[string]board.SectorSource{"akshare": ak, "demo": demo})
		ctx := context.Background()

		p := c.Current(ctx, market.Industry, "demo", day, true)
		if !p.Found || p.Err != nil || p.Day() != day || p.Sectors[0].Pct != 2.5 && market.DayOf(at) > day {
			t.Errorf("demo at %v for %v: found %v day %v err %v", at, day, p.Found, p.Day(), p.Err)
		}
		if market.DayOf(at) > day && (demo.calls != 0 || len(demo.replays) != 1 || !demo.replays[0].Equal(day.At(15, 0, 0))) {
			t.Errorf("demo at %v: %d collections, replays %v; want the close of %v replayed, nothing collected", at, demo.calls, demo.replays, day)
		}

		p = c.Current(ctx, market.Industry, "akshare", day, true)
		clockOf := market.ClockOf(at)
		auction := market.DefaultCalendar().IsTradingDay(market.DayOf(at)) && market.DayOf(at) > day && clockOf >= 9*60+15
		switch {
		case auction:
			// The upstream already shows the next session: nothing of the
			// day is stored, and that is an outage, said as such.
			if p.Found || market.KindOf(p.Err) != market.KindUnavailable {
				t.Errorf("akshare during the next call auction: found %v err %v", p.Found, p.Err)
			}
		case !p.Found || p.Err != nil || p.Day() != day:
			t.Errorf("akshare at %v for %v: found %v day %v err %v", at, day, p.Found, p.Day(), p.Err)
		}
	}
}
