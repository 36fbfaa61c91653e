package minutepack

// Seed corpora are in testdata/fuzz/<FuzzName>/: records of the .lc1 day
// and a demo day, plain and deflated, and generator inputs of each kind of
// value.

import (
	"encoding/binary"
	"errors"
	"math"
	"testing"

	"mdqs/internal/market"
)

// Arbitrary bytes never panic and never make more than MaxBars bars; what
// Decode accepts, Encode writes again and Decode gives back the same.
func FuzzDecode(f *testing.F) {
	f.Add(record(f, Options{}))
	f.Add(record(f, Options{Deflate: true}))
	f.Fuzz(func(t *testing.T, b []byte) {
		bars, err := Decode(b)
		if err != nil {
			return
		}
		if len(bars) < 1 || len(bars) > MaxBars {
			t.Fatalf("Decode gave %d bars", len(bars))
		}
		for _, opts := range allOptions {
			checkRoundTrip(t, bars, opts)
		}
	})
}

// BarAt never panics. On a record Decode accepts it gives Decode's bar at
// a time of the day (pick chooses which) and the one before it, and no bar
// at a time the day lacks; a record Decode refuses it may still read (see
// BarAt) or refuse, with ErrVersion exactly when Decode does.
func FuzzBarAt(f *testing.F) {
	f.Add(record(f, Options{}), uint16(0))
	f.Add(record(f, Options{Deflate: true}), uint16(239))
	f.Fuzz(func(t *testing.T, b []byte, pick uint16) {
		bars, err := Decode(b)
		if err != nil {
			_, _, _, err2 := BarAt(b, int64(pick))
			if err2 != nil && !errors.Is(err2, ErrCorrupt) && !errors.Is(err2, ErrVersion) {
				t.Fatalf("BarAt: %v", err2)
			}
			if errors.Is(err, ErrVersion) != errors.Is(err2, ErrVersion) {
				t.Fatalf("Decode: %v; BarAt: %v", err, err2)
			}
			return
		}
		i := int(pick) % len(bars)
		for j := range i {
			if bars[j].TS == bars[i].TS {
				i = j // the first bar of its time
				break
			}
		}
		var wantPrev market.Bar
		if i > 0 {
			wantPrev = bars[i-1]
		}
		got, prev, ok, err := BarAt(b, bars[i].TS)
		if err != nil || !ok || !sameBits(got, bars[i]) || !sameBits(prev, wantPrev) {
			t.Fatalf("BarAt(bar %d) = %+v after %+v, %v, %v; Decode gives %+v after %+v", i, got, prev, ok, err, bars[i], wantPrev)
		}
		if len(bars) <= 32 {
			checkBarAt(t, b, bars)
		}
	})
}

// Bars made from the fuzzer's bytes (prices in cents or any float64,
// NaN, -0 and infinities, wild times and volumes) come back bit for bit.
func FuzzRoundTrip(f *testing.F) {
	f.Add([]byte{0})
	f.Add([]byte{239, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15})
	f.Fuzz(func(t *testing.T, b []byte) {
		bars := generate(b)
		for _, opts := range allOptions {
			checkRoundTrip(t, bars, opts)
		}
	})
}

// source hands out the fuzzer's bytes, zeros once they run out.
type source []byte

func (s *source) byte() byte {
	if len(*s) == 0 {
		return 0
	}
	v := (*s)[0]
	*s = (*s)[1:]
	return v
}

func (s *source) uint64() uint64 {
	var b [8]byte
	for i := range b {
		b[i] = s.byte()
	}
	return binary.LittleEndian.Uint64(b[:])
}

var specials = []float64{market.Unknown(), math.Copysign(0, -1), 0, math.Inf(1), math.Inf(-1),
	math.Float64frombits(0x7ff0_0000_0000_0001), math.MaxFloat64, math.SmallestNonzeroFloat64, 1e-5, 0.1 + 0.2}

// value draws a float: mostly a store price near prev (cents or
// ten-thousandths), sometimes a special or any float64 bits.
func (s *source) value(prev float64) float64 {
	k := s.byte()
	switch k % 8 {
	case 0, 1, 2:
		return prev
	case 3:
		return specials[int(k/8)%len(specials)]
	case 4:
		return math.Float64frombits(s.uint64())
	case 5:
		return float64(int64(s.byte())*100-12800) / priceScale // a tick in cents
	default:
		u, ok := storeUnits(prev)
		if !ok {
			u = 100_000
		}
		return float64(u+int64(int8(s.byte()))*100) / priceScale
	}
}

func generate(b []byte) []market.Bar {
	s := source(b)
	n := 1 + int(s.byte())%250
	day := market.Day(20260000 + int(s.byte()))
	bars := make([]market.Bar, n)
	ts := day.At(9, 30, 0).Unix()
	prev := market.Bar{Open: 10, High: 10, Low: 10, Close: 10, Amount: 1e6, TurnoverRate: 0.01, LargeOrderNet: market.Unknown()}
	for i := range bars {
		switch k := s.byte(); k % 4 {
		case 0:
			ts += 60
		case 1:
			ts = int64(s.uint64())
		default:
			ts += int64(k) * 60
		}
		v := prev.Volume
		if k := s.byte(); k%2 == 0 {
			v = int64(k) * 100
		} else if k%3 == 0 {
			v = int64(s.uint64())
		}
		bar := market.Bar{Day: day, TS: ts, Volume: v,
			Open: s.value(prev.Open), High: s.value(prev.High), Low: s.value(prev.Low), Close: s.value(prev.Close),
			Amount: s.value(prev.Amount), TurnoverRate: s.value(prev.TurnoverRate), LargeOrderNet: s.value(prev.LargeOrderNet)}
		bars[i], prev = bar, bar
	}
	return bars
}
