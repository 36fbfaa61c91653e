package db_test

import (
	"context"
	"math"
	"testing"

	"mdqs/db"
	"mdqs/db/dbtest"
	"mdqs/market"
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
