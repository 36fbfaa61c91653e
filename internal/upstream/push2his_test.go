package upstream

import (
	"context"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"mdqs/internal/market"
)

func checkBar(t *testing.T, got, want market.Bar) {
	t.Helper()
	if got.Day != want.Day || got.TS != want.TS || got.Volume != want.Volume {
		t.Errorf("bar %s: got day %v ts %s vol %d, want %v %s %d", want.Day, got.Day,
			time.Unix(got.TS, 0).In(market.Shanghai()), got.Volume, want.Day, time.Unix(want.TS, 0).In(market.Shanghai()), want.Volume)
	}
	for _, f := range []struct {
		n    string
		g, w float64
	}{
		{"Open", got.Open, want.Open}, {"High", got.High, want.High}, {"Low", got.Low, want.Low}, {"Close", got.Close, want.Close},
		{"Amount", got.Amount, want.Amount}, {"TurnoverRate", got.TurnoverRate, want.TurnoverRate},
		{"LargeOrderNet", got.LargeOrderNet, want.LargeOrderNet},
	} {
		checkF(t, want.Day.String()+" "+f.n, f.g, f.w)
	}
}

func day(s string) market.Day {
	d, err := market.ParseDay(s)
	if err != nil {
		panic(err)
	}
	return d
}

func at(d string, hh, mm int) int64 { return day(d).At(hh, mm, 0).Unix() }

func TestKlinesDaily(t *testing.T) {
	for _, tc := range []struct {
		name, file, code string
		from, to         market.Day
		secid, beg, end  string
		n                int
		first            market.Bar
	}{
		{"11 fields, pretty-printed", "push2his_kline_daily_601872_2024-12.json", "601872.SH", 0, 0, "1.601872", "0", "20500101", 10,
			market.Bar{Day: day("2024-12-18"), TS: at("2024-12-18", 15, 0), Open: 6.11, Close: 6.18, High: 6.28, Low: 6.10,
				Volume: 84274300, Amount: 542829495, TurnoverRate: 1.03, LargeOrderNet: nan}},
		{"range filter", "push2his_kline_daily_601872_2024-12.json", "601872.SH", day("2024-12-19"), day("2024-12-30"), "1.601872", "20241219", "20241230", 8,
			market.Bar{Day: day("2024-12-19"), TS: at("2024-12-19", 15, 0), Open: 6.15, Close: 6.09, High: 6.16, Low: 6.03,
				Volume: 52878100, Amount: 333859220, TurnoverRate: 0.65, LargeOrderNet: nan}},
		{"8 fields (fields2 subset), index", "push2his_kline_daily_000300_lmt3_2026-10-01.json", "000300.SH", 0, 0, "1.000300", "0", "20500101", 3,
			market.Bar{Day: day("2026-09-28"), TS: at("2026-09-28", 15, 0), Open: 4423.82, Close: 4340.76, High: 4423.82, Low: 4323.57,
				Volume: 17127737300, Amount: 428620471197.90, TurnoverRate: nan, LargeOrderNet: nan}},
		{"fields1 to f13 (prePrice, qtMiscType)", "push2his_kline_daily_688147_fqt1_2023-02-02.json", "688147.SH", 0, 0, "1.688147", "0", "20500101", 1,
			market.Bar{Day: day("2023-02-02"), TS: at("2023-02-02", 15, 0), Open: 33.01, Close: 38.10, High: 38.10, Low: 32.60,
				Volume: 7975600, Amount: 289881743, TurnoverRate: 21.22, LargeOrderNet: nan}},
		{"bare data shape, SZ secid", "push2his_kline_daily_000725_2026-07_abridged.json", "000725.SZ", 0, 0, "0.000725", "0", "20500101", 5,
			market.Bar{Day: day("2026-07-06"), TS: at("2026-07-06", 15, 0), Open: 8.21, Close: 7.76, High: 8.52, Low: 7.74,
				Volume: 3708742100, Amount: 29710846049.61, TurnoverRate: 10.49, LargeOrderNet: nan}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv, rec := stub(t, func(w http.ResponseWriter, r *http.Request, _ int) {
				write(w, 200, jsonCT, fixture(t, tc.file))
			})
			bars, err := newTestHis(t, srv.URL).Klines(context.Background(), market.MustCode(tc.code), market.Daily, tc.from, tc.to)
			if err != nil {
				t.Fatal(err)
			}
			q := rec.req(0).URL.Query()
			if rec.req(0).URL.Path != "/api/qt/stock/kline/get" || q.Get("secid") != tc.secid || q.Get("klt") != "101" || q.Get("fqt") != "0" ||
				q.Get("beg") != tc.beg || q.Get("end") != tc.end || q.Get("fields2") != "f51,f52,f53,f54,f55,f56,f57,f58,f59,f60,f61" {
				t.Errorf("request %s", rec.req(0).URL)
			}
			if len(bars) != tc.n {
				t.Fatalf("%d bars, want %d", len(bars), tc.n)
			}
			checkBar(t, bars[0], tc.first)
		})
	}
}

func TestKlinesMinute(t *testing.T) {
	srv, rec := stub(t, func(w http.ResponseWriter, r *http.Request, _ int) {
		file := map[string]string{"1": "made_push2his_kline_min1_601872_2024-12-31.json", "5": "made_push2his_kline_min5_601872_2024-12-31.json"}
		write(w, 200, jsonCT, fixture(t, file[r.URL.Query().Get("klt")]))
	})
	c := newTestHis(t, srv.URL)
	code := market.MustCode("601872.SH")

	bars, err := c.Klines(context.Background(), code, market.Min1, day("2024-12-31"), day("2024-12-31"))
	if err != nil {
		t.Fatal(err)
	}
	q := rec.req(0).URL.Query()
	if q.Get("klt") != "1" || q.Get("beg") != "0" || q.Get("end") != "20500101" || rec.req(0).Header.Get("Referer") != "https://quote.eastmoney.com/sh601872.html" {
		t.Errorf("request %s %v", rec.req(0).URL, rec.req(0).Header)
	}
	// The 09:30 auction row is folded into the 09:31 bar.
	if len(bars) != 2 {
		t.Fatalf("%d bars, want 2 (09:31 with the auction, 09:32)", len(bars))
	}
	d := day("2024-12-31")
	checkBar(t, bars[0], market.Bar{Day: d, TS: at("2024-12-31", 9, 31), Open: 6.29, High: 6.30, Low: 6.26, Close: 6.27,
		Volume: (4810 + 12034) * 100, Amount: 3025490 + 7557352, TurnoverRate: 0.02, LargeOrderNet: nan})
	checkBar(t, bars[1], market.Bar{Day: d, TS: at("2024-12-31", 9, 32), Open: 6.27, High: 6.27, Low: 6.24, Close: 6.25,
		Volume: 987700, Amount: 6170154, TurnoverRate: 0.01, LargeOrderNet: nan})

	all, err := c.Klines(context.Background(), code, market.Min1, 0, 0)
	if err != nil || len(all) != 4 || all[1].TS != at("2024-12-30", 15, 0) || all[1].Day != day("2024-12-30") {
		t.Fatalf("open range: %v, %d bars", err, len(all))
	}

	five, err := c.Klines(context.Background(), code, market.Min5, 0, 0)
	if err != nil || len(five) != 3 {
		t.Fatalf("5m: %v, %d bars", err, len(five))
	}
	checkBar(t, five[0], market.Bar{Day: d, TS: at("2024-12-31", 9, 35), Open: 6.29, High: 6.30, Low: 6.24, Close: 6.25,
		Volume: 6120000, Amount: 38361680, TurnoverRate: 0.08, LargeOrderNet: nan})
	if five[2].TS != at("2024-12-31", 15, 0) {
		t.Errorf("last 5m bar at %v", time.Unix(five[2].TS, 0))
	}
}

func TestKlinesBroken(t *testing.T) {
	for _, tc := range []struct {
		name, file, code string
		kind             Kind
		attempts         int
		field            string
	}{
		{"real truncated JSONP, retried", "push2his_kline_daily_000300_fqt1_2025-09-02_truncated.jsonp.txt", "000300.SH", KindTruncated, 3, ""},
		{"rc 100 data null", "push2his_trends2_error_rc100_data_null.json", "601872.SH", KindRC, 1, ""},
		{"throttled: no bars, dktotal 0", "made_push2his_kline_empty_dktotal0.json", "601872.SH", KindEmpty, 1, ""},
		{"data null rc 0", "made_push2_clist_data_null.json", "601872.SH", KindEmpty, 1, ""},
		{"dash in high", "made_push2his_kline_601872_dash_high.json", "601872.SH", KindSchema, 1, "data.klines[1]"},
		{"klines renamed", "made_push2his_kline_601872_renamed_klines.json", "601872.SH", KindSchema, 1, "data.klines"},
		{"reply for another code", "push2his_kline_daily_601872_2024-12.json", "600000.SH", KindSchema, 1, "data.code"},
		{"HTML", "made_nginx_502.html", "601872.SH", KindHTML, 1, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv, _ := stub(t, func(w http.ResponseWriter, r *http.Request, _ int) {
				write(w, 200, jsonCT, fixture(t, tc.file))
			})
			bars, err := newTestHis(t, srv.URL).Klines(context.Background(), market.MustCode(tc.code), market.Daily, 0, 0)
			e := wantErr(t, err, tc.kind, tc.attempts, tc.field)
			if bars != nil || e.Source != "push2his" || e.Path != "/api/qt/stock/kline/get" {
				t.Errorf("bars %v, source %q path %q", bars, e.Source, e.Path)
			}
			if tc.kind == KindRC && e.RC != 100 {
				t.Errorf("rc %d", e.RC)
			}
		})
	}
}

// No bars in the window, but the security has history: a legitimate empty
// answer.
func TestKlinesEmptyWindow(t *testing.T) {
	srv, _ := stub(t, func(w http.ResponseWriter, r *http.Request, _ int) {
		write(w, 200, jsonCT, []byte(`{"rc":0,"data":{"code":"601872","dktotal":4621,"klines":[]}}`))
	})
	bars, err := newTestHis(t, srv.URL).Klines(context.Background(), market.MustCode("601872.SH"), market.Daily, day("2024-10-01"), day("2024-10-07"))
	if err != nil || bars == nil || len(bars) != 0 {
		t.Errorf("bars %v err %v", bars, err)
	}
}

func TestKlinesInvalidArgs(t *testing.T) {
	c := newTestHis(t, "http://127.0.0.1:1")
	for _, call := range []func() error{
		func() error {
			_, err := c.Klines(context.Background(), market.MustCode("601872.SH"), "15m", 0, 0)
			return err
		},
		func() error { _, err := c.Klines(context.Background(), market.Code{}, market.Daily, 0, 0); return err },
		func() error {
			_, err := c.Klines(context.Background(), market.Code{Symbol: "601872", Exchange: "HK"}, market.Daily, 0, 0)
			return err
		},
		func() error { _, err := c.Trends(context.Background(), market.MustCode("300059.SZ"), 6); return err },
	} {
		if err := call(); market.KindOf(err) != market.KindInvalid {
			t.Errorf("err %v, want invalid", err)
		}
	}
	if st := c.Status(); st.Calls != 0 || st.Requests != 0 {
		t.Errorf("invalid arguments reached the upstream: %+v", st)
	}
}

func TestSecid(t *testing.T) {
	for code, want := range map[string]string{"600519.SH": "1.600519", "000300.SH": "1.000300", "000001.SZ": "0.000001",
		"300059.SZ": "0.300059", "830799.BJ": "0.830799", "920118.BJ": "0.920118"} {
		if got, err := secid(market.MustCode(code)); err != nil || got != want {
			t.Errorf("secid(%s) = %q, %v; want %q", code, got, err, want)
		}
	}
	if p := quotePage(market.MustCode("830799.BJ")); p != "https://quote.eastmoney.com/bj/830799.html" {
		t.Errorf("BJ referer %q", p)
	}
}

func TestFundFlowDaily(t *testing.T) {
	srv, rec := stub(t, func(w http.ResponseWriter, r *http.Request, n int) {
		if n == 1 {
			write(w, 200, jsonCT, fixture(t, "made_push2his_fflow_daykline_000725_2026-07.json"))
			return
		}
		write(w, 200, jsonCT, fixture(t, "push2his_fflow_daykline_000725_2026-07-10_abridged.json"))
	})
	c := newTestHis(t, srv.URL)
	code := market.MustCode("000725.SZ")
	days, err := c.FundFlowDaily(context.Background(), code, 0, 0)
	if err != nil {
		t.Fatal(err)
	}
	q := rec.req(0).URL.Query()
	if rec.req(0).URL.Path != "/api/qt/stock/fflow/daykline/get" || q.Get("secid") != "0.000725" || q.Get("klt") != "101" || q.Get("lmt") != "0" {
		t.Errorf("request %s", rec.req(0).URL)
	}
	if len(days) != 3 {
		t.Fatalf("%d days", len(days))
	}
	want := FundFlowDay{Day: day("2026-07-10"), MainNet: -5088655104, SmallNet: 4058282752, MediumNet: 1030372352, LargeNet: -1231041536,
		SuperNet: -3857613568, MainPct: -16.81, SmallPct: 13.40, MediumPct: 3.40, LargePct: -4.07, SuperPct: -12.74, Close: 7.59, Pct: -6.87}
	checkFlow(t, days[1], want)
	// "-" everywhere but close and pct.
	checkFlow(t, days[2], FundFlowDay{Day: day("2026-07-13"), MainNet: nan, SmallNet: nan, MediumNet: nan, LargeNet: nan, SuperNet: nan,
		MainPct: nan, SmallPct: nan, MediumPct: nan, LargePct: nan, SuperPct: nan, Close: 7.61, Pct: 0.26})

	// The real 13-field row, in the bare {"data":{"klines":…}} shape.
	real, err := c.FundFlowDaily(context.Background(), code, day("2026-07-10"), day("2026-07-10"))
	if err != nil || len(real) != 1 {
		t.Fatalf("real row: %v %d", err, len(real))
	}
	checkFlow(t, real[0], want)

	bars := []market.Bar{{Day: day("2026-07-09"), LargeOrderNet: nan}, {Day: day("2026-07-10"), LargeOrderNet: nan}, {Day: day("2026-07-14"), LargeOrderNet: nan}}
	ApplyFundFlow(bars, days)
	checkF(t, "07-09", bars[0].LargeOrderNet, 1210389504)
	checkF(t, "07-10", bars[1].LargeOrderNet, -5088655104)
	checkF(t, "07-14", bars[2].LargeOrderNet, nan)
}

func checkFlow(t *testing.T, got, want FundFlowDay) {
	t.Helper()
	if got.Day != want.Day {
		t.Errorf("day %v want %v", got.Day, want.Day)
	}
	g := []float64{got.MainNet, got.SmallNet, got.MediumNet, got.LargeNet, got.SuperNet, got.MainPct, got.SmallPct, got.MediumPct, got.LargePct, got.SuperPct, got.Close, got.Pct}
	w := []float64{want.MainNet, want.SmallNet, want.MediumNet, want.LargeNet, want.SuperNet, want.MainPct, want.SmallPct, want.MediumPct, want.LargePct, want.SuperPct, want.Close, want.Pct}
	for i := range g {
		checkF(t, want.Day.String()+" field "+strconv.Itoa(i+1), g[i], w[i])
	}
}

func TestTrends(t *testing.T) {
	srv, rec := stub(t, func(w http.ResponseWriter, r *http.Request, _ int) {
		file := map[string]string{"1": "made_push2his_trends2_300059_2025-05-13.json", "2": "made_push2his_trends2_300059_ndays2.json"}
		write(w, 200, jsonCT, fixture(t, file[r.URL.Query().Get("ndays")]))
	})
	c := newTestHis(t, srv.URL)
	code := market.MustCode("300059.SZ")

	bars, err := c.Trends(context.Background(), code, 1)
	if err != nil {
		t.Fatal(err)
	}
	r := rec.req(0)
	if r.URL.Path != "/api/qt/stock/trends2/get" || r.URL.Query().Get("secid") != "0.300059" || r.URL.Query().Get("ndays") != "1" ||
		r.URL.Query().Get("iscr") != "0" || r.URL.Query().Get("fields2") != "f51,f52,f53,f54,f55,f56,f57,f58" {
		t.Errorf("request %s", r.URL)
	}
	if len(bars) != 3 {
		t.Fatalf("%d bars, want 3 (09:31 with the auction, 09:32, 15:00)", len(bars))
	}
	d := day("2025-05-13")
	checkBar(t, bars[0], market.Bar{Day: d, TS: at("2025-05-13", 9, 31), Open: 21.90, High: 21.98, Low: 21.86, Close: 21.95,
		Volume: (99778 + 61234) * 100, Amount: 218513820 + 134237418, TurnoverRate: nan, LargeOrderNet: nan})
	checkBar(t, bars[2], market.Bar{Day: d, TS: at("2025-05-13", 15, 0), Open: 21.45, High: 21.45, Low: 21.45, Close: 21.45,
		Volume: 5207900, Amount: 111709884, TurnoverRate: nan, LargeOrderNet: nan})

	// ndays=2: the earlier day has 0.00 opens, rebuilt from the closes.
	two, err := c.Trends(context.Background(), code, 2)
	if err != nil {
		t.Fatal(err)
	}
	if len(two) != 3 {
		t.Fatalf("%d bars, want 3", len(two))
	}
	checkBar(t, two[0], market.Bar{Day: day("2024-06-05"), TS: at("2024-06-05", 9, 31), Open: 13.98, High: 14.00, Low: 13.93, Close: 13.95,
		Volume: (189 + 2210) * 100, Amount: 264222 + 3087250, TurnoverRate: nan, LargeOrderNet: nan})
	checkBar(t, two[1], market.Bar{Day: day("2024-06-05"), TS: at("2024-06-05", 9, 32), Open: 13.96, High: 14.03, Low: 13.96, Close: 14.02,
		Volume: 187400, Amount: 2621380, TurnoverRate: nan, LargeOrderNet: nan})
	checkBar(t, two[2], market.Bar{Day: day("2024-06-06"), TS: at("2024-06-06", 9, 31), Open: 14.05, High: 14.10, Low: 14.02, Close: 14.08,
		Volume: (301 + 2536) * 100, Amount: 422905 + 3566120, TurnoverRate: nan, LargeOrderNet: nan})
	for _, b := range two {
		if b.Open <= 0 {
			t.Errorf("zero open survived: %+v", b)
		}
	}
}

func TestTrendsBroken(t *testing.T) {
	for _, tc := range []struct {
		name, body string
		kind       Kind
		field      string
	}{
		{"rc 100 bad secid", string(fixture(t, "push2his_trends2_error_rc100_data_null.json")), KindRC, ""},
		{"real abridged with the author's typo", string(fixture(t, "push2his_trends2_300059_data_2025-05-13_abridged.txt")), KindMalformed, ""},
		{"no points", `{"rc":0,"data":{"code":"300059","trends":[]}}`, KindEmpty, ""},
		{"seven fields required", `{"rc":0,"data":{"code":"300059","trends":["2025-05-13 09:31,21.90,21.95"]}}`, KindSchema, "data.trends[0]"},
		{"date without time", `{"rc":0,"data":{"code":"300059","trends":["2025-05-13,21.90,21.95,21.98,21.86,61234,134237418.00,21.913"]}}`, KindSchema, "data.trends[0]"},
		{"trends not strings", `{"rc":0,"data":{"code":"300059","trends":[1,2]}}`, KindSchema, "data.trends"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv, _ := stub(t, func(w http.ResponseWriter, r *http.Request, _ int) { write(w, 200, jsonCT, []byte(tc.body)) })
			c := newTestHis(t, srv.URL)
			bars, err := c.Trends(context.Background(), market.MustCode("300059.SZ"), 1)
			wantErr(t, err, tc.kind, 1, tc.field)
			if bars != nil {
				t.Error("bars with an error")
			}
			if st := c.Status(); st.LastErrorKind != tc.kind || !strings.Contains(st.LastError, "trends2") {
				t.Errorf("status %+v", st)
			}
		})
	}
}

func TestFoldAuctionAlone(t *testing.T) {
	// Fetched at 09:30:30: only the auction point exists; it becomes the
	// 09:31 bar rather than a bar labelled 09:30.
	b, err := parseTrendRow("2025-05-13 09:30,21.90,21.90,21.90,21.90,99778,218513820.00,21.900")
	if err != nil {
		t.Fatal(err)
	}
	out := foldAuction([]market.Bar{b}, time.Minute)
	if len(out) != 1 || out[0].TS != at("2025-05-13", 9, 31) || out[0].Volume != 9977800 {
		t.Errorf("%+v", out)
	}
}

// A fund's trends2 (the minute archive asks it for every ETF of the day's
// universe) is a stock's: secid 1. for a Shanghai fund, the auction folded
// into 09:31, its 3-decimal prices read exactly.
func TestTrendsOfAFund(t *testing.T) {
	srv, rec := stub(t, func(w http.ResponseWriter, r *http.Request, _ int) {
		write(w, 200, jsonCT, fixture(t, "made_push2his_trends2_510300_2026-11-23.json"))
	})
	bars, err := newTestHis(t, srv.URL).Trends(context.Background(), market.MustCode("510300.SH"), 1)
	if err != nil {
		t.Fatal(err)
	}
	if r := rec.req(0); r.URL.Query().Get("secid") != "1.510300" {
		t.Errorf("request %s", r.URL)
	}
	if len(bars) != 3 {
		t.Fatalf("%d bars, want 3 (09:31 with the auction, 09:32, 15:00)", len(bars))
	}
	d := day("2026-11-23")
	checkBar(t, bars[0], market.Bar{Day: d, TS: at("2026-11-23", 9, 31), Open: 3.762, High: 3.771, Low: 3.759, Close: 3.768,
		Volume: (16288 + 52311) * 100, Amount: 6127546 + 19689863, TurnoverRate: nan, LargeOrderNet: nan})
	checkBar(t, bars[2], market.Bar{Day: d, TS: at("2026-11-23", 15, 0), Open: 3.725, High: 3.725, Low: 3.725, Close: 3.725,
		Volume: 6189000, Amount: 23054025, TurnoverRate: nan, LargeOrderNet: nan})
}
