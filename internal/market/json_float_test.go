package market

import (
	"math"
	"math/rand/v2"
	"strconv"
	"testing"
)

// The fast path must write exactly what strconv writes: prices, amounts,
// indicator values, the edges of its range, and arbitrary doubles.
func TestAppendJSONFloatMatchesStrconv(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	cases := []float64{0, math.Copysign(0, -1), 1, -1, 0.0001, -0.0001, 0.00005, 1e11, -1e11, 99999999999.9999,
		1e11 - 0.0001, 5e10 + 0.0001, 1795.1, 12.34, 12.3400001, 1e-300, 1e300, math.MaxFloat64, math.SmallestNonzeroFloat64,
		0.1 + 0.2, 3.14159, 123456789.1234, 1234567.8901}
	for range 300_000 {
		n := r.Int64N(2_000_000_000_000) - 1_000_000_000_000 // prices and amounts in ten-thousandths
		cases = append(cases, float64(n)/1e4, float64(n)/1e2, math.Round(float64(n)/1e4*100)/100,
			math.Float64frombits(r.Uint64()), r.Float64()*1e12, r.NormFloat64())
	}
	for _, v := range cases {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			continue
		}
		if got, want := string(AppendJSONFloat(nil, v)), strconv.FormatFloat(v, 'f', -1, 64); got != want {
			t.Fatalf("%v (bits %x): %q, strconv %q", v, math.Float64bits(v), got, want)
		}
	}
	if got := string(AppendJSONFloat(nil, math.NaN())); got != "null" {
		t.Errorf("NaN: %q", got)
	}
}

func BenchmarkAppendJSONFloat(b *testing.B) {
	prices := make([]float64, 1024)
	r := rand.New(rand.NewPCG(5, 6))
	for i := range prices {
		prices[i] = float64(r.Int64N(5_000_000)) / 1e4
	}
	b.Run("fast", func(b *testing.B) {
		var buf []byte
		for i := 0; b.Loop(); i++ {
			buf = AppendJSONFloat(buf[:0], prices[i%len(prices)])
		}
	})
	b.Run("strconv", func(b *testing.B) {
		var buf []byte
		for i := 0; b.Loop(); i++ {
			buf = strconv.AppendFloat(buf[:0], prices[i%len(prices)], 'f', -1, 64)
		}
	})
}
