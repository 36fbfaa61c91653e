// Package archive keeps what the sources forget (issue 30). EastMoney's
// trends2 holds the last 5 trading days of 1-minute bars and no free
// source holds more; mdqs runs beside the terminal every trading day, so
// after each close it fetches the day's minutes of every security of the
// day's universe (the security master's, so a code delisted since keeps
// its days), checks each day against the day's bar, and records what it
// did per day and code in the same transaction as the bars: a run killed
// anywhere resumes at the first code without a record.
package archive

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"sync"
	"time"

	"mdqs/db"
	"mdqs/internal/kline"
	"mdqs/internal/market"
	"mdqs/internal/secmaster"
	"mdqs/internal/upstream"
)

// Source gives the 1-minute series of a code's last ndays trading days,
// as push2his's trends2 does (and the demo market offline).
type Source interface {
	Trends(ctx context.Context, code market.Code, ndays int) ([]market.Bar, error)
}

// FiveMinutes gives 5-minute K-lines over a range of days, as push2his's
// kline/get klt=5 does (about two months back) and the demo market.
type FiveMinutes interface {
	Klines(ctx context.Context, code market.Code, freq market.Freq, from, to market.Day) ([]market.Bar, error)
}

// Universe is the security master.
type Universe interface {
	Universe(ctx context.Context, day market.Day, f secmaster.Filter) ([]secmaster.Security, db.RecordedDays, error)
}

// Config tunes the archive.
type Config struct {
	At         market.TimeOfDay // a day is archived from this time on (15:35)
	Window     int              // trading days the source keeps minutes of, the latest included (trends2: 5)
	Rate       float64          // source requests a second at most, with jitter; 0: no cap (the demo)
	SourceName string           // the source's name, as bars and records carry it
	Batch      int              // codes a transaction (each code's days with their records)
	// FiveMinuteDays is how many trading days before the 1-minute window
	// the 5-minute source still reaches (klt=5: about two months); days
	// older than both, since the archive began, are recorded as gaps.
	FiveMinuteDays int
	// Five is the 5-minute source; nil: days past the window are gaps.
	Five FiveMinutes
	// TerminalDir is the terminal's folder (tdx.dir, or the demo's), ""
	// for none: Quality then also compares the terminal's .day and .lc1
	// files of the day with the store's bars.
	TerminalDir string
	// Sleep waits d unless ctx ends first; nil: a timer. Tests pass one
	// that only counts.
	Sleep func(ctx context.Context, d time.Duration) error
}

// Service archives days.
type Service struct {
	store *db.Store
	src   Source
	sec   Universe
	cal   *market.Calendar
	clock market.Clock
	log   *slog.Logger
	cfg   Config
	pace  *pacer

	mu   sync.Mutex
	done map[market.Day]bool // days a whole run finished: nothing owed
}

func New(store *db.Store, src Source, sec Universe, cal *market.Calendar, clock market.Clock, log *slog.Logger, cfg Config) *Service {
	if cfg.Window <= 0 {
		cfg.Window = 5
	}
	if cfg.Batch <= 0 {
		cfg.Batch = 50
	}
	if cfg.FiveMinuteDays < 0 {
		cfg.FiveMinuteDays = 0
	}
	if cfg.Sleep == nil {
		cfg.Sleep = sleep
	}
	return &Service{store: store, src: src, sec: sec, cal: cal, clock: clock, log: log, cfg: cfg, pace: newPacer(cfg.Rate, cfg.Sleep),
		done: map[market.Day]bool{}}
}

// kinds are the security types archived: A-shares, indices and funds
// (ETFs among them).
var kinds = []market.SecurityType{market.TypeStock, market.TypeIndex, market.TypeFund}

// Job is the runner's job: it archives every due day within the source's
// window not archived yet, and returns at once when every one is done
// (remembered, so a tick costs nothing between closes).
func (s *Service) Job(ctx context.Context) error {
	due := s.Due()
	s.mu.Lock()
	todo := slices.ContainsFunc(due, func(d market.Day) bool { return !s.done[d] })
	s.mu.Unlock()
	if !todo {
		return nil
	}
	if _, err := s.Run(ctx, Request{}); err != nil {
		return err
	}
	s.mu.Lock()
	for _, d := range due {
		s.done[d] = true
	}
	s.mu.Unlock()
	return nil
}

// Request narrows a run: one day (0: every due day of the window), some
// codes (nil: the day's universe). Progress, when set, hears each code
// with the bars kept so far.
type Request struct {
	Day      market.Day
	Codes    []market.Code
	Progress func(done, total, bars int)
}

// Report says what a run did.
type Report struct {
	Days                    []market.Day // the days some code owed, oldest first
	Codes                   int          // codes fetched
	Held                    int          // code-days the store held whole, recorded without a request
	Archived, Flagged, Gaps int          // code-days recorded
	Bars                    int
	Requests                int
}

// Due are the days the archive owes now, oldest first: the complete
// trading days of the source's window (today once At has passed).
func (s *Service) Due() []market.Day {
	now := s.clock.Now()
	today := market.DayOf(now)
	last := s.cal.OnOrBefore(today)
	if last == today && now.Before(s.cfg.At.On(today)) {
		last = s.cal.Prev(today)
	}
	days := []market.Day{last}
	for len(days) < s.cfg.Window {
		days = append(days, s.cal.Prev(days[len(days)-1]))
	}
	slices.Reverse(days)
	return days
}

// sourceLatest is the day the source's series ends on now: today once its
// first bar has completed (09:31), else the session before.
func (s *Service) sourceLatest() market.Day {
	now := s.clock.Now()
	today := market.DayOf(now)
	if s.cal.IsTradingDay(today) && !now.Before(today.At(9, 31, 0)) {
		return today
	}
	return s.cal.OnOrBefore(today.AddDays(-1))
}

// Run archives the request's days: for each code, one source request for
// every day it still owes, each day checked and stored with its record.
// A source outage ends the run with its error and records nothing for the
// codes not reached: the next run resumes there.
func (s *Service) Run(ctx context.Context, req Request) (Report, error) {
	days := s.Due()
	if req.Day != 0 {
		if !slices.Contains(days, req.Day) {
			return Report{}, market.Errorf(market.KindInvalid, "%v is not a complete trading day within the source's last %d (%v to %v): "+
				"the source no longer has its minutes, or it has not closed yet", req.Day, s.cfg.Window, days[0], days[len(days)-1])
		}
		days = []market.Day{req.Day}
	}
	owed, err := s.owed(ctx, days, req.Codes)
	if err != nil {
		return Report{}, err
	}
	var older []market.Day
	if req.Day == 0 {
		if older, err = s.olderDays(ctx, days[0]); err != nil {
			return Report{}, err
		}
	}
	owedOld, err := s.owed(ctx, older, req.Codes)
	if err != nil {
		return Report{}, err
	}
	rep := Report{Days: owedDays(owedOld, owed)}
	codes := make([]market.Code, 0, len(owed))
	for c := range owed {
		codes = append(codes, c)
	}
	for c := range owedOld {
		if _, ok := owed[c]; !ok {
			codes = append(codes, c)
		}
	}
	slices.SortFunc(codes, func(a, b market.Code) int { return compareCodes(a, b) })
	var pending []db.ArchiveEntry
	flush := func() error {
		if len(pending) == 0 {
			return nil
		}
		err := s.store.PutArchive(ctx, pending)
		pending = pending[:0]
		return err
	}
	watch := &banWatch{}
	if len(days) > 0 {
		if watch.traded, err = s.tradedBefore(ctx, days[0]); err != nil {
			return rep, err
		}
	}
	for i, code := range codes {
		var entries []db.ArchiveEntry
		if days := owedOld[code]; len(days) > 0 {
			e, err := s.fetchFive(ctx, code, days, &rep)
			if err != nil {
				return rep, errors.Join(err, flush())
			}
			entries = append(entries, e...)
		}
		if days := owed[code]; len(days) > 0 {
			held, rest, err := s.held(ctx, code, days, &rep)
			if err != nil {
				return rep, errors.Join(err, flush())
			}
			entries = append(entries, held...)
			if len(rest) > 0 {
				e, err := s.fetch(ctx, code, rest, &rep)
				if err != nil {
					return rep, errors.Join(err, flush())
				}
				entries = append(entries, e...)
			}
		}
		record, banned, dropped := watch.see(code, entries)
		if banned {
			rep.Gaps -= dropped
			return rep, errors.Join(s.banned(watch, code), flush())
		}
		pending = append(pending, record...)
		if len(pending) >= s.cfg.Batch {
			if err := flush(); err != nil {
				return rep, err
			}
		}
		if req.Progress != nil {
			req.Progress(i+1, len(codes), rep.Bars)
		}
	}
	pending = append(pending, watch.held...) // a streak shorter than a ban at the end: gaps after all
	return rep, flush()
}

// owedDays are the days some code owes, oldest first.
func owedDays(maps ...map[market.Code][]market.Day) []market.Day {
	seen := map[market.Day]bool{}
	var out []market.Day
	for _, m := range maps {
		for _, days := range m {
			for _, d := range days {
				if !seen[d] {
					seen[d] = true
					out = append(out, d)
				}
			}
		}
	}
	slices.Sort(out)
	return out
}

func compareCodes(a, b market.Code) int {
	switch as, bs := a.String(), b.String(); {
	case as < bs:
		return -1
	case as > bs:
		return 1
	}
	return 0
}

// owed maps each code to the days it is listed on and has no record of,
// oldest first. A day's universe is the security master's record of it,
// else of the nearest recorded day after it (a PC that slept missed both
// the record and the minutes; a code listed later then finds no minutes
// for the day, a gap that says so); with neither, the day waits for the
// record. A suspended code owes nothing.
func (s *Service) owed(ctx context.Context, days []market.Day, only []market.Code) (map[market.Code][]market.Day, error) {
	out := map[market.Code][]market.Day{}
	var want map[market.Code]bool
	if only != nil {
		want = map[market.Code]bool{}
		for _, c := range only {
			want[c] = true
		}
	}
	for _, d := range days {
		secs, err := s.universe(ctx, d)
		if k := market.KindOf(err); k == market.KindNotFound || k == market.KindInvalid {
			continue // no universe recorded yet: nothing known to be owed
		}
		if err != nil {
			return nil, err
		}
		done, err := s.store.ArchiveDays(ctx, d)
		if err != nil {
			return nil, err
		}
		have := make(map[market.Code]bool, len(done))
		for _, a := range done {
			have[a.Code] = true
		}
		for _, sec := range secs {
			if have[sec.Code] || sec.Suspended || (want != nil && !want[sec.Code]) {
				continue
			}
			out[sec.Code] = append(out[sec.Code], d)
		}
	}
	return out, nil
}

func (s *Service) universe(ctx context.Context, day market.Day) ([]secmaster.Security, error) {
	return s.universeOf(ctx, day, true)
}

// universeOf is the archived kinds of day's universe; with nearest, a day
// not recorded takes the nearest recorded day after it.
func (s *Service) universeOf(ctx context.Context, day market.Day, nearest bool) ([]secmaster.Security, error) {
	secs, _, err := s.sec.Universe(ctx, day, secmaster.Filter{})
	if k := market.KindOf(err); nearest && (k == market.KindNotFound || k == market.KindInvalid) {
		// Not recorded: the nearest recorded day after it.
		for d := s.cal.Next(day); d <= market.DayOf(s.clock.Now()) && err != nil; d = s.cal.Next(d) {
			secs, _, err = s.sec.Universe(ctx, d, secmaster.Filter{})
		}
	}
	if err != nil && nearest {
		return nil, fmt.Errorf("the universe of %v: %w", day, err)
	}
	if err != nil {
		return nil, err
	}
	kept := secs[:0]
	for _, sec := range secs {
		if slices.Contains(kinds, sec.Type) {
			kept = append(kept, sec)
		}
	}
	return kept, nil
}

// fetch asks the source once for code's owed days and makes each one's
// entry: the day's bars with their record, or a gap when the source has
// no minutes of it. A source error other than "no data" is returned: an
// outage is not a gap.
func (s *Service) fetch(ctx context.Context, code market.Code, days []market.Day, rep *Report) ([]db.ArchiveEntry, error) {
	latest := s.sourceLatest()
	ndays := s.cal.Count(days[0], latest)
	if ndays > s.cfg.Window {
		ndays = s.cfg.Window
	}
	if err := s.pace.wait(ctx); err != nil {
		return nil, err
	}
	rep.Requests++
	bars, err := s.src.Trends(ctx, code, max(ndays, 1))
	if err != nil && !isEmpty(err) {
		return nil, err
	}
	rep.Codes++
	byDay := map[market.Day][]market.Bar{}
	var newest, oldest market.Day
	for _, b := range bars {
		byDay[b.Day] = append(byDay[b.Day], b)
		newest = max(newest, b.Day)
		if oldest == 0 || b.Day < oldest {
			oldest = b.Day
		}
	}
	cov, err2 := s.coverageOf(ctx, code)
	if err2 != nil {
		return nil, err2
	}
	now := s.clock.Now()
	var out []db.ArchiveEntry
	for _, d := range days {
		rec := db.ArchiveDay{Day: d, Code: code, Source: s.cfg.SourceName, At: now}
		min1 := byDay[d]
		if len(min1) == 0 && d < oldest {
			continue // before the series the source gave: asked again next run
		}
		if len(min1) == 0 {
			rec.Status, rec.Reason = db.ArchiveGap, "the source has no minutes of the day"
			if err != nil {
				rec.Reason += ": " + err.Error()
			}
			rep.Gaps++
			out = append(out, db.ArchiveEntry{Day: rec})
			continue
		}
		rec.Freq, rec.Bars, rec.OpensGiven = 1, len(min1), d == newest
		if err := s.judge(ctx, &rec, min1, 240, rep); err != nil {
			return nil, err
		}
		rep.Bars += len(min1)
		out = append(out, db.ArchiveEntry{Day: rec, Batches: s.batches(code, d, min1, cov, s.cfg.SourceName, market.Min1, market.Min5)})
	}
	return out, nil
}

// coverage is a code's coverage of each intraday frequency, widened day
// by day as a code's days are archived in one transaction.
type coverage map[market.Freq]struct {
	span db.Span
	ok   bool
}

func (s *Service) coverageOf(ctx context.Context, code market.Code) (coverage, error) {
	c := coverage{}
	for _, f := range []market.Freq{market.Min1, market.Min5} {
		span, _, ok, err := s.store.Coverage(ctx, code, f)
		if err != nil {
			return nil, err
		}
		c[f] = struct {
			span db.Span
			ok   bool
		}{span, ok}
	}
	return c, nil
}

// batches are a day's bars at freqs, each widening its coverage where it
// touches the day: bars are of freqs[0], and a 5-minute batch after a
// 1-minute one is their aggregate. source names where they came from.
func (s *Service) batches(code market.Code, d market.Day, bars []market.Bar, cov coverage, source string, freqs ...market.Freq) []db.BarBatch {
	var out []db.BarBatch
	for _, f := range freqs {
		c := cov[f]
		c.span, c.ok = kline.MergeCoverage(s.cal, c.span, c.ok, db.Span{First: d, Last: d}), true
		cov[f] = c
		b := bars
		if f != freqs[0] {
			b = kline.Aggregate(bars, f)
		}
		span := c.span
		out = append(out, db.BarBatch{Code: code, Freq: f, Source: source, Bars: b, Cover: &span})
	}
	return out
}

// isEmpty says err is the source having no minutes of the code (an empty
// series, or no such security), not an outage.
func isEmpty(err error) bool {
	k := upstream.KindOf(err)
	return k == upstream.KindEmpty || k == upstream.KindRC || market.KindOf(err) == market.KindNotFound
}
