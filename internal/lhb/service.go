// Package lhb keeps the dragon-tiger list (龙虎榜) in the store: the daily
// import from EastMoney's data centre (or the demo market) after the list
// is published, the merge of a seat's rows repeated once per listing
// reason, the job and backfill that run it, and the queries of GET
// /v1/api/lhb and /v1/api/lhb/seats.
package lhb

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"math"
	"slices"
	"sync"
	"time"

	"mdqs/db"
	"mdqs/internal/market"
	"mdqs/internal/upstream"
)

// Source pages through the day's list and one stock-day's seats:
// upstream.LHB (datacenter-web) or the demo market.
type Source interface {
	Listings(ctx context.Context, day market.Day, page int) ([]upstream.LHBListing, int, error)
	Seats(ctx context.Context, day market.Day, code market.Code, side upstream.LHBSide, page int) ([]upstream.LHBSeatRow, int, error)
}

// ImportKind is the kind of the list's import runs in the store.
const ImportKind = "lhb"

// Config tunes the service; zero fields take the defaults in brackets.
type Config struct {
	Source string // the rows' origin [datacenter-lhb]
	// PublishAt is when the exchanges' list is out and the job starts
	// asking for the day [18:00 Shanghai].
	PublishAt market.TimeOfDay
	// EmptyFinalAfter: an empty answer for a trading day is taken as "not
	// published yet" and asked again, until this long after PublishAt;
	// from then on it is recorded as a day without a list [6h].
	EmptyFinalAfter time.Duration
	// Interval is how often the job looks for days to import [10m].
	Interval time.Duration
	// CatchUpDays is how many trading days back the job imports days it
	// missed (a server down that evening) [5].
	CatchUpDays int
	// MaxPages is the safety stop of one day's paging [20].
	MaxPages int
	// MaxRangeDays bounds a query's start..end [366].
	MaxRangeDays int
}

func (c Config) withDefaults() Config {
	c.Source = cmp.Or(c.Source, upstream.SourceLHB)
	if c.PublishAt <= 0 {
		c.PublishAt = 18 * 60
	}
	c.EmptyFinalAfter = cmp.Or(max(c.EmptyFinalAfter, 0), 6*time.Hour)
	c.Interval = cmp.Or(max(c.Interval, 0), 10*time.Minute)
	c.CatchUpDays = cmp.Or(max(c.CatchUpDays, 0), 5)
	c.MaxPages = cmp.Or(max(c.MaxPages, 0), 20)
	c.MaxRangeDays = cmp.Or(max(c.MaxRangeDays, 0), 366)
	return c
}

// Service imports and answers the list.
type Service struct {
	cfg   Config
	store *db.Store
	src   Source
	cal   *market.Calendar
	clock market.Clock
	log   *slog.Logger

	importMu sync.Mutex // one import at a time

	status func() upstream.Status // the upstream client's, when there is one
}

// New builds the service.
func New(cfg Config, store *db.Store, src Source, cal *market.Calendar, clock market.Clock, log *slog.Logger) *Service {
	if clock == nil {
		clock = market.SystemClock{}
	}
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	return &Service{cfg: cfg.withDefaults(), store: store, src: src, cal: cal, clock: clock, log: log}
}

// Config is the effective configuration.
func (s *Service) Config() Config { return s.cfg }

// Statuses is the upstream's health for /health/sources (none for the
// demo, which reports itself).
func (s *Service) Statuses() []upstream.Status {
	if s == nil || s.status == nil {
		return nil
	}
	return []upstream.Status{s.status()}
}

// ErrNotPublished is the import of a day whose list is not out yet: before
// PublishAt, or an empty answer before EmptyFinalAfter. Nothing is stored;
// the job asks again.
var ErrNotPublished = errors.New("lhb: the list is not published yet")

// Published is when day's list is expected.
func (s *Service) Published(day market.Day) time.Time { return s.cfg.PublishAt.On(day) }

// ImportResult is what one day's import did.
type ImportResult struct {
	Day      market.Day
	Listings int
	Stocks   int
	Seats    int // after merging
	SeatRows int // as received
	Requests int
	Started  time.Time
	Finished time.Time
}

// Import fetches day's list and every listed stock's buying and selling
// seats, merges each seat's rows repeated per reason, and replaces the
// day in the store in one transaction: any failure stores nothing of the
// day (an older import stays whole). A day that is not a trading day, or
// is in the future, is refused; a day not published yet is
// ErrNotPublished.
func (s *Service) Import(ctx context.Context, day market.Day) (ImportResult, error) {
	now := s.clock.Now()
	switch {
	case s.cal != nil && !s.cal.IsTradingDay(day):
		return ImportResult{Day: day}, market.Errorf(market.KindInvalid, "%v is not a trading day: no list is published", day)
	case now.Before(s.Published(day)):
		return ImportResult{Day: day}, fmt.Errorf("%w: %v's list is published after %s Shanghai", ErrNotPublished, day, s.cfg.PublishAt)
	}
	s.importMu.Lock()
	defer s.importMu.Unlock()
	res := ImportResult{Day: day, Started: now}
	listings, seats, err := s.fetch(ctx, day, &res)
	if err == nil && len(listings) == 0 && s.clock.Now().Before(s.Published(day).Add(s.cfg.EmptyFinalAfter)) {
		err = fmt.Errorf("%w: the source has no rows for %v yet", ErrNotPublished, day)
	}
	if err == nil {
		res.Stocks = countStocks(listings)
		res.Listings, res.Seats = len(listings), len(seats)
		err = s.store.ReplaceLHBDay(ctx, db.LHBDay{Day: day, Listings: res.Listings, Stocks: res.Stocks, Seats: res.Seats,
			Source: s.cfg.Source, ImportedAt: s.clock.Now()}, listings, seats)
	}
	res.Finished = s.clock.Now()
	if errors.Is(err, ErrNotPublished) || errors.Is(err, context.Canceled) {
		return res, err
	}
	s.record(ctx, res, err)
	if err != nil {
		var me *market.Error
		if errors.As(err, &me) {
			return res, err
		}
		return res, market.Wrap(market.KindUnavailable, err, "the dragon-tiger list of %v could not be imported: %s failed (%s)",
			day, s.cfg.Source, upstream.KindOf(err))
	}
	return res, nil
}

// fetch reads every page of day's list and the seats of each listed stock.
func (s *Service) fetch(ctx context.Context, day market.Day, res *ImportResult) ([]db.LHBListing, []db.LHBSeat, error) {
	var rows []upstream.LHBListing
	for page, pages := 1, 1; page <= min(pages, s.cfg.MaxPages); page++ {
		res.Requests++
		got, n, err := s.src.Listings(ctx, day, page)
		if err != nil {
			return nil, nil, fmt.Errorf("list page %d: %w", page, err)
		}
		rows, pages = append(rows, got...), n
	}
	listings := listingsOf(rows)
	names := map[market.Code]string{}
	for _, l := range listings {
		names[l.Code] = l.Name
	}
	var seats []db.LHBSeat
	for _, code := range stocksOf(listings) {
		for _, side := range []upstream.LHBSide{upstream.LHBBuy, upstream.LHBSell} {
			var got []upstream.LHBSeatRow
			for page, pages := 1, 1; page <= min(pages, s.cfg.MaxPages); page++ {
				res.Requests++
				r, n, err := s.src.Seats(ctx, day, code, side, page)
				if err != nil {
					return nil, nil, fmt.Errorf("%s seats of %v: %w", side, code, err)
				}
				got, pages = append(got, r...), n
			}
			res.SeatRows += len(got)
			for _, st := range MergeSeats(got) {
				st.StockName = names[code]
				seats = append(seats, st)
			}
		}
	}
	return listings, seats, nil
}

// listingsOf turns the source's rows into the store's, one per stock and
// reason (a row repeated across pages is kept once), by code.
func listingsOf(rows []upstream.LHBListing) []db.LHBListing {
	type key struct {
		code   market.Code
		reason string
	}
	seen := map[key]bool{}
	out := make([]db.LHBListing, 0, len(rows))
	for _, r := range rows {
		k := key{r.Code, r.Reason}
		if seen[k] {
			continue
		}
		seen[k] = true
		out = append(out, db.LHBListing{Day: r.Day, Code: r.Code, Name: r.Name, Reason: r.Reason, ReasonCode: r.ReasonCode,
			TradeID: r.TradeID, Reading: r.Reading, Board: r.Board, Close: r.Close, ChangePct: r.ChangePct, Turnover: r.Turnover,
			Buy: r.Buy, Sell: r.Sell, Net: r.Net, Deal: r.Deal, Amount: r.Amount, NetPct: r.NetPct, DealPct: r.DealPct, FloatCap: r.FloatCap})
	}
	slices.SortStableFunc(out, func(a, b db.LHBListing) int { return cmp.Compare(a.Code.String(), b.Code.String()) })
	return out
}

func stocksOf(ls []db.LHBListing) []market.Code {
	var out []market.Code
	for _, l := range ls {
		if len(out) == 0 || out[len(out)-1] != l.Code {
			out = append(out, l.Code)
		}
	}
	return out
}

func countStocks(ls []db.LHBListing) int { return len(stocksOf(ls)) }

// MergeSeats merges one stock-day-side's seat rows. The data centre sends
// a seat once per listing reason (600611 on 2024-07-16: five seats, each
// under a 7% deviation and a 20% turnover reason, ten rows with the same
// amounts): rows of one seat with the same amounts under different
// reasons (different TRADE_IDs) are one seat with those reasons. Two rows
// under the same reason are two seats even with one name and amount
// (several 机构专用 seats), and a seat whose amounts differ between
// reasons (a one-day and a three-day reason cover different trades) keeps
// one row per window. The result is ranked by the side's amount, largest
// first, Seq from 1.
func MergeSeats(rows []upstream.LHBSeatRow) []db.LHBSeat {
	type entry struct {
		seat db.LHBSeat
		ids  map[string]bool // the reasons (billboards) it already holds
	}
	var es []*entry
	for _, r := range rows {
		id := r.TradeID + "\x00" + r.Reason
		var into *entry
		for _, e := range es {
			if e.seat.SeatCode == r.SeatCode && e.seat.SeatName == r.SeatName && sameAmount(e.seat.Buy, r.Buy) &&
				sameAmount(e.seat.Sell, r.Sell) && !e.ids[id] {
				into = e
				break
			}
		}
		if into == nil {
			into = &entry{ids: map[string]bool{}, seat: db.LHBSeat{Day: r.Day, Code: r.Code, Side: r.Side.String(), SeatCode: r.SeatCode,
				SeatName: r.SeatName, Buy: r.Buy, Sell: r.Sell, Net: r.Net, BuyPct: r.BuyPct, SellPct: r.SellPct, Reasons: []string{}}}
			es = append(es, into)
		}
		into.ids[id] = true
		if !slices.Contains(into.seat.Reasons, r.Reason) {
			into.seat.Reasons = append(into.seat.Reasons, r.Reason)
		}
	}
	out := make([]db.LHBSeat, len(es))
	for i, e := range es {
		out[i] = e.seat
	}
	slices.SortStableFunc(out, func(a, b db.LHBSeat) int { return cmp.Compare(sideAmount(b), sideAmount(a)) })
	for i := range out {
		out[i].Seq = i + 1
	}
	return out
}

func sameAmount(a, b float64) bool { return math.IsNaN(a) && math.IsNaN(b) || a == b }

func sideAmount(s db.LHBSeat) float64 {
	v := s.Buy
	if s.Side == "sell" {
		v = s.Sell
	}
	if math.IsNaN(v) {
		return 0
	}
	return v
}

func (s *Service) record(ctx context.Context, res ImportResult, err error) {
	run := db.InfoImport{Kind: ImportKind, Source: s.cfg.Source, Scope: res.Day.String(), Started: res.Started, Finished: res.Finished,
		Pages: res.Requests, Fetched: res.Listings + res.SeatRows, Complete: err == nil}
	if err != nil {
		run.Failed, run.Error = 1, err.Error()
	} else {
		run.Inserted = res.Listings + res.Seats
	}
	if _, rerr := s.store.RecordImport(context.WithoutCancel(ctx), run); rerr != nil {
		s.log.Warn("lhb: could not record the import run", "err", rerr)
	}
}

// Due are the trading days the job should hold by now, oldest first: the
// CatchUpDays latest trading days whose list is published.
func (s *Service) Due(now time.Time) []market.Day {
	if s.cal == nil {
		return nil
	}
	last := s.cal.OnOrBefore(market.DayOf(now))
	if now.Before(s.Published(last)) {
		last = s.cal.Prev(last)
	}
	var out []market.Day
	for d := last; len(out) < s.cfg.CatchUpDays && d != 0; d = s.cal.Prev(d) {
		out = append(out, d)
	}
	slices.Reverse(out)
	return out
}

// Job imports every due day the store does not hold yet. A day not
// published yet is left for the next run (no error: the job keeps asking
// until it appears); an upstream failure is the job's error, and the
// days after it are still tried.
func (s *Service) Job(ctx context.Context) error {
	due := s.Due(s.clock.Now())
	if len(due) == 0 {
		return nil
	}
	have, err := s.store.LHBDays(ctx, due[0], due[len(due)-1])
	if err != nil {
		return err
	}
	held := map[market.Day]bool{}
	for _, d := range have {
		held[d.Day] = true
	}
	var errs []error
	for _, d := range due {
		if held[d] {
			continue
		}
		res, err := s.Import(ctx, d)
		switch {
		case errors.Is(err, ErrNotPublished):
			s.log.Info("lhb: not published yet", "day", d.String())
		case err != nil:
			errs = append(errs, fmt.Errorf("lhb %v: %w", d, err))
		default:
			s.log.Info("imported the dragon-tiger list", "day", d.String(), "listings", res.Listings, "stocks", res.Stocks,
				"seats", res.Seats, "requests", res.Requests)
		}
	}
	return errors.Join(errs...)
}

// Backfill imports every trading day of from..to (replacing days already
// held when force is set), oldest first, and reports each day through
// report. It stops at the first failure.
func (s *Service) Backfill(ctx context.Context, from, to market.Day, force bool, report func(ImportResult, error)) error {
	if from > to {
		return market.Errorf(market.KindInvalid, "from %v is after to %v", from, to)
	}
	if s.cal == nil {
		return market.Errorf(market.KindInternal, "lhb: no calendar")
	}
	held := map[market.Day]bool{}
	if !force {
		have, err := s.store.LHBDays(ctx, from, to)
		if err != nil {
			return err
		}
		for _, d := range have {
			held[d.Day] = true
		}
	}
	for _, d := range s.cal.Between(from, to) {
		if held[d] {
			continue
		}
		res, err := s.Import(ctx, d)
		if report != nil {
			report(res, err)
		}
		if errors.Is(err, ErrNotPublished) {
			continue
		}
		if err != nil {
			return err
		}
	}
	return nil
}
