package limitpool

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"time"

	"mdqs/db"
	"mdqs/internal/market"
	"mdqs/internal/upstream"
)

// This file imports EastMoney's published pools (push2ex) and keeps each
// trading day's in the store; compare.go sets them against the derived
// ones.

// Publisher answers a published pool for a date: upstream.Push2Ex.
type Publisher interface {
	Pool(ctx context.Context, kind upstream.PoolKind, day market.Day) (upstream.Pool, error)
}

// ImportConfig tunes the importer; zero fields take the defaults in
// brackets.
type ImportConfig struct {
	// ImportAt is when the job starts asking for a trading day's pools
	// [15:30 Shanghai].
	ImportAt market.TimeOfDay
	// WindowDays is how many latest trading days the job keeps imported
	// [10]: the source keeps about two weeks, so older days cannot be
	// asked for any more.
	WindowDays int
}

// ErrNotPublished is a day whose pools the source does not answer yet:
// before ImportAt, or the source answering another day's pools (qdate)
// or none at all. Nothing is stored; the job asks again.
var ErrNotPublished = errors.New("limitpool: the published pools are not out yet")

// Importer imports the published pools of a day.
type Importer struct {
	cfg    ImportConfig
	store  *db.Store
	src    Publisher
	cal    *market.Calendar
	clock  market.Clock
	log    *slog.Logger
	status func() upstream.Status
}

// NewImporter builds the importer; status is the upstream client's (nil:
// none to report).
func NewImporter(cfg ImportConfig, store *db.Store, src Publisher, cal *market.Calendar, clock market.Clock, log *slog.Logger, status func() upstream.Status) *Importer {
	if cfg.ImportAt <= 0 {
		cfg.ImportAt = 15*60 + 30
	}
	cfg.WindowDays = cmp.Or(max(cfg.WindowDays, 0), 10)
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	return &Importer{cfg: cfg, store: store, src: src, cal: cal, clock: clock, log: log, status: status}
}

// Statuses is the upstream's health for /health/sources.
func (im *Importer) Statuses() []upstream.Status {
	if im == nil || im.status == nil {
		return nil
	}
	return []upstream.Status{im.status()}
}

// Import asks the source for every pool of day and stores them under
// day in one transaction, replacing what the store held of it. A pool is
// stored only when the source says it is of day (qdate): a reply of
// another day (a date not published yet answers the day before's pool)
// is never filed under the date asked, and the import of day is
// ErrNotPublished until some pool names day. A pool answered without a
// day (data:null) is empty on a day another pool named. Any upstream
// failure stores nothing and is the source named unavailable.
func (im *Importer) Import(ctx context.Context, day market.Day) (db.PublishedDay, error) {
	now := im.clock.Now()
	switch {
	case !im.cal.IsTradingDay(day):
		return db.PublishedDay{}, market.Errorf(market.KindInvalid, "%v is not a trading day: no pools are published", day)
	case now.Before(im.cfg.ImportAt.On(day)):
		return db.PublishedDay{}, fmt.Errorf("%w: %v's pools are asked for after %s Shanghai", ErrNotPublished, day, im.cfg.ImportAt)
	}
	out := db.PublishedDay{Day: day, Asked: day, Source: upstream.SourcePush2Ex}
	named := false
	for _, kind := range upstream.PoolKinds {
		p, err := im.src.Pool(ctx, kind, day)
		if err != nil {
			if ctx.Err() != nil {
				return db.PublishedDay{}, ctx.Err()
			}
			return db.PublishedDay{}, market.Wrap(market.KindUnavailable, err, "the published %s pool of %v could not be read: %s failed (%s)",
				kind, day, upstream.SourcePush2Ex, upstream.KindOf(err))
		}
		switch p.Day {
		case day:
			named = true
		case 0:
		default:
			return db.PublishedDay{}, fmt.Errorf("%w: asked for %v, the %s pool answered is of %v", ErrNotPublished, day, kind, p.Day)
		}
		out.Pools = append(out.Pools, db.PublishedPool{Kind: string(kind), Total: p.Total, Rows: rowsOf(p.Rows)})
	}
	if !named {
		return db.PublishedDay{}, fmt.Errorf("%w: no pool of %v names its day (empty replies)", ErrNotPublished, day)
	}
	out.ImportedAt = im.clock.Now()
	if err := im.store.ReplacePublishedPools(ctx, out); err != nil {
		return db.PublishedDay{}, err
	}
	return out, nil
}

func rowsOf(rs []upstream.PoolRow) []db.PublishedRow {
	out := make([]db.PublishedRow, len(rs))
	for i, r := range rs {
		out[i] = db.PublishedRow{Code: r.Code, Name: r.Name, Industry: r.Industry, Price: r.Price, LimitPrice: r.LimitPrice,
			ChangePct: r.ChangePct, Amount: r.Amount, FloatCap: r.FloatCap, Turnover: r.Turnover, SealFund: r.SealFund,
			Boards: r.Boards, FirstSeal: r.FirstSeal, LastSeal: r.LastSeal, OpenedTimes: r.OpenedTimes, CountDays: r.CountDays,
			CountUp: r.CountUp}
	}
	return out
}

// Due are the trading days the job should hold by now, oldest first: the
// WindowDays latest trading days whose pools are asked for by now.
func (im *Importer) Due(now time.Time) []market.Day {
	last := im.cal.OnOrBefore(market.DayOf(now))
	if now.Before(im.cfg.ImportAt.On(last)) {
		last = im.cal.Prev(last)
	}
	var out []market.Day
	for d := last; len(out) < im.cfg.WindowDays && d != 0; d = im.cal.Prev(d) {
		out = append(out, d)
	}
	slices.Reverse(out)
	return out
}

// Job imports every due day the store does not hold yet. A day not out
// yet is left for the next run (no error: the job asks until it
// appears, for as long as the day is in the source's window); an upstream
// failure is the job's error, and the other days are still tried.
func (im *Importer) Job(ctx context.Context) error {
	due := im.Due(im.clock.Now())
	if len(due) == 0 {
		return nil
	}
	have, err := im.store.PublishedPoolDays(ctx, due[0], due[len(due)-1])
	if err != nil {
		return err
	}
	var errs []error
	for _, d := range due {
		if slices.Contains(have, d) {
			continue
		}
		got, err := im.Import(ctx, d)
		switch {
		case errors.Is(err, ErrNotPublished):
			im.log.Info("published limit pools: not out yet", "day", d.String(), "why", err.Error())
		case err != nil:
			if ctx.Err() != nil {
				return ctx.Err()
			}
			errs = append(errs, fmt.Errorf("published limit pools of %v: %w", d, err))
		default:
			n := 0
			for _, p := range got.Pools {
				n += len(p.Rows)
			}
			im.log.Info("imported the published limit pools", "day", d.String(), "rows", n)
		}
	}
	return errors.Join(errs...)
}
