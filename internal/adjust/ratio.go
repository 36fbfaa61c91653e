package adjust

import (
	"fmt"
	"sort"

	"mdqs/internal/market"
)

// Ratio builds the multiplicative schedule (等比 or 涨跌幅复权) that Sina,
// Wind, RiceQuant, Tushare, mootdx, tdx2db and rustdx use (adjust.md §6).
// It is NOT the terminal's method and differs from it by cents to yuan: use
// Factors to match the terminal and EastMoney.
//
// Each event becomes a factor r = ref/prev, where prev is the close of the
// last bar before the ex-date and ref is the terminal's ex-reference price
// of prev (Event.Ex). QFQ multiplies a bar dated d by the r of every event
// with d < ex-date ≤ anchor; HFQ divides it by the r of every event with
// listing < ex-date ≤ d. B is always 0, so percentage changes survive and
// prices never turn negative; prices are rounded from the float map
// (Round), the stored float32 values taken as they are, as the providers
// were reproduced. An event with no bar before it has no
// previous close and counts as r = 1, as it does for the providers. bars
// must be in ascending day order and hold the series' unadjusted closes.
func Ratio(events []Event, bars []market.Bar, mode Mode, anchor market.Day) (Schedule, error) {
	evs, err := sorted(events)
	if err != nil {
		return Schedule{}, err
	}
	for i := 1; i < len(bars); i++ {
		if bars[i].Day <= bars[i-1].Day {
			return Schedule{}, fmt.Errorf("adjust: bars not in ascending day order at %s", bars[i].Day)
		}
	}
	maps := make([]exMap, 0, len(evs))
	for _, e := range evs {
		k := sort.Search(len(bars), func(i int) bool { return bars[i].Day >= e.Day })
		if k == 0 {
			maps = append(maps, exMap{day: e.Day, m: 1})
			continue
		}
		// The stored float32 values: Sina's factors were reproduced from
		// them to 6e-11 (ratio_test.go), from the written decimals to 2e-9.
		prev := bars[k-1].Close
		m, c := e.storedMC()
		ref := (prev - c) / m
		if !(prev > 0 && ref > 0) {
			return Schedule{}, fmt.Errorf("adjust: event %s: reference price %v from previous close %v is not positive", e.Day, ref, prev)
		}
		maps = append(maps, exMap{day: e.Day, m: prev / ref})
	}
	return build(maps, mode, anchor)
}
