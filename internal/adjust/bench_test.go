package adjust_test

import (
	"testing"

	"mdqs/internal/adjust"
	"mdqs/internal/market"
)

// BenchmarkApply maps 000001's 7,226 daily bars (1991-2021) with its real
// events, against the same schedule without its exact maps (float
// rounding only, the method before issue 32) as the baseline. The exact
// maps are made on the first midpoint: fresh is a new schedule each time,
// as a request makes one; warm reuses one.
func BenchmarkApply(b *testing.B) {
	events := eventsOf(b, "000001.SZ")
	bars := barsOf(b, "raw/rustdx-2021/sz000001.day")
	year := bars[len(bars)-250:]
	dst := make([]market.Bar, len(bars))
	for _, mode := range []adjust.Mode{adjust.QFQ, adjust.HFQ} {
		anchor := bars[len(bars)-1].Day
		if mode == adjust.HFQ {
			anchor = bars[0].Day
		}
		for _, set := range []struct {
			name string
			bars []market.Bar
		}{{"all", bars}, {"year", year}} {
			b.Run(mode.String()+"/"+set.name+"/float", func(b *testing.B) {
				s := factors(b, events, mode, anchor)
				plain := adjust.Schedule{Mode: s.Mode, Anchor: s.Anchor, Steps: s.Steps}
				for b.Loop() {
					plain.ApplyTo(dst, set.bars)
				}
			})
			b.Run(mode.String()+"/"+set.name+"/exact-fresh", func(b *testing.B) {
				for b.Loop() {
					s, _ := adjust.Factors(events, mode, anchor)
					s.ApplyTo(dst, set.bars)
				}
			})
			b.Run(mode.String()+"/"+set.name+"/exact-warm", func(b *testing.B) {
				s := factors(b, events, mode, anchor)
				for b.Loop() {
					s.ApplyTo(dst, set.bars)
				}
			})
		}
	}
	b.Run("factors", func(b *testing.B) {
		for b.Loop() {
			_, _ = adjust.Factors(events, adjust.HFQ, bars[0].Day)
		}
	})
}
