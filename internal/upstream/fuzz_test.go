package upstream

import (
	"errors"
	"math"
	"strings"
	"testing"
	"time"

	"mdqs/internal/market"
)

// Seed corpora live in testdata/fuzz/<FuzzName>/ besides the f.Add seeds;
// run one target with e.g.
//   go test ./upstream -run '^$' -fuzz '^FuzzNumOf$' -fuzztime 15s

func FuzzNumOf(f *testing.F) {
	for _, s := range []string{`1.5`, `"1.5"`, `"-"`, `null`, `""`, `2672467968.0`, `-0.14`, `"1e999"`, `true`, `"0x1p-2"`, `"NaN"`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		v, st := numOf(raw)
		switch st {
		case ok:
			if math.IsNaN(v) || math.IsInf(v, 0) {
				t.Fatalf("numOf(%q) = %v with ok", raw, v)
			}
		default:
			if !math.IsNaN(v) {
				t.Fatalf("numOf(%q) = %v with state %d, want NaN", raw, v, st)
			}
		}
		s, sst := strOf(raw)
		if sst != ok && s != "" {
			t.Fatalf("strOf(%q) = %q with state %d", raw, s, sst)
		}
	})
}

// FuzzClist feeds whole bodies (JSON or JSONP, diff array or object) through
// the page decoder and the sector row reader.
func FuzzClist(f *testing.F) {
	for _, name := range []string{"made_push2_clist_industry_sectors_p1.json", "made_push2_clist_industry_sectors_diff_object.json",
		"push2_slist_board_membership_diff_object_2022-01-25.jsonp.txt", "made_push2_clist_rc102.json", "made_push2_clist_empty.json"} {
		f.Add(fixture(f, name))
	}
	f.Add([]byte(`cb({"rc":0,"data":{"total":"2","diff":{"1":{"f12":"BK1"},"0":{"f12":"-","f3":"1.5"}}}});`))
	f.Fuzz(func(t *testing.T, body []byte) {
		page, err := decodeClist(body)
		if err != nil {
			var e *Error
			if !errors.As(err, &e) || e.Kind == KindNone {
				t.Fatalf("untyped error %v", err)
			}
			return
		}
		if page.total < 0 {
			t.Fatalf("total %d", page.total)
		}
		chk := &check{}
		for i, m := range page.rows {
			if m == nil {
				t.Fatalf("row %d is nil", i)
			}
			r := row{m: m, where: "row", c: chk}
			_ = market.Sector{Code: r.reqStr("f12"), Pct: r.reqNum("f3"), Up: r.optCount("f104"), LeaderName: r.optStr("f128")}
		}
		_ = chk.driftText()
	})
}

func FuzzKlineRow(f *testing.F) {
	for _, s := range []string{
		"2024-12-18,6.11,6.18,6.28,6.10,842743,542829495.00,2.96,1.64,0.10,1.03",
		"2026-09-28,4423.82,4340.76,4423.82,4323.57,171277373,428620471197.90,2.26",
		"2024-12-31 09:35,6.29,6.25,6.30,6.24,61200,38361680.00,0.95,-0.64,-0.04,0.08",
		"2024-12-19,6.15,6.09,-,6.03,528781,333859220.00,2.10,-1.46,-0.09,0.65",
		"2025-03-13,3925.74,3911.58,3939.29,3897.38,",
	} {
		f.Add(s, strings.Contains(s, ":"))
	}
	f.Fuzz(func(t *testing.T, s string, minute bool) {
		b, err := parseKlineRow(s, minute)
		if err != nil {
			return
		}
		for _, v := range []float64{b.Open, b.High, b.Low, b.Close, b.Amount} {
			if math.IsNaN(v) || math.IsInf(v, 0) {
				t.Fatalf("%q: non-finite price or amount %+v", s, b)
			}
		}
		if b.Volume < 0 || b.Open == 0 || !math.IsNaN(b.LargeOrderNet) {
			t.Fatalf("%q: %+v", s, b)
		}
		if market.DayOf(time.Unix(b.TS, 0)) != b.Day {
			t.Fatalf("%q: TS %d is not on day %v", s, b.TS, b.Day)
		}
		if !minute && b.TS != b.Day.At(15, 0, 0).Unix() {
			t.Fatalf("%q: daily bar not at 15:00", s)
		}
	})
}

// FuzzTrendRows parses newline-separated trends2 rows and runs the open
// fix-up and the auction fold over the good ones: volume is conserved and no
// zero open survives.
func FuzzTrendRows(f *testing.F) {
	f.Add("2025-05-13 09:30,21.90,21.90,21.90,21.90,99778,218513820.00,21.900\n2025-05-13 09:31,21.90,21.95,21.98,21.86,61234,134237418.00,21.913")
	f.Add("2024-06-05 09:30,0.00,13.98,13.98,13.98,189,264222.00,13.980\n2024-06-05 09:31,0.00,13.95,14.00,13.93,2210,3087250.00,13.968")
	f.Add("2025-05-13 15:00,21.45,21.45,21.45,21.45,52079,111709884.00,21.622")
	f.Fuzz(func(t *testing.T, s string) {
		var bars []market.Bar
		var vol int64
		for _, line := range strings.Split(s, "\n") {
			b, err := parseTrendRow(line)
			if err != nil {
				continue
			}
			if b.Volume < 0 {
				t.Fatalf("%q: negative volume", line)
			}
			bars = append(bars, b)
			vol += b.Volume
		}
		n := len(bars)
		fixTrendOpens(bars)
		for _, b := range bars {
			if b.Open <= 0 && b.Close > 0 && b.Low > 0 && b.High >= b.Low {
				t.Fatalf("zero open survived: %+v", b)
			}
		}
		out := foldAuction(bars, time.Minute)
		var after int64
		for _, b := range out {
			after += b.Volume
		}
		if len(out) > n || after != vol {
			t.Fatalf("fold changed volume %d -> %d or grew %d -> %d", vol, after, n, len(out))
		}
	})
}

func FuzzFundFlowRow(f *testing.F) {
	f.Add("2026-07-10,-5088655104.0,4058282752.0,1030372352.0,-1231041536.0,-3857613568.0,-16.81,13.40,3.40,-4.07,-12.74,7.59,-6.87")
	f.Add("2026-07-13,-,-,-,-,-,-,-,-,-,-,7.61,0.26,0.00,0.00")
	f.Fuzz(func(t *testing.T, s string) {
		d, err := parseFundFlowRow(s)
		if err != nil {
			return
		}
		if d.Day == 0 {
			t.Fatalf("%q: no day", s)
		}
		for _, v := range []float64{d.MainNet, d.SmallNet, d.MediumNet, d.LargeNet, d.SuperNet, d.MainPct, d.Close, d.Pct} {
			if math.IsInf(v, 0) {
				t.Fatalf("%q: infinite value %+v", s, d)
			}
		}
	})
}

// FuzzETFRows feeds whole bodies through the page decoder and the ETF row
// reader: whatever arrives, a row reads without panicking, an unknown
// figure is NaN (volume -1), and f297 is a date or 0.
func FuzzETFRows(f *testing.F) {
	for _, name := range []string{"made_push2_clist_etf_mk0021_p1.json", "made_push2_clist_etf_mk0023.json",
		"made_push2_clist_etf_renamed_f441.json", "made_push2_clist_etf_mk0022.json"} {
		f.Add(fixture(f, name))
	}
	f.Add([]byte(`{"rc":0,"data":{"total":1,"diff":{"0":{"f2":"1.5","f12":"510300","f13":"1","f14":"x","f297":"2026071","f441":"-"}}}}`))
	at := time.Date(2026, 7, 10, 15, 10, 0, 0, market.Shanghai())
	f.Fuzz(func(t *testing.T, body []byte) {
		page, err := decodeClist(body)
		if err != nil {
			return
		}
		chk := &check{}
		for _, m := range page.rows {
			e := etfRow(row{m: m, where: "row", c: chk}, at)
			if e.Volume < -1 {
				t.Fatalf("volume %d", e.Volume)
			}
			if e.DataDate != 0 {
				if _, err := market.ParseDay(e.DataDate.Compact()); err != nil {
					t.Fatalf("data date %v: %v", e.DataDate, err)
				}
			}
			for _, v := range []float64{e.Price, e.IOPV, e.DiscountRate, e.Shares, e.Amount} {
				if math.IsInf(v, 0) {
					t.Fatalf("infinite figure in %+v", e)
				}
			}
			if e.At.IsZero() {
				t.Fatal("no time")
			}
		}
		_ = chk.driftText()
	})
}
