package main

import (
	"context"
	"sync"

	"mdqs/internal/demo"
	"mdqs/internal/market"
)

// demoMarket is the demo market the benchmarks read, at the scale asked
// for: at 5,300 stocks exactly the server's default demo configuration
// (90 industries, 450 concepts), with fewer stocks the boards shrink in
// proportion so the universe stays valid.
func demoMarket(stocks int, seed int64, cal *market.Calendar, from market.Day, clock market.Clock) (*demo.Market, error) {
	d := demo.DefaultConfig()
	cfg := demo.Config{Seed: seed, Stocks: stocks, Industries: d.Industries, Concepts: d.Concepts, Calendar: cal}
	if stocks < d.Stocks {
		cfg.Industries = max(5, d.Industries*stocks/d.Stocks)
		cfg.Concepts = max(5, d.Concepts*stocks/d.Stocks)
	}
	if from < d.HistoryStart {
		cfg.HistoryStart = from // the demo's bars start at HistoryStart
	}
	return demo.New(cfg, clock)
}

// series is one stock's generated bars.
type series struct {
	code  market.Code
	daily []market.Bar
	min1  []market.Bar // the last day's, when asked for
	err   error
}

// generate yields the series of codes in the order given (the store's key
// order, where inserts are cheapest) while workers build them in parallel:
// ten years of one stock cost the demo market about 30 ms, more than
// storing them. The channel closes after the last code or once ctx ends;
// a consumer that stops early must cancel ctx.
func generate(ctx context.Context, m *demo.Market, codes []market.Code, from, end market.Day, minute bool, workers int) <-chan series {
	type job struct {
		code market.Code
		out  chan series
	}
	out := make(chan series, workers)
	go func() {
		defer close(out)
		slots := make(chan chan series, 2*workers)
		jobs := make(chan job)
		var wg sync.WaitGroup
		for range workers {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for j := range jobs {
					s := series{code: j.code}
					s.daily, s.err = m.Klines(ctx, j.code, market.Daily, from, end)
					if s.err == nil && minute {
						s.min1, s.err = m.Klines(ctx, j.code, market.Min1, end, end)
					}
					j.out <- s
				}
			}()
		}
		go func() {
			defer close(slots)
			defer close(jobs)
			for _, c := range codes {
				ch := make(chan series, 1)
				select {
				case slots <- ch:
				case <-ctx.Done():
					return
				}
				select {
				case jobs <- job{c, ch}:
				case <-ctx.Done():
					ch <- series{code: c, err: ctx.Err()} // its slot is queued: fill it
					return
				}
			}
		}()
		for ch := range slots {
			s := <-ch
			if ctx.Err() != nil {
				continue // drain, so the dispatcher and workers can finish
			}
			select {
			case out <- s:
			case <-ctx.Done():
			}
		}
		wg.Wait()
	}()
	return out
}
