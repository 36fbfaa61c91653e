package minutepack

import (
	"math"
	"testing"

	"mdqs/internal/market"
)

// session is n one-minute bars of a stock from 09:31, prices in cents,
// volumes in lots, amounts in yuan, turnover of 2 decimals, net unknown:
// what push2his gives.
func session(n int) []market.Bar {
	day := market.Day(20260302)
	bars := make([]market.Bar, n)
	for i := range bars {
		m := 9*60 + 31 + i
		if i >= 120 {
			m += 90
		}
		c := 1000 + i%7 // cents
		bars[i] = market.Bar{Day: day, TS: day.At(0, 0, 0).Unix() + int64(m)*60,
			Open: yuan(c - 1), High: yuan(c + 2), Low: yuan(c - 2), Close: yuan(c),
			Volume: int64(100 * (i + 3)), Amount: float64(1000 * (i + 3)),
			TurnoverRate: float64(i%5) / 100, LargeOrderNet: market.Unknown()}
	}
	return bars
}

// yuan is a price in cents as the store gives it back.
func yuan(cents int) float64 { return float64(cents*100) / priceScale }

// with returns session(n) with f applied to bar i.
func with(n, i int, f func(b *market.Bar)) []market.Bar {
	bars := session(n)
	f(&bars[i])
	return bars
}

func TestRoundTripEdgeValues(t *testing.T) {
	for _, tt := range edgeDays() {
		t.Run(tt.name, func(t *testing.T) {
			for _, opts := range allOptions {
				checkRoundTrip(t, tt.bars, opts)
			}
		})
	}
}

// edgeDays are days of values at the edges of each column's encoding.
func edgeDays() []edgeDay {
	otherNaN := math.Float64frombits(0x7ff8_0000_dead_beef)
	return []edgeDay{
		{"a session", session(240)},
		{"one bar", session(1)},
		{"MaxBars bars", func() []market.Bar {
			bars := session(MaxBars)
			for i := range bars {
				bars[i].TS = int64(i) * 60
			}
			return bars
		}()},
		{"price of 4 decimals", with(240, 17, func(b *market.Bar) { b.High = 10.2345 })},
		{"fund of 3 decimals", func() []market.Bar {
			bars := session(240)
			for i := range bars {
				bars[i].Open, bars[i].High, bars[i].Low, bars[i].Close = 1.001, 1.003, 0.999, 1.002
			}
			return bars
		}()},
		{"price finer than the store", with(240, 3, func(b *market.Bar) { b.Close = 10.00001 })},
		{"price NaN", with(240, 3, func(b *market.Bar) { b.Open = math.NaN() })},
		{"price -0", with(240, 3, func(b *market.Bar) { b.Low = math.Copysign(0, -1) })},
		{"price +Inf", with(240, 3, func(b *market.Bar) { b.High = math.Inf(1) })},
		{"price beyond 2^53 units", with(240, 3, func(b *market.Bar) { b.High = 1e13 })},
		{"bar outside its range", with(240, 9, func(b *market.Bar) { b.High, b.Low = b.Low, b.High })},
		{"price jump of millions of ticks", with(240, 9, func(b *market.Bar) { b.Open, b.High = 90000, 90000 })},
		{"negative volume", with(240, 5, func(b *market.Bar) { b.Volume = -1 })},
		{"extreme volumes", with(240, 5, func(b *market.Bar) { b.Volume = math.MinInt64 })},
		{"amount in cents", with(240, 5, func(b *market.Bar) { b.Amount = 1234.56 })},
		{"amount of many digits", with(240, 5, func(b *market.Bar) { b.Amount = 0.1 + 0.2 })},
		{"amount -0", with(240, 5, func(b *market.Bar) { b.Amount = math.Copysign(0, -1) })},
		{"amount -Inf", with(240, 5, func(b *market.Bar) { b.Amount = math.Inf(-1) })},
		{"amount of another NaN", with(240, 5, func(b *market.Bar) { b.Amount = otherNaN })},
		{"amount max float", with(240, 5, func(b *market.Bar) { b.Amount = math.MaxFloat64 })},
		{"amount tiny", with(240, 5, func(b *market.Bar) { b.Amount = math.SmallestNonzeroFloat64 })},
		{"turnover unknown in one bar", with(240, 0, func(b *market.Bar) { b.TurnoverRate = market.Unknown() })},
		{"net known in one bar", with(240, 239, func(b *market.Bar) { b.LargeOrderNet = -1234567 })},
		{"net of another NaN", with(240, 1, func(b *market.Bar) { b.LargeOrderNet = otherNaN })},
		{"times out of order", with(240, 100, func(b *market.Bar) { b.TS -= 3600 })},
		{"times at the ends of int64", func() []market.Bar {
			bars := session(3)
			bars[0].TS, bars[1].TS, bars[2].TS = math.MaxInt64, math.MinInt64, 0
			return bars
		}()},
		{"equal times", func() []market.Bar {
			bars := session(5)
			for i := range bars {
				bars[i].TS = 7
			}
			return bars
		}()},
		{"zero day", func() []market.Bar {
			bars := session(2)
			bars[0].Day, bars[1].Day = 0, 0
			return bars
		}()},
	}
}

type edgeDay struct {
	name string
	bars []market.Bar
}

// A day whose prices are all cents pays for cent steps, not for
// ten-thousandths: shifting one price by 0.0001 yuan makes the record
// larger.
func TestTickIsDetected(t *testing.T) {
	cents := checkRoundTrip(t, session(240), Options{})
	finer := checkRoundTrip(t, with(240, 0, func(b *market.Bar) { b.Low = float64(99_799) / priceScale }), Options{})
	if len(cents) >= len(finer) {
		t.Errorf("cent prices take %d bytes, one price of 4 decimals %d: want fewer", len(cents), len(finer))
	}
	known := checkRoundTrip(t, session(240), Options{})
	unknown := checkRoundTrip(t, func() []market.Bar {
		bars := session(240)
		for i := range bars {
			bars[i].TurnoverRate = market.Unknown()
		}
		return bars
	}(), Options{})
	if len(unknown) > len(known)-240 {
		t.Errorf("an unknown turnover column takes %d bytes, a known one %d: want at least a byte a bar less", len(unknown), len(known))
	}
}

// A fund is quoted to 0.001: a day of such prices is kept in 0.001 steps
// (a tick of 10 store units), smaller than with one price of 4 decimals,
// and bit for bit.
func TestFundTickIsDetected(t *testing.T) {
	fund := func() []market.Bar {
		bars := session(240)
		for i := range bars {
			c := 3725 + i%9 // thousandths: 3.725 ..
			bars[i].Open, bars[i].High, bars[i].Low, bars[i].Close = milli(c-1), milli(c+2), milli(c-3), milli(c)
		}
		return bars
	}
	thousandths := checkRoundTrip(t, fund(), Options{})
	bars := fund()
	bars[0].Low = float64(37_219) / priceScale // 3.7219, a ten-thousandth off the tick
	finer := checkRoundTrip(t, bars, Options{})
	if len(thousandths) >= len(finer) {
		t.Errorf("0.001 prices take %d bytes, one price of 4 decimals %d: want fewer", len(thousandths), len(finer))
	}
}

// milli is a price in thousandths as the store gives it back.
func milli(x int) float64 { return float64(x*10) / priceScale }

func TestEncodeRejects(t *testing.T) {
	tests := []struct {
		name string
		bars []market.Bar
	}{
		{"no bars", nil},
		{"more than MaxBars", session(MaxBars + 1)},
		{"two days", with(240, 239, func(b *market.Bar) { b.Day = 20260303 })},
	}
	for _, tt := range tests {
		if rec, err := Encode(tt.bars, Options{}); err == nil {
			t.Errorf("Encode(%s) = %d bytes, want an error", tt.name, len(rec))
		}
	}
}
