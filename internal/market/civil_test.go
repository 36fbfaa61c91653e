package market

import (
	"math/rand/v2"
	"testing"
	"time"
)

// The arithmetic must agree with time.Date, the definition it replaces,
// including the overflowing dates AddDays used to normalise through it.
func TestCivilMatchesTime(t *testing.T) {
	for y := 1600; y <= 2400; y++ {
		for m := 1; m <= 12; m++ {
			for _, dd := range []int{1, 15, 28, 29, 30, 31} {
				d := NewDay(y, time.Month(m), dd)
				want := time.Date(y, time.Month(m), dd, 0, 0, 0, 0, time.UTC)
				z := d.EpochDays()
				if got := want.Unix() / 86400; z != got {
					t.Fatalf("%d-%d-%d: epoch days %d, time says %d", y, m, dd, z, got)
				}
				if back := DayFromEpochDays(z); back != NewDay(want.Date()) {
					t.Fatalf("%d-%d-%d: back to %v, time says %v", y, m, dd, back, NewDay(want.Date()))
				}
				if d.Weekday() != want.Weekday() {
					t.Fatalf("%v: weekday %v, time says %v", d, d.Weekday(), want.Weekday())
				}
				for _, n := range []int{-400, -31, -1, 0, 1, 29, 366} {
					if got, want := d.AddDays(n), DayOf(d.Start().AddDate(0, 0, n)); got != want {
						t.Fatalf("%v.AddDays(%d) = %v, time says %v", d, n, got, want)
					}
				}
			}
		}
	}
}

func TestDayStringMatchesSprintf(t *testing.T) {
	for _, d := range []Day{20261126, 19901219, 10101, 99991231, 20260231} {
		if got, want := d.String(), d.slowString(); got != want {
			t.Errorf("%d: %q, want %q", int32(d), got, want)
		}
	}
}

func TestAppendTimeMatchesTimeFormat(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	cases := []int64{0, 673_000_000, noDSTSince - 1, noDSTSince, 1795656617, 4102444799, 32503679999}
	for range 200_000 {
		cases = append(cases, r.Int64N(32503680000)) // 1970..3000
	}
	for _, ts := range cases {
		if got, want := string(AppendTime(nil, ts)), time.Unix(ts, 0).In(Shanghai()).Format(time.DateTime); got != want {
			t.Fatalf("%d: %q, want %q", ts, got, want)
		}
	}
}

func BenchmarkDayFormat(b *testing.B) {
	d := Day(20261126)
	b.Run("AppendTo", func(b *testing.B) {
		var buf []byte
		for b.Loop() {
			buf = d.AppendTo(buf[:0])
		}
	})
	b.Run("Sprintf", func(b *testing.B) {
		for b.Loop() {
			_ = d.slowString()
		}
	})
}
