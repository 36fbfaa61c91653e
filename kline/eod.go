package kline

import (
	"context"
	"errors"
	"fmt"
	"math"

	"mdqs/db"
	"mdqs/indicator"
	"mdqs/market"
)

// ChipWindows are the windows (trade days) chip metrics are kept for.
var ChipWindows = []int{60, 120}

// SignalLookback is how many trade days of daily bars the derived signals
// read per stock: the longest chip window.
const SignalLookback = 120

// EODConfig tunes the end-of-day work.
type EODConfig struct {
	// SeedDays, when positive, makes sure every stock of the quote list has
	// that many days of daily history before deriving (cheap with the demo
	// market; with real upstreams history comes from backfill or the
	// terminal's files instead).
	SeedDays int
}

// EndOfDay makes the last complete day final in the store:
//  1. today's 1-minute and 5-minute bars of the watched codes, from the
//     in-memory series fetched after the close;
//  2. today's daily bar of every stock, from the quote list at the close
//     (and the stock list itself);
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
	if cfg.SeedDays > 0 && len(codes) > 0 {
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
	now := s.clock.Now()
	var signals []db.Signal
	chips := map[int][]db.Chip{}
	var calc indicator.ChipCalculator
	var closes, trend []float64
	err := s.store.EachDailySeries(ctx, from.Start().Unix(), func(code string, bars []market.Bar) error {
		if len(bars) == 0 || bars[len(bars)-1].Day != day {
			return nil // no bar of the day: suspended, or not quoted
		}
		sig := db.Signal{Code: code, Day: day, Close: bars[len(bars)-1].Close, Pct: math.NaN(), ComputedAt: now}
		if n := len(bars); n > 1 && bars[n-2].Close > 0 {
			sig.Pct = (bars[n-1].Close/bars[n-2].Close - 1) * 100
		}
		m, _ := indicator.MicroMomentum(bars, market.Daily, nil) // NaNs with fewer than 6 bars
		sig.MicroVolRatio, sig.VolAcc, sig.TimeAdjustedVolRatio, sig.PriceSpeedRatio = m.MicroVolRatio, m.VolAcc, m.TimeAdjustedVolRatio, m.PriceSpeedRatio
		sig.TrendStrength = math.NaN()
		if len(bars) >= indicator.DefaultTrendPeriod {
			closes = closes[:0]
			for _, b := range bars {
				closes = append(closes, b.Close)
			}
			var err error
			if trend, err = indicator.TrendStrength(trend, closes, indicator.DefaultTrendPeriod); err == nil {
				sig.TrendStrength = trend[len(trend)-1]
			}
		}
		signals = append(signals, sig)
		for _, w := range ChipWindows {
			cm, err := calc.Compute(bars, indicator.ChipParams{Window: w})
			if err != nil {
				continue
			}
			chips[w] = append(chips[w], db.Chip{Code: code, Days: cm.Days, Close: cm.Close, AvgCost: cm.AvgCost, ProfitRatio: cm.ProfitRatio,
				Cost70Low: cm.Cost70Low, Cost70High: cm.Cost70High, Concentration70: cm.Concentration70,
				Cost90Low: cm.Cost90Low, Cost90High: cm.Cost90High, Concentration90: cm.Concentration90, PeakPrice: cm.PeakPrice})
		}
		return nil
	})
	if err != nil {
		return err
	}
	if len(signals) == 0 {
		return nil
	}
	if err := s.store.SaveSignals(ctx, day, signals); err != nil {
		return err
	}
	for _, w := range ChipWindows {
		if err := s.store.SaveChips(ctx, day, w, chips[w], now); err != nil {
			return err
		}
	}
	s.log.Info("derived daily signals and chip metrics", "day", day, "stocks", len(signals))
	return nil
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
