package archive_test

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"math"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"mdqs/db"
	"mdqs/internal/archive"
	"mdqs/internal/bridge"
	"mdqs/internal/market"
	"mdqs/internal/tdx"
)

func fieldsOf(c archive.Comparison) map[string]archive.PairField {
	out := map[string]archive.PairField{}
	for _, f := range c.Fields {
		out[f.Field] = f
	}
	return out
}

// The terminal's files are a second source of the day: its .day bars are
// compared with the store's daily bars and its .lc1 minutes with the
// archive's, minute by minute, with exact counts and worst examples. A
// stored side that came from the terminal is not compared with itself, a
// day the terminal lacks is not compared, a terminal day short of a
// session is counted as partial, and the minutes-against-day comparison
// is as it was.
func TestQualityComparesTheTerminal(t *testing.T) {
	ctx := context.Background()
	const day = market.Day(20261127)
	r := newRig(t, 0)
	if _, err := r.arc.Run(ctx, archive.Request{Day: day}); err != nil {
		t.Fatal(err)
	}
	var stocks []market.Code
	for c := range r.listed(t, day) {
		if market.Classify(c) == market.TypeStock {
			stocks = append(stocks, c)
		}
	}
	slices.SortFunc(stocks, func(a, b market.Code) int { return strings.Compare(a.String(), b.String()) })
	same, closeOff, volOff, self, lacking, partial := stocks[0], stocks[1], stocks[2], stocks[3], stocks[4], stocks[5]
	if bridge.Source != archive.TerminalSource {
		t.Fatalf("the bridge stores the terminal's bars as %q, the archive looks for %q", bridge.Source, archive.TerminalSource)
	}

	termDir := t.TempDir()
	archived, err := r.store.MinuteDaysOn(ctx, day, market.Min1)
	if err != nil {
		t.Fatal(err)
	}
	minutesOf := map[market.Code][]market.Bar{}
	for _, m := range archived {
		minutesOf[m.Code] = slices.Clone(m.Bars)
	}
	var stored []db.BarBatch
	var selfMinutes []db.MinuteDay
	for _, c := range []market.Code{same, closeOff, volOff, self, lacking, partial} {
		daily, err := r.dm.Klines(ctx, c, market.Daily, day.AddDays(-1), day)
		if err != nil || len(daily) != 2 {
			t.Fatalf("%v: %d daily bars, %v", c, len(daily), err)
		}
		src := "push2his"
		if c == self {
			src = archive.TerminalSource
		}
		stored = append(stored, db.BarBatch{Code: c, Freq: market.Daily, Source: src, Bars: daily[1:]})
		onFile := slices.Clone(daily)
		mins := slices.Clone(minutesOf[c])
		switch c {
		case closeOff: // the .day close 0.05 higher; two minutes' closes too
			onFile[1].Close += 0.05
			onFile[1].High = max(onFile[1].High, onFile[1].Close)
			for _, i := range []int{10, 100} {
				mins[i].Close += 0.02 * float64(i/10) // 0.02 and 0.2
				mins[i].High = max(mins[i].High, mins[i].Close)
			}
		case volOff: // the .day volume 2 % higher; one minute's ×1.5, another's +50 shares (within a lot)
			onFile[1].Volume = onFile[1].Volume * 102 / 100
			mins[5].Volume = mins[5].Volume*3/2 + 1000
			mins[6].Volume += 50
		case self: // disagrees everywhere, but both stored sides are the terminal's own
			onFile[1].Close += 1
			onFile[1].High = max(onFile[1].High, onFile[1].Close)
			mins[0].Close += 1
			mins[0].High = max(mins[0].High, mins[0].Close)
			selfMinutes = append(selfMinutes, db.MinuteDay{Code: c, Freq: market.Min1, Day: day, Bars: minutesOf[c], Source: archive.TerminalSource})
		case lacking: // the terminal's files stop the day before
			onFile = onFile[:1]
			mins, err = r.dm.Klines(ctx, c, market.Min1, day.AddDays(-1), day.AddDays(-1))
			if err != nil || len(mins) != 240 {
				t.Fatalf("the day before: %d minutes, %v", len(mins), err)
			}
		case partial: // the terminal downloaded the day at noon
			mins = mins[:120]
		}
		if err := errors.Join(tdx.WriteBars(termDir, c, tdx.KindDay, onFile), tdx.WriteBars(termDir, c, tdx.KindLC1, mins)); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := r.store.IngestBars(ctx, stored); err != nil {
		t.Fatal(err)
	}
	if err := r.store.PutMinuteDays(ctx, selfMinutes); err != nil {
		t.Fatal(err)
	}

	arc := archive.New(r.store, r.src, r.sec, r.cal, r.clock, slog.New(slog.NewTextHandler(io.Discard, nil)),
		archive.Config{At: 15*60 + 35, Window: 5, SourceName: "demo", TerminalDir: termDir})
	q, err := arc.Quality(ctx, day)
	if err != nil {
		t.Fatal(err)
	}
	if q.Compared != 6 || q.TerminalError != "" || len(q.Comparisons) != 2 {
		t.Fatalf("quality: compared %d, terminal error %q, %d comparisons", q.Compared, q.TerminalError, len(q.Comparisons))
	}

	// Days compared: same, closeOff, volOff and partial (its .day is
	// whole: only its minutes stop at noon); not self, not lacking.
	days := q.Comparisons[0]
	if days.Name != archive.PairTerminalDay || days.Compared != 4 || days.SameSource != 1 || days.Partial != 0 || days.Unreadable != 0 ||
		days.ASources["tdx"] != 4 || days.BSources["push2his"] != 4 || len(days.BSources) != 1 {
		t.Fatalf("days: %+v", days)
	}
	dayFields := fieldsOf(days)
	wantClose := r.bar(t, closeOff, day).Close
	if f := dayFields["close"]; f.Compared != 4 || f.Disagree != 1 || len(f.Worst) != 1 || f.Worst[0].Code != closeOff ||
		math.Abs(f.Worst[0].A-(wantClose+0.05)) > 1e-9 || f.Worst[0].B != wantClose || f.Worst[0].ASrc != "tdx" || f.Worst[0].BSrc != "push2his" ||
		f.Worst[0].TS != 0 || f.Tolerance != "0.001 yuan" {
		t.Fatalf("days' close: %+v (stored close %v)", f, wantClose)
	}
	wantVol := float64(r.bar(t, volOff, day).Volume)
	if f := dayFields["volume"]; f.Disagree != 1 || f.Worst[0].Code != volOff || f.Worst[0].B != wantVol ||
		f.Worst[0].A != float64(int64(wantVol)*102/100) || math.Abs(f.Worst[0].Off-0.02) > 1e-4 || f.Tolerance != "0.5%" {
		t.Fatalf("days' volume: %+v", f)
	}
	for _, name := range []string{"open", "low", "amount"} {
		if f := dayFields[name]; f.Compared != 4 || f.Disagree != 0 || len(f.Worst) != 0 {
			t.Fatalf("days' %s: %+v", name, f)
		}
	}
	if f := dayFields["high"]; f.Disagree > 1 || (f.Disagree == 1 && f.Worst[0].Code != closeOff) {
		t.Fatalf("days' high: only the raised close may lift it: %+v", f)
	}

	mins := q.Comparisons[1]
	if mins.Name != archive.PairTerminalMinutes || mins.Compared != 3 || mins.SameSource != 1 || mins.Partial != 1 || mins.Unreadable != 0 ||
		mins.ASources["tdx"] != 3 || mins.BSources["demo"] != 3 {
		t.Fatalf("minutes: %+v", mins)
	}
	minFields := fieldsOf(mins)
	closes := minutesOf[closeOff]
	if f := minFields["close"]; f.Compared != 3 || f.Disagree != 1 || f.Worst[0].Code != closeOff || f.Worst[0].Minutes != 2 ||
		f.Worst[0].TS != closes[100].TS || f.Worst[0].B != closes[100].Close || math.Abs(f.Worst[0].A-closes[100].Close-0.2) > 1e-6 {
		t.Fatalf("minutes' close: %+v (minute 100: %+v)", f, closes[100])
	}
	vols := minutesOf[volOff]
	if f := minFields["volume"]; f.Disagree != 1 || f.Worst[0].Code != volOff || f.Worst[0].Minutes != 1 || f.Worst[0].TS != vols[5].TS ||
		f.Worst[0].B != float64(vols[5].Volume) || f.Tolerance != "0.5% or 100 shares" {
		t.Fatalf("minutes' volume: %+v", f)
	}
	if f := minFields["amount"]; f.Compared != 3 || f.Disagree != 0 {
		t.Fatalf("minutes' amount: %+v", f)
	}

	// Without a terminal folder there are no comparisons; with one that
	// cannot be read, the answer says why instead of failing.
	if q, err := r.arc.Quality(ctx, day); err != nil || q.Comparisons != nil || q.TerminalError != "" {
		t.Fatalf("no terminal: %d comparisons, %q, %v", len(q.Comparisons), q.TerminalError, err)
	}
	gone := archive.New(r.store, r.src, r.sec, r.cal, r.clock, slog.New(slog.NewTextHandler(io.Discard, nil)),
		archive.Config{At: 15*60 + 35, Window: 5, SourceName: "demo", TerminalDir: filepath.Join(termDir, "missing")})
	if q, err := gone.Quality(ctx, day); err != nil || q.Comparisons != nil || q.TerminalError == "" || q.Compared != 6 {
		t.Fatalf("a missing folder: %d comparisons, %q, %v", len(q.Comparisons), q.TerminalError, err)
	}
}

// bar is the store's daily bar of code on day.
func (r *rig) bar(t *testing.T, code market.Code, day market.Day) market.Bar {
	t.Helper()
	got, err := r.store.DailyBarsOn(context.Background(), day, []market.Code{code})
	if err != nil || got[code].Day != day {
		t.Fatalf("%v's daily bar of %v: %+v, %v", code, day, got[code], err)
	}
	return got[code].Bar
}
