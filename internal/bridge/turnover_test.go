package bridge_test

import (
	"context"
	"io"
	"log/slog"
	"math"
	"path/filepath"
	"testing"
	"time"

	"mdqs/db"
	"mdqs/db/dbtest"
	"mdqs/internal/bridge"
	"mdqs/internal/market"
	"mdqs/internal/tdx"
)

// floatOn is the float shares a real gbbq's records state in force on day,
// read from the file itself: the "after" float of the last share record of
// code dated by then, in shares (0: none).
func floatOn(t *testing.T, events []tdx.GBBQEvent, code market.Code, day market.Day) float64 {
	t.Helper()
	out := 0.0
	for _, e := range events {
		if e.Code != code || e.Day > day || e.F[2] <= 0 || e.F[3] <= 0 {
			continue
		}
		switch e.Category {
		case tdx.BonusListing, tdx.LockedListing, tdx.ShareChange, tdx.Buyback, tdx.PlacementListing, tdx.RightsListing, tdx.ConvertibleListing:
			out = math.Round(e.F[2] * 1e4)
		}
	}
	return out
}

// A real terminal's .day files (testdata/terminal, a 2023 snapshot) with a
// real gbbq (2021): each stock day's turnover rate is its volume over the
// float shares the gbbq states in force that day, whether the bars are read
// from the files (source=tdx) or from the store after an import; a day
// before a float change uses the float before it, never the latest one; a
// stock the gbbq has no record of, and what is not a stock, keep it unknown.
func TestDailyTurnoverIsVolumeOverThatDaysFloat(t *testing.T) {
	dir := filepath.Join("testdata", "terminal")
	events, err := tdx.ReadGBBQ(filepath.Join(dir, "T0002", "hq_cache", "gbbq"))
	if err != nil {
		t.Fatal(err)
	}
	store := dbtest.Open(t)
	clock := market.NewFixedClock(time.Date(2023, 2, 27, 16, 0, 0, 0, market.Shanghai()))
	b, err := bridge.New(dir, store, market.DefaultCalendar(), clock, slog.New(slog.NewTextHandler(io.Discard, nil)))
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	if rep, err := b.Refresh(ctx, nil); err != nil || rep.BarFiles != 3 || rep.Actions != len(events) || len(rep.Problems) != 0 {
		t.Fatalf("refresh = %+v, %v; want 3 bar files and the gbbq's %d records", rep, err, len(events))
	}
	latest := map[market.Code]float64{}
	for _, c := range []string{"600000.SH", "300750.SZ"} {
		latest[market.MustCode(c)] = floatOn(t, events, market.MustCode(c), 99991231)
	}
	tests := []struct {
		code      string
		day       market.Day
		known     bool
		changedBy bool // a float change after day: the latest float gives another rate
	}{
		{"300750.SZ", 20180611, true, true},  // the listing day: its listing record
		{"300750.SZ", 20190610, true, true},  // the day before 1.2 billion locked shares start trading
		{"300750.SZ", 20190611, true, true},  // the day they do
		{"300750.SZ", 20230224, true, false}, // after the gbbq's last record: that record still stands
		{"600000.SH", 20160623, true, true},  // before the 2016-06-24 conversion listing
		{"600000.SH", 20160624, true, true},
		{"600000.SH", 20230224, true, false},
		{"430047.BJ", 20230224, false, false}, // no record in a 2021 gbbq
	}
	for _, tt := range tests {
		code := market.MustCode(tt.code)
		direct, err := b.Bars(ctx, code, market.Daily, tt.day, tt.day)
		if err != nil || len(direct) != 1 {
			t.Fatalf("Bars(%s, %s) = %v, %v", code, tt.day, direct, err)
		}
		ts := tt.day.At(15, 0, 0).Unix()
		stored, err := store.Bars(ctx, db.BarQuery{Code: code, Freq: market.Daily, FromTS: ts, ToTS: ts})
		if err != nil || len(stored) != 1 {
			t.Fatalf("stored bars of %s on %s = %v, %v", code, tt.day, stored, err)
		}
		for _, got := range []market.Bar{direct[0], stored[0]} {
			if !tt.known {
				if market.IsKnown(got.TurnoverRate) {
					t.Errorf("%s %s: turnover %v; want unknown", code, tt.day, got.TurnoverRate)
				}
				continue
			}
			fl := floatOn(t, events, code, tt.day)
			want := math.Round(float64(got.Volume)/fl*100*100) / 100
			if fl == 0 || got.TurnoverRate != want {
				t.Errorf("%s %s: turnover %v; want %v (volume %d over float %.0f)", code, tt.day, got.TurnoverRate, want, got.Volume, fl)
			}
			wrong := math.Round(float64(got.Volume)/latest[code]*100*100) / 100
			if tt.changedBy && wrong == want {
				t.Errorf("%s %s: the latest float gives the same %v; the case proves nothing", code, tt.day, want)
			}
		}
	}
}
