package api

import (
	"context"
	"encoding/json"
	"math"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"mdqs/internal/indicator"
	"mdqs/internal/kline"
	"mdqs/internal/market"
)

type klineRow map[string]any

type klineAnswer struct {
	Code            string     `json:"code"`
	Freq            string     `json:"freq"`
	FinalThrough    string     `json:"final_through"`
	ProvisionalRows int        `json:"provisional_rows"`
	RealtimeAsOf    *string    `json:"realtime_as_of"`
	Indicators      []string   `json:"indicators"`
	Rows            []klineRow `json:"rows"`
	// with_realtime
	Page      int  `json:"page"`
	FromCache bool `json:"from_cache"`
	HasMore   bool `json:"has_more"`
}

func (h *harness) kline(t *testing.T, tok, path string) (response, klineAnswer) {
	t.Helper()
	r := h.signed(http.MethodGet, path, tok, nil)
	var a klineAnswer
	if r.status == 200 {
		if err := json.Unmarshal(r.data, &a); err != nil {
			t.Fatalf("%s: %v", path, err)
		}
	}
	return r, a
}

func num(r klineRow, k string) float64 {
	v, ok := r[k].(float64)
	if !ok {
		return math.NaN()
	}
	return v
}

func klineClient(t *testing.T) (*harness, string) {
	h := newHarness(t)
	h.addClient("c", "secret-c", clientOpts{scopes: "kline"})
	return h, h.token("c", "secret-c")
}

func TestKlineParameterErrors(t *testing.T) {
	h, tok := klineClient(t)
	base := "/v1/api/kline?code=600519.SH&freq=D&start=2026-11-02&end=2026-11-20"
	for _, tt := range []struct {
		path    string
		status  int
		message string
		detail  string
	}{
		{"/v1/api/kline?freq=D&start=2026-11-02&end=2026-11-20", 400, "missing or invalid params", "code is required"},
		{"/v1/api/kline?code=600519.SH&start=2026-11-02&end=2026-11-20", 400, "missing or invalid params", "freq is required"},
		{"/v1/api/kline?code=600519.SH&freq=D&end=2026-11-20", 400, "missing or invalid params", "start is required"},
		{"/v1/api/kline?code=600519.SH&freq=D&start=2026-11-02", 400, "missing or invalid params", "end is required"},
		{strings.Replace(base, "600519.SH", "60051", 1), 400, "missing or invalid params", "code"},
		{strings.Replace(base, "freq=D", "freq=1h", 1), 400, "missing or invalid params", "freq"},
		{strings.Replace(base, "start=2026-11-02", "start=2026-13-02", 1), 400, "missing or invalid params", "start"},
		{strings.Replace(base, "start=2026-11-02", "start=2026-11-21", 1), 400, "missing or invalid params", "after end"},
		{base + "&adj=qfq", 400, "parameter error", "qfq"},
		{base + "&adj=hfq", 400, "parameter error", "hfq"},
		{base + "&adj=forward", 400, "missing or invalid params", "adj"},
		{base + "&fields=close,vwap", 400, "missing or invalid params", `unknown field "vwap"`},
		{base + "&indicators=ma5,foo", 400, "missing or invalid params", "foo"},
		{base + "&indicators=ma0", 400, "missing or invalid params", "ma0"},
		{"/v1/api/kline?code=600519.SH&freq=1m&start=2016-01-01&end=2026-11-20", 400, "missing or invalid params", "narrow"},
		{strings.Replace(base, "600519.SH", "605999.SH", 1), 404, "not found", ""},
	} {
		r := h.signed(http.MethodGet, tt.path, tok, nil)
		r.expect(t, tt.status, tt.message)
		if !strings.Contains(r.detail, tt.detail) {
			t.Errorf("%s: detail %q, want it to contain %q", tt.path, r.detail, tt.detail)
		}
	}
	h.signed(http.MethodGet, base+"&adj=none", tok, nil).expect(t, 200, "OK")
}

func TestKlineCodeFormsAndFieldsSubset(t *testing.T) {
	h, tok := klineClient(t)
	var first []byte
	for _, code := range []string{"600519.SH", "600519", "sh600519", "600519.sh", "1.600519"} {
		r, a := h.kline(t, tok, "/v1/api/kline?freq=D&start=20261102&end=20261120&code="+url.QueryEscape(code))
		if r.status != 200 || a.Code != "600519.SH" || len(a.Rows) != 15 {
			t.Fatalf("code=%s: %d, code %s, %d rows", code, r.status, a.Code, len(a.Rows))
		}
		rows, _ := json.Marshal(a.Rows)
		if first == nil {
			first = rows
		} else if string(rows) != string(first) {
			t.Fatalf("code=%s answered different rows", code)
		}
	}
	_, a := h.kline(t, tok, "/v1/api/kline?code=600519.SH&freq=D&start=2026-11-02&end=2026-11-20&fields=close,volume")
	for _, row := range a.Rows {
		if len(row) != 6 || row["close"] == nil || row["volume"] == nil || row["trade_date"] == nil || row["ts"] == nil ||
			row["time"] == nil || row["provisional"] != false {
			t.Fatalf("fields=close,volume gave row %v", row)
		}
	}
	// Rows keep trade_date and ts; daily bars close at 15:00.
	if a.Rows[0]["trade_date"] != "2026-11-02" || a.Rows[0]["time"] != "2026-11-02 15:00:00" {
		t.Fatalf("first row = %v", a.Rows[0])
	}
}

func TestKlineMatchesTheSourceAndIsNotFetchedTwice(t *testing.T) {
	h, tok := klineClient(t)
	code := market.MustCode("600519.SH")
	want, err := h.demo.Klines(context.Background(), code, market.Daily, 20261102, 20261120)
	if err != nil {
		t.Fatal(err)
	}
	_, a := h.kline(t, tok, "/v1/api/kline?code=600519.SH&freq=D&start=2026-11-02&end=2026-11-20")
	if len(a.Rows) != len(want) {
		t.Fatalf("%d rows, the source has %d", len(a.Rows), len(want))
	}
	for i, row := range a.Rows {
		if num(row, "close") != want[i].Close || int64(num(row, "volume")) != want[i].Volume || num(row, "amount") != want[i].Amount {
			t.Fatalf("row %d = %v, source %+v", i, row, want[i])
		}
	}
	// pct is against the previous close, including the bar before start.
	prev, _ := h.demo.Klines(context.Background(), code, market.Daily, 20261030, 20261030)
	if got, exp := num(a.Rows[0], "pct"), math.Round((want[0].Close/prev[0].Close-1)*1e6)/1e4; math.Abs(got-exp) > 1e-4 {
		t.Fatalf("pct of the first row = %v, want %v", got, exp)
	}
	calls := h.demo.Status().Calls
	h.kline(t, tok, "/v1/api/kline?code=600519.SH&freq=D&start=2026-11-05&end=2026-11-19")
	if h.demo.Status().Calls != calls {
		t.Fatal("a range inside the stored coverage was fetched from the source again")
	}
}

func TestKlineIndicatorsAreWarmedUp(t *testing.T) {
	h, tok := klineClient(t)
	_, a := h.kline(t, tok, "/v1/api/kline?code=600519.SH&freq=D&start=2026-11-02&end=2026-11-20&indicators=ma5,ema12,macd")
	if strings.Join(a.Indicators, ",") != "ma5,ema12,macd_dif,macd_dea,macd_hist" {
		t.Fatalf("indicators = %v", a.Indicators)
	}
	// The first row's ma5 is the mean of its close and the four before it,
	// which the answer does not show: fetch them directly.
	bars, _ := h.demo.Klines(context.Background(), market.MustCode("600519.SH"), market.Daily, 20261020, 20261102)
	sum := 0.0
	for _, b := range bars[len(bars)-5:] {
		sum += b.Close
	}
	if got := num(a.Rows[0], "ma5"); math.Abs(got-math.Round(sum/5*1e4)/1e4) > 1e-4 {
		t.Fatalf("first row ma5 = %v, want %v", got, sum/5)
	}
	for _, row := range a.Rows {
		if math.IsNaN(num(row, "ema12")) || math.IsNaN(num(row, "macd_hist")) {
			t.Fatalf("an indicator is null inside the range: %v", row)
		}
	}
}

func TestKlineJoinsTodayWithoutSeamDuplicates(t *testing.T) {
	h, tok := klineClient(t) // Monday 2026-11-23 10:00, inside the session
	_, a := h.kline(t, tok, "/v1/api/kline?code=600519.SH&freq=D&start=2026-11-16&end=2026-11-23")
	n := len(a.Rows)
	if n != 6 || a.Rows[n-1]["trade_date"] != "2026-11-23" || a.Rows[n-1]["provisional"] != true || a.Rows[n-2]["provisional"] != false {
		t.Fatalf("daily rows through today: %d rows, last %v", n, a.Rows[n-1])
	}
	if a.FinalThrough != "2026-11-20" || a.ProvisionalRows != 1 || a.RealtimeAsOf == nil || *a.RealtimeAsOf != "2026-11-23 10:00:00" {
		t.Fatalf("meta: final %s provisional %d as of %v", a.FinalThrough, a.ProvisionalRows, a.RealtimeAsOf)
	}
	// Today's daily bar is today's minutes so far.
	trends, _ := h.demo.Trends(context.Background(), market.MustCode("600519.SH"), 1)
	if last := trends[len(trends)-1]; num(a.Rows[n-1], "close") != last.Close {
		t.Fatalf("today's provisional close %v, the last minute's close %v", num(a.Rows[n-1], "close"), last.Close)
	}
	_, m := h.kline(t, tok, "/v1/api/kline?code=600519.SH&freq=1m&start=2026-11-20&end=2026-11-23")
	var prevTS float64
	final, prov := 0, 0
	for _, row := range m.Rows {
		if ts := num(row, "ts"); ts <= prevTS {
			t.Fatalf("1m rows not strictly increasing at %v", row["time"])
		} else {
			prevTS = ts
		}
		if row["provisional"] == true {
			prov++
		} else {
			final++
		}
	}
	// Friday's 240 final minutes, then today's 30 (09:31 to 10:00).
	if final != 240 || prov != 30 || m.Rows[len(m.Rows)-1]["time"] != "2026-11-23 10:00:00" {
		t.Fatalf("1m: %d final, %d provisional, last %v", final, prov, m.Rows[len(m.Rows)-1]["time"])
	}
	// After the close the day is final and comes from the store.
	h.clock.Set(time.Date(2026, 11, 23, 15, 30, 0, 0, market.Shanghai()))
	tok = h.token("c", "secret-c")
	_, a = h.kline(t, tok, "/v1/api/kline?code=600519.SH&freq=D&start=2026-11-16&end=2026-11-23")
	if n := len(a.Rows); n != 6 || a.Rows[n-1]["provisional"] != false || a.FinalThrough != "2026-11-23" || a.RealtimeAsOf != nil {
		t.Fatalf("after the close: %d rows, last %v, final through %s", n, a.Rows[n-1], a.FinalThrough)
	}
}

func TestWithRealtimePagesMeetExactly(t *testing.T) {
	h, tok := klineClient(t)
	path := "/v1/api/kline/with_realtime?code=000001.SZ&freq=D"
	_, p1 := h.kline(t, tok, path)
	if p1.Page != 1 || len(p1.Rows) != 100 || p1.FromCache || !p1.HasMore || p1.Rows[0]["trade_date"] != "2026-11-23" || p1.Rows[0]["provisional"] != true {
		t.Fatalf("page 1: page %d, %d rows, from cache %v, first %v", p1.Page, len(p1.Rows), p1.FromCache, p1.Rows[0])
	}
	_, again := h.kline(t, tok, path)
	if !again.FromCache {
		t.Fatal("the second page 1 did not come from the first-screen cache")
	}
	_, p2 := h.kline(t, tok, path+"&page=2")
	_, big := h.kline(t, tok, path+"&page_size=200")
	all := append(append([]klineRow{}, p1.Rows...), p2.Rows...)
	if len(p2.Rows) != 100 || len(big.Rows) != 200 {
		t.Fatalf("page 2 has %d rows, page_size=200 has %d", len(p2.Rows), len(big.Rows))
	}
	for i := range all {
		if all[i]["ts"] != big.Rows[i]["ts"] {
			t.Fatalf("row %d: pages 1+2 give %v, one page of 200 gives %v", i, all[i]["time"], big.Rows[i]["time"])
		}
		if i > 0 && num(all[i], "ts") >= num(all[i-1], "ts") {
			t.Fatalf("not newest first at %d", i)
		}
	}
	// pct and trend_strength hold across the seam too.
	if num(all[99], "pct") != num(big.Rows[99], "pct") || num(all[100], "trend_strength") != num(big.Rows[100], "trend_strength") {
		t.Fatal("values differ across the page seam")
	}
	for _, k := range []string{"turnover_rate", "large_order_net", "trend_strength"} {
		if _, ok := p1.Rows[5][k]; !ok {
			t.Fatalf("page rows lack %s", k)
		}
	}
	h.signed(http.MethodGet, path+"&page_size=501", tok, nil).expect(t, 400, "missing or invalid params")
	h.signed(http.MethodGet, path+"&page=0", tok, nil).expect(t, 400, "missing or invalid params")
}

func TestIntradayAndMicroMomentum(t *testing.T) {
	h, tok := klineClient(t)
	r := h.signed(http.MethodGet, "/v1/api/intraday/kline?code=300750.SZ", tok, nil)
	var d struct {
		Day   string     `json:"day"`
		Final bool       `json:"final"`
		Rows  []klineRow `json:"rows"`
	}
	json.Unmarshal(r.data, &d)
	if d.Day != "2026-11-23" || d.Final || len(d.Rows) != 30 || d.Rows[0]["time"] != "2026-11-23 09:31:00" {
		t.Fatalf("intraday 1m: day %s final %v rows %d", d.Day, d.Final, len(d.Rows))
	}
	r = h.signed(http.MethodGet, "/v1/api/intraday/kline?code=300750.SZ&freq=5m", tok, nil)
	json.Unmarshal(r.data, &d)
	if len(d.Rows) != 6 || d.Rows[5]["time"] != "2026-11-23 10:00:00" {
		t.Fatalf("intraday 5m: %d rows", len(d.Rows))
	}
	r = h.signed(http.MethodGet, "/v1/api/indicators/micro_momentum?code=300750.SZ&freq=1m", tok, nil)
	r.expect(t, 200, "OK")
	var mm struct {
		MicroVolRatio float64 `json:"micro_vol_ratio"`
		VolAcc        float64 `json:"vol_acc"`
		Bars          []struct{ Time string }
	}
	json.Unmarshal(r.data, &mm)
	trends, _ := h.demo.Trends(context.Background(), market.MustCode("300750.SZ"), 2)
	want, _ := indicator.MicroMomentum(trends[len(trends)-6:], market.Min1, nil)
	if len(mm.Bars) != 6 || mm.Bars[5].Time != "2026-11-23 10:00:00" || math.Abs(mm.MicroVolRatio-want.MicroVolRatio) > 1e-4 ||
		math.Abs(mm.VolAcc-want.VolAcc) > 1e-4 {
		t.Fatalf("micro momentum 1m = %s, want %+v", r.data, want)
	}
	// Daily momentum comes from the end-of-day snapshot: none yet.
	h.signed(http.MethodGet, "/v1/api/indicators/micro_momentum?code=300750.SZ&freq=D", tok, nil).expect(t, 404, "not found")
	h.signed(http.MethodGet, "/v1/api/indicators/micro_momentum?code=300750.SZ&freq=5m", tok, nil).expect(t, 400, "missing or invalid params")
	h.signed(http.MethodGet, "/v1/api/intraday/kline?code=300750.SZ&freq=D", tok, nil).expect(t, 400, "missing or invalid params")
}

func TestMACDBSIsStableAndMatchesTheMaths(t *testing.T) {
	h, tok := klineClient(t)
	path := "/v1/api/indicators/macd_bs?code=600519.SH&freq=D&start=2026-06-01&end=2026-11-20"
	r := h.signed(http.MethodGet, path, tok, nil)
	r.expect(t, 200, "OK")
	var d struct {
		Points []struct {
			TradeDate string  `json:"trade_date"`
			DIF       float64 `json:"dif"`
			Mark      string  `json:"mark"`
		} `json:"points"`
		Marks []struct{ Mark string } `json:"marks"`
	}
	json.Unmarshal(r.data, &d)
	if len(d.Points) == 0 || d.Points[0].TradeDate != "2026-06-01" || d.Points[len(d.Points)-1].TradeDate != "2026-11-20" {
		t.Fatalf("points %d from %s", len(d.Points), d.Points[0].TradeDate)
	}
	// The same bars through the maths package, with the same warm-up.
	bars, _ := h.demo.Klines(context.Background(), market.MustCode("600519.SH"), market.Daily, 20240101, 20261120)
	first := 0
	for first < len(bars) && bars[first].Day < 20260601 {
		first++
	}
	bars = bars[first-macdWarmup:]
	var out indicator.MACDBS
	if err := indicator.MACDMarks(&out, bars, indicator.DefaultMarkParams()); err != nil {
		t.Fatal(err)
	}
	for i, p := range d.Points {
		j := macdWarmup + i
		if p.Mark != out.Marks[j].String() || math.Abs(p.DIF-math.Round(out.DIF[j]*1e4)/1e4) > 1e-4 {
			t.Fatalf("point %s: mark %q dif %v; the maths say %q %v", p.TradeDate, p.Mark, p.DIF, out.Marks[j].String(), out.DIF[j])
		}
	}
	for _, m := range d.Marks {
		if m.Mark != "B" && m.Mark != "S" && m.Mark != "A" {
			t.Fatalf("mark %q", m.Mark)
		}
	}
	again := h.signed(http.MethodGet, path, tok, nil)
	if string(again.data) != string(r.data) {
		t.Fatal("macd_bs is not stable across requests")
	}
}

func TestEndOfDayFillsSignalsAndChips(t *testing.T) {
	h, tok := klineClient(t)
	h.clock.Set(time.Date(2026, 11, 23, 15, 30, 0, 0, market.Shanghai()))
	tok = h.token("c", "secret-c")
	// The intraday series of a watched code, fetched after the close.
	h.signed(http.MethodGet, "/v1/api/intraday/kline?code=600519.SH", tok, nil).expect(t, 200, "OK")
	if err := h.api.Klines.EndOfDay(context.Background(), h.demo, kline.EODConfig{SeedDays: 130}); err != nil {
		t.Fatal(err)
	}
	// Today's minutes are final in the store now.
	if n, _ := h.store.BarCount(context.Background(), market.MustCode("600519.SH"), market.Min1); n != 240 {
		t.Fatalf("stored 1m bars of the watched code: %d, want today's 240", n)
	}
	r := h.signed(http.MethodGet, "/v1/api/indicators/micro_momentum?code=600519.SH&freq=D", tok, nil)
	r.expect(t, 200, "OK")
	var sig struct {
		TradeDate     string  `json:"trade_date"`
		MicroVolRatio float64 `json:"micro_vol_ratio"`
		TrendStrength float64 `json:"trend_strength"`
	}
	json.Unmarshal(r.data, &sig)
	bars, _ := h.demo.Klines(context.Background(), market.MustCode("600519.SH"), market.Daily, 20261101, 20261123)
	want, _ := indicator.MicroMomentum(bars, market.Daily, nil)
	if sig.TradeDate != "2026-11-23" || math.Abs(sig.MicroVolRatio-want.MicroVolRatio) > 1e-4 {
		t.Fatalf("daily momentum = %s, want %+v", r.data, want)
	}
	r = h.signed(http.MethodGet, "/v1/api/monitor/chip_metrics?sort=profit_ratio&order=desc&page_size=10", tok, nil)
	r.expect(t, 200, "OK")
	var chips struct {
		Day        string `json:"day"`
		WindowDays int    `json:"window_days"`
		Total      int    `json:"total"`
		Items      []struct {
			Code        string  `json:"code"`
			Name        string  `json:"name"`
			ProfitRatio float64 `json:"profit_ratio"`
			AvgCost     float64 `json:"avg_cost"`
		} `json:"items"`
	}
	json.Unmarshal(r.data, &chips)
	if chips.Day != "2026-11-23" || chips.WindowDays != 120 || chips.Total < 250 || len(chips.Items) != 10 || chips.Items[0].Name == "" {
		t.Fatalf("chips = day %s window %d total %d items %d", chips.Day, chips.WindowDays, chips.Total, len(chips.Items))
	}
	for i := 1; i < len(chips.Items); i++ {
		if chips.Items[i].ProfitRatio > chips.Items[i-1].ProfitRatio {
			t.Fatal("chip metrics not sorted by profit_ratio descending")
		}
	}
	// One stock against the maths on its own bars.
	code := chips.Items[3].Code
	r = h.signed(http.MethodGet, "/v1/api/monitor/chip_metrics?code="+code+"&window_days=120", tok, nil)
	json.Unmarshal(r.data, &chips)
	own, _ := h.demo.Klines(context.Background(), market.MustCode(code), market.Daily, 20260101, 20261123)
	cm, err := indicator.Chips(own, indicator.ChipParams{Window: 120})
	if err != nil || len(chips.Items) != 1 || math.Abs(chips.Items[0].AvgCost-cm.AvgCost) > 1e-3 {
		t.Fatalf("%s chips = %+v, the maths say avg cost %v (%v)", code, chips.Items, cm.AvgCost, err)
	}
	r = h.signed(http.MethodGet, "/v1/api/monitor/chip_metrics?market=SZ&window_days=60&page=2&page_size=5", tok, nil)
	json.Unmarshal(r.data, &chips)
	if chips.WindowDays != 60 || len(chips.Items) != 5 || !strings.HasSuffix(chips.Items[0].Code, ".SZ") {
		t.Fatalf("market=SZ page 2: %s", r.data)
	}
	h.signed(http.MethodGet, "/v1/api/monitor/chip_metrics?sort=color", tok, nil).expect(t, 400, "invalid sort field")
	h.signed(http.MethodGet, "/v1/api/monitor/chip_metrics?window_days=90", tok, nil).expect(t, 400, "missing or invalid params")
	h.signed(http.MethodGet, "/v1/api/monitor/chip_metrics?market=HK", tok, nil).expect(t, 400, "missing or invalid params")
	// A second run changes nothing.
	if err := h.api.Klines.EndOfDay(context.Background(), h.demo, kline.EODConfig{SeedDays: 130}); err != nil {
		t.Fatal(err)
	}
}
