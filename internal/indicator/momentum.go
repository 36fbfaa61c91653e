package indicator

import (
	"errors"
	"fmt"
	"math"
	"time"

	"mdqs/internal/market"
)

// ErrInsufficientData reports a series too short (or too empty) for the
// indicator; callers test it with errors.Is. The errors that wrap it are
// market errors of kind KindNotFound: the value does not exist yet.
var ErrInsufficientData = errors.New("indicator: insufficient data")

func insufficient(format string, args ...any) error {
	return market.Wrap(market.KindNotFound, ErrInsufficientData, format, args...)
}

// MomentumBars is how many completed bars micro momentum reads.
const MomentumBars = 6

// MinTick is the smallest A-share price step (0.001 yuan, for funds; stocks
// step 0.01). It floors the reference speed of PriceSpeedRatio so that a move
// after a motionless spell gives a large finite ratio, not a division by 0.
const MinTick = 0.001

// SessionMinutes is the number of one-minute bars in an A-share session:
// 09:30-11:30 and 13:00-15:00 Asia/Shanghai.
const SessionMinutes = 240

// Momentum is the micro momentum of the latest bars. NaN marks an undefined
// value (rendered null).
type Momentum struct {
	MicroVolRatio        float64
	VolAcc               float64
	TimeAdjustedVolRatio float64
	PriceSpeedRatio      float64
}

// VolumeProfile is the typical volume of each session minute relative to the
// session's average minute: element 0 is the bar closing at 09:31, element
// 239 the bar closing at 15:00.
type VolumeProfile [SessionMinutes]float64

// DefaultVolumeProfile is a stylised U-shaped A-share profile:
//
//	raw(m) = 1 + 3*exp(-(m-1)/10) + 0.5*exp(-(m-121)/5)*[m >= 121] + exp(-(240-m)/10)
//
// for session minute m = 1..240, divided by its mean so that the profile
// averages 1. It puts about 21% of the day's volume in the first half hour
// and 14% in the last, with a small bump when trading resumes at 13:00. A
// profile measured on the stock itself (ProfileFromBars) is more accurate.
func DefaultVolumeProfile() VolumeProfile {
	var p VolumeProfile
	var sum float64
	for i := range p {
		m := float64(i + 1)
		v := 1 + 3*math.Exp(-(m-1)/10) + math.Exp(-(240-m)/10)
		if m >= 121 {
			v += 0.5 * math.Exp(-(m-121)/5)
		}
		p[i] = v
		sum += v
	}
	mean := sum / SessionMinutes
	for i := range p {
		p[i] /= mean
	}
	return p
}

// minProfileWeight floors measured profile weights: the minutes of the
// closing call auction (14:58, 14:59) trade nothing, and a zero weight would
// make any volume there infinitely unusual.
const minProfileWeight = 0.05

// ProfileFromBars measures a volume profile from past one-minute bars (for
// instance the stock's last 20 sessions): each minute's weight is its mean
// volume over the bars that fall in it. Minutes never seen take the default
// profile's weight, scaled to the measured level. Weights are floored at
// 0.05 and the profile is then divided by its mean.
func ProfileFromBars(bars []market.Bar) (VolumeProfile, error) {
	var sum [SessionMinutes]float64
	var count [SessionMinutes]int
	for _, b := range bars {
		m, ok := SessionMinute(b.TS)
		if !ok || b.Volume < 0 {
			continue
		}
		sum[m-1] += float64(b.Volume)
		count[m-1]++
	}
	def := DefaultVolumeProfile()
	var seen, seenDefault float64
	for i := range sum {
		if count[i] > 0 {
			sum[i] /= float64(count[i])
			seen += sum[i]
			seenDefault += def[i]
		}
	}
	if !(seen > 0) {
		return VolumeProfile{}, insufficient("volume profile: no traded session minute among %d bars", len(bars))
	}
	var p VolumeProfile
	var total float64
	for i := range p {
		w := def[i]
		if count[i] > 0 {
			w = sum[i] * seenDefault / seen
		}
		p[i] = max(w, minProfileWeight)
		total += p[i]
	}
	mean := total / SessionMinutes
	for i := range p {
		p[i] /= mean
	}
	return p, nil
}

func (p *VolumeProfile) validate() error {
	for i, w := range p {
		if !(w > 0) || math.IsInf(w, 0) {
			return market.Errorf(market.KindInvalid, "indicator: volume profile weight %v at minute %d is not a positive number", w, i+1)
		}
	}
	return nil
}

// SessionMinute is the session minute 1..240 of a bar closing at Unix time ts
// (seconds are ignored): 09:31 is 1, 11:30 is 120, 13:01 is 121, 15:00 is
// 240. A bar stamped 09:30, which some feeds use for the opening call
// auction, counts as minute 1. Other times are outside the session.
func SessionMinute(ts int64) (int, bool) {
	hh, mm, _ := time.Unix(ts, 0).In(market.Shanghai()).Clock()
	m := hh*60 + mm
	switch {
	case m == 9*60+30:
		return 1, true
	case m > 9*60+30 && m <= 11*60+30:
		return m - (9*60 + 30), true
	case m > 13*60 && m <= 15*60:
		return m - 13*60 + 120, true
	}
	return 0, false
}

// MicroMomentum computes the four micro-momentum measures from the latest
// MomentumBars bars of a series in time order (older bars are ignored). freq
// is the bars' period: 1m or 5m bars are time-adjusted with profile (nil
// means DefaultVolumeProfile), daily bars need no adjustment. The formulas are
// in the package documentation.
func MicroMomentum(bars []market.Bar, freq market.Freq, profile *VolumeProfile) (Momentum, error) {
	nan := math.NaN()
	none := Momentum{nan, nan, nan, nan}
	if len(bars) < MomentumBars {
		return none, insufficient("micro momentum needs %d completed bars, have %d", MomentumBars, len(bars))
	}
	w := bars[len(bars)-MomentumBars:]
	for i := 1; i < len(w); i++ {
		if w[i].TS <= w[i-1].TS {
			return none, market.Errorf(market.KindInvalid, "indicator: micro momentum bars out of time order at %d", w[i].TS)
		}
	}
	span := 0
	switch freq {
	case market.Daily:
	case market.Min1:
		span = 1
	case market.Min5:
		span = 5
	default:
		return none, market.Errorf(market.KindInvalid, "indicator: micro momentum does not support freq %q", string(freq))
	}
	if span > 0 {
		if profile == nil {
			def := DefaultVolumeProfile()
			profile = &def
		} else if err := profile.validate(); err != nil {
			return none, err
		}
	}

	var vol, adj, px [MomentumBars]float64
	for i, b := range w {
		vol[i] = volumeOf(b)
		px[i] = b.Close
	}
	var m Momentum
	m.MicroVolRatio = ratio(vol[5], mean(vol[:5]))
	m.VolAcc = ratio(vol[3]+vol[4]+vol[5], vol[0]+vol[1]+vol[2]) - 1
	if span == 0 {
		// Every trading day has the same 240 minutes, so a completed
		// daily bar has no time of day to adjust for.
		m.TimeAdjustedVolRatio = m.MicroVolRatio
	} else {
		for i, b := range w {
			adj[i] = ratio(vol[i], profile.weight(b.TS, span))
		}
		m.TimeAdjustedVolRatio = ratio(adj[5], mean(adj[:5]))
	}
	var ref float64
	for i := 1; i < 5; i++ {
		ref += math.Abs(px[i] - px[i-1])
	}
	ref = max(ref/4, MinTick)
	m.PriceSpeedRatio = (px[5] - px[4]) / ref
	if math.IsInf(m.PriceSpeedRatio, 0) {
		// Only reachable with absurd prices (near MaxFloat64).
		m.PriceSpeedRatio = nan
	}
	return m, nil
}

// weight is the mean profile weight of the span minutes a bar closing at ts
// covers, NaN outside the session.
func (p *VolumeProfile) weight(ts int64, span int) float64 {
	m, ok := SessionMinute(ts)
	if !ok {
		return math.NaN()
	}
	lo := max(m-span+1, 1)
	var s float64
	for i := lo; i <= m; i++ {
		s += p[i-1]
	}
	return s / float64(m-lo+1)
}

func mean(xs []float64) float64 {
	var s float64
	for _, x := range xs {
		s += x
	}
	return s / float64(len(xs))
}

// String renders the measures for logs and test failures.
func (m Momentum) String() string {
	return fmt.Sprintf("{micro_vol_ratio:%g vol_acc:%g time_adjusted_vol_ratio:%g price_speed_ratio:%g}",
		m.MicroVolRatio, m.VolAcc, m.TimeAdjustedVolRatio, m.PriceSpeedRatio)
}
