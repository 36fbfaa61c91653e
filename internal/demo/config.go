package demo

import "mdqs/internal/market"

// Source names the demo market in every payload built from it.
const Source = "demo"

// The model's fixed days. The anchor is where every stock listed by then
// sits at its base price: the walk runs forward from it and backward from
// it, so a day near the anchor costs a few steps, not a decade. Moving it
// would change every price, so it is a constant, not configuration.
const (
	anchorDay        market.Day = 20261231
	horizonYears                = 10 // instants later than anchor + 10 years are refused
	minHistoryStart  market.Day = 20000101
	defaultHistStart market.Day = 20150105
)

// Config sizes and seeds the market. Zero fields take DefaultConfig's
// values, except Seed: 0 is a seed like any other.
type Config struct {
	Seed       int64
	Stocks     int // listed A shares; real market about 5,300
	Industries int // industry boards; real market about 90
	Concepts   int // concept boards; real market about 450

	// Calendar decides the trading days. The market copies its trading days
	// when New runs, so holiday years merged later are not seen. Nil is
	// market.DefaultCalendar().
	Calendar *market.Calendar

	// HistoryStart is the first day with bars (a non-trading day moves to the
	// next trading day). Zero is 2015-01-05, ten years and more before the
	// anchor, which the K-line benchmark needs.
	HistoryStart market.Day
}

// DefaultConfig is real-market scale: New plus the first sector snapshot
// take about 60 ms (see the package documentation and benchmarks).
func DefaultConfig() Config {
	return Config{
		Seed:         20240101,
		Stocks:       5300,
		Industries:   90,
		Concepts:     450,
		HistoryStart: defaultHistStart,
	}
}

// Upper bounds of the scale: the code ranges and name lists run out beyond
// them.
const (
	maxStocks = 8000
)

func (c Config) withDefaults() Config {
	d := DefaultConfig()
	if c.Stocks == 0 {
		c.Stocks = d.Stocks
	}
	if c.Industries == 0 {
		c.Industries = d.Industries
	}
	if c.Concepts == 0 {
		c.Concepts = d.Concepts
	}
	if c.HistoryStart == 0 {
		c.HistoryStart = d.HistoryStart
	}
	if c.Calendar == nil {
		c.Calendar = market.DefaultCalendar()
	}
	return c
}

func (c Config) validate() error {
	switch {
	case c.Stocks < 1 || c.Stocks > maxStocks:
		return market.Errorf(market.KindInvalid, "demo: Stocks %d: want 1..%d", c.Stocks, maxStocks)
	case c.Industries < 1 || c.Industries > maxIndustries():
		return market.Errorf(market.KindInvalid, "demo: Industries %d: want 1..%d", c.Industries, maxIndustries())
	case c.Industries > c.Stocks:
		return market.Errorf(market.KindInvalid, "demo: Industries %d exceeds Stocks %d; every industry needs a member", c.Industries, c.Stocks)
	case c.Concepts < 1 || c.Concepts > maxConcepts():
		return market.Errorf(market.KindInvalid, "demo: Concepts %d: want 1..%d", c.Concepts, maxConcepts())
	case c.HistoryStart < minHistoryStart || c.HistoryStart >= anchorDay:
		return market.Errorf(market.KindInvalid, "demo: HistoryStart %v: want %v..%v", c.HistoryStart, minHistoryStart, anchorDay.AddDays(-1))
	}
	if _, err := market.ParseDay(c.HistoryStart.String()); err != nil {
		return market.Errorf(market.KindInvalid, "demo: HistoryStart %d is not a date", int(c.HistoryStart))
	}
	return nil
}
