package corpaction_test

import (
	"context"
	"testing"
	"time"

	"mdqs/db"
	"mdqs/db/dbtest"
	"mdqs/internal/adjust"
	"mdqs/internal/corpaction"
	"mdqs/internal/kline"
	"mdqs/internal/market"
	"mdqs/internal/upstream"
)

// fakeAdjusted answers every request with bars, keeping the fqt asked.
type fakeAdjusted struct {
	bars []market.Bar
	fqt  []upstream.Fqt
}

func (f *fakeAdjusted) KlinesAdjusted(_ context.Context, _ market.Code, _ market.Freq, _, _ market.Day, fqt upstream.Fqt) ([]market.Bar, error) {
	f.fqt = append(f.fqt, fqt)
	return f.bars, nil
}

type lastDay market.Day

func (d lastDay) LastCompleteDay() market.Day { return market.Day(d) }

func TestUpstreamUntilActionsAreImported(t *testing.T) {
	store := dbtest.Open(t)
	clock := market.NewFixedClock(time.Date(2026, 11, 23, 10, 0, 0, 0, market.Shanghai()))
	window := market.Window{Start: 9*60 + 25, End: 15 * 60}
	ctx := context.Background()
	code := market.MustCode("600000.SH")

	plain := corpaction.New(store, market.DefaultCalendar(), clock, window)
	if up, err := plain.FromUpstream(ctx); up || err != nil {
		t.Fatalf("without an upstream: FromUpstream = %v, %v", up, err)
	}

	var bars []market.Bar
	for _, d := range []market.Day{20261118, 20261119, 20261120, 20261123} {
		bars = append(bars, market.Bar{Day: d, TS: d.At(15, 0, 0).Unix(), Close: 10})
	}
	src := &fakeAdjusted{bars: bars}
	svc := corpaction.New(store, market.DefaultCalendar(), clock, window).WithUpstream(corpaction.NewUpstream(src, "push2his", lastDay(20261120)))
	if up, err := svc.FromUpstream(ctx); !up || err != nil {
		t.Fatalf("no actions imported: FromUpstream = %v, %v; want true", up, err)
	}
	rng := kline.Range{From: market.Day(20261119).Start(), To: market.Day(20261123).At(23, 59, 59)}
	ser, err := svc.UpstreamSeries(ctx, code, market.Daily, adjust.QFQ, 0, rng)
	if err != nil {
		t.Fatal(err)
	}
	if len(ser.Bars) != 3 || ser.Provisional != 1 || ser.FinalThrough != 20261120 || ser.Anchor != 20261123 ||
		ser.Method != "eastmoney-fqt" || ser.ActionsSource != "eastmoney" || ser.Source != "push2his" || ser.RealtimeAsOf.IsZero() {
		t.Fatalf("qfq series %+v", ser)
	}
	h, err := svc.UpstreamSeries(ctx, code, market.Daily, adjust.HFQ, 0, rng)
	if err != nil || h.Anchor != 0 {
		t.Fatalf("hfq: %v anchor %v; want none", err, h.Anchor)
	}
	if len(src.fqt) != 2 || src.fqt[0] != upstream.FqtQFQ || src.fqt[1] != upstream.FqtHFQ {
		t.Fatalf("fqt asked %v, want [1 2]", src.fqt)
	}
	for _, tt := range []struct {
		mode   adjust.Mode
		anchor market.Day
	}{{adjust.QFQ, 20261112}, {adjust.HFQ, 19991110}} {
		if _, err := svc.UpstreamSeries(ctx, code, market.Daily, tt.mode, tt.anchor, rng); market.KindOf(err) != market.KindInvalid {
			t.Errorf("%v anchor %v: %v, want invalid", tt.mode, tt.anchor, err)
		}
	}
	if len(src.fqt) != 2 {
		t.Errorf("a refused anchor reached the upstream")
	}

	if _, err := store.ReplaceActions(ctx, "tdx", []db.Action{{Code: code, Day: 20240701, Category: 1, F: [4]float64{4, 0, 0, 0}, Source: "tdx"}}); err != nil {
		t.Fatal(err)
	}
	if up, err := svc.FromUpstream(ctx); up || err != nil {
		t.Fatalf("after an import: FromUpstream = %v, %v; want false", up, err)
	}
}
