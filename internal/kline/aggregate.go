package kline

import (
	"math"

	"mdqs/internal/market"
)

// Aggregate folds 1-minute bars (one day's, in time order) into bars of
// freq: 5-minute bars labelled by their end minute (09:35 ... 11:30,
// 13:05 ... 15:00), or one daily bar stamped 15:00. Turnover rates add up;
// large-order nets add up when every minute knows them.
func Aggregate(min1 []market.Bar, freq market.Freq) []market.Bar {
	switch freq {
	case market.Min1:
		return min1
	case market.Daily:
		if len(min1) == 0 {
			return nil
		}
		b := fold(min1)
		b.TS = b.Day.At(15, 0, 0).Unix()
		return []market.Bar{b}
	}
	var out []market.Bar
	for start := 0; start < len(min1); {
		end := fiveMinuteEnd(min1[start].TS)
		stop := start
		for stop < len(min1) && min1[stop].Day == min1[start].Day && min1[stop].TS <= end {
			stop++
		}
		b := fold(min1[start:stop])
		b.TS = end
		out = append(out, b)
		start = stop
	}
	return out
}

// fiveMinuteEnd is the end of the 5-minute bar holding the 1-minute bar that
// closes at ts: the next multiple of five minutes.
func fiveMinuteEnd(ts int64) int64 {
	const five = 5 * 60
	return (ts + five - 1) / five * five
}

func fold(bars []market.Bar) market.Bar {
	b := bars[0]
	b.TS = bars[len(bars)-1].TS
	turnover, large := 0.0, 0.0
	for i, x := range bars {
		if i > 0 {
			b.High = max(b.High, x.High)
			b.Low = min(b.Low, x.Low)
			b.Volume += x.Volume
			b.Amount += x.Amount
		}
		b.Close = x.Close
		turnover += x.TurnoverRate
		large += x.LargeOrderNet
	}
	b.TurnoverRate = turnover // NaN if any minute lacks it
	b.LargeOrderNet = large
	if math.IsNaN(large) {
		b.LargeOrderNet = math.NaN()
	}
	return b
}
