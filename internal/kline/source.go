// Package kline serves bars: stored history in SQLite, fetched from the
// configured source only where the store lacks it, joined with today's
// real-time 1-minute series held in memory, plus the end-of-day work that
// makes the day final (today's bars, daily signals, chip metrics).
package kline

import (
	"context"

	"mdqs/internal/market"
	"mdqs/internal/upstream"
)

// BarSource gives completed bars of past and present days: push2his, the
// demo market, or the terminal's files.
type BarSource interface {
	Klines(ctx context.Context, code market.Code, freq market.Freq, from, to market.Day) ([]market.Bar, error)
}

// TrendSource gives the latest sessions' 1-minute bars (push2his trends2,
// or the demo market).
type TrendSource interface {
	Trends(ctx context.Context, code market.Code, ndays int) ([]market.Bar, error)
}

// QuoteSource gives every stock's quote now (push2's all-A list, or the
// demo market); the end-of-day job makes today's daily bars from it.
type QuoteSource interface {
	Quotes(ctx context.Context) ([]market.Quote, error)
}

// FundFlowSource gives a stock's daily main-force flow.
type FundFlowSource interface {
	FundFlowDaily(ctx context.Context, code market.Code, from, to market.Day) ([]upstream.FundFlowDay, error)
}

// WithFundFlow fills the daily bars of src with the daily main-force net
// inflow of flows (Bar.LargeOrderNet), which push2his serves separately. A
// failed flow request leaves the measure unknown rather than failing the
// bars.
func WithFundFlow(src BarSource, flows FundFlowSource) BarSource {
	return fundFlowJoin{src, flows}
}

type fundFlowJoin struct {
	BarSource
	flows FundFlowSource
}

func (j fundFlowJoin) Klines(ctx context.Context, code market.Code, freq market.Freq, from, to market.Day) ([]market.Bar, error) {
	bars, err := j.BarSource.Klines(ctx, code, freq, from, to)
	if err != nil || freq != market.Daily || len(bars) == 0 {
		return bars, err
	}
	if flows, ferr := j.flows.FundFlowDaily(ctx, code, from, to); ferr == nil {
		upstream.ApplyFundFlow(bars, flows)
	}
	return bars, nil
}
