package upstream

import (
	"context"
	"errors"
	"math"
	"net/http"
	"testing"

	"mdqs/internal/market"
)

func newTestLHB(t *testing.T, base string) *LHB {
	t.Helper()
	c, err := NewLHB(LHBConfig{SourceConfig: testSource(base)}, NewLimiters(), market.NewFixedClock(testNow()))
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// envelopeOf wraps a recorded single row (the captures that kept only one
// element of data[]) in the data centre's success envelope, the row's
// bytes unchanged.
func envelopeOf(rowBody []byte) []byte {
	out := []byte(`{"version":"60e1d52ca657ea6eb5fc5076817e6020","result":{"pages":1,"data":[`)
	out = append(out, rowBody...)
	return append(out, `],"count":1},"success":true,"message":"ok","code":0}`...)
}

func near(a, b float64) bool { return math.Abs(a-b) <= 1e-9*math.Max(1, math.Abs(b)) }

// The real 2026 daily-list row (000560 我爱我家, re-flowed by its author):
// TRADE_ID a number, D*_CLOSE_ADJCHRATE null, every field read by key.
func TestLHBListingsRealRow(t *testing.T) {
	body := envelopeOf(fixture(t, "datacenter_lhb_dailybillboard_000560_2026-09-08_row_reflowed.json"))
	srv, rec := stub(t, func(w http.ResponseWriter, r *http.Request, _ int) { write(w, 200, jsonCT, body) })
	c := newTestLHB(t, srv.URL)
	rows, pages, err := c.Listings(context.Background(), 20260908, 1)
	if err != nil || pages != 1 || len(rows) != 1 {
		t.Fatalf("Listings = %d rows, %d pages, %v; want 1, 1, nil", len(rows), pages, err)
	}
	l := rows[0]
	if l.Code != market.MustCode("000560.SZ") || l.Day != 20260908 || l.Name != "我爱我家" || l.Reason != "日换手率达到20%的前5只证券" ||
		l.ReasonCode != "137001002001002" || l.TradeID != "100409471" || l.Board != "深交所主板" || l.Reading != "普通席位买入，成功率36.00%" {
		t.Errorf("listing text fields %+v", l)
	}
	for _, f := range []struct {
		name      string
		got, want float64
	}{
		{"Close", l.Close, 3.44}, {"ChangePct", l.ChangePct, 9.9042}, {"Turnover", l.Turnover, 27.6488},
		{"Buy", l.Buy, 83902522}, {"Sell", l.Sell, 25138378}, {"Net", l.Net, 58764144}, {"Deal", l.Deal, 109040900},
		{"Amount", l.Amount, 2179212480}, {"NetPct", l.NetPct, 21.073348380637}, {"DealPct", l.DealPct, 39.103043404124},
		{"FloatCap", l.FloatCap, 5169541941.84},
	} {
		if !near(f.got, f.want) {
			t.Errorf("%s = %v, want %v", f.name, f.got, f.want)
		}
	}
	q := rec.req(0).URL.Query()
	if rec.req(0).URL.Path != "/api/data/v1/get" || q.Get("reportName") != "RPT_DAILYBILLBOARD_DETAILSNEW" ||
		q.Get("filter") != "(TRADE_DATE<='2026-09-08')(TRADE_DATE>='2026-09-08')" || q.Get("pageSize") != "500" ||
		q.Get("columns") != lhbDailyColumns || q.Get("pageNumber") != "1" {
		t.Errorf("request %s", rec.req(0).URL)
	}
	if st := c.Status(); st.Source != SourceLHB || st.Calls != 1 || st.Failures != 0 || st.Drift != "" {
		t.Errorf("status %+v", st)
	}
}

// The real abridged multi-day reply (600105, 2 of 72 rows, 8 keys a row):
// the decoder reads it (int and float money in one row), the absent keys
// are drift, and Listings refuses rows of another day than asked.
func TestLHBListingsAbridgedAndOtherDays(t *testing.T) {
	body := fixture(t, "datacenter_lhb_dailybillboard_600105_2026-06-12_abridged.json")
	chk := &check{}
	rows, pages, err := decodeLHBListings(body, chk)
	if err != nil || pages != 24 || len(rows) != 2 {
		t.Fatalf("decode = %d rows, %d pages, %v; want 2, 24, nil", len(rows), pages, err)
	}
	if rows[0].Day != 20260604 || rows[1].Day != 20260410 || rows[0].Buy != 4240434963 || rows[0].Sell != 3173407855.4 ||
		rows[1].ChangePct != 9.9885 || rows[0].Reason != "非ST、*ST和S证券连续三个交易日内收盘价格涨幅偏离值累计达到20%的证券" {
		t.Errorf("rows %+v", rows)
	}
	if chk.driftText() == "" || !math.IsNaN(rows[0].Turnover) {
		t.Errorf("absent optional fields: drift %q, turnover %v", chk.driftText(), rows[0].Turnover)
	}
	srv, _ := stub(t, func(w http.ResponseWriter, r *http.Request, _ int) { write(w, 200, jsonCT, body) })
	_, _, err = newTestLHB(t, srv.URL).Listings(context.Background(), 20260604, 1)
	if KindOf(err) != KindSchema {
		t.Errorf("rows of other days: err %v, want a schema error", err)
	}
}

// An empty day is HTTP 200, success:false, code 9201: no rows, no error.
// 9501 (the report does not exist) is an error, never "no data".
func TestLHBEmptyDayAndUnknownReport(t *testing.T) {
	for _, tc := range []struct {
		file string
		kind Kind
	}{
		{"datacenter_empty_result_9201_2026-09-29.json", KindNone},
		{"datacenter_error_9501_unknown_report.json", KindRC},
	} {
		body := fixture(t, tc.file)
		srv, _ := stub(t, func(w http.ResponseWriter, r *http.Request, _ int) { write(w, 200, jsonCT, body) })
		c := newTestLHB(t, srv.URL)
		rows, pages, err := c.Listings(context.Background(), 20260929, 1)
		if KindOf(err) != tc.kind {
			t.Errorf("%s: Listings err %v, want kind %v", tc.file, err, tc.kind)
		}
		if tc.kind == KindNone && (rows == nil || len(rows) != 0 || pages != 0) {
			t.Errorf("%s: rows %v pages %d, want an empty non-nil list and 0 pages", tc.file, rows, pages)
		}
		seats, _, err := c.Seats(context.Background(), 20260929, market.MustCode("600519.SH"), LHBBuy, 1)
		if KindOf(err) != tc.kind || tc.kind == KindNone && len(seats) != 0 {
			t.Errorf("%s: Seats %v, %v", tc.file, seats, err)
		}
		var e *Error
		if tc.kind == KindRC && (!errors.As(err, &e) || e.RC != 9501 || e.Detail != "报表配置不存在,RPT_NOT_EXIST_XXX") {
			t.Errorf("9501: %#v", err)
		}
	}
}

// The real 2024 buy list of 600611: 5 seats x 2 reasons = 10 rows, TRADE_ID
// a string, SELL null, TOTAL_BUYRIO a fraction read as a percent.
func TestLHBSeatsReal2024(t *testing.T) {
	body := fixture(t, "datacenter_lhb_dailydetailsbuy_600611_2024-07-16.json")
	srv, rec := stub(t, func(w http.ResponseWriter, r *http.Request, _ int) { write(w, 200, jsonCT, body) })
	c := newTestLHB(t, srv.URL)
	rows, pages, err := c.Seats(context.Background(), 20240716, market.MustCode("600611.SH"), LHBBuy, 1)
	if err != nil || pages != 1 || len(rows) != 10 {
		t.Fatalf("Seats = %d rows, %d pages, %v; want 10, 1, nil", len(rows), pages, err)
	}
	r := rows[0]
	if r.SeatCode != "10023614" || r.SeatName != "国泰君安证券股份有限公司总部" || r.TradeID != "5016460" || r.ReasonCode != "137001002001001" ||
		r.Reason != "有价格涨跌幅限制的日收盘价格涨幅偏离值达到7%的前五只证券" || r.Side != LHBBuy || r.Times3D != 231 {
		t.Errorf("row 0 %+v", r)
	}
	if r.Buy != 37521554.1 || !math.IsNaN(r.Sell) || r.Net != 37521554.1 || !near(r.BuyPct, 1.9000938125) || !math.IsNaN(r.SellPct) ||
		!near(r.Rise3DPct, 39.393939393939) {
		t.Errorf("row 0 amounts %+v", r)
	}
	// TOTAL_BUYRIO x 100 is the seat's share of ACCUM_AMOUNT in percent.
	if share := 37521554.1 / 1974721135 * 100; !near(math.Round(r.BuyPct*1e6), math.Round(share*1e6)) {
		t.Errorf("BuyPct %v, want %v (BUY / ACCUM_AMOUNT)", r.BuyPct, share)
	}
	if rows[1].TradeID != "5016469" || rows[1].ReasonCode != "137001004001" || rows[1].SeatCode != r.SeatCode {
		t.Errorf("row 1 (the same seat under the second reason) %+v", rows[1])
	}
	q := rec.req(0).URL.Query()
	if q.Get("reportName") != "RPT_BILLBOARD_DAILYDETAILSBUY" || q.Get("filter") != `(TRADE_DATE='2024-07-16')(SECURITY_CODE="600611")` ||
		q.Get("sortColumns") != "BUY" || q.Get("columns") != "ALL" {
		t.Errorf("request %s", rec.req(0).URL)
	}
}

// The real 2026 rows of 600127: TRADE_ID a number, the sell list's BUY
// null and NET negative, the same billboard id on both sides.
func TestLHBSeatsReal2026(t *testing.T) {
	for _, tc := range []struct {
		file      string
		side      LHBSide
		name      string
		buy, sell float64
		net, pct  float64
	}{
		{"datacenter_lhb_dailydetailsbuy_600127_2026-09-04_row.json", LHBBuy, "东方财富证券股份有限公司山南香曲东路证券营业部",
			33075686.85, math.NaN(), 33075686.85, 1.027924072},
		{"datacenter_lhb_dailydetailssell_600127_2026-09-04_row.json", LHBSell, "中信证券股份有限公司上海分公司",
			math.NaN(), 35149327.09, -35149327.09, 1.0923685302},
	} {
		body := envelopeOf(fixture(t, tc.file))
		srv, rec := stub(t, func(w http.ResponseWriter, r *http.Request, _ int) { write(w, 200, jsonCT, body) })
		rows, _, err := newTestLHB(t, srv.URL).Seats(context.Background(), 20260904, market.MustCode("600127.SH"), tc.side, 1)
		if err != nil || len(rows) != 1 {
			t.Fatalf("%s: %v %v", tc.file, rows, err)
		}
		r := rows[0]
		pct := r.BuyPct
		if tc.side == LHBSell {
			pct = r.SellPct
		}
		if r.TradeID != "100407981" || r.SeatName != tc.name || r.Side != tc.side || r.Net != tc.net || !near(pct, tc.pct) ||
			math.IsNaN(r.Buy) != math.IsNaN(tc.buy) || math.IsNaN(r.Sell) != math.IsNaN(tc.sell) {
			t.Errorf("%s: %+v", tc.file, r)
		}
		if want := map[LHBSide]string{LHBBuy: "RPT_BILLBOARD_DAILYDETAILSBUY", LHBSell: "RPT_BILLBOARD_DAILYDETAILSSELL"}[tc.side]; rec.req(0).URL.Query().Get("reportName") != want {
			t.Errorf("report %s, want %s", rec.req(0).URL.Query().Get("reportName"), want)
		}
	}
}

// A seat row without its side's amount, or a renamed seat name, fails the
// page naming the field.
func TestLHBSeatsSchema(t *testing.T) {
	for _, tc := range []struct{ body, field string }{
		{`{"result":{"pages":1,"data":[{"SECURITY_CODE":"600127","TRADE_DATE":"2026-09-04 00:00:00","OPERATEDEPT_NAME":"x","EXPLANATION":"r","BUY":null,"SELL":null}]},"success":true,"code":0}`, "BUY"},
		{`{"result":{"pages":1,"data":[{"SECURITY_CODE":"600127","TRADE_DATE":"2026-09-04 00:00:00","DEPT_NAME":"x","EXPLANATION":"r","BUY":1,"SELL":null}]},"success":true,"code":0}`, "OPERATEDEPT_NAME"},
		{`{"result":{"pages":1,"data":[{"SECURITY_CODE":"600127","TRADE_DATE":"04/09/2026","OPERATEDEPT_NAME":"x","EXPLANATION":"r","BUY":1,"SELL":null}]},"success":true,"code":0}`, "TRADE_DATE"},
	} {
		_, _, err := decodeLHBSeats([]byte(tc.body), LHBBuy, &check{})
		var e *Error
		if !errors.As(err, &e) || e.Kind != KindSchema || e.Field != tc.field {
			t.Errorf("decode %s: err %v, want a schema error on %s", tc.body, err, tc.field)
		}
	}
}

// Paging: the page asked goes out, and the page count comes back.
func TestLHBListingsPaging(t *testing.T) {
	row := fixture(t, "datacenter_lhb_dailybillboard_000560_2026-09-08_row_reflowed.json")
	srv, rec := stub(t, func(w http.ResponseWriter, r *http.Request, _ int) {
		body := []byte(`{"result":{"pages":3,"data":[`)
		body = append(body, row...)
		write(w, 200, jsonCT, append(body, `],"count":1201},"success":true,"message":"ok","code":0}`...))
	})
	rows, pages, err := newTestLHB(t, srv.URL).Listings(context.Background(), 20260908, 2)
	if err != nil || pages != 3 || len(rows) != 1 || rec.req(0).URL.Query().Get("pageNumber") != "2" {
		t.Errorf("page 2: %d rows, %d pages, %v, asked %s", len(rows), pages, err, rec.req(0).URL.Query().Get("pageNumber"))
	}
}

func FuzzLHB(f *testing.F) {
	for _, name := range []string{"datacenter_lhb_dailydetailsbuy_600611_2024-07-16.json", "datacenter_lhb_dailybillboard_600105_2026-06-12_abridged.json",
		"datacenter_empty_result_9201_2026-09-29.json", "datacenter_error_9501_unknown_report.json"} {
		f.Add(fixture(f, name))
	}
	for _, name := range []string{"datacenter_lhb_dailybillboard_000560_2026-09-08_row_reflowed.json",
		"datacenter_lhb_dailydetailsbuy_600127_2026-09-04_row.json", "datacenter_lhb_dailydetailssell_600127_2026-09-04_row.json"} {
		f.Add(envelopeOf(fixture(f, name)))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		if ls, pages, err := decodeLHBListings(body, &check{}); err != nil {
			typed(t, err)
		} else {
			if pages < 0 || ls == nil {
				t.Fatalf("pages %d rows %v", pages, ls)
			}
			for _, l := range ls {
				if len(l.Code.Symbol) != 6 || l.Day == 0 || l.Reason == "" {
					t.Fatalf("listing %+v", l)
				}
			}
		}
		for _, side := range []LHBSide{LHBBuy, LHBSell} {
			seats, _, err := decodeLHBSeats(body, side, &check{})
			if err != nil {
				typed(t, err)
				continue
			}
			for _, s := range seats {
				amount := s.Buy
				if side == LHBSell {
					amount = s.Sell
				}
				if s.SeatName == "" || s.Side != side || math.IsNaN(amount) || amount < 0 || math.IsNaN(s.Net) {
					t.Fatalf("seat %+v", s)
				}
			}
		}
	})
}
