package minutepack

import (
	"testing"

	"mdqs/internal/market"
)

// BarAt gives, at every time of a day, the bar Decode gives there and the
// one before it, bit for bit, and no bar at a time the day does not have:
// on the terminal's days, demo days of both frequencies, and the edge
// values of every column, plain and deflated.
func TestBarAtIsDecode(t *testing.T) {
	days := lc1Days(t)
	days = append(days, demoDays(t, market.Min1, 10, 3)...)
	days = append(days, demoDays(t, market.Min5, 10, 3)...)
	for _, e := range edgeDays() {
		days = append(days, e.bars)
	}
	for _, bars := range days {
		for _, opts := range allOptions {
			checkBarAt(t, checkRoundTrip(t, bars, opts), bars)
		}
	}
}

// checkBarAt fails unless BarAt finds every time of bars, rec's decoded
// day, as Decode gives it (the first bar of a time), and finds no bar at a
// time not in it.
func checkBarAt(t testing.TB, rec []byte, bars []market.Bar) {
	t.Helper()
	seen := make(map[int64]bool, len(bars))
	for i, want := range bars {
		if seen[want.TS] {
			continue
		}
		seen[want.TS] = true
		var wantPrev market.Bar
		if i > 0 {
			wantPrev = bars[i-1]
		}
		got, prev, ok, err := BarAt(rec, want.TS)
		if err != nil || !ok || !sameBits(got, want) || !sameBits(prev, wantPrev) {
			t.Fatalf("BarAt(bar %d of %d at %d) = %+v after %+v, %v, %v; Decode gives %+v after %+v",
				i, len(bars), want.TS, got, prev, ok, err, want, wantPrev)
		}
	}
	missing := bars[0].TS
	for seen[missing] {
		missing++
	}
	if got, prev, ok, err := BarAt(rec, missing); ok || err != nil || got != (market.Bar{}) || prev != (market.Bar{}) {
		t.Fatalf("BarAt(%d, no bar then) = %+v after %+v, %v, %v; want none", missing, got, prev, ok, err)
	}
}
