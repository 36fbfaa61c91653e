package screener_test

import (
	"context"
	"fmt"
	"reflect"
	"testing"
	"time"

	"mdqs/db/dbtest"
	"mdqs/internal/kline"
	"mdqs/internal/market"
	"mdqs/internal/screener"
)

// A frame reading the demo market's history gives the same rows as one
// reading the same bars from the store, and Invalidate reloads the daily
// part (the day's chips and signals, derived after a first screen).
func TestFrameReadsHistoryFromTheSource(t *testing.T) {
	f := newFixture(t, defaultConfig()) // its store holds the demo's bars from 2026-08-01 on
	ctx := context.Background()
	short, err := f.frame.Rows(ctx)
	if err != nil {
		t.Fatal(err)
	}
	// The frame reads 80 days back, to July: give the store them too.
	cal := market.DefaultCalendar()
	window := market.Window{Start: 9*60 + 25, End: 15 * 60}
	svc := kline.NewService(f.store, f.dm, "demo", kline.NewIntraday(f.dm, cal, window, f.clock, kline.IntradayConfig{MaxWatched: 10, RefreshAge: time.Minute}),
		cal, f.clock, kline.Config{Window: window}, quiet())
	var codes []market.Code
	for _, s := range f.dm.Stocks() {
		codes = append(codes, s.Code)
	}
	if _, err := svc.Backfill(ctx, codes, market.Daily, 20260601, 20261120, nil); err != nil {
		t.Fatal(err)
	}
	f.frame.Invalidate()
	fromStore, err := f.frame.Rows(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if fmt.Sprint(short) == fmt.Sprint(fromStore) {
		t.Fatal("Invalidate did not reload the daily part: the longer history changed no EMA")
	}
	frame := screener.NewFrame(dbtest.Open(t), f.dm, nil, nil, market.DefaultCalendar(), f.clock, time.Minute)
	frame.ReadHistoryFrom(f.dm)
	fromHistory, err := frame.Rows(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(fromHistory) == 0 || len(fromHistory) != len(fromStore) {
		t.Fatalf("%d rows from the history, %d from the store", len(fromHistory), len(fromStore))
	}
	for i := range fromStore {
		a, b := fromStore[i], fromHistory[i]
		a.Industry, a.Concepts = b.Industry, b.Concepts // the fixture's frame has membership, this one none
		if fmt.Sprint(a) != fmt.Sprint(b) {             // Sprint: NaN equals NaN
			va, vb := reflect.ValueOf(a), reflect.ValueOf(b)
			for j := range va.NumField() {
				if x, y := va.Field(j).Interface(), vb.Field(j).Interface(); fmt.Sprint(x) != fmt.Sprint(y) {
					t.Errorf("row %d (%s): %s from the store %v, from the history %v", i, a.Code, va.Type().Field(j).Name, x, y)
				}
			}
			t.FailNow()
		}
	}
}
