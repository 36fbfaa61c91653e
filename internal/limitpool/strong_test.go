package limitpool

import (
	"math"
	"testing"

	"mdqs/internal/market"
)

// flat is n traded bars from the day after start, each closing at 10 with
// highs of high, previous closes chained.
func flat(n int, high float64) []DayBar {
	cal := market.DefaultCalendar()
	d := market.Day(20240102)
	out := make([]DayBar, n)
	for i := range out {
		out[i] = bar(d, "x", 10, 10, high, 9.9, 10)
		d = cal.Next(d)
	}
	return out
}

// Hand-worked: the day's high against the highest of the 59 traded days
// before it, in the day's price terms.
func TestNewHigh(t *testing.T) {
	tests := []struct {
		name     string
		ch       func() []DayBar
		wantPrev float64
		want     bool
	}{
		{"above the window's high", func() []DayBar {
			ch := flat(60, 10.2)
			ch[59].High = 10.5
			return ch
		}, 10.2, true},
		{"equal is no new high", func() []DayBar {
			ch := flat(60, 10.2)
			return ch
		}, 10.2, false},
		{"a higher high 60 traded days back is outside the window", func() []DayBar {
			ch := flat(61, 10.2)
			ch[0].High = 30
			ch[60].High = 10.3
			return ch
		}, 10.2, true},
		{"a higher high 59 traded days back is inside it", func() []DayBar {
			ch := flat(61, 10.2)
			ch[1].High = 30
			ch[60].High = 10.3
			return ch
		}, 30, false},
		{"59 bars: not judged", func() []DayBar {
			ch := flat(59, 10.2)
			ch[58].High = 11
			return ch
		}, 0, false},
		{"a suspension is not a day of the window", func() []DayBar {
			ch := flat(61, 10.2)
			ch[30].Volume = 0 // the window reaches one bar further: ch[0]
			ch[0].High = 10.4
			ch[60].High = 10.3
			return ch
		}, 10.4, false},
		{"10-for-10 bonus: highs of 20.8 before the ex-date are 10.4 after it", func() []DayBar {
			ch := flat(60, 20.8)
			for i := range ch[:30] {
				ch[i].Close, ch[i].PrevClose, ch[i].Open, ch[i].Low = 20, 20, 20, 19.8
			}
			// The ex-date: the reference price is 20 / 2.
			ch[30].PrevClose = 10
			for i := 30; i < 60; i++ {
				ch[i].High = 10.3
			}
			ch[59].High = 10.5
			return ch
		}, 10.4, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			prev, ok := newHigh(tt.ch())
			if math.Abs(prev-tt.wantPrev) > 1e-9 || ok != tt.want {
				t.Errorf("newHigh = %v, %v; want %v, %v", prev, ok, tt.wantPrev, tt.want)
			}
		})
	}
}
