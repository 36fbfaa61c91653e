package api

import (
	"context"
	"encoding/json"
	"errors"
	"math"
	"net/http"
	"testing"

	"mdqs/db"
	"mdqs/internal/archive"
	"mdqs/internal/market"
	"mdqs/internal/tdx"
)

// With a terminal folder, the quality answer carries its two comparisons,
// each naming its sides and sources, with the per-field shape of "fields"
// (rate, tolerance, worst as a list, never null): here the terminal's
// .day close of one code is a cent above the stored daily bar, and
// another's 10:01 minute closes 3 cents above the archive's.
func TestQualityComparesTheTerminalEndpoint(t *testing.T) {
	ctx := context.Background()
	const day = market.Day(20261123)
	dir := t.TempDir()
	h, tok := afterTheClose(t, withArchiveTerminal(dir))
	if _, err := h.api.Archive.Run(ctx, archive.Request{Day: day}); err != nil {
		t.Fatal(err)
	}
	code := market.MustCode("600519.SH")
	daily, err := h.demo.Klines(ctx, code, market.Daily, day, day)
	if err != nil || len(daily) != 1 {
		t.Fatalf("daily: %d, %v", len(daily), err)
	}
	mins, err := h.demo.Klines(ctx, code, market.Min1, day, day)
	if err != nil || len(mins) != 240 {
		t.Fatalf("minutes: %d, %v", len(mins), err)
	}
	if _, err := h.store.IngestBars(ctx, []db.BarBatch{{Code: code, Freq: market.Daily, Source: "push2his", Bars: daily}}); err != nil {
		t.Fatal(err)
	}
	onFile := []market.Bar{daily[0]}
	onFile[0].Close += 0.01
	onFile[0].High = max(onFile[0].High, onFile[0].Close)
	if err := errors.Join(tdx.WriteBars(dir, code, tdx.KindDay, onFile), tdx.WriteBars(dir, code, tdx.KindLC1, mins)); err != nil {
		t.Fatal(err)
	}
	other := market.MustCode("000001.SZ")
	otherDaily, err := h.demo.Klines(ctx, other, market.Daily, day, day)
	if err != nil || len(otherDaily) != 1 {
		t.Fatalf("daily: %d, %v", len(otherDaily), err)
	}
	otherMins, err := h.demo.Klines(ctx, other, market.Min1, day, day)
	if err != nil || len(otherMins) != 240 {
		t.Fatalf("minutes: %d, %v", len(otherMins), err)
	}
	if _, err := h.store.IngestBars(ctx, []db.BarBatch{{Code: other, Freq: market.Daily, Source: "push2his", Bars: otherDaily}}); err != nil {
		t.Fatal(err)
	}
	archived := otherMins[30].Close
	otherMins[30].Close += 0.03
	otherMins[30].High = max(otherMins[30].High, otherMins[30].Close)
	if err := errors.Join(tdx.WriteBars(dir, other, tdx.KindDay, otherDaily), tdx.WriteBars(dir, other, tdx.KindLC1, otherMins)); err != nil {
		t.Fatal(err)
	}

	r := h.signed(http.MethodGet, "/v1/api/quality?date=2026-11-23", tok, nil)
	r.expect(t, 200, "OK")
	type worst struct {
		Code       string   `json:"code"`
		A          float64  `json:"a"`
		B          float64  `json:"b"`
		OffPct     *float64 `json:"off_pct"`
		ASource    string   `json:"a_source"`
		BSource    string   `json:"b_source"`
		Time       *string  `json:"time"`
		MinutesOff *int     `json:"minutes_off"`
	}
	var q struct {
		TerminalError *string `json:"terminal_error"`
		Comparisons   []struct {
			Name, A, B string
			Compared   int `json:"compared"`
			SameSource int `json:"same_source"`
			Sources    struct {
				A map[string]int `json:"a"`
				B map[string]int `json:"b"`
			} `json:"sources"`
			Fields []struct {
				Field     string            `json:"field"`
				Compared  int               `json:"compared"`
				Disagree  int               `json:"disagree"`
				Rate      *float64          `json:"rate"`
				Tolerance string            `json:"tolerance"`
				Worst     []json.RawMessage `json:"worst"`
			} `json:"fields"`
		} `json:"comparisons"`
	}
	if err := json.Unmarshal(r.data, &q); err != nil {
		t.Fatal(err)
	}
	if q.TerminalError != nil || len(q.Comparisons) != 2 {
		t.Fatalf("quality: %s", r.data)
	}
	days, minutes := q.Comparisons[0], q.Comparisons[1]
	if days.Name != "terminal_day" || minutes.Name != "terminal_minutes" || days.A == "" || days.B == "" ||
		days.Compared != 2 || minutes.Compared != 2 || days.Sources.A["tdx"] != 2 || days.Sources.B["push2his"] != 2 ||
		minutes.Sources.B["demo"] != 2 || len(days.Fields) != 6 || len(minutes.Fields) != 6 {
		t.Fatalf("comparisons: %s", r.data)
	}
	for _, f := range minutes.Fields {
		if f.Field == "close" || f.Field == "high" {
			continue
		}
		if f.Compared != 2 || f.Disagree != 0 || f.Rate == nil || *f.Rate != 0 || f.Worst == nil || len(f.Worst) != 0 {
			t.Fatalf("the archive's own minutes disagree on %s: %s", f.Field, r.data)
		}
	}
	minuteClose := minutes.Fields[3]
	var mw worst
	if minuteClose.Field != "close" || minuteClose.Disagree != 1 || minuteClose.Rate == nil || *minuteClose.Rate != 0.5 ||
		len(minuteClose.Worst) != 1 || json.Unmarshal(minuteClose.Worst[0], &mw) != nil {
		t.Fatalf("the minutes' close: %s", r.data)
	}
	if mw.Code != "000001.SZ" || mw.B != archived || math.Abs(mw.A-archived-0.03) > 1e-6 || mw.Time == nil ||
		*mw.Time != "2026-11-23 10:01:00" || mw.MinutesOff == nil || *mw.MinutesOff != 1 || mw.ASource != "tdx" || mw.BSource != "demo" {
		t.Fatalf("the worst minute: %s", minuteClose.Worst[0])
	}
	closeField := days.Fields[3]
	if closeField.Field != "close" || closeField.Disagree != 1 || closeField.Rate == nil || *closeField.Rate != 0.5 ||
		closeField.Tolerance != "0.001 yuan" || len(closeField.Worst) != 1 {
		t.Fatalf("the days' close: %s", r.data)
	}
	var w worst
	if err := json.Unmarshal(closeField.Worst[0], &w); err != nil {
		t.Fatal(err)
	}
	if w.Code != "600519.SH" || math.Abs(w.A-w.B-0.01) > 1e-9 || w.B != daily[0].Close || w.OffPct == nil || *w.OffPct <= 0 ||
		w.ASource != "tdx" || w.BSource != "push2his" || w.Time != nil || w.MinutesOff != nil {
		t.Fatalf("the worst close: %s", closeField.Worst[0])
	}
}
