package kline

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"time"

	"golang.org/x/sync/singleflight"

	"mdqs/db"
	"mdqs/internal/market"
	"mdqs/internal/upstream"
)

// Config bounds the service.
type Config struct {
	Window  market.Window // the trading window (the close is its end)
	MaxRows int           // rows one request may ask for
}

// Service reads bars through the store, fetching from the source only the
// days the store does not cover yet.
type Service struct {
	store    *db.Store
	src      BarSource
	srcName  string
	intraday *Intraday
	cal      *market.Calendar
	clock    market.Clock
	cfg      Config
	log      *slog.Logger
	flight   singleflight.Group
	waits    upstream.WaitMarks // of the fetches in flight
}

func NewService(store *db.Store, src BarSource, srcName string, intraday *Intraday, cal *market.Calendar, clock market.Clock, cfg Config, log *slog.Logger) *Service {
	if cfg.MaxRows <= 0 {
		cfg.MaxRows = 20_000
	}
	return &Service{store: store, src: src, srcName: srcName, intraday: intraday, cal: cal, clock: clock, cfg: cfg, log: log}
}

// Intraday is the in-memory series of the latest sessions.
func (s *Service) Intraday() *Intraday { return s.intraday }

// LastCompleteDay is the newest day whose bars are final: today once its
// close has passed on a trading day, else the trading day before.
func (s *Service) LastCompleteDay() market.Day {
	now := s.clock.Now()
	today := market.DayOf(now)
	if s.cal.IsTradingDay(today) && !now.Before(s.cfg.Window.End.On(today)) {
		return today
	}
	return s.cal.Prev(today)
}

// liveDay is the trading day whose session is running now (0 if none):
// between its open and its close, when its bars are still forming.
func (s *Service) liveDay() market.Day {
	now := s.clock.Now()
	today := market.DayOf(now)
	if s.cal.IsTradingDay(today) && !now.Before(today.At(9, 30, 0)) && now.Before(s.cfg.Window.End.On(today)) {
		return today
	}
	return 0
}

// Estimate is an upper bound of the rows a range holds, to refuse a request
// before fetching anything for it.
func (s *Service) Estimate(freq market.Freq, from, to market.Day) int {
	days := s.cal.Count(from, to)
	switch freq {
	case market.Min1:
		return days * 241
	case market.Min5:
		return days * 49
	}
	return days
}

// WarmupWait bounds how long a request waits for the source to fill the
// warm-up days before its range (see Range.WarmFrom); the fetch goes on in
// the background for the next request.
const WarmupWait = 3 * time.Second

// Stored returns the final bars of [warm, to]: the days [from, to] must be
// covered, fetched from the source where the store lacks them; the warm-up
// days [warm, from) are fetched only as far as the source answers within
// WarmupWait, and are otherwise what the store holds. Reading back for a
// previous close or an indicator's warm-up is not a coverage gap: before a
// code's first stored bar there may be nothing to fetch, and a store that
// holds the asked days answers them offline.
func (s *Service) Stored(ctx context.Context, code market.Code, freq market.Freq, warm, from, to market.Day) ([]market.Bar, error) {
	return s.stored(ctx, code, freq, warm, from, to, 0)
}

// stored is Stored reading at most warmBars bars before from when
// warmBars is positive (see Range.WarmBars).
func (s *Service) stored(ctx context.Context, code market.Code, freq market.Freq, warm, from, to market.Day, warmBars int) ([]market.Bar, error) {
	to = min(to, s.LastCompleteDay())
	warm = min(warm, from)
	if to < warm {
		return nil, nil
	}
	cov, _, covered, err := s.store.Coverage(ctx, code, freq)
	if err != nil {
		return nil, err
	}
	switch {
	case from <= to && len(gaps(cov, covered, from, to)) > 0:
		// Asked days are missing: one fetch for them and the warm-up,
		// which must succeed.
		if err := s.Ensure(ctx, code, freq, warm, to); err != nil {
			var sw storeWriteError
			if !errors.As(err, &sw) {
				return nil, err
			}
			// The source answered but the store cannot keep it (disk full, a
			// read-only file): serve the source's bars this time rather than
			// nothing. They are not kept, so the next request fetches again.
			s.log.Warn("bars not stored; serving them from the source", "code", code, "freq", freq, "err", sw.err)
			return s.direct(ctx, code, freq, warm, to)
		}
	case warm < from && len(gaps(cov, covered, warm, min(to, s.cal.Prev(from)))) > 0:
		if err := s.ensure(ctx, code, freq, warm, min(to, s.cal.Prev(from)), WarmupWait); err != nil {
			s.log.Debug("warm-up bars not fetched; reading what the store holds", "code", code, "freq", freq, "err", err)
		}
	}
	if warmBars <= 0 || warm >= from {
		return s.store.Bars(ctx, db.BarQuery{Code: code, Freq: freq, FromTS: warm.Start().Unix(), ToTS: to.At(23, 59, 59).Unix()})
	}
	fromTS := from.Start().Unix()
	before, err := s.store.Bars(ctx, db.BarQuery{Code: code, Freq: freq, FromTS: warm.Start().Unix(), ToTS: fromTS - 1, Newest: true, Limit: warmBars})
	if err != nil {
		return nil, err
	}
	slices.Reverse(before)
	if from > to {
		return before, nil
	}
	rest, err := s.store.Bars(ctx, db.BarQuery{Code: code, Freq: freq, FromTS: fromTS, ToTS: to.At(23, 59, 59).Unix()})
	if err != nil {
		return nil, err
	}
	return append(before, rest...), nil
}

// storeWriteError marks a fetch whose bars arrived but could not be stored.
type storeWriteError struct{ err error }

func (e storeWriteError) Error() string { return e.err.Error() }
func (e storeWriteError) Unwrap() error { return e.err }

// direct is [from, to] straight from the source, final days only.
func (s *Service) direct(ctx context.Context, code market.Code, freq market.Freq, from, to market.Day) ([]market.Bar, error) {
	bars, err := s.src.Klines(ctx, code, freq, from, to)
	if err != nil {
		return nil, sourceErr(err, fmt.Sprintf("%s %s bars of %v", s.srcName, freq, code))
	}
	out := bars[:0:0]
	for _, b := range bars {
		if b.Day >= from && b.Day <= to {
			out = append(out, b)
		}
	}
	return out, nil
}

// Ensure makes the store cover [from, to] for a series, fetching the days
// outside its coverage (before and after it) and widening the coverage in
// the same transaction as the bars. Concurrent calls for a series share one
// fetch.
func (s *Service) Ensure(ctx context.Context, code market.Code, freq market.Freq, from, to market.Day) error {
	return s.ensure(ctx, code, freq, from, to, 0)
}

// ensure is Ensure that stops waiting after wait (0: never) or when ctx
// ends; the fetch itself goes on for whoever asks next.
func (s *Service) ensure(ctx context.Context, code market.Code, freq market.Freq, from, to market.Day, wait time.Duration) error {
	key := fmt.Sprintf("%v/%s/%d/%d", code, freq, from, to)
	start := time.Now()
	mark := s.waits.Join(ctx, key) // a request waits on the fetch from now
	ch := s.flight.DoChan(key, func() (any, error) {
		defer s.waits.Done(key, mark)
		fctx, cancel := context.WithTimeout(mark.Context(context.WithoutCancel(ctx)), 2*time.Minute)
		defer cancel()
		cov, _, ok, err := s.store.Coverage(fctx, code, freq)
		if err != nil {
			return nil, err
		}
		for _, gap := range gaps(cov, ok, from, to) {
			if err := s.fetch(fctx, code, freq, gap, cov, ok); err != nil {
				return nil, err
			}
			cov, _, ok, err = s.store.Coverage(fctx, code, freq)
			if err != nil {
				return nil, err
			}
		}
		return nil, nil
	})
	var timeout <-chan time.Time
	if wait > 0 {
		t := time.NewTimer(wait)
		defer t.Stop()
		timeout = t.C
	}
	select {
	case res := <-ch:
		return res.Err
	case <-timeout:
		return market.Errorf(market.KindUnavailable, "%s %s bars of %v are taking longer than %v; the fetch goes on in the background", s.srcName, freq, code, wait)
	case <-ctx.Done():
		// The request's bound (server.upstream_wait) or its client leaving.
		return market.Wrap(market.KindUnavailable, ctx.Err(), "%s %s bars of %v: no answer within %v; the fetch goes on in the background",
			s.srcName, freq, code, time.Since(start).Round(100*time.Millisecond))
	}
}

// gaps are the parts of [from, to] outside the coverage.
func gaps(cov db.Span, ok bool, from, to market.Day) []db.Span {
	if !ok {
		return []db.Span{{First: from, Last: to}}
	}
	var out []db.Span
	if from < cov.First {
		out = append(out, db.Span{First: from, Last: min(to, cov.First.AddDays(-1))})
	}
	if to > cov.Last {
		out = append(out, db.Span{First: max(from, cov.Last.AddDays(1)), Last: to})
	}
	return out
}

func (s *Service) fetch(ctx context.Context, code market.Code, freq market.Freq, span db.Span, cov db.Span, covered bool) error {
	bars, err := s.src.Klines(ctx, code, freq, span.First, span.Last)
	if err != nil {
		return sourceErr(err, fmt.Sprintf("%s %s bars of %v", s.srcName, freq, code))
	}
	merged := MergeCoverage(s.cal, cov, covered, span)
	if _, err = s.store.IngestBars(ctx, []db.BarBatch{{Code: code, Freq: freq, Source: s.srcName, Bars: bars, Cover: &merged}}); err != nil {
		return storeWriteError{err}
	}
	return nil
}

// sourceErr classifies a source's failure to deliver what (e.g. "push2his
// D bars of 600519.SH"): an unknown security is 404 (the demo market says
// not found, push2his answers rc=100 or no data), a request the source
// refuses as invalid 400, anything else 503: the source is down.
func sourceErr(err error, what string) error {
	switch k := upstream.KindOf(err); {
	case market.KindOf(err) == market.KindNotFound || market.KindOf(err) == market.KindInvalid:
		return err
	case k == upstream.KindRC || k == upstream.KindEmpty:
		return market.Wrap(market.KindNotFound, err, "no %s: the source does not know the security", what)
	default:
		return market.Wrap(market.KindUnavailable, err, "%s: %v", what, err)
	}
}

// MergeCoverage widens a coverage by a span of complete days when the two
// touch (no trading day between them); otherwise the later span wins, since
// recent days are what queries ask for most.
func MergeCoverage(cal *market.Calendar, cov db.Span, covered bool, span db.Span) db.Span {
	if !covered {
		return span
	}
	touches := span.First <= cal.Next(cov.Last) && span.Last >= cal.Prev(cov.First)
	if touches {
		return db.Span{First: min(cov.First, span.First), Last: max(cov.Last, span.Last)}
	}
	if span.Last > cov.Last {
		return span
	}
	return cov
}

// Series is a joined series with where its rows came from.
type Series struct {
	Bars         []market.Bar
	Provisional  int        // the last Provisional bars are today's, still forming
	FinalThrough market.Day // the last day whose bars are final
	RealtimeAsOf time.Time  // when the provisional bars were fetched (zero if none)
}

// Stored counts the final rows.
func (s Series) Stored() int { return len(s.Bars) - s.Provisional }

// Range is a request's span of instants, both ends included.
type Range struct {
	From, To time.Time
	// WarmFrom, when before From, adds the bars from it on, for indicator
	// warm-up and the first row's previous close. Only [From, To] must be
	// covered (see Stored).
	WarmFrom time.Time
	// WarmBars, when positive, is all that is needed of the bars before
	// From's day: only the newest WarmBars of them are read. A request that
	// needs the previous close alone then reads one 1-minute bar, not two
	// whole days of them (720 rows to answer 240, issue 19's profile).
	WarmBars int
}

// Start is the earliest instant a range reads.
func (r Range) Start() time.Time {
	if !r.WarmFrom.IsZero() && r.WarmFrom.Before(r.From) {
		return r.WarmFrom
	}
	return r.From
}

// Series returns the bars between two instants: final bars from the store
// and, when the range reaches into a session that is running, that
// session's bars so far from the in-memory 1-minute series (a daily bar
// built from it for D), each after the last final bar, so the seam holds
// no duplicate.
func (s *Service) Series(ctx context.Context, code market.Code, freq market.Freq, r Range) (Series, error) {
	warm, from, to := market.DayOf(r.Start()), market.DayOf(r.From), market.DayOf(r.To)
	if n := s.Estimate(freq, warm, to); n > s.cfg.MaxRows {
		return Series{}, market.Errorf(market.KindInvalid, "the range holds up to %d %s bars; at most %d per request: narrow start/end", n, freq, s.cfg.MaxRows)
	}
	out := Series{FinalThrough: min(to, s.LastCompleteDay())}
	stored, err := s.stored(ctx, code, freq, warm, from, to, r.WarmBars)
	if err != nil {
		return Series{}, err
	}
	// stored is this request's own slice: keep the range in place.
	lo, hi := r.Start().Unix(), r.To.Unix()
	out.Bars = stored[:0]
	for _, b := range stored {
		if b.TS >= lo && b.TS <= hi {
			out.Bars = append(out.Bars, b)
		}
	}
	live := s.liveDay()
	if live == 0 || live < warm || live > to {
		return out, nil
	}
	sess, err := s.intraday.Get(ctx, code)
	if err != nil {
		return Series{}, err
	}
	var lastTS int64
	if n := len(out.Bars); n > 0 {
		lastTS = out.Bars[n-1].TS
	}
	for _, b := range Aggregate(sess.Day(live), freq) {
		if b.TS > lastTS && b.TS >= r.Start().Unix() && b.TS <= r.To.Unix() {
			out.Bars = append(out.Bars, b)
			out.Provisional++
		}
	}
	if out.Provisional > 0 {
		out.RealtimeAsOf = sess.Fetched
	}
	return out, nil
}

// LatestDay is the day of code's latest daily bar, the anchor of 前复权 as
// the terminal draws it: during a session today, when the stored bars
// reach the last complete day (today's bar is forming); else the newest
// stored bar. Where the store's daily bars of code are this source's own
// (filled on demand: a request for an old range stores that range only),
// the days from that bar to the last complete day are asked of the source
// first, waiting at most WarmupWait; bars another importer keeps, the
// terminal's, stand as they are, as the terminal anchors at its own last
// bar. An outage or an offline store leaves the newest stored bar, which
// is what a stale store holds. 0 when no daily bar of code is known.
func (s *Service) LatestDay(ctx context.Context, code market.Code) (market.Day, error) {
	latest, err := s.newestStored(ctx, code)
	if err != nil {
		return 0, err
	}
	last := s.LastCompleteDay()
	if latest < last {
		_, by, covered, err := s.store.Coverage(ctx, code, market.Daily)
		if err != nil {
			return 0, err
		}
		if !covered || by == s.srcName {
			from := last.AddDays(-30) // nothing stored: a month says which bar is the newest
			if latest != 0 {
				from = latest.AddDays(1)
			}
			if err := s.ensure(ctx, code, market.Daily, from, last, WarmupWait); err != nil {
				s.log.Debug("bars after the newest stored one not fetched; anchoring at it", "code", code, "newest", latest, "err", err)
			} else if latest, err = s.newestStored(ctx, code); err != nil {
				return 0, err
			}
		}
	}
	if live := s.liveDay(); live != 0 && latest >= last {
		return live, nil
	}
	return latest, nil
}

// newestStored is the day of code's newest stored daily bar; 0: none.
func (s *Service) newestStored(ctx context.Context, code market.Code) (market.Day, error) {
	bars, err := s.store.Bars(ctx, db.BarQuery{Code: code, Freq: market.Daily, Newest: true, Limit: 1})
	if err != nil || len(bars) == 0 {
		return 0, err
	}
	return bars[0].Day, nil
}
