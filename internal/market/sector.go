package market

import (
	"fmt"
	"time"
)

// SectorKind separates the two sector families the ranking merges.
type SectorKind string

const (
	Industry SectorKind = "industry"
	Concept  SectorKind = "concept"
)

func ParseSectorKind(s string) (SectorKind, error) {
	switch SectorKind(s) {
	case Industry, Concept:
		return SectorKind(s), nil
	}
	return "", fmt.Errorf("sector type %q: want industry or concept", s)
}

// Sector is one sector's state at a collection time. Money is in yuan,
// percentages are percent numbers (1.23 means 1.23 %). Optional measures are
// NaN (floats) or -1 (counts) when the source does not give them.
type Sector struct {
	Code         string // BK0477, or the terminal's 880xxx
	Name         string
	Price        float64 // sector index level
	Pct          float64
	Amount       float64 // turnover amount
	Turnover     float64 // turnover rate
	MainNet      float64 // main-force net inflow
	MainNetRatio float64 // main net as a percent of the amount
	Up           int     // rising members
	Down         int     // falling members
	Flat         int
	LeaderCode   string // the member leading the sector (by pct or by inflow, per source)
	LeaderName   string
	LeaderPct    float64
}

// SectorSnapshot is one collection of one sector family from one source.
type SectorSnapshot struct {
	Kind    SectorKind
	Source  string
	At      time.Time // when the source says the data is as of (or when it was fetched)
	Sectors []Sector
}

// Quote is one stock's real-time snapshot (the all-A-share list).
type Quote struct {
	Code         Code
	Name         string
	Price        float64
	Pct          float64
	Change       float64
	Open         float64
	High         float64
	Low          float64
	PrevClose    float64
	Volume       int64 // shares
	Amount       float64
	Turnover     float64 // turnover rate, percent
	Amplitude    float64
	VolumeRatio  float64
	PE           float64
	PB           float64
	MarketCap    float64
	FloatCap     float64
	MainNet      float64
	MainNetRatio float64
	Speed        float64 // 涨速, percent
	At           time.Time
	// LimitUp and LimitDown are the day's limit prices when the source
	// publishes them (push2's single quote, the demo); 0 when it does not,
	// and the quote service then derives them from the exchange's rule.
	LimitUp, LimitDown float64
	// Bids and Asks are the best order-book levels, best first, where the
	// source gives them (push2's single quote); nil otherwise.
	Bids, Asks []Level
}

// Level is one price level of an order book; Volume is in shares.
type Level struct {
	Price  float64
	Volume int64
}
