package archive_test

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"math"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"mdqs/db"
	"mdqs/db/dbtest"
	"mdqs/internal/archive"
	"mdqs/internal/demo"
	"mdqs/internal/market"
	"mdqs/internal/quote"
	"mdqs/internal/secmaster"
	"mdqs/internal/upstream"
)

// friday is after Friday 2026-11-27's close, past the archive's 15:35.
var friday = time.Date(2026, 11, 27, 16, 0, 0, 0, market.Shanghai())

// rig is an archive on a small demo market with its security master
// back-filled, as demo mode runs it.
type rig struct {
	store *db.Store
	dm    *demo.Market
	clock *market.FixedClock
	cal   *market.Calendar
	sec   *secmaster.Service
	src   *source
	arc   *archive.Service
	slept []time.Duration
}

// source is the demo's trends2 with faults a test can put in.
type source struct {
	dm    *demo.Market
	calls atomic.Int64
	bans  atomic.Int64 // SuspectBan calls
	// fail, when set, answers instead of the demo for a code (nil: the demo).
	fail func(code market.Code, n int64) ([]market.Bar, error)
}

func (s *source) Trends(ctx context.Context, code market.Code, ndays int) ([]market.Bar, error) {
	n := s.calls.Add(1)
	if s.fail != nil {
		if bars, err := s.fail(code, n); bars != nil || err != nil {
			return bars, err
		}
	}
	return s.dm.Trends(ctx, code, ndays)
}

func (s *source) SuspectBan() { s.bans.Add(1) }

func newRig(t *testing.T, rate float64) *rig { return newRigWith(t, rate, 0) }

// newRigWith is newRig whose 5-minute source (the demo) reaches fiveDays
// trading days before the 1-minute window (0: no 5-minute source).
func newRigWith(t *testing.T, rate float64, fiveDays int) *rig {
	t.Helper()
	ctx := context.Background()
	cal := market.DefaultCalendar()
	clock := market.NewFixedClock(friday)
	dm, err := demo.New(demo.Config{Seed: 5, Stocks: 40, Industries: 5, Concepts: 5, Calendar: cal}, clock)
	if err != nil {
		t.Fatal(err)
	}
	store := dbtest.Open(t)
	quotes := quote.New(dm, dm, cal, clock, quote.Config{Age: time.Minute, Source: "demo"})
	sec := secmaster.New(store, quotes, cal, clock, secmaster.Config{RecordAfter: 15*60 + 5, History: dm, BackfillDays: 10})
	if err := sec.Record(ctx); err != nil {
		t.Fatal(err)
	}
	r := &rig{store: store, dm: dm, clock: clock, cal: cal, sec: sec, src: &source{dm: dm}}
	cfg := archive.Config{At: 15*60 + 35, Window: 5, Rate: rate, SourceName: "demo", Batch: 7,
		Sleep: func(ctx context.Context, d time.Duration) error { r.slept = append(r.slept, d); return ctx.Err() }}
	if fiveDays > 0 {
		cfg.Five, cfg.FiveMinuteDays = dm, fiveDays
	}
	r.arc = archive.New(store, r.src, sec, cal, clock, slog.New(slog.NewTextHandler(io.Discard, nil)), cfg)
	return r
}

// listed are the codes the archive owes on day: the security master's
// universe of it (stocks, indices, funds), less the suspended.
func (r *rig) listed(t *testing.T, day market.Day) map[market.Code]bool {
	t.Helper()
	secs, _, err := r.sec.Universe(context.Background(), day, secmaster.Filter{})
	if err != nil {
		t.Fatal(err)
	}
	out := map[market.Code]bool{}
	for _, s := range secs {
		if !s.Suspended && (s.Type == market.TypeStock || s.Type == market.TypeIndex || s.Type == market.TypeFund) {
			out[s.Code] = true
		}
	}
	return out
}

// A new store archives the source's whole window, one request a code for
// all five days; every day's bars are the source's, the opens given only
// for its latest day; a second run asks nothing.
func TestArchiveCatchesUpTheWindowOnce(t *testing.T) {
	ctx := context.Background()
	r := newRig(t, 0)
	rep, err := r.arc.Run(ctx, archive.Request{})
	if err != nil {
		t.Fatal(err)
	}
	due := r.arc.Due()
	if len(due) != 5 || due[4] != 20261127 || due[0] != 20261123 {
		t.Fatalf("due %v, want 2026-11-23..27", due)
	}
	codes := map[market.Code]bool{}
	for _, d := range due {
		for c := range r.listed(t, d) {
			codes[c] = true
		}
	}
	if rep.Requests != len(codes) || rep.Codes != len(codes) {
		t.Fatalf("%d requests for %d codes", rep.Requests, len(codes))
	}
	for _, d := range due {
		recs, err := r.store.ArchiveDays(ctx, d)
		if err != nil {
			t.Fatal(err)
		}
		if want := len(r.listed(t, d)); len(recs) != want {
			t.Fatalf("%v: %d records, %d codes listed", d, len(recs), want)
		}
		for _, a := range recs {
			if a.Status == db.ArchiveGap {
				continue
			}
			if a.OpensGiven != (d == 20261127) || a.Source != "demo" || a.Freq != 1 {
				t.Fatalf("%v %s: %+v", d, a.Code, a)
			}
		}
	}
	// The bars are the source's, bit for bit (the demo's prices are cents).
	code := pick(r.listed(t, 20261125), market.TypeStock)
	trends, err := r.dm.Trends(ctx, code, 5)
	if err != nil {
		t.Fatal(err)
	}
	var want []market.Bar
	for _, b := range trends {
		if b.Day == 20261125 {
			want = append(want, b)
		}
	}
	got, err := r.store.Bars(ctx, db.BarQuery{Code: code, Freq: market.Min1, FromTS: market.Day(20261125).Start().Unix(), ToTS: market.Day(20261125).At(23, 59, 0).Unix()})
	if err != nil || len(got) != 240 || !same(got, want) {
		t.Fatalf("%s on 2026-11-25: %d bars stored (%v), the source gave %d", code, len(got), err, len(want))
	}
	five, _ := r.store.Bars(ctx, db.BarQuery{Code: code, Freq: market.Min5, FromTS: market.Day(20261125).Start().Unix(), ToTS: market.Day(20261125).At(23, 59, 0).Unix()})
	if len(five) != 48 {
		t.Fatalf("%d 5-minute bars stored, want 48", len(five))
	}
	if cov, _, ok, _ := r.store.Coverage(ctx, code, market.Min1); !ok || cov.First != 20261123 || cov.Last != 20261127 {
		t.Fatalf("1m coverage %v (%v), want the five days", cov, ok)
	}
	again, err := r.arc.Run(ctx, archive.Request{})
	if err != nil || again.Requests != 0 {
		t.Fatalf("a second run made %d requests (%v)", again.Requests, err)
	}
}

func pick(codes map[market.Code]bool, kind market.SecurityType) market.Code {
	var best market.Code
	for c := range codes {
		if market.Classify(c) == kind && (best.IsZero() || c.String() < best.String()) {
			best = c
		}
	}
	return best
}

func same(a, b []market.Bar) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		x, y := a[i], b[i]
		if x.TS != y.TS || x.Open != y.Open || x.High != y.High || x.Low != y.Low || x.Close != y.Close || x.Volume != y.Volume ||
			math.Abs(x.Amount-y.Amount) > 1e-6 {
			return false
		}
	}
	return true
}

// An outage part-way (a breaker open after 9 codes) ends the run with its
// error; what was fetched before it is kept with its records, nothing is
// recorded for the rest, and the next run fetches only those: no code
// twice, no bar doubled.
func TestArchiveResumesAfterAnOutage(t *testing.T) {
	ctx := context.Background()
	r := newRig(t, 0)
	outage := &upstream.Error{Kind: upstream.KindCircuitOpen, Detail: "the breaker is open"}
	r.src.fail = func(code market.Code, n int64) ([]market.Bar, error) {
		if n > 9 {
			return nil, outage
		}
		return nil, nil
	}
	rep, err := r.arc.Run(ctx, archive.Request{})
	if !errors.Is(err, outage) || rep.Codes != 9 {
		t.Fatalf("run: %d codes, %v; want 9 and the outage", rep.Codes, err)
	}
	first := recordedCodes(t, r)
	if len(first) != 9 {
		t.Fatalf("%d codes recorded before the outage, want 9", len(first))
	}
	r.src.fail = nil
	calls := r.src.calls.Load()
	rep, err = r.arc.Run(ctx, archive.Request{})
	if err != nil {
		t.Fatal(err)
	}
	all := recordedCodes(t, r)
	if int(r.src.calls.Load()-calls) != len(all)-9 || rep.Codes != len(all)-9 {
		t.Fatalf("the second run asked %d codes, %d were left", r.src.calls.Load()-calls, len(all)-9)
	}
	for c := range first {
		if n, _ := r.store.BarCount(ctx, c, market.Min1); n > 5*240 {
			t.Fatalf("%s: %d bars, doubled", c, n)
		}
	}
}

func recordedCodes(t *testing.T, r *rig) map[market.Code]bool {
	t.Helper()
	out := map[market.Code]bool{}
	for _, d := range r.arc.Due() {
		recs, err := r.store.ArchiveDays(context.Background(), d)
		if err != nil {
			t.Fatal(err)
		}
		for _, a := range recs {
			out[a.Code] = true
		}
	}
	return out
}

// A day whose minutes do not add up to its day bar is kept and flagged
// with the figures; one that adds up is archived clean; one without a day
// bar is archived, saying it was not checked; a code the source has no
// minutes of is a gap with the reason, and is not asked again.
func TestArchiveChecksEachDay(t *testing.T) {
	ctx := context.Background()
	r := newRig(t, 0)
	listed := r.listed(t, 20261127)
	var stocks []market.Code
	for c := range listed {
		if market.Classify(c) == market.TypeStock {
			stocks = append(stocks, c)
		}
	}
	bad, good, none, empty := stocks[0], stocks[1], stocks[2], stocks[3]
	for _, c := range []market.Code{bad, good} {
		daily, err := r.dm.Klines(ctx, c, market.Daily, 20261127, 20261127)
		if err != nil || len(daily) != 1 {
			t.Fatalf("%s: %d daily bars, %v", c, len(daily), err)
		}
		if _, err := r.store.IngestBars(ctx, []db.BarBatch{{Code: c, Freq: market.Daily, Source: "demo", Bars: daily}}); err != nil {
			t.Fatal(err)
		}
	}
	r.src.fail = func(code market.Code, _ int64) ([]market.Bar, error) {
		switch code {
		case empty:
			return nil, &upstream.Error{Kind: upstream.KindEmpty, Detail: "no trend points"}
		case bad:
			bars, err := r.dm.Trends(ctx, code, 5)
			for i := range bars {
				if bars[i].Day == 20261127 && i%2 == 0 {
					bars[i].Volume += 100_000
				}
			}
			return bars, err
		}
		return nil, nil
	}
	if _, err := r.arc.Run(ctx, archive.Request{Day: 20261127}); err != nil {
		t.Fatal(err)
	}
	recs, err := r.store.ArchiveDays(ctx, 20261127)
	if err != nil {
		t.Fatal(err)
	}
	by := map[market.Code]db.ArchiveDay{}
	for _, a := range recs {
		by[a.Code] = a
	}
	if a := by[bad]; a.Status != db.ArchiveFlagged || !strings.Contains(a.Reason, "volume") || a.Bars != 240 {
		t.Fatalf("bad volumes: %+v", a)
	}
	if n, _ := r.store.BarCount(ctx, bad, market.Min1); n != 240 {
		t.Fatalf("the flagged day keeps %d bars, want 240", n)
	}
	if a := by[good]; a.Status != db.ArchiveArchived || a.Reason != "" {
		t.Fatalf("good: %+v", a)
	}
	if a := by[none]; a.Status != db.ArchiveArchived || !strings.Contains(a.Reason, "not checked") {
		t.Fatalf("no day bar: %+v", a)
	}
	if a := by[empty]; a.Status != db.ArchiveGap || !strings.Contains(a.Reason, "no trend points") || a.Freq != 0 {
		t.Fatalf("empty: %+v", a)
	}
	calls := r.src.calls.Load()
	if rep, _ := r.arc.Run(ctx, archive.Request{Day: 20261127}); rep.Requests != 0 || r.src.calls.Load() != calls {
		t.Fatalf("a second run of the day made %d requests", rep.Requests)
	}
	// A day the source no longer has is refused with what to do.
	_, err = r.arc.Run(ctx, archive.Request{Day: 20261113})
	if market.KindOf(err) != market.KindInvalid || !strings.Contains(err.Error(), "no longer has") {
		t.Fatalf("an old day: %v", err)
	}
}

// Before 15:35 today is not due; requests are spaced at the configured
// rate with jitter (between half and one and a half of the mean gap).
func TestArchivePacesAndWaitsForItsTime(t *testing.T) {
	r := newRig(t, 4)
	r.clock.Set(time.Date(2026, 11, 27, 15, 20, 0, 0, market.Shanghai()))
	if due := r.arc.Due(); due[len(due)-1] != 20261126 {
		t.Fatalf("before 15:35 the last due day is %v", due[len(due)-1])
	}
	r.clock.Set(friday)
	rep, err := r.arc.Run(context.Background(), archive.Request{Day: 20261127})
	if err != nil {
		t.Fatal(err)
	}
	if len(r.slept) != rep.Requests-1 {
		t.Fatalf("%d waits for %d requests", len(r.slept), rep.Requests)
	}
	var total time.Duration
	for _, d := range r.slept {
		if d < 125*time.Millisecond || d > 375*time.Millisecond {
			t.Fatalf("a wait of %v at 4 a second", d)
		}
		total += d
	}
	if mean := total / time.Duration(len(r.slept)); mean < 200*time.Millisecond || mean > 300*time.Millisecond {
		t.Fatalf("mean wait %v at 4 a second", mean)
	}
}

// A PC off for six trading days: the five of the 1-minute window come
// back at 1 minute, the sixth (past the window) as 5-minute bars where the
// 5-minute source reaches, else as a gap saying no source has it; each
// code asked once for its 1-minute days and once for its 5-minute ones.
func TestArchiveCatchUpAfterSixMissedDays(t *testing.T) {
	ctx := context.Background()
	for _, tt := range []struct {
		name     string
		fiveDays int
	}{{"the 5-minute source reaches the sixth day", 35}, {"no 5-minute source", 0}} {
		t.Run(tt.name, func(t *testing.T) {
			r := newRigWith(t, 0, tt.fiveDays)
			// Archived on Thursday 2026-11-19, then off until Friday 27th's close.
			r.clock.Set(time.Date(2026, 11, 19, 16, 0, 0, 0, market.Shanghai()))
			if _, err := r.arc.Run(ctx, archive.Request{Day: 20261119}); err != nil {
				t.Fatal(err)
			}
			r.clock.Set(friday)
			if err := r.sec.Record(ctx); err != nil {
				t.Fatal(err)
			}
			calls := r.src.calls.Load()
			rep, err := r.arc.Run(ctx, archive.Request{})
			if err != nil {
				t.Fatal(err)
			}
			if r.src.calls.Load()-calls != int64(len(recordedCodes(t, r))) {
				t.Fatalf("%d trends2 requests for %d codes", r.src.calls.Load()-calls, len(recordedCodes(t, r)))
			}
			if rep.Days[0] != 20261120 || len(rep.Days) != 6 {
				t.Fatalf("the run covered %v", rep.Days)
			}
			sixth, err := r.store.ArchiveDays(ctx, 20261120)
			if err != nil || len(sixth) != len(r.listed(t, 20261120)) {
				t.Fatalf("2026-11-20: %d records (%v), %d codes listed", len(sixth), err, len(r.listed(t, 20261120)))
			}
			for _, a := range sixth {
				switch {
				case tt.fiveDays > 0 && (a.Status != db.ArchiveArchived || a.Freq != 5 || a.Bars != 48 || !strings.Contains(a.Reason, "5-minute bars only")):
					t.Fatalf("with 5-minute bars: %+v", a)
				case tt.fiveDays == 0 && (a.Status != db.ArchiveGap || !strings.Contains(a.Reason, "no source has the day any more")):
					t.Fatalf("without: %+v", a)
				}
			}
			code := sixth[0].Code
			five, _ := r.store.Bars(ctx, db.BarQuery{Code: code, Freq: market.Min5, FromTS: market.Day(20261120).Start().Unix(), ToTS: market.Day(20261120).At(23, 59, 0).Unix()})
			one, _ := r.store.Bars(ctx, db.BarQuery{Code: code, Freq: market.Min1, FromTS: market.Day(20261120).Start().Unix(), ToTS: market.Day(20261120).At(23, 59, 0).Unix()})
			if want := map[bool]int{true: 48, false: 0}[tt.fiveDays > 0]; len(five) != want || len(one) != 0 {
				t.Fatalf("2026-11-20 of %s: %d 5-minute bars, %d 1-minute", code, len(five), len(one))
			}
			for _, d := range r.arc.Due() {
				recs, _ := r.store.ArchiveDays(ctx, d)
				for _, a := range recs {
					if a.Status != db.ArchiveGap && a.Freq != 1 {
						t.Fatalf("%v in the window: %+v", d, a)
					}
				}
			}
		})
	}
}

// Verify checks the kept days again with what the store holds now: days
// archived before their daily bar was stored are checked against it once
// it is (one passes, one whose day bar disagrees is flagged), the others
// stay unchecked, and a second verification changes nothing.
func TestArchiveVerifyChecksAgain(t *testing.T) {
	ctx := context.Background()
	r := newRig(t, 0)
	if _, err := r.arc.Run(ctx, archive.Request{Day: 20261127}); err != nil {
		t.Fatal(err)
	}
	recs, _ := r.store.ArchiveDays(ctx, 20261127)
	var kept []db.ArchiveDay
	for _, a := range recs {
		if a.Status != db.ArchiveGap {
			if !strings.Contains(a.Reason, "not checked") {
				t.Fatalf("archived without a day bar: %+v", a)
			}
			kept = append(kept, a)
		}
	}
	good, bad := kept[0].Code, kept[1].Code
	for _, c := range []market.Code{good, bad} {
		daily, err := r.dm.Klines(ctx, c, market.Daily, 20261127, 20261127)
		if err != nil || len(daily) != 1 {
			t.Fatal(err)
		}
		if c == bad {
			daily[0].Amount *= 1.02
		}
		if _, err := r.store.IngestBars(ctx, []db.BarBatch{{Code: c, Freq: market.Daily, Source: "demo", Bars: daily}}); err != nil {
			t.Fatal(err)
		}
	}
	rep, err := r.arc.Verify(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	if rep.Checked != len(kept) || rep.Changed != 2 || rep.Flagged != 1 || rep.Unchecked != len(kept)-2 || rep.Missing != 0 {
		t.Fatalf("verify: %+v (%d kept)", rep, len(kept))
	}
	recs, _ = r.store.ArchiveDays(ctx, 20261127)
	for _, a := range recs {
		switch a.Code {
		case good:
			if a.Status != db.ArchiveArchived || a.Reason != "" {
				t.Fatalf("good: %+v", a)
			}
		case bad:
			if a.Status != db.ArchiveFlagged || !strings.Contains(a.Reason, "amount") {
				t.Fatalf("bad: %+v", a)
			}
		}
	}
	if again, err := r.arc.Verify(ctx, nil); err != nil || again.Changed != 0 {
		t.Fatalf("a second verification: %+v, %v", again, err)
	}
}

// A day the store already holds whole (here from the terminal's .lc1) is
// recorded under that source, checked, and costs no request; a partial
// day is fetched.
func TestArchiveRecordsWhatTheStoreHolds(t *testing.T) {
	ctx := context.Background()
	r := newRig(t, 0)
	var stocks []market.Code
	for c := range r.listed(t, 20261127) {
		if market.Classify(c) == market.TypeStock {
			stocks = append(stocks, c)
		}
	}
	whole, partial := stocks[0], stocks[1]
	for i, c := range []market.Code{whole, partial} {
		bars, err := r.dm.Trends(ctx, c, 1)
		if err != nil || len(bars) != 240 {
			t.Fatalf("%d bars, %v", len(bars), err)
		}
		if i == 1 {
			bars = bars[:100]
		}
		if _, err := r.store.IngestBars(ctx, []db.BarBatch{{Code: c, Freq: market.Min1, Source: "tdx", Bars: bars}}); err != nil {
			t.Fatal(err)
		}
	}
	var asked []market.Code
	r.src.fail = func(code market.Code, _ int64) ([]market.Bar, error) {
		asked = append(asked, code)
		return nil, nil
	}
	rep, err := r.arc.Run(ctx, archive.Request{Day: 20261127, Codes: []market.Code{whole, partial}})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Held != 1 || rep.Requests != 1 || len(asked) != 1 || asked[0] != partial {
		t.Fatalf("held %d, %d requests for %v", rep.Held, rep.Requests, asked)
	}
	recs, _ := r.store.ArchiveDays(ctx, 20261127)
	for _, a := range recs {
		want := map[market.Code]string{whole: "tdx", partial: "demo"}[a.Code]
		if a.Source != want || a.Bars != 240 || a.Status != db.ArchiveArchived {
			t.Fatalf("%s: %+v, want from %s", a.Code, a, want)
		}
	}
}

// A day's quality: the universe and what the archive did with it, and
// where a code's minutes and its daily bar come from two sources, how
// often each field disagrees and the worst cases.
func TestQualityComparesTwoSources(t *testing.T) {
	ctx := context.Background()
	r := newRig(t, 0)
	before, err := r.arc.Quality(ctx, 20261127)
	if err != nil {
		t.Fatal(err)
	}
	if before.Missing != before.Universe || before.Universe == 0 || before.Compared != 0 {
		t.Fatalf("before the archive: %+v", before)
	}
	if _, err := r.arc.Run(ctx, archive.Request{Day: 20261127}); err != nil {
		t.Fatal(err)
	}
	var stocks []market.Code
	for c := range r.listed(t, 20261127) {
		if market.Classify(c) == market.TypeStock {
			stocks = append(stocks, c)
		}
	}
	same, closeOff, volOff := stocks[0], stocks[1], stocks[2]
	for _, c := range []market.Code{same, closeOff, volOff} {
		daily, err := r.dm.Klines(ctx, c, market.Daily, 20261127, 20261127)
		if err != nil || len(daily) != 1 {
			t.Fatal(err)
		}
		switch c {
		case closeOff:
			daily[0].Close += 0.05
			daily[0].High = max(daily[0].High, daily[0].Close)
		case volOff:
			daily[0].Volume = daily[0].Volume * 103 / 100
		}
		if _, err := r.store.IngestBars(ctx, []db.BarBatch{{Code: c, Freq: market.Daily, Source: "quotes", Bars: daily}}); err != nil {
			t.Fatal(err)
		}
	}
	q, err := r.arc.Quality(ctx, 20261127)
	if err != nil {
		t.Fatal(err)
	}
	if q.Missing != 0 || q.Archived+q.Flagged+q.Gaps != q.Universe || q.Compared != 3 || q.DaySources["quotes"] != 3 || q.MinuteSources["demo"] != 3 {
		t.Fatalf("after: %+v", q)
	}
	by := map[string]archive.FieldQuality{}
	for _, f := range q.Fields {
		by[f.Field] = f
	}
	if f := by["close"]; f.Compared != 3 || f.Disagree != 1 || f.Worst[0].Code != closeOff || f.Worst[0].DaySrc != "quotes" {
		t.Fatalf("close: %+v", f)
	}
	if f := by["volume"]; f.Disagree != 1 || f.Worst[0].Code != volOff || f.Worst[0].Off < 0.02 {
		t.Fatalf("volume: %+v", f)
	}
	if f := by["amount"]; f.Disagree != 0 || f.Compared != 3 {
		t.Fatalf("amount: %+v", f)
	}
	if _, err := r.arc.Quality(ctx, 20260102); err == nil {
		t.Fatal("a day never recorded has a quality")
	}
}

// A source that starts answering nothing for codes that traded the
// session before is banning us: after three such codes in a row the run
// stops with an outage, records no gap for them, and tells the source
// (which cools the host down); once the ban lifts, the next run archives
// them all, without a gap.
func TestArchiveBacksOffABan(t *testing.T) {
	ctx := context.Background()
	r := newRig(t, 0)
	if _, err := r.arc.Run(ctx, archive.Request{Day: 20261126}); err != nil {
		t.Fatal(err)
	}
	calls := r.src.calls.Load()
	r.src.fail = func(code market.Code, n int64) ([]market.Bar, error) {
		if n > calls+5 {
			return nil, &upstream.Error{Kind: upstream.KindEmpty, Detail: "no trend points"}
		}
		return nil, nil
	}
	rep, err := r.arc.Run(ctx, archive.Request{Day: 20261127})
	if market.KindOf(err) != market.KindUnavailable || !strings.Contains(err.Error(), "ban") || r.src.bans.Load() != 1 {
		t.Fatalf("during the ban: %v (%d reports)", err, r.src.bans.Load())
	}
	recs, _ := r.store.ArchiveDays(ctx, 20261127)
	for _, a := range recs {
		if a.Status == db.ArchiveGap {
			t.Fatalf("a gap recorded during the ban: %+v", a)
		}
	}
	if len(recs) != 5 || rep.Gaps != 0 {
		t.Fatalf("%d codes recorded before the ban (want the 5 that answered), %d gaps counted", len(recs), rep.Gaps)
	}
	r.src.fail = nil
	if _, err := r.arc.Run(ctx, archive.Request{Day: 20261127}); err != nil {
		t.Fatal(err)
	}
	recs, _ = r.store.ArchiveDays(ctx, 20261127)
	for _, a := range recs {
		if a.Status == db.ArchiveGap {
			t.Fatalf("a gap after the ban: %+v", a)
		}
	}
	if len(recs) != len(r.listed(t, 20261127)) {
		t.Fatalf("%d codes recorded after the ban, %d listed", len(recs), len(r.listed(t, 20261127)))
	}
}
