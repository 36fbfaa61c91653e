// Package secmaster is the point-in-time security master (issue 28): which
// codes were listed on a day, under which name, ST or not, suspended or
// not. The sources forget this: EastMoney's lists show today, so every
// trading day after the close the day's quote list is recorded, and the
// timeline completes itself from the first day mdqs runs. What was not
// recorded is said (the recorded range), never guessed.
package secmaster

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"mdqs/db"
	"mdqs/internal/market"
)

// Source names the daily record of the quote list in the store and in
// answers.
const Source = "quotes"

// TerminalSource names the daily record of the terminal's name files
// (the bridge records them on the day their headers state): the universe
// of a day the quote list's record misses.
const TerminalSource = "tnf"

// Quotes is the current quote list (quote.Service).
type Quotes interface {
	Quotes(ctx context.Context) ([]market.Quote, error)
}

// History is a market that knows its past: the demo's, which can say what
// its universe was on a day before the server ran (the codes listed on
// that day under that day's names, and which were suspended) and when
// each code listed. A quote list of the day would say the same at 45 ms a
// day for 5,300 stocks.
type History interface {
	NamesOn(day market.Day) map[market.Code]string
	SuspendedOn(day market.Day) map[market.Code]bool
	ListingDays() map[market.Code]market.Day
	DelistingDays() map[market.Code]market.Day
}

// HistorySource names the listing days History states.
const HistorySource = "demo"

// Config says when a day is final, and what may fill the days before
// the first record.
type Config struct {
	RecordAfter market.TimeOfDay // a trading day is recorded from then on (15:05: after the closing call's prints)
	// History, when set (demo mode), back-fills up to BackfillDays trading
	// days before today that were not recorded, oldest first, from each
	// day's close; live sources cannot, and their record starts on the
	// first day mdqs runs.
	History      History
	BackfillDays int
	// More are lists the day's record adds to the quote list's: the ETF
	// list, whose funds the A-share list leaves out. Their quotes of
	// another day than the one recorded are left out (a list not updated
	// since), and a list that fails leaves the day recorded without it,
	// the error returned so that the job says so.
	More []Quotes
}

// Service records and answers the timeline.
type Service struct {
	store  *db.Store
	quotes Quotes
	cal    *market.Calendar
	clock  market.Clock
	cfg    Config
	shares sharesCache
	spans  spansCache
}

func New(store *db.Store, quotes Quotes, cal *market.Calendar, clock market.Clock, cfg Config) *Service {
	return &Service{store: store, quotes: quotes, cal: cal, clock: clock, cfg: cfg}
}

// Record is the job: on a trading day from RecordAfter, the day's quote
// list is recorded once. A day missed (the server was off) stays a gap:
// the quote list of a later day cannot say what an earlier day held.
func (s *Service) Record(ctx context.Context) error {
	now := s.clock.Now()
	today := market.DayOf(now)
	if err := s.backfill(ctx, today); err != nil {
		return err
	}
	if !s.cal.IsTradingDay(today) || now.Before(s.cfg.RecordAfter.On(today)) {
		return nil
	}
	if done, err := s.store.SecurityDayRecorded(ctx, Source, today); err != nil || done {
		return err
	}
	qs, err := s.quotes.Quotes(ctx)
	if err != nil {
		return err
	}
	var missed []error
	seen := make(map[market.Code]bool, len(qs))
	for _, q := range qs {
		seen[q.Code] = true
	}
	for _, more := range s.cfg.More {
		extra, err := more.Quotes(ctx)
		if err != nil {
			missed = append(missed, fmt.Errorf("the day's record holds the quote list without a list it adds (ETFs): %w", err))
			continue
		}
		for _, q := range extra {
			if !seen[q.Code] && market.DayOf(q.At) == today {
				seen[q.Code] = true
				qs = append(qs, q)
			}
		}
	}
	_, err = s.store.RecordSecurityDay(ctx, Source, today, Observations(qs), now)
	return errors.Join(append([]error{err}, missed...)...)
}

// backfill records, from History, the trading days before today after
// the last one recorded (at most BackfillDays of them), oldest first.
func (s *Service) backfill(ctx context.Context, today market.Day) error {
	if s.cfg.History == nil || s.cfg.BackfillDays <= 0 {
		return nil
	}
	var days []market.Day
	for d := s.cal.Prev(today); len(days) < s.cfg.BackfillDays; d = s.cal.Prev(d) {
		days = append(days, d)
	}
	rec, err := s.store.SecurityDays(ctx, Source)
	if err != nil && market.KindOf(err) != market.KindNotFound {
		return err
	}
	if rec.Count == 0 {
		if err := s.store.ReplaceListingDays(ctx, HistorySource, s.cfg.History.ListingDays()); err != nil {
			return err
		}
		if err := s.recordDelistings(ctx); err != nil {
			return err
		}
	}
	var batch []db.SecurityDay
	for i := len(days) - 1; i >= 0; i-- {
		d := days[i]
		if d <= rec.Last {
			continue
		}
		names, halted := s.cfg.History.NamesOn(d), s.cfg.History.SuspendedOn(d)
		obs := make([]db.SecurityObservation, 0, len(names))
		for code, name := range names {
			obs = append(obs, db.SecurityObservation{Code: code, Name: name, ST: STOf(name), Suspended: halted[code]})
		}
		batch = append(batch, db.SecurityDay{Day: d, Obs: obs})
	}
	// A few days a transaction: the start-up jobs that run beside this
	// one wait for the database's writer no longer than that.
	for len(batch) > 0 {
		n := min(len(batch), backfillPerCommit)
		if _, err := s.store.RecordSecurityDays(ctx, Source, batch[:n], s.clock.Now()); err != nil {
			return err
		}
		batch = batch[n:]
	}
	return nil
}

const backfillPerCommit = 10

// Observations are what a day's final quote list says of each code: its
// name, its risk warning (the name's ST or *ST prefix, as the exchanges
// mark it) and whether it traded at all (a suspended stock shows no price
// and no volume all day).
func Observations(qs []market.Quote) []db.SecurityObservation {
	out := make([]db.SecurityObservation, 0, len(qs))
	for _, q := range qs {
		out = append(out, db.SecurityObservation{
			Code:      q.Code,
			Name:      q.Name,
			ST:        STOf(q.Name),
			Suspended: market.Classify(q.Code) != market.TypeIndex && (q.Volume <= 0 || q.Price <= 0),
		})
	}
	return out
}

// STOf is the risk warning a name carries: "*ST" (delisting risk), "ST"
// (other risk), or "". The exchanges put it first; "S" before it marks a
// share-reform laggard of the 2000s (S*ST, SST), the warning all the same.
func STOf(name string) string {
	n := strings.ToUpper(strings.TrimSpace(name))
	if strings.HasPrefix(n, "S*ST") || strings.HasPrefix(n, "SST") {
		n = n[1:]
	}
	switch {
	case strings.HasPrefix(n, "*ST"):
		return "*ST"
	case strings.HasPrefix(n, "ST"):
		return "ST"
	}
	return ""
}

// Board is the board a code trades on, which sets its price limit: main,
// chinext (创业板), star (科创板), bse (北交所), or "" for what is not a
// stock.
func Board(c market.Code) string {
	if market.Classify(c) != market.TypeStock {
		return ""
	}
	s := c.Symbol
	switch {
	case c.Exchange == market.BJ:
		return "bse"
	case c.Exchange == market.SH && strings.HasPrefix(s, "68"):
		return "star"
	case c.Exchange == market.SZ && strings.HasPrefix(s, "30"):
		return "chinext"
	}
	return "main"
}

// Security is one code as it was on a day.
type Security struct {
	Code      market.Code
	Name      string
	Type      market.SecurityType
	Board     string
	ST        string // "", "ST", "*ST"
	Suspended bool
	Listed    db.ListedOn // zero: no source states the listing day
	Shares    db.Shares   // in force that day (shares.go); zero: no share record by then
}

// Filter narrows a universe.
type Filter struct {
	Type  market.SecurityType // "": any
	Board string              // "": any
	ST    *bool               // nil: any; true: only ST and *ST; false: none of them
}

func (f Filter) keep(s Security) bool {
	return (f.Type == "" || s.Type == f.Type) && (f.Board == "" || s.Board == f.Board) &&
		(f.ST == nil || *f.ST == (s.ST != ""))
}

// Universe is every code listed on day as the record saw it, delisted-later
// codes included and not-yet-listed ones not, in code order. A day outside
// the recorded range, or a gap in it, is a not-found error saying which
// days are known.
func (s *Service) Universe(ctx context.Context, day market.Day, f Filter) ([]Security, db.RecordedDays, error) {
	rec, err := s.CheckDay(ctx, day)
	if err != nil {
		return nil, rec, err
	}
	spans, err := s.spansOn(ctx, rec.Source, day)
	if err != nil {
		return nil, rec, err
	}
	listed, err := s.store.ListingDays(ctx)
	if err != nil {
		return nil, rec, err
	}
	var out []Security
	var cur *Security
	flush := func() {
		if cur != nil && f.keep(*cur) {
			out = append(out, *cur)
		}
	}
	for _, sp := range spans {
		if cur == nil || cur.Code != sp.Code {
			flush()
			cur = &Security{Code: sp.Code, Type: market.Classify(sp.Code), Board: Board(sp.Code), Listed: listed[sp.Code]}
		}
		switch sp.Field {
		case db.FieldName:
			cur.Name = sp.Value
		case db.FieldST:
			cur.ST = sp.Value
		case db.FieldSuspended:
			cur.Suspended = true
		}
	}
	flush()
	if err := s.withShares(ctx, day, out); err != nil {
		return nil, rec, err
	}
	return out, rec, nil
}

// CheckDay says whether day's universe is known, and from which record:
// the quote list's, else the terminal's name files'. When neither has it,
// a not-found error says which days are known. The range returned is
// that of the record answering (the quote list's when none does).
func (s *Service) CheckDay(ctx context.Context, day market.Day) (db.RecordedDays, error) {
	rec, err := s.Recorded(ctx)
	if err != nil && market.KindOf(err) != market.KindNotFound {
		return rec, err
	}
	notRecorded := err
	for _, src := range []string{Source, TerminalSource} {
		ok, err := s.store.SecurityDayRecorded(ctx, src, day)
		if err != nil {
			return rec, err
		}
		if ok && src == Source {
			return rec, nil
		}
		if ok {
			return s.store.SecurityDays(ctx, src)
		}
	}
	if notRecorded != nil {
		return rec, notRecorded
	}
	return rec, market.Errorf(market.KindNotFound, "%s was not recorded: the universe is known for the trading days from %s to %s "+
		"that mdqs ran on (%d days), and for the days the terminal's name files were read on; a day before, or one the server "+
		"was off, cannot be recovered from today's lists", day, rec.First, rec.Last, rec.Count)
}

// LatestDay is the last day either record holds; a not-found error when
// neither holds one.
func (s *Service) LatestDay(ctx context.Context) (market.Day, error) {
	rec, err := s.Recorded(ctx)
	if err != nil && market.KindOf(err) != market.KindNotFound {
		return 0, err
	}
	tnf, terr := s.store.SecurityDays(ctx, TerminalSource)
	switch {
	case terr != nil && market.KindOf(terr) != market.KindNotFound:
		return 0, terr
	case err != nil && terr != nil:
		return 0, err
	}
	return max(rec.Last, tnf.Last), nil
}

// Timeline is one code's history: every span recorded of it, the
// listing day a source states, and the recorded range the spans are
// read against (a listed span ending before the range's last day means
// the code left the list then).
type Timeline struct {
	Code     market.Code
	Type     market.SecurityType
	Board    string
	Listed   db.ListedOn
	Spans    []db.SecuritySpan
	Recorded db.RecordedDays
	LastSeen market.Day // the last recorded day it was listed; 0 when never
	// Delisted is the delisting day an exchange's list states, and the
	// list (delisted.go); zero when none does.
	Delisted db.ListedOn
	// Shares are its share-count records, oldest first, those dated
	// ahead included (the source's record, not a point in time).
	Shares []db.Shares
	// Names are every name the code is known to have had (renames.go).
	Names []NameSpan
}

// History is code's timeline; a code never recorded nor stated listed by
// any source is a not-found error.
func (s *Service) History(ctx context.Context, code market.Code) (Timeline, error) {
	// Before the first record a list may still state a code's listing or
	// delisting: the timeline is then that alone.
	rec, err := s.Recorded(ctx)
	if err != nil && market.KindOf(err) != market.KindNotFound {
		return Timeline{}, err
	}
	spans, err := s.store.SecurityTimeline(ctx, code)
	if err != nil {
		return Timeline{}, err
	}
	t := Timeline{Code: code, Type: market.Classify(code), Board: Board(code), Spans: spans, Recorded: rec}
	if t.Spans == nil {
		t.Spans = []db.SecuritySpan{}
	}
	d, src, err := s.store.ListingDay(ctx, code)
	switch {
	case err == nil:
		t.Listed = db.ListedOn{Day: d, Source: src}
	case market.KindOf(err) != market.KindNotFound:
		return Timeline{}, err
	}
	for _, sp := range spans {
		if sp.Field == db.FieldListed && sp.Last > t.LastSeen {
			t.LastSeen = sp.Last
		}
	}
	if err := s.addDelisting(ctx, &t); err != nil {
		return Timeline{}, err
	}
	if err := s.addNames(ctx, &t); err != nil {
		return Timeline{}, err
	}
	if len(spans) == 0 && t.Listed.Day == 0 && t.Delisted.Day == 0 && len(t.Names) == 0 {
		return Timeline{}, market.Errorf(market.KindNotFound, "%s was never recorded (recorded: %s to %s) and no source states its listing", code, rec.First, rec.Last)
	}
	if t.Shares, err = s.store.ShareHistory(ctx, code); err != nil {
		return Timeline{}, err
	}
	return t, nil
}

// Recorded is the range of days recorded; a not-found error saying when
// recording happens while there is none.
func (s *Service) Recorded(ctx context.Context) (db.RecordedDays, error) {
	rec, err := s.store.SecurityDays(ctx, Source)
	if market.KindOf(err) == market.KindNotFound {
		return rec, market.Errorf(market.KindNotFound, "no day recorded yet: the universe is recorded each trading day after %s from the quote list, "+
			"from the first day mdqs runs", s.cfg.RecordAfter)
	}
	return rec, err
}
