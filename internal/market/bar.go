package market

import (
	"fmt"
	"math"
)

// Freq is a bar period.
type Freq string

const (
	Daily Freq = "D"
	Min1  Freq = "1m"
	Min5  Freq = "5m"
)

// ParseFreq accepts D (also d, 1d, day), 1m and 5m.
func ParseFreq(s string) (Freq, error) {
	switch s {
	case "D", "d", "1d", "day":
		return Daily, nil
	case "1m", "1min", "1":
		return Min1, nil
	case "5m", "5min", "5":
		return Min5, nil
	}
	return "", fmt.Errorf("freq %q: want D, 1m or 5m", s)
}

// Bar is one OHLCV period of a security.
//
// TS is the Unix time (seconds) at which the bar closes: a minute bar carries
// its end minute (the 09:31 bar covers 09:30-09:31, as the exchanges and the
// terminal label them) and a daily bar 15:00 of its trade day. Volume is in
// shares (never lots); Amount in yuan. Optional measures are NaN when
// unknown, never 0, because 0 is a real value for them.
type Bar struct {
	Day           Day
	TS            int64
	Open          float64
	High          float64
	Low           float64
	Close         float64
	Volume        int64
	Amount        float64
	TurnoverRate  float64 // percent of float shares; NaN when unknown
	LargeOrderNet float64 // net inflow of large and super-large orders, yuan; NaN when unknown
}

// Unknown is the marker for a measure an upstream did not give.
func Unknown() float64 { return math.NaN() }

// IsKnown reports a present measure.
func IsKnown(v float64) bool { return !math.IsNaN(v) }
