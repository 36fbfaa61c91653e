package minutepack

import (
	"context"
	"math"
	"testing"
	"time"

	"mdqs/internal/demo"
	"mdqs/internal/market"
	"mdqs/internal/tdx"
)

// sameBits reports whether two bars hold the same values bit for bit, NaN
// payloads and the sign of zero included.
func sameBits(a, b market.Bar) bool {
	f := math.Float64bits
	return a.Day == b.Day && a.TS == b.TS && a.Volume == b.Volume &&
		f(a.Open) == f(b.Open) && f(a.High) == f(b.High) && f(a.Low) == f(b.Low) && f(a.Close) == f(b.Close) &&
		f(a.Amount) == f(b.Amount) && f(a.TurnoverRate) == f(b.TurnoverRate) && f(a.LargeOrderNet) == f(b.LargeOrderNet)
}

// checkRoundTrip encodes bars with opts and fails unless Decode gives them
// back bit for bit; it returns the record.
func checkRoundTrip(t testing.TB, bars []market.Bar, opts Options) []byte {
	t.Helper()
	rec, err := Encode(bars, opts)
	if err != nil {
		t.Fatalf("Encode(%d bars, %+v): %v", len(bars), opts, err)
	}
	got, err := Decode(rec)
	if err != nil {
		t.Fatalf("Decode(Encode(%d bars, %+v)): %v", len(bars), opts, err)
	}
	if len(got) != len(bars) {
		t.Fatalf("Decode(Encode(%d bars)) = %d bars", len(bars), len(got))
	}
	for i := range bars {
		if !sameBits(got[i], bars[i]) {
			t.Fatalf("bar %d (%+v): got %+v, want %+v", i, opts, got[i], bars[i])
		}
	}
	return rec
}

// byDay splits bars in order into runs of one day.
func byDay(bars []market.Bar) [][]market.Bar {
	var days [][]market.Bar
	for i := 0; i < len(bars); {
		j := i + 1
		for j < len(bars) && bars[j].Day == bars[i].Day {
			j++
		}
		days = append(days, bars[i:j:j])
		i = j
	}
	return days
}

// lc1Days are the days of the real terminal file in testdata.
func lc1Days(t testing.TB) [][]market.Bar {
	t.Helper()
	bf, err := tdx.ReadBars("testdata/sh688001.lc1", 0)
	if err != nil {
		t.Fatal(err)
	}
	return byDay(bf.Bars)
}

// demoDays are stock-days of the demo market's 1-minute (or 5-minute)
// bars: every stock's last days trading days before 2026-03-02.
func demoDays(t testing.TB, freq market.Freq, stocks, days int) [][]market.Bar {
	t.Helper()
	clock := market.NewFixedClock(time.Date(2026, 3, 2, 16, 0, 0, 0, market.Shanghai()))
	m, err := demo.New(demo.Config{Seed: 7, Stocks: 50, Industries: 5, Concepts: 5}, clock)
	if err != nil {
		t.Fatal(err)
	}
	var out [][]market.Bar
	from := market.Day(20260302).AddDays(-days * 7 / 5)
	for _, s := range m.Stocks()[:stocks] {
		bars, err := m.Klines(context.Background(), s.Code, freq, from, 20260302)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, byDay(bars)...)
	}
	return out
}
