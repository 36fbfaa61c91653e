package db_test

import (
	"context"
	"math"
	"testing"

	"mdqs/db"
	"mdqs/db/dbtest"
	"mdqs/internal/market"
)

func dayBars(n int) []market.Bar {
	out := make([]market.Bar, n)
	d := market.Day(20260105)
	for i := range out {
		cents := func(c int) float64 { return float64(c) / 100 } // prices are whole cents, as on the exchanges
		out[i] = market.Bar{Day: d, TS: d.At(15, 0, 0).Unix(), Open: cents(1000 + i), High: cents(1050 + i),
			Low: 9.9, Close: cents(1020 + i), Volume: int64(1000 * (i + 1)), Amount: 1.02e4 * float64(i+1),
			TurnoverRate: 1.25, LargeOrderNet: math.NaN()}
		d = d.AddDays(1)
	}
	return out
}

func TestIngestIsIdempotentAndExact(t *testing.T) {
	s := dbtest.Open(t)
	ctx := context.Background()
	code := market.MustCode("600519.SH")
	bars := dayBars(250) // more than one multi-row statement
	c, err := s.IngestBars(ctx, []db.BarBatch{{Code: code, Freq: market.Daily, Source: "demo", Bars: bars,
		Cover: &db.Span{First: bars[0].Day, Last: bars[249].Day}}})
	if err != nil || c.Written != 250 || c.Unchanged != 0 {
		t.Fatalf("first ingest = %+v, %v", c, err)
	}
	c, err = s.IngestBars(ctx, []db.BarBatch{{Code: code, Freq: market.Daily, Source: "demo", Bars: bars}})
	if err != nil || c.Written != 0 || c.Unchanged != 250 {
		t.Fatalf("re-ingest of the same bars = %+v, %v; want nothing written", c, err)
	}
	changed := append([]market.Bar(nil), bars...)
	changed[7].Close = 99.99
	changed[8].LargeOrderNet = 5e6
	c, _ = s.IngestBars(ctx, []db.BarBatch{{Code: code, Freq: market.Daily, Source: "demo", Bars: changed}})
	if c.Written != 2 {
		t.Fatalf("ingest with two changed bars wrote %d", c.Written)
	}
	got, err := s.Bars(ctx, db.BarQuery{Code: code, Freq: market.Daily})
	if err != nil || len(got) != 250 {
		t.Fatalf("Bars = %d, %v", len(got), err)
	}
	for i, b := range got {
		want := changed[i]
		if b.TS != want.TS || b.Day != want.Day || b.Open != want.Open || b.High != want.High || b.Close != want.Close ||
			b.Volume != want.Volume || b.Amount != want.Amount || b.TurnoverRate != want.TurnoverRate {
			t.Fatalf("bar %d = %+v, want %+v", i, b, want)
		}
		if (i == 8) != market.IsKnown(b.LargeOrderNet) {
			t.Fatalf("bar %d LargeOrderNet = %v (NaN must round-trip as unknown)", i, b.LargeOrderNet)
		}
	}
	span, source, ok, err := s.Coverage(ctx, code, market.Daily)
	if err != nil || !ok || span.First != bars[0].Day || span.Last != bars[249].Day || source != "demo" {
		t.Fatalf("Coverage = %+v %s %v %v", span, source, ok, err)
	}
	last, _ := s.Bars(ctx, db.BarQuery{Code: code, Freq: market.Daily, Limit: 3, Newest: true})
	if len(last) != 3 || last[0].TS != bars[249].TS || last[2].TS != bars[247].TS {
		t.Fatalf("newest 3 = %v", last)
	}
	window, _ := s.Bars(ctx, db.BarQuery{Code: code, Freq: market.Daily, FromTS: bars[10].TS, ToTS: bars[12].TS})
	if len(window) != 3 || window[0].TS != bars[10].TS {
		t.Fatalf("range read = %d bars", len(window))
	}
	// Another frequency of the same code is another series.
	if n, _ := s.BarCount(ctx, code, market.Min1); n != 0 {
		t.Fatalf("1m bars of a code with only daily bars: %d", n)
	}
}

// TestIngestMixedMeasures: chunks of one batch whose optional measures are
// all unknown and chunks with some known, in one transaction with a second
// code's batch; then the measures change both ways. Every bar reads back
// as written, in its own series, and only the changed ones count written.
func TestIngestMixedMeasures(t *testing.T) {
	s := dbtest.Open(t)
	ctx := context.Background()
	a, b := market.MustCode("600519.SH"), market.MustCode("000001.SZ")
	bars := dayBars(260) // three statements: 100, 100 and 60 rows
	for i := range bars {
		bars[i].TurnoverRate = math.NaN()
	}
	bars[150].TurnoverRate, bars[151].LargeOrderNet = 0.5, -2e6 // the second chunk binds its measures
	other := dayBars(30)
	c, err := s.IngestBars(ctx, []db.BarBatch{
		{Code: a, Freq: market.Daily, Source: "tdx", Bars: bars, Cover: &db.Span{First: bars[0].Day, Last: bars[259].Day}},
		{Code: b, Freq: market.Min5, Source: "demo", Bars: other, Cover: &db.Span{First: other[0].Day, Last: other[29].Day}},
	})
	if err != nil || c.Written != 290 || c.Unchanged != 0 {
		t.Fatalf("first ingest = %+v, %v", c, err)
	}
	check := func(code market.Code, freq market.Freq, want []market.Bar) {
		t.Helper()
		got, err := s.Bars(ctx, db.BarQuery{Code: code, Freq: freq})
		if err != nil || len(got) != len(want) {
			t.Fatalf("%s %s: %d bars, %v; want %d", code, freq, len(got), err, len(want))
		}
		same := func(x, y float64) bool { return x == y || (math.IsNaN(x) && math.IsNaN(y)) }
		for i, g := range got {
			w := want[i]
			if g.TS != w.TS || g.Day != w.Day || g.Open != w.Open || g.High != w.High || g.Low != w.Low || g.Close != w.Close ||
				g.Volume != w.Volume || g.Amount != w.Amount || !same(g.TurnoverRate, w.TurnoverRate) || !same(g.LargeOrderNet, w.LargeOrderNet) {
				t.Fatalf("%s %s bar %d = %+v, want %+v", code, freq, i, g, w)
			}
		}
	}
	check(a, market.Daily, bars)
	check(b, market.Min5, other)
	for _, x := range []struct {
		code   market.Code
		freq   market.Freq
		source string
	}{{a, market.Daily, "tdx"}, {b, market.Min5, "demo"}} {
		if _, source, ok, err := s.Coverage(ctx, x.code, x.freq); err != nil || !ok || source != x.source {
			t.Fatalf("Coverage(%s, %s) source %q, %v, %v", x.code, x.freq, source, ok, err)
		}
		for _, f := range []market.Freq{market.Daily, market.Min1, market.Min5} {
			if n, _ := s.BarCount(ctx, x.code, f); (n != 0) != (f == x.freq) {
				t.Fatalf("%s has %d %s bars", x.code, n, f)
			}
		}
	}
	// Known → unknown in the second chunk, unknown → known in the third.
	changed := append([]market.Bar(nil), bars...)
	changed[150].TurnoverRate = math.NaN()
	changed[230].LargeOrderNet = 7
	c, err = s.IngestBars(ctx, []db.BarBatch{{Code: a, Freq: market.Daily, Source: "tdx", Bars: changed}})
	if err != nil || c.Written != 2 || c.Unchanged != 258 {
		t.Fatalf("ingest with two changed measures = %+v, %v", c, err)
	}
	check(a, market.Daily, changed)
}
