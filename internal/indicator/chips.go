package indicator

import (
	"math"

	"mdqs/internal/market"
)

// Chip distribution bounds. The window and grid caps bound the work and
// memory of one stock whatever the request; MaxChipPrice keeps grid indexes
// far from integer overflow (no A-share has traded near it).
const (
	DefaultChipWindow  = 120
	MaxChipWindow      = 1000
	DefaultChipBuckets = 2000
	MinChipBuckets     = 10
	MaxChipBuckets     = 100000
	DefaultChipTick    = 0.01
	MaxChipPrice       = 1e6
)

// ChipParams configure the chip distribution. Zero fields take the defaults.
type ChipParams struct {
	Window     int     // latest bars used, 1..1000 (default 120)
	MaxBuckets int     // cap on price buckets, 10..100000 (default 2000)
	Tick       float64 // finest price step in yuan, 0.001..1 (default 0.01)
}

// DefaultChipParams: 120 daily bars on a cent grid of at most 2000 buckets.
func DefaultChipParams() ChipParams {
	return ChipParams{Window: DefaultChipWindow, MaxBuckets: DefaultChipBuckets, Tick: DefaultChipTick}
}

func (p ChipParams) withDefaults() (ChipParams, error) {
	d := DefaultChipParams()
	if p.Window == 0 {
		p.Window = d.Window
	}
	if p.MaxBuckets == 0 {
		p.MaxBuckets = d.MaxBuckets
	}
	if p.Tick == 0 {
		p.Tick = d.Tick
	}
	if p.Window < 1 || p.Window > MaxChipWindow {
		return p, market.Errorf(market.KindInvalid, "indicator: chip window %d out of range 1..%d", p.Window, MaxChipWindow)
	}
	if p.MaxBuckets < MinChipBuckets || p.MaxBuckets > MaxChipBuckets {
		return p, market.Errorf(market.KindInvalid, "indicator: chip buckets %d out of range %d..%d", p.MaxBuckets, MinChipBuckets, MaxChipBuckets)
	}
	if !(p.Tick >= 0.001 && p.Tick <= 1) {
		return p, market.Errorf(market.KindInvalid, "indicator: chip tick %v out of range 0.001..1", p.Tick)
	}
	return p, nil
}

// ChipMetrics is the chip-distribution snapshot of a stock at its last bar.
// Shares are fractions 0..1; prices are yuan.
type ChipMetrics struct {
	Day             market.Day // last bar's day
	Close           float64    // last bar's close
	Days            int        // bars in the window that contributed chips
	BucketWidth     float64    // grid step actually used, yuan
	AvgCost         float64
	ProfitRatio     float64 // share of chips below Close
	Cost70Low       float64 // central 70% of chips: 15th percentile
	Cost70High      float64 // ... and 85th percentile
	Concentration70 float64 // (high-low)/(high+low) of the 70% range
	Cost90Low       float64 // 5th percentile
	Cost90High      float64 // 95th percentile
	Concentration90 float64
	PeakPrice       float64 // centre of the bucket holding the most chips
}

// ChipCalculator computes chip distributions, reusing its buffers across
// stocks. The zero value is ready; it is not safe for concurrent use.
type ChipCalculator struct {
	weight []float64
	mass   []float64
}

// Chips is ChipCalculator.Compute with a fresh calculator.
func Chips(bars []market.Bar, p ChipParams) (ChipMetrics, error) {
	var c ChipCalculator
	return c.Compute(bars, p)
}

// Compute builds the turnover-decayed chip distribution of the latest
// p.Window daily bars (in time order) and summarises it at the last bar. The
// model is in the package documentation.
func (c *ChipCalculator) Compute(bars []market.Bar, p ChipParams) (ChipMetrics, error) {
	nan := math.NaN()
	m := ChipMetrics{Close: nan, BucketWidth: nan, AvgCost: nan, ProfitRatio: nan,
		Cost70Low: nan, Cost70High: nan, Concentration70: nan,
		Cost90Low: nan, Cost90High: nan, Concentration90: nan, PeakPrice: nan}
	p, err := p.withDefaults()
	if err != nil {
		return m, err
	}
	if len(bars) == 0 {
		return m, insufficient("chip distribution of an empty series")
	}
	win := bars[max(0, len(bars)-p.Window):]
	last := win[len(win)-1]
	m.Day, m.Close = last.Day, last.Close

	// Each day's chips end up weighted by its turnover times the share of it
	// that no later day turned over again, so weights can be found backwards
	// and each day spread once, instead of decaying the whole grid daily.
	w := grow(c.weight, len(win))
	c.weight = w
	keep, total := 1.0, 0.0
	lowest, highest := math.Inf(1), math.Inf(-1)
	for i := len(win) - 1; i >= 0; i-- {
		w[i] = 0
		r, ok := chipTurnover(win[i])
		if !ok || keep == 0 {
			continue
		}
		w[i] = r * keep
		keep *= 1 - r
		if w[i] > 0 {
			total += w[i]
			m.Days++
			lowest, highest = min(lowest, win[i].Low), max(highest, win[i].High)
		}
	}
	if !(total > 0) {
		return m, insufficient("no bar among the latest %d has a known turnover and price range", len(win))
	}

	g := newGrid(lowest, highest, p.Tick, p.MaxBuckets)
	m.BucketWidth = g.step
	mass := grow(c.mass, g.n)
	c.mass = mass
	clear(mass)
	for i, b := range win {
		if w[i] > 0 {
			g.spread(mass, w[i]/total, b)
		}
	}
	g.summarise(&m, mass)
	return m, nil
}

// chipTurnover is the share of the float a bar turned over, 0..1, and
// whether the bar can carry chips at all: NaN or negative turnover, and a
// missing or inverted price range, make the bar skipped, neither adding
// chips nor decaying older ones. Turnover above 100% (possible on a listing
// day) turns over everything once.
func chipTurnover(b market.Bar) (float64, bool) {
	if !(b.TurnoverRate >= 0) || math.IsInf(b.TurnoverRate, 0) {
		return 0, false
	}
	if !(b.Low > 0 && b.Low <= b.High && b.High <= MaxChipPrice) {
		return 0, false
	}
	return min(b.TurnoverRate/100, 1), true
}

// grid is a price grid of n buckets, each `width` ticks wide; bucket k
// holds prices in [edge(k), edge(k+1)), edges lying half a tick off the
// tick prices so that a traded price never sits on an edge.
type grid struct {
	low   float64 // lowest and highest traded price, yuan
	high  float64
	lo    float64 // tick index of bucket 0's first price
	width float64 // ticks per bucket
	tick  float64
	step  float64 // width*tick, yuan
	n     int
}

func newGrid(lowest, highest, tick float64, maxBuckets int) grid {
	lo := math.Round(lowest / tick)
	span := math.Round(highest/tick) - lo + 1
	width := math.Ceil(span / float64(maxBuckets))
	n := int(math.Ceil(span / width))
	return grid{low: lowest, high: highest, lo: lo, width: width, tick: tick, step: width * tick, n: n}
}

func (g grid) edge(k int) float64 { return (g.lo - 0.5 + float64(k)*g.width) * g.tick }

func (g grid) centre(k int) float64 {
	return (g.lo + float64(k)*g.width + (g.width-1)/2) * g.tick
}

func (g grid) bucket(price float64) int {
	k := int(math.Floor((price/g.tick - g.lo + 0.5) / g.width))
	return min(max(k, 0), g.n-1)
}

// spread adds share w of chips bought on bar b, triangularly distributed
// over [Low, High] with the peak at the bar's average price. Bucket masses
// are differences of the exact triangular CDF at the edges, so the day's
// chips sum to w whatever the grid.
func (g grid) spread(mass []float64, w float64, b market.Bar) {
	lo, hi := b.Low, b.High
	peak := (b.High + b.Low + b.Close) / 3
	if math.IsNaN(b.Close) {
		peak = (b.High + b.Low) / 2
	}
	if b.Volume > 0 && b.Amount > 0 && !math.IsInf(b.Amount, 0) {
		peak = b.Amount / float64(b.Volume)
	}
	peak = min(max(peak, lo), hi)
	kl, kh := g.bucket(lo), g.bucket(hi)
	prev := 0.0
	for k := kl; k < kh; k++ {
		cur := triangularCDF(g.edge(k+1), lo, peak, hi)
		mass[k] += w * (cur - prev)
		prev = cur
	}
	mass[kh] += w * (1 - prev)
}

// triangularCDF is P(X <= x) for the triangular distribution on [lo, hi]
// with mode peak. The branch order keeps every divisor positive.
func triangularCDF(x, lo, peak, hi float64) float64 {
	switch {
	case x <= lo:
		return 0
	case x >= hi:
		return 1
	case x <= peak:
		return (x - lo) * (x - lo) / ((hi - lo) * (peak - lo))
	default:
		return 1 - (hi-x)*(hi-x)/((hi-lo)*(hi-peak))
	}
}

// summarise fills the metrics from normalised bucket masses, treating the
// chips inside a bucket as spread evenly across it.
func (g grid) summarise(m *ChipMetrics, mass []float64) {
	var sum, avg, profit float64
	peak := 0
	for k, x := range mass {
		sum += x
		avg += x * g.centre(k)
		if x > mass[peak] {
			peak = k
		}
		lo, hi := g.edge(k), g.edge(k+1)
		profit += x * min(max((m.Close-lo)/(hi-lo), 0), 1)
	}
	m.AvgCost = avg / sum
	m.ProfitRatio = min(max(profit/sum, 0), 1)
	if math.IsNaN(m.Close) || math.IsNaN(profit) {
		m.ProfitRatio = math.NaN()
	}
	m.PeakPrice = g.centre(peak)

	qs := [...]float64{0.05, 0.15, 0.85, 0.95}
	var at [len(qs)]float64
	cum, j := 0.0, 0
	for k := 0; k < len(mass) && j < len(qs); k++ {
		x := mass[k]
		for j < len(qs) && x > 0 && cum+x >= qs[j]*sum {
			f := min(max((qs[j]*sum-cum)/x, 0), 1)
			at[j] = g.edge(k) + f*(g.edge(k+1)-g.edge(k))
			j++
		}
		cum += x
	}
	for ; j < len(qs); j++ {
		// Only rounding can leave the top quantiles unreached.
		at[j] = g.high
	}
	for j := range at {
		// The outer buckets reach half a tick beyond any traded price;
		// clamping also keeps high+low, the divisor below, positive.
		at[j] = min(max(at[j], g.low), g.high)
	}
	m.Cost90Low, m.Cost70Low, m.Cost70High, m.Cost90High = at[0], at[1], at[2], at[3]
	m.Concentration70 = (m.Cost70High - m.Cost70Low) / (m.Cost70High + m.Cost70Low)
	m.Concentration90 = (m.Cost90High - m.Cost90Low) / (m.Cost90High + m.Cost90Low)
}
