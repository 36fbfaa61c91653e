package minutepack

import (
	"testing"

	"mdqs/internal/market"
)

var allOptions = []Options{{}, {Deflate: true}}

// Every day of the real terminal file comes back exactly, smaller than
// the plain varints, and deflate, when it is chosen, is smaller
// still.
func TestRoundTripLC1(t *testing.T) {
	days := lc1Days(t)
	if len(days) != 12 {
		t.Fatalf("sh688001.lc1 has %d days, want 12", len(days))
	}
	checkSources(t, days)
}

// Demo days carry a turnover of 2 decimals and a large-order net: a few
// hundred stock-days of 1-minute bars, and 5-minute ones through the same
// layout.
func TestRoundTripDemo(t *testing.T) {
	for _, freq := range []market.Freq{market.Min1, market.Min5} {
		t.Run(string(freq), func(t *testing.T) {
			days := demoDays(t, freq, 50, 6)
			if len(days) < 200 {
				t.Fatalf("%d demo stock-days, want a few hundred", len(days))
			}
			checkSources(t, days)
		})
	}
}

func checkSources(t *testing.T, days [][]market.Bar) {
	t.Helper()
	var plain, packed, deflated int
	for _, bars := range days {
		raw := checkRoundTrip(t, bars, Options{})
		z := checkRoundTrip(t, bars, Options{Deflate: true})
		h, err := Info(z)
		if err != nil {
			t.Fatal(err)
		}
		if h.Deflated != (len(z) < len(raw)) {
			t.Errorf("%v: deflated %v with %d bytes against %d without", bars[0].Day, h.Deflated, len(z), len(raw))
		}
		if h.Bars != len(bars) || h.Day != bars[0].Day || h.Version != Version {
			t.Errorf("Info = %+v, want %d bars of %v", h, len(bars), bars[0].Day)
		}
		plain += len(plainVarints(bars))
		packed += len(raw)
		deflated += len(z)
	}
	if packed >= plain {
		t.Errorf("packed %d bytes, plain varints %d: want fewer", packed, plain)
	}
	if deflated > packed {
		t.Errorf("deflated %d bytes, packed %d: want no more", deflated, packed)
	}
}
