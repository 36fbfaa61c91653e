package upstream

import (
	"context"
	"net/http"
	"reflect"
	"strings"
	"testing"
	"time"

	"mdqs/internal/market"
)

func TestQuoteStockGet(t *testing.T) {
	srv, rec := stub(t, func(w http.ResponseWriter, r *http.Request, _ int) {
		write(w, 200, jsonCT, fixture(t, "made_push2_stock_get_000725_fltt2.json"))
	})
	c := newTestPush2(t, srv.URL, 0)
	q, err := c.Quote(context.Background(), market.MustCode("000725.SZ"))
	if err != nil {
		t.Fatal(err)
	}
	req := rec.req(0)
	if req.URL.Path != stockGetPath || req.URL.Query().Get("secid") != "0.000725" || req.URL.Query().Get("fltt") != "2" ||
		req.URL.Query().Get("fields") != stockGetFields || req.Header.Get("Referer") != "https://quote.eastmoney.com/sz000725.html" {
		t.Errorf("request %s (referer %q)", req.URL, req.Header.Get("Referer"))
	}
	at := time.Date(2026, 7, 10, 15, 10, 0, 0, market.Shanghai())
	checkQuote(t, q, market.Quote{Code: market.MustCode("000725.SZ"), Name: "京东方Ａ", Price: 7.59, Pct: -6.87, Change: -0.56,
		Open: 8.16, High: 8.34, Low: 7.59, PrevClose: 8.15, Volume: 3804619900, Amount: 30277260673.71, Turnover: 10.76,
		Amplitude: nan, VolumeRatio: 1.05, PE: nan, PB: nan, MarketCap: nan, FloatCap: nan, MainNet: nan, MainNetRatio: nan, Speed: nan, At: at})
	if q.LimitUp != 8.97 || q.LimitDown != 7.34 {
		t.Errorf("limits %v / %v, want the source's 8.97 / 7.34", q.LimitUp, q.LimitDown)
	}
	wantBids := []market.Level{{Price: 7.58, Volume: 3512000}, {Price: 7.57, Volume: 2077100}, {Price: 7.56, Volume: 1203400}, {Price: 7.55, Volume: 839100}, {Price: 7.54, Volume: 1045200}}
	wantAsks := []market.Level{{Price: 7.59, Volume: 6123300}, {Price: 7.6, Volume: 2700100}, {Price: 7.61, Volume: 1844000}, {Price: 7.62, Volume: 992000}, {Price: 7.63, Volume: 1521000}}
	if !reflect.DeepEqual(q.Bids, wantBids) || !reflect.DeepEqual(q.Asks, wantAsks) {
		t.Errorf("book bids %v asks %v", q.Bids, q.Asks)
	}
	if st := c.Status(); st.Drift != "" || st.LastError != "" {
		t.Errorf("status drift %q error %q", st.Drift, st.LastError)
	}
}

func TestQuoteStockGetIndex(t *testing.T) {
	srv, rec := stub(t, func(w http.ResponseWriter, r *http.Request, _ int) {
		write(w, 200, jsonCT, fixture(t, "made_push2_stock_get_000001_index_fltt2.json"))
	})
	q, err := newTestPush2(t, srv.URL, 0).Quote(context.Background(), market.MustCode("000001.SH"))
	if err != nil {
		t.Fatal(err)
	}
	if got := rec.req(0).URL.Query().Get("secid"); got != "1.000001" {
		t.Errorf("secid %s, want 1.000001 (the SSE Composite, not Ping An Bank)", got)
	}
	if q.Name != "上证指数" || q.Price != 3832.26 || q.PrevClose != 3812.02 || q.Pct != 0.53 || q.Volume != 51234567800 {
		t.Errorf("quote %+v", q)
	}
	if q.LimitUp != 0 || q.LimitDown != 0 || q.Bids != nil || q.Asks != nil {
		t.Errorf("an index has no limits or book: %v %v %v %v", q.LimitUp, q.LimitDown, q.Bids, q.Asks)
	}
}

// The recorded reply is of a request without fltt: its integers are the
// price times 100. The client never asks that way; read as its answer,
// the values would be a hundred times too large, which is why it asks
// fltt=2 (whose decimals need no per-security scale).
func TestQuoteStockGetRecordedScaledShape(t *testing.T) {
	srv, _ := stub(t, func(w http.ResponseWriter, r *http.Request, _ int) {
		write(w, 200, jsonCT, fixture(t, "push2_stock_get_000725_2026-07-10_abridged.json"))
	})
	q, err := newTestPush2(t, srv.URL, 0).Quote(context.Background(), market.MustCode("000725"))
	if err != nil {
		t.Fatal(err)
	}
	if q.Name != "京东方Ａ" || q.Price != 759 || q.PrevClose != 815 || q.Pct != -687 || q.LimitUp != 0 || q.Bids != nil {
		t.Errorf("quote %+v", q)
	}
}

func TestQuoteStockGetFailures(t *testing.T) {
	for _, tc := range []struct {
		name, body string
		kind       Kind
		field      string
	}{
		{"unknown secid", string(fixture(t, "made_push2_stock_get_data_null.json")), KindEmpty, ""},
		{"rc 100", `{"rc":100,"rt":4,"svr":1,"lt":1,"full":1,"dlmkts":"","data":null}`, KindRC, ""},
		{"another code", `{"rc":0,"data":{"f43":1,"f57":"000001","f58":"x","f60":1}}`, KindSchema, "f57"},
		{"no name", `{"rc":0,"data":{"f43":1,"f57":"000725","f60":1}}`, KindSchema, "f58"},
		{"no price", `{"rc":0,"data":{"f57":"000725","f58":"x","f60":1}}`, KindSchema, "f43"},
		{"data not an object", `{"rc":0,"data":[1]}`, KindSchema, "data"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv, _ := stub(t, func(w http.ResponseWriter, r *http.Request, _ int) { write(w, 200, jsonCT, []byte(tc.body)) })
			_, err := newTestPush2(t, srv.URL, 0).Quote(context.Background(), market.MustCode("000725.SZ"))
			e := wantErr(t, err, tc.kind, 1, tc.field)
			if tc.kind == KindEmpty && !strings.Contains(e.Detail, "no such security") {
				t.Errorf("detail %q", e.Detail)
			}
		})
	}
}

// A fund's single quote (any ETF code: the A-share list leaves them out)
// keeps its 0.001 tick: fltt=2 gives decimals whatever the security's
// decimals, so the price, limits and book come back exactly.
func TestQuoteStockGetFund(t *testing.T) {
	srv, rec := stub(t, func(w http.ResponseWriter, r *http.Request, _ int) {
		write(w, 200, jsonCT, fixture(t, "made_push2_stock_get_510300_fund_fltt2.json"))
	})
	q, err := newTestPush2(t, srv.URL, 0).Quote(context.Background(), market.MustCode("510300"))
	if err != nil {
		t.Fatal(err)
	}
	if r := rec.req(0); r.URL.Query().Get("secid") != "1.510300" || r.URL.Query().Get("fltt") != "2" {
		t.Errorf("request %s", r.URL)
	}
	if q.Code != market.MustCode("510300.SH") || q.Name != "沪深300ETF" || q.Price != 3.725 || q.PrevClose != 3.712 || q.Open != 3.762 ||
		q.High != 3.783 || q.Low != 3.707 || q.Change != 0.013 || q.Volume != 81429400 {
		t.Errorf("quote %+v", q)
	}
	if q.LimitUp != 4.083 || q.LimitDown != 3.341 {
		t.Errorf("limits %v / %v, want the source's 4.083 / 3.341", q.LimitUp, q.LimitDown)
	}
	if len(q.Bids) != 5 || q.Bids[0].Price != 3.724 || q.Bids[4].Price != 3.72 || q.Asks[0].Price != 3.725 || q.Asks[4].Price != 3.729 {
		t.Errorf("book %v / %v", q.Bids, q.Asks)
	}
}
