// Package board collects sector ("board") snapshots from the configured
// sources, stores every collection, and keeps the latest of each in memory.
// The ranking, the sector queries and the movements all read from it.
package board

import (
	"context"
	"time"

	"mdqs/internal/market"
)

// SectorSource is an upstream of sector snapshots: EastMoney push2, akshare
// through AKTools, or the demo market.
type SectorSource interface {
	Sectors(ctx context.Context, kind market.SectorKind) (market.SectorSnapshot, error)
}

// HistorySource can also tell the sectors' state at a past instant. Only the
// demo market can; real upstreams publish the present only, so their past
// days come from what was stored when they were the present.
type HistorySource interface {
	SectorsAt(ctx context.Context, kind market.SectorKind, t time.Time) (market.SectorSnapshot, error)
}

// SessionSource can replay a trading day minute by minute (the demo
// market): both families as a collector polling every minute would have
// seen them, at the 09:25 auction and each minute bar's end through until.
type SessionSource interface {
	SessionSectors(ctx context.Context, day market.Day, until time.Time) (industry, concept []market.SectorSnapshot, err error)
}

// Source names: the concrete upstreams, and the mode "auto" of spec 4.4.
const (
	SourceAuto    = "auto"
	SourcePush2   = "push2"
	SourceAKShare = "akshare"
	SourceDemo    = "demo"
)

// ParseMode validates a source parameter: auto, push2, akshare or demo.
func ParseMode(s string) (string, error) {
	switch s {
	case SourceAuto, SourcePush2, SourceAKShare, SourceDemo:
		return s, nil
	}
	return "", market.Errorf(market.KindInvalid, "source %q: want auto, push2, akshare or demo", s)
}

// Resolve is the concrete source a mode uses for a sector family: auto
// takes industries from akshare and concepts from push2 (the two
// complementary sources of spec 4.3 rule 5); any other mode is itself.
func Resolve(mode string, kind market.SectorKind) string {
	if mode != SourceAuto {
		return mode
	}
	if kind == market.Industry {
		return SourceAKShare
	}
	return SourcePush2
}

// Label is what a payload built under a mode says its source is: "mixed"
// for auto, whose two families come from different upstreams.
func Label(mode string) string {
	if mode == SourceAuto {
		return "mixed"
	}
	return mode
}
