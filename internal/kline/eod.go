package kline

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"math"
	"runtime"
	"slices"
	"sync"
	"time"

	"mdqs/db"
	"mdqs/internal/indicator"
	"mdqs/internal/market"
)

// ChipWindows are the windows (trade days) chip metrics are kept for.
var ChipWindows = []int{60, 120}

// SignalLookback is how many trade days of daily bars the derived signals
// read per stock: the longest chip window.
const SignalLookback = 120

// EODConfig tunes the end-of-day work.
type EODConfig struct {
	// SeedDays, when positive, makes sure every stock of the quote list has
	// that many days of daily history before deriving; with History, the
	// derivation reads that many days from it instead of from the store.
	// With real upstreams history comes from backfill or the terminal's
	// files.
	SeedDays int
	History  HistorySource
	// Derived, when set, learns that a day's signals and chips were stored
	// (the screens' frame reloads them).
	Derived func(day market.Day)
	// More are lists of securities the quote list leaves out (the ETF
	// list): their bars of the day are stored too, so the minute archive
	// checks a fund's day as a stock's. A list that fails leaves the day
	// stored without it, its error returned.
	More []QuoteSource
}

// EndOfDay makes the last complete day final in the store:
//  1. today's 1-minute and 5-minute bars of the watched codes, from the
//     in-memory series fetched after the close;
//  2. today's daily bar of every stock, from the quote list at the close
//     (and the stock list itself), and of every fund of cfg.More's lists;
//  3. each stock's daily signals and chip metrics.
//
// It is idempotent: bars already stored are not rewritten, and a day whose
// derived metrics exist is not derived again.
func (s *Service) EndOfDay(ctx context.Context, quotes QuoteSource, cfg EODConfig) error {
	// The last complete day: today after its close, else the session
	// before (which a service that was down at that close still owes).
	day := s.LastCompleteDay()
	done, err := s.store.HasDerived(ctx, day)
	if err != nil || done {
		return err
	}
	var errs []error
	if err := s.persistIntraday(ctx, day); err != nil {
		errs = append(errs, err)
	}
	codes, err := s.dailyFromQuotes(ctx, quotes, day)
	if err != nil {
		errs = append(errs, err)
	}
	for _, more := range cfg.More {
		if _, err := s.dailyFromQuotes(ctx, more, day); err != nil {
			errs = append(errs, err)
		}
	}
	defer func() {
		if cfg.Derived == nil {
			return
		}
		if done, err := s.store.HasDerived(ctx, day); err == nil && done {
			cfg.Derived(day)
		}
	}()
	switch {
	case cfg.SeedDays > 0 && cfg.History != nil:
		if err := s.deriveFromHistory(ctx, cfg.History, day, cfg.SeedDays); err != nil {
			errs = append(errs, err)
		}
		return errors.Join(errs...)
	case cfg.SeedDays > 0 && len(codes) > 0:
		from := day
		for range cfg.SeedDays - 1 {
			from = s.cal.Prev(from)
		}
		if _, err := s.Backfill(ctx, codes, market.Daily, from, day, nil); err != nil {
			errs = append(errs, err)
		}
	}
	if err := s.Derive(ctx, day); err != nil {
		errs = append(errs, err)
	}
	return errors.Join(errs...)
}

// persistIntraday stores the watched codes' 1-minute and 5-minute bars of
// day, widening their coverage when it reaches the day before.
func (s *Service) persistIntraday(ctx context.Context, day market.Day) error {
	var batches []db.BarBatch
	for _, code := range s.intraday.Watched() {
		sess, err := s.intraday.Get(ctx, code)
		if err != nil {
			continue // not fatal: its bars can still be fetched on demand later
		}
		min1 := sess.Day(day)
		if len(min1) == 0 {
			continue
		}
		for _, f := range []market.Freq{market.Min1, market.Min5} {
			cov, _, ok, err := s.store.Coverage(ctx, code, f)
			if err != nil {
				return err
			}
			span := MergeCoverage(s.cal, cov, ok, db.Span{First: day, Last: day})
			batches = append(batches, db.BarBatch{Code: code, Freq: f, Source: s.srcName, Bars: Aggregate(min1, f), Cover: &span})
		}
	}
	if len(batches) == 0 {
		return nil
	}
	_, err := s.store.IngestBars(ctx, batches)
	return err
}

// dailyFromQuotes stores today's daily bar of every quoted stock and
// refreshes the stock list; it returns the codes. Suspended stocks (no
// price) get no bar.
func (s *Service) dailyFromQuotes(ctx context.Context, quotes QuoteSource, day market.Day) ([]market.Code, error) {
	if quotes == nil {
		return nil, nil
	}
	qs, err := quotes.Quotes(ctx)
	if err != nil {
		return nil, market.Wrap(market.KindUnavailable, err, "quotes: %v", err)
	}
	var (
		batches []db.BarBatch
		stocks  []db.Stock
		codes   []market.Code
	)
	for _, q := range qs {
		if q.Code.IsZero() {
			continue
		}
		stocks = append(stocks, db.Stock{Code: q.Code, Name: q.Name, Type: market.Classify(q.Code), FloatShares: floatShares(q), Source: "quotes"})
		codes = append(codes, q.Code)
		if !q.At.IsZero() && market.DayOf(q.At) != day {
			continue // a quote from before today's session: no bar of today
		}
		if !(q.Price > 0) || !(q.Open > 0) || q.Volume <= 0 {
			continue
		}
		bar := market.Bar{Day: day, TS: day.At(15, 0, 0).Unix(), Open: q.Open, High: q.High, Low: q.Low, Close: q.Price,
			Volume: q.Volume, Amount: q.Amount, TurnoverRate: q.Turnover, LargeOrderNet: q.MainNet}
		cov, _, ok, err := s.store.Coverage(ctx, q.Code, market.Daily)
		if err != nil {
			return nil, err
		}
		b := db.BarBatch{Code: q.Code, Freq: market.Daily, Source: "quotes", Bars: []market.Bar{bar}}
		// Today's bar extends the coverage only where it touches it: a
		// stock without stored history keeps "nothing covered", so its
		// history is still fetched when asked for.
		if ok && s.cal.Next(cov.Last) >= day && cov.Last < day {
			span := db.Span{First: cov.First, Last: day}
			b.Cover = &span
		}
		batches = append(batches, b)
	}
	if err := s.store.UpsertStocks(ctx, stocks, s.clock.Now()); err != nil {
		return nil, err
	}
	for start := 0; start < len(batches); start += 1000 {
		if _, err := s.store.IngestBars(ctx, batches[start:min(start+1000, len(batches))]); err != nil {
			return nil, err
		}
	}
	return codes, nil
}

func floatShares(q market.Quote) float64 {
	if q.FloatCap > 0 && q.Price > 0 {
		return q.FloatCap / q.Price
	}
	return math.NaN()
}

// Derive computes every stock's daily signals and chip metrics for day from
// its stored daily bars, read for the whole market in one pass.
func (s *Service) Derive(ctx context.Context, day market.Day) error {
	from := day
	for range SignalLookback + 10 {
		from = s.cal.Prev(from)
	}
	d := newDeriver(day, s.clock.Now())
	err := s.store.EachDailySeries(ctx, from.Start().Unix(), func(code string, bars []market.Bar) error {
		d.add(code, slices.Clone(bars)) // the reader reuses its slice
		return nil
	})
	return s.saveDerived(ctx, d.wait(), err)
}

// saveDerived stores what a deriver computed, unless reading the bars
// failed.
func (s *Service) saveDerived(ctx context.Context, out derived, readErr error) error {
	if readErr != nil {
		return readErr
	}
	if len(out.signals) == 0 {
		return nil
	}
	if err := s.store.SaveSignals(ctx, out.day, out.signals); err != nil {
		return err
	}
	for _, w := range ChipWindows {
		if err := s.store.SaveChips(ctx, out.day, w, out.chips[w], out.at); err != nil {
			return err
		}
	}
	s.log.Info("derived daily signals and chip metrics", "day", out.day, "stocks", len(out.signals))
	return nil
}

// derived is one day's signals and chip metrics of the whole market.
type derived struct {
	day     market.Day
	at      time.Time
	signals []db.Signal
	chips   map[int][]db.Chip
}

// deriver computes stocks' signals and chips on every core while their
// bars are still being read: the chips over 120 days are most of the
// end-of-day work. Results come back in the order the stocks were added.
type deriver struct {
	day  market.Day
	at   time.Time
	in   chan deriveJob
	done chan derived
	next int // the next stock's place (add is called from one goroutine)
}

type deriveJob struct {
	seq  int
	code string
	bars []market.Bar
}

type deriveResult struct {
	seq   int
	sig   db.Signal
	chips map[int]db.Chip
}

func newDeriver(day market.Day, at time.Time) *deriver {
	d := &deriver{day: day, at: at, in: make(chan deriveJob, 256), done: make(chan derived, 1)}
	results := make(chan deriveResult, 256)
	workers := max(1, runtime.GOMAXPROCS(0))
	var wg sync.WaitGroup
	for range workers {
		wg.Go(func() {
			var calc indicator.ChipCalculator
			var closes, trend []float64
			for j := range d.in {
				if r, ok := deriveOne(&calc, &closes, &trend, j, day, at); ok {
					results <- r
				}
			}
		})
	}
	go func() {
		wg.Wait()
		close(results)
	}()
	go func() {
		var all []deriveResult
		for r := range results {
			all = append(all, r)
		}
		slices.SortFunc(all, func(a, b deriveResult) int { return cmp.Compare(a.seq, b.seq) })
		out := derived{day: day, at: at, chips: map[int][]db.Chip{}}
		for _, r := range all {
			out.signals = append(out.signals, r.sig)
			for _, w := range ChipWindows {
				if c, ok := r.chips[w]; ok {
					out.chips[w] = append(out.chips[w], c)
				}
			}
		}
		d.done <- out
	}()
	return d
}

// add queues one stock's daily bars, oldest first, ending on the day.
func (d *deriver) add(code string, bars []market.Bar) {
	d.in <- deriveJob{seq: d.next, code: code, bars: bars}
	d.next++
}

// wait is every stock's results, once all are added.
func (d *deriver) wait() derived {
	close(d.in)
	return <-d.done
}

// deriveOne is one stock's signal and chips of day; ok is false when the
// stock has no bar of the day (suspended, or not quoted).
func deriveOne(calc *indicator.ChipCalculator, closes, trend *[]float64, j deriveJob, day market.Day, at time.Time) (deriveResult, bool) {
	bars := j.bars
	if len(bars) == 0 || bars[len(bars)-1].Day != day {
		return deriveResult{}, false
	}
	sig := db.Signal{Code: j.code, Day: day, Close: bars[len(bars)-1].Close, Pct: math.NaN(), ComputedAt: at}
	if n := len(bars); n > 1 && bars[n-2].Close > 0 {
		sig.Pct = (bars[n-1].Close/bars[n-2].Close - 1) * 100
	}
	m, _ := indicator.MicroMomentum(bars, market.Daily, nil) // NaNs with fewer than 6 bars
	sig.MicroVolRatio, sig.VolAcc, sig.TimeAdjustedVolRatio, sig.PriceSpeedRatio = m.MicroVolRatio, m.VolAcc, m.TimeAdjustedVolRatio, m.PriceSpeedRatio
	sig.TrendStrength = math.NaN()
	if len(bars) >= indicator.DefaultTrendPeriod {
		*closes = (*closes)[:0]
		for _, b := range bars {
			*closes = append(*closes, b.Close)
		}
		var err error
		if *trend, err = indicator.TrendStrength(*trend, *closes, indicator.DefaultTrendPeriod); err == nil {
			sig.TrendStrength = (*trend)[len(*trend)-1]
		}
	}
	r := deriveResult{seq: j.seq, sig: sig, chips: map[int]db.Chip{}}
	for _, w := range ChipWindows {
		cm, err := calc.Compute(bars, indicator.ChipParams{Window: w})
		if err != nil {
			continue
		}
		r.chips[w] = db.Chip{Code: j.code, Days: cm.Days, Close: cm.Close, AvgCost: cm.AvgCost, ProfitRatio: cm.ProfitRatio,
			Cost70Low: cm.Cost70Low, Cost70High: cm.Cost70High, Concentration70: cm.Concentration70,
			Cost90Low: cm.Cost90Low, Cost90High: cm.Cost90High, Concentration90: cm.Concentration90, PeakPrice: cm.PeakPrice}
	}
	return r, true
}

// HistorySource gives a whole market's daily history in one pass: the demo
// market, whose stock-by-stock history is far dearer.
type HistorySource interface {
	EachDailyHistory(ctx context.Context, day market.Day, n int, fn func(code market.Code, bars []market.Bar) error) error
}

// deriveFromHistory derives the day from n days of every stock's daily
// bars from a history source, as they are made, without reading or
// writing the store: the demo market makes a whole market's 130 days in
// about half a second, while storing them first took about 3 s (the
// store fills as requests read bars through it).
func (s *Service) deriveFromHistory(ctx context.Context, hist HistorySource, day market.Day, n int) error {
	d := newDeriver(day, s.clock.Now())
	err := hist.EachDailyHistory(ctx, day, n, func(code market.Code, bars []market.Bar) error {
		d.add(code.String(), bars)
		return nil
	})
	return s.saveDerived(ctx, d.wait(), err)
}

// Progress reports a backfill's advance.
type Progress func(done, total int, code market.Code, counts db.IngestCounts)

// Backfill makes the store cover [from, to] for every code, fetching only
// what each lacks (so an interrupted run resumes where it stopped: the
// coverage of each code is committed with its bars). It returns the totals.
func (s *Service) Backfill(ctx context.Context, codes []market.Code, freq market.Freq, from, to market.Day, progress Progress) (db.IngestCounts, error) {
	var total db.IngestCounts
	to = min(to, s.LastCompleteDay())
	for i, code := range codes {
		if err := ctx.Err(); err != nil {
			return total, err
		}
		before, err := s.store.BarCount(ctx, code, freq)
		if err != nil {
			return total, err
		}
		if err := s.Ensure(ctx, code, freq, from, to); err != nil {
			if market.KindOf(err) == market.KindNotFound {
				s.log.Warn("backfill: unknown code", "code", code)
				continue
			}
			return total, fmt.Errorf("backfill %v: %w", code, err)
		}
		after, err := s.store.BarCount(ctx, code, freq)
		if err != nil {
			return total, err
		}
		c := db.IngestCounts{Written: after - before}
		total.Written += c.Written
		if progress != nil {
			progress(i+1, len(codes), code, c)
		}
	}
	return total, nil
}
