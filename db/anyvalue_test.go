package db

import (
	"math"
	"testing"
)

// Store.Bars scans into any; each storage class a driver may hand back
// for a numeric column reads as the number, NULL as 0 and NaN.
func TestAnyIntAndFloat(t *testing.T) {
	for _, tt := range []struct {
		v     any
		i     int64
		f     float64
		fnull bool
	}{
		{int64(15000000), 15000000, 15000000, false},
		{float64(1234.0), 1234, 1234, false},
		{float64(2.6), 3, 2.6, false},
		{[]byte("42"), 42, 42, false},
		{"7.5", 0, 7.5, false},
		{"8", 8, 8, false},
		{nil, 0, 0, true},
	} {
		if got := anyInt(tt.v); got != tt.i {
			t.Errorf("anyInt(%#v) = %d, want %d", tt.v, got, tt.i)
		}
		got := anyFloat(tt.v)
		if tt.fnull != math.IsNaN(got) || (!tt.fnull && got != tt.f) {
			t.Errorf("anyFloat(%#v) = %v, want %v (NaN: %v)", tt.v, got, tt.f, tt.fnull)
		}
	}
}
