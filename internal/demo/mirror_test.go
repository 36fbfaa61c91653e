package demo

import (
	"context"

	"mdqs/internal/market"
	"mdqs/internal/upstream"
)

// The demo must be a drop-in for the real clients: these assertions stop
// compiling when either side's signatures drift.
type push2Methods interface {
	Sectors(context.Context, market.SectorKind) (market.SectorSnapshot, error)
	Quotes(context.Context) ([]market.Quote, error)
	Status() upstream.Status
}

type push2hisMethods interface {
	Klines(ctx context.Context, code market.Code, freq market.Freq, from, to market.Day) ([]market.Bar, error)
	Trends(ctx context.Context, code market.Code, ndays int) ([]market.Bar, error)
	FundFlowDaily(ctx context.Context, code market.Code, from, to market.Day) ([]upstream.FundFlowDay, error)
	Status() upstream.Status
}

var (
	_ push2Methods    = (*upstream.Push2)(nil)
	_ push2Methods    = (*Market)(nil)
	_ push2hisMethods = (*upstream.Push2His)(nil)
	_ push2hisMethods = (*Market)(nil)
)
