package api

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"

	"mdqs/internal/lhb"
	"mdqs/internal/market"
	"mdqs/internal/upstream"
)

type lhbDayAnswer struct {
	Date       string    `json:"date"`
	Status     string    `json:"status"`
	Source     string    `json:"source"`
	ImportedAt string    `json:"imported_at"`
	Stocks     int       `json:"stocks"`
	Listings   int       `json:"listings"`
	Items      []lhbItem `json:"items"`
}

// The demo's list through the API: a day's list with its source and
// import time, seats only when asked, one stock's range with seats and
// its coverage, and a seat's activity with totals.
func TestLHBEndpoints(t *testing.T) {
	h := newInfoHarness(t)
	h.addClient("mkt", "secret-m", clientOpts{scopes: "market"})
	tok := h.token("mkt", "secret-m")
	get := func(path string) response { return h.signed(http.MethodGet, path, tok, nil) }
	if err := h.api.LHB.Job(context.Background()); err != nil {
		t.Fatal(err)
	}
	day := decode[lhbDayAnswer](t, get("/v1/api/lhb?date=2026-11-20"))
	if day.Status != "listed" || day.Source != "demo" || day.ImportedAt != "2026-11-23 10:00:00" || len(day.Items) != day.Stocks ||
		day.Stocks == 0 || day.Listings < day.Stocks {
		t.Fatalf("day answer %+v", day)
	}
	it := day.Items[0]
	if it.BuySeats != nil || len(it.Reasons) == 0 || it.Reasons[0].Reason == "" || it.Date != "2026-11-20" {
		t.Errorf("item without seats=1: %+v", it)
	}
	withSeats := decode[lhbDayAnswer](t, get("/v1/api/lhb?date=20261120&seats=1"))
	it = withSeats.Items[0]
	if len(it.BuySeats) != 5 || len(it.SellSeats) != 5 || it.BuySeats[0].Rank != 1 || len(it.BuySeats[0].Reasons) != len(it.Reasons) {
		t.Errorf("item with seats: %+v", it)
	}
	var stock struct {
		Code         string    `json:"code"`
		TradingDays  int       `json:"trading_days"`
		ImportedDays int       `json:"imported_days"`
		Missing      []string  `json:"missing_days"`
		Source       string    `json:"source"`
		Items        []lhbItem `json:"items"`
	}
	r := get("/v1/api/lhb?code=" + it.Code + "&start=2026-11-09&end=2026-11-23")
	r.expect(t, 200, "OK")
	json.Unmarshal(r.data, &stock)
	if stock.Code != it.Code || stock.TradingDays != 10 || stock.ImportedDays != 5 || len(stock.Missing) != 5 || stock.Missing[0] != "2026-11-09" ||
		stock.Source != "demo" || len(stock.Items) == 0 || len(stock.Items[len(stock.Items)-1].BuySeats) != 5 {
		t.Errorf("stock answer %s", r.data)
	}
	var seat struct {
		Totals struct {
			Rows int     `json:"rows"`
			Buy  float64 `json:"buy"`
		} `json:"totals"`
		Total int          `json:"total"`
		Items []lhbSeatRow `json:"items"`
	}
	name := it.BuySeats[0].SeatName
	r = get("/v1/api/lhb/seats?name=" + url.QueryEscape(name) + "&start=2026-11-16&end=2026-11-20&page_size=2")
	r.expect(t, 200, "OK")
	json.Unmarshal(r.data, &seat)
	if seat.Total == 0 || seat.Totals.Rows != seat.Total || len(seat.Items) > 2 || seat.Items[0].SeatName != name || seat.Items[0].StockName == "" {
		t.Errorf("seat answer %s", r.data)
	}

	// Bad input: a 400 whose detail says what to fix.
	for _, tc := range []struct{ path, detail string }{
		{"/v1/api/lhb", "date or code is required"},
		{"/v1/api/lhb?date=2026-11-20&code=600519.SH", "not both"},
		{"/v1/api/lhb?date=2026-13-01", "date"},
		{"/v1/api/lhb?code=60051", "code"},
		{"/v1/api/lhb?code=600519.SH&start=2026-11-20&end=2026-11-01", "after end"},
		{"/v1/api/lhb?code=600519.SH&start=2020-01-01&end=2026-11-20", "at most 366"},
		{"/v1/api/lhb?date=2026-11-20&seats=maybe", "seats"},
		{"/v1/api/lhb/seats", "name is required"},
		{"/v1/api/lhb/seats?name=x", "at least 2 characters"},
		{"/v1/api/lhb/seats?name=xy&page_size=501", "page_size"},
	} {
		r := get(tc.path)
		r.expect(t, 400, "")
		if !strings.Contains(r.detail, tc.detail) {
			t.Errorf("GET %s: detail %q, want it to say %q", tc.path, r.detail, tc.detail)
		}
	}
	// Not imported, told apart: a weekend, a day not out yet, a day older
	// than the job keeps.
	for _, tc := range []struct{ path, detail string }{
		{"/v1/api/lhb?date=2026-11-21", "not a trading day"},
		{"/v1/api/lhb?date=2026-11-23", "not published yet"},
		{"/v1/api/lhb?date=2026-10-09", "mdqs lhb backfill"},
		{"/v1/api/lhb?code=600519.SH&start=2026-10-01&end=2026-10-09", "no day of 2026-10-01..2026-10-09"},
	} {
		r := get(tc.path)
		r.expect(t, 404, "not found")
		if !strings.Contains(r.detail, tc.detail) {
			t.Errorf("GET %s: detail %q, want %q", tc.path, r.detail, tc.detail)
		}
	}
	// Scope market.
	h.addClient("news-only", "secret-n", clientOpts{scopes: "news"})
	h.signed("GET", "/v1/api/lhb?date=2026-11-20", h.token("news-only", "secret-n"), nil).expect(t, 403, "forbidden")
}

// The data centre down with nothing stored: 503 naming the source and
// the failure, with Retry-After, for the day's list and for a range; a
// day the data centre answered empty after the final time is status
// no_list, not a 404.
func TestLHBOutageAnd9201(t *testing.T) {
	h := newInfoHarness(t)
	h.clock.Set(market.Day(20261120).At(19, 0, 0))
	adm := func(path string) response { return h.signed(http.MethodGet, path, h.admin, nil) }
	down := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(http.StatusBadGateway) }))
	defer down.Close()
	c, err := upstream.NewLHB(upstream.LHBConfig{SourceConfig: upstream.SourceConfig{BaseURL: down.URL, Retries: -1, Rate: 1000, Burst: 100,
		BreakerFailures: 100}}, upstream.NewLimiters(), h.clock)
	if err != nil {
		t.Fatal(err)
	}
	h.api.LHB = lhb.New(lhb.Config{}, h.store, c, market.DefaultCalendar(), h.clock, h.api.log)
	if err := h.api.LHB.Job(context.Background()); err == nil {
		t.Fatal("the job succeeded against a 502")
	}
	expectOutage(t, adm("/v1/api/lhb?date=2026-11-20"), "600", "datacenter-lhb", "http_status")
	expectOutage(t, adm("/v1/api/lhb?code=600519.SH&start=2026-11-16&end=2026-11-20"), "600", "datacenter-lhb")
	expectOutage(t, adm("/v1/api/lhb/seats?name="+url.QueryEscape("机构专用")), "600", "datacenter-lhb")

	empty := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Write([]byte(`{"version":null,"result":null,"success":false,"message":"返回数据为空","code":9201}`))
	}))
	defer empty.Close()
	c, _ = upstream.NewLHB(upstream.LHBConfig{SourceConfig: upstream.SourceConfig{BaseURL: empty.URL, Rate: 1000, Burst: 100}}, upstream.NewLimiters(), h.clock)
	h.api.LHB = lhb.New(lhb.Config{}, h.store, c, market.DefaultCalendar(), h.clock, h.api.log)
	if _, err := h.api.LHB.Import(context.Background(), 20261119); err != nil {
		t.Fatal(err)
	}
	day := decode[lhbDayAnswer](t, adm("/v1/api/lhb?date=2026-11-19"))
	if day.Status != "no_list" || len(day.Items) != 0 || day.Source != upstream.SourceLHB {
		t.Errorf("an empty day: %+v", day)
	}
}
