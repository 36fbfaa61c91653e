package api

import (
	"context"
	"encoding/json"
	"math"
	"math/big"
	"net/http"
	"strconv"
	"strings"
	"testing"

	"mdqs/db"
	"mdqs/internal/market"
	"mdqs/internal/tdx"
)

// str is *p, "" for nil.
func str(p *string) string {
	if p == nil {
		return ""
	}
	return *p
}

// xdxr is one price event as the import stores a gbbq's: the decimals of
// its float32 values.
type xdxr struct {
	day                                   market.Day
	cash, rightsPrice, bonus, rightsPer10 float64
}

// The events of 600519.SH in these tests: a rights issue, a cash dividend,
// bonus shares with cash, and one announced after the harness's today,
// which qfq must not apply yet.
var testEvents = []xdxr{
	{20261105, 0, 8.5, 0, 3},
	{20261110, 25.91, 0, 0, 0},
	{20261116, 1.58, 0, 2, 0},
	{20261210, 30, 0, 0, 0},
}

func putTestActions(t testing.TB, h *harness) {
	t.Helper()
	code := market.MustCode("600519.SH")
	actions := []db.Action{
		// The listing: a share change from nothing (tdx.ListingDay).
		{Code: code, Day: 20010827, Category: 5, F: [4]float64{0, 0, 22500, 40000}, Source: "tdx"},
	}
	for _, e := range testEvents {
		actions = append(actions, db.Action{Code: code, Day: e.day, Category: 1, Source: "tdx",
			F: [4]float64{e.cash, e.rightsPrice, e.bonus, e.rightsPer10}})
	}
	if _, err := h.store.ReplaceActions(context.Background(), "tdx", actions); err != nil {
		t.Fatal(err)
	}
}

// qfqByHand is the terminal's rule written out plainly, event by event,
// independently of package adjust: a bar dated d gets every event with
// d < ex-date <= asOf, oldest first, p -> (10p - cash + price*rights) /
// (10 + bonus + rights), and only the result is rounded, half away from
// zero. It is worked in rationals from the decimals the values were
// written as (1.58, not the float32 1.58000004): in floats 2026-11-10's
// 1511.6 came to a hair below 1259.535 and rounded down (issue 32).
func qfqByHand(p float64, d, asOf market.Day) float64 {
	v := dec(p, 64)
	for _, e := range testEvents {
		if d < e.day && e.day <= asOf {
			m := new(big.Rat).Add(big.NewRat(10, 1), decOf(e.bonus))
			m.Add(m, decOf(e.rightsPer10))
			v.Mul(v, big.NewRat(10, 1)).Sub(v, decOf(e.cash)).Add(v, new(big.Rat).Mul(decOf(e.rightsPrice), decOf(e.rightsPer10))).Quo(v, m)
		}
	}
	return halfAway(v)
}

// hfqByHand inverts every event with listing < ex-date <= d, in
// rationals as qfqByHand.
func hfqByHand(p float64, d market.Day) float64 {
	v := dec(p, 64)
	for i := len(testEvents) - 1; i >= 0; i-- {
		e := testEvents[i]
		if e.day <= d {
			m := new(big.Rat).Add(big.NewRat(10, 1), decOf(e.bonus))
			m.Add(m, decOf(e.rightsPer10))
			v.Mul(v, m).Add(v, decOf(e.cash)).Sub(v, new(big.Rat).Mul(decOf(e.rightsPrice), decOf(e.rightsPer10))).Quo(v, big.NewRat(10, 1))
		}
	}
	return halfAway(v)
}

// dec is the decimal v was written as, in bits-bit floats.
func dec(v float64, bits int) *big.Rat {
	r, _ := new(big.Rat).SetString(strconv.FormatFloat(v, 'g', -1, bits))
	return r
}

// decOf is an event value's decimal: the fixtures hold them as the import
// stores the gbbq's float32s, their shortest decimals (1.58).
func decOf(v float64) *big.Rat { return dec(v, 64) }

// halfAway rounds v to the cent, halves away from zero.
func halfAway(v *big.Rat) float64 {
	x := new(big.Rat).Mul(v, big.NewRat(200, 1)) // 2·100·v
	n := new(big.Int).Quo(x.Num(), x.Denom())    // toward zero
	n.Add(n, big.NewInt(int64(x.Sign())))        // ±1, then halve: ⌊(2|x|+1)/2⌋
	n.Quo(n, big.NewInt(2))
	f, _ := new(big.Rat).SetFrac(n, big.NewInt(100)).Float64()
	return f
}

type adjustedAnswer struct {
	klineAnswer
	Adj              string  `json:"adj"`
	Method           string  `json:"adj_method"`
	Anchor           string  `json:"anchor"`
	ListingDay       *string `json:"listing_day"`
	ListingDaySource *string `json:"listing_day_source"`
	AnchorNote       *string `json:"anchor_note"`
	ActionsSource    string  `json:"actions_source"`
	Events           []struct {
		Date string  `json:"date"`
		Cash float64 `json:"cash_per_10"`
	} `json:"events"`
}

func (h *harness) adjusted(t *testing.T, tok, path string) (response, adjustedAnswer) {
	t.Helper()
	r := h.signed(http.MethodGet, path, tok, nil)
	var a adjustedAnswer
	if r.status == 200 {
		if err := json.Unmarshal(r.data, &a); err != nil {
			t.Fatalf("%s: %v", path, err)
		}
	}
	return r, a
}

func TestAdjustedWithoutActionsIsAnOutageNamingTheSetting(t *testing.T) {
	h, tok := klineClient(t)
	for _, path := range []string{
		"/v1/api/kline/adjusted?code=600519.SH&freq=D&start=2026-11-02&end=2026-11-20&mode=qfq",
		"/v1/api/corporate_actions?code=600519.SH",
		"/v1/api/kline?code=600519.SH&freq=D&start=2026-11-02&end=2026-11-20&fields=close,adj_factor",
	} {
		r := h.signed(http.MethodGet, path, tok, nil)
		if r.status != 503 || !strings.Contains(r.detail, "tdx.dir") {
			t.Errorf("%s before any import: %d %q; want 503 naming tdx.dir", path, r.status, r.detail)
		}
	}
	// Without the adjustment fields /v1/api/kline does not need actions.
	h.signed(http.MethodGet, "/v1/api/kline?code=600519.SH&freq=D&start=2026-11-02&end=2026-11-20", tok, nil).expect(t, 200, "OK")
}

func TestAdjustedPricesFollowTheTerminalsRule(t *testing.T) {
	h, tok := klineClient(t)
	putTestActions(t, h)
	rng := "code=600519.SH&freq=D&start=2026-11-02&end=2026-11-20"
	_, raw := h.kline(t, tok, "/v1/api/kline?"+rng)
	if len(raw.Rows) < 10 {
		t.Fatalf("%d raw rows", len(raw.Rows))
	}
	today := market.DayOf(h.clock.Now())

	r, q := h.adjusted(t, tok, "/v1/api/kline/adjusted?"+rng+"&mode=qfq&indicators=ma5")
	if r.status != 200 {
		t.Fatalf("qfq: %d %s", r.status, r.raw)
	}
	if q.Adj != "qfq" || q.Method != "tdx-affine" || q.Anchor != today.String() || q.ActionsSource != "tdx" || len(q.Events) != 3 {
		t.Fatalf("qfq header: adj %q method %q anchor %q (today %s) source %q, %d events (want the 3 up to today)",
			q.Adj, q.Method, q.Anchor, today, q.ActionsSource, len(q.Events))
	}
	if q.Events[2].Cash != 1.58 {
		t.Errorf("event cash %v, want 1.58 as stored", q.Events[2].Cash)
	}
	if len(q.Rows) != len(raw.Rows) {
		t.Fatalf("%d adjusted rows, %d raw", len(q.Rows), len(raw.Rows))
	}
	moved := 0
	for i, row := range q.Rows {
		d, _ := market.ParseDay(row["trade_date"].(string))
		for _, f := range []string{"open", "high", "low", "close"} {
			want := qfqByHand(num(raw.Rows[i], f), d, today)
			if got := num(row, f); got != want {
				t.Errorf("qfq %s %s: %v, want %v (raw %v)", d, f, got, want, num(raw.Rows[i], f))
			}
		}
		if num(row, "volume") != num(raw.Rows[i], "volume") || num(row, "amount") != num(raw.Rows[i], "amount") {
			t.Errorf("qfq %s: volume or amount adjusted", d)
		}
		if num(row, "close") != num(raw.Rows[i], "close") {
			moved++
		}
		// pct is on the adjusted closes.
		if i > 0 {
			want := math.Round((num(row, "close")/num(q.Rows[i-1], "close")-1)*100*1e4) / 1e4
			if got := num(row, "pct"); math.Abs(got-want) > 1e-4 {
				t.Errorf("qfq %s pct %v, want %v from the adjusted closes", d, got, want)
			}
		}
	}
	if moved == 0 {
		t.Fatal("no bar moved: the events were not applied")
	}
	// The indicator runs on adjusted closes: the last ma5 is their mean.
	last := len(q.Rows) - 1
	var sum float64
	for _, row := range q.Rows[last-4:] {
		sum += num(row, "close")
	}
	if got := num(q.Rows[last], "ma5"); math.Abs(got-sum/5) > 1e-3 {
		t.Errorf("ma5 on adjusted bars = %v, want %v", got, sum/5)
	}

	// An anchor before the last events leaves them out.
	_, a := h.adjusted(t, tok, "/v1/api/kline/adjusted?"+rng+"&mode=qfq&anchor=2026-11-12")
	if a.Anchor != "2026-11-12" || len(a.Events) != 2 {
		t.Fatalf("anchor 2026-11-12: anchor %q, %d events; want 2", a.Anchor, len(a.Events))
	}
	for i, row := range a.Rows {
		d, _ := market.ParseDay(row["trade_date"].(string))
		if want := qfqByHand(num(raw.Rows[i], "close"), d, 20261112); num(row, "close") != want {
			t.Errorf("qfq at 2026-11-12, %s: %v, want %v", d, num(row, "close"), want)
		}
	}

	// hfq: anchored at the listing the actions give, which both modes name.
	_, hq := h.adjusted(t, tok, "/v1/api/kline/adjusted?"+rng+"&mode=hfq")
	if hq.Adj != "hfq" || hq.Anchor != "2001-08-27" {
		t.Fatalf("hfq: adj %q anchor %q; want the listing day 2001-08-27", hq.Adj, hq.Anchor)
	}
	for _, a := range []adjustedAnswer{q, hq} {
		if str(a.ListingDay) != "2001-08-27" || str(a.ListingDaySource) != "gbbq" || a.AnchorNote != nil {
			t.Errorf("%s: listing_day %q from %q, anchor_note %q; want 2001-08-27 from gbbq, no note", a.Adj, str(a.ListingDay), str(a.ListingDaySource), str(a.AnchorNote))
		}
	}
	for i, row := range hq.Rows {
		d, _ := market.ParseDay(row["trade_date"].(string))
		if want := hfqByHand(num(raw.Rows[i], "close"), d); num(row, "close") != want {
			t.Errorf("hfq %s: %v, want %v", d, num(row, "close"), want)
		}
	}

	// adj_factor and adj_offset on /v1/api/kline carry the qfq map.
	_, f := h.kline(t, tok, "/v1/api/kline?"+rng+"&fields=close,adj_factor,adj_offset")
	for i, row := range f.Rows {
		got := math.Round((num(row, "adj_factor")*num(row, "close")+num(row, "adj_offset"))*100) / 100
		if want := num(q.Rows[i], "close"); got != want {
			t.Errorf("row %d: round(adj_factor*close + adj_offset) = %v, qfq close %v", i, got, want)
		}
		if _, ok := row["open"]; ok {
			t.Errorf("row %d: fields=close,adj_factor,adj_offset also gave open", i)
		}
	}
	// ...and are not in the default fields.
	_, plain := h.kline(t, tok, "/v1/api/kline?"+rng)
	if _, ok := plain.Rows[0]["adj_factor"]; ok {
		t.Error("adj_factor in /v1/api/kline's default fields")
	}
}

func TestAdjustedParameterErrors(t *testing.T) {
	h, tok := klineClient(t)
	putTestActions(t, h)
	base := "/v1/api/kline/adjusted?code=600519.SH&freq=D&start=2026-11-02&end=2026-11-20"
	for _, tt := range []struct {
		path, detail string
	}{
		{base, "mode is required"},
		{base + "&mode=forward", "mode must be qfq or hfq"},
		{base + "&mode=qfq&anchor=2026-02-30", "anchor"},
		{base + "&mode=qfq&adj=qfq", "not adj"},
		{base + "&mode=qfq&source=tdx", "no source parameter"},
		{base + "&mode=qfq&fields=close,vwap", `unknown field "vwap"`},
		{"/v1/api/corporate_actions", "code is required"},
		{"/v1/api/corporate_actions?code=600519.SH&start=2026-12-01&end=2026-11-01", "after end"},
	} {
		r := h.signed(http.MethodGet, tt.path, tok, nil)
		r.expect(t, 400, "missing or invalid params")
		if !strings.Contains(r.detail, tt.detail) {
			t.Errorf("%s: detail %q, want %q", tt.path, r.detail, tt.detail)
		}
	}
	// The spec's 400 on /v1/api/kline stays, pointing to the new endpoint.
	r := h.signed(http.MethodGet, "/v1/api/kline?code=600519.SH&freq=D&start=2026-11-02&end=2026-11-20&adj=qfq", tok, nil)
	r.expect(t, 400, "parameter error")
	if !strings.Contains(r.detail, "/v1/api/kline/adjusted") || !strings.Contains(r.detail, "mode=qfq") {
		t.Errorf("adj=qfq detail %q does not point to /v1/api/kline/adjusted?mode=qfq", r.detail)
	}
}

func TestCorporateActionsList(t *testing.T) {
	h, tok := klineClient(t)
	putTestActions(t, h)
	r := h.signed(http.MethodGet, "/v1/api/corporate_actions?code=sh600519&start=2026-11-01", tok, nil)
	r.expect(t, 200, "OK")
	var a struct {
		Code       string `json:"code"`
		Count      int    `json:"count"`
		ListingDay string `json:"listing_day"`
		Items      []struct {
			Date     string             `json:"date"`
			Category int                `json:"category"`
			Name     string             `json:"name"`
			Values   map[string]float64 `json:"values"`
			ExFactor *float64           `json:"ex_factor"`
			ExOffset *float64           `json:"ex_offset"`
			Source   string             `json:"source"`
		} `json:"items"`
	}
	if err := json.Unmarshal(r.data, &a); err != nil {
		t.Fatal(err)
	}
	if a.Code != "600519.SH" || a.Count != 4 || len(a.Items) != 4 || a.ListingDay != "2001-08-27" {
		t.Fatalf("code %q count %d items %d listing %q; want 600519.SH, the 4 events since 2026-11-01, listed 2001-08-27",
			a.Code, a.Count, len(a.Items), a.ListingDay)
	}
	bonus := a.Items[2]
	if bonus.Date != "2026-11-16" || bonus.Category != 1 || bonus.Name != "除权除息" || bonus.Values["cash_per_10"] != 1.58 ||
		bonus.Values["bonus_per_10"] != 2 || bonus.Source != "tdx" || bonus.ExFactor == nil {
		t.Fatalf("the bonus event: %+v", bonus)
	}
	// Its own map: (p - 0.158) / 1.2.
	if p := 100.0; math.Abs(*bonus.ExFactor*p+*bonus.ExOffset-(p-0.158)/1.2) > 1e-6 {
		t.Errorf("ex map of the bonus event: %v·p + %v", *bonus.ExFactor, *bonus.ExOffset)
	}
}

// Issue 28: where the gbbq has no listing record, 后复权 is anchored at
// the listing day of the terminal's base.dbf, and the actions answer says
// so; where it has one, the gbbq's record wins over base.dbf's day. Issue
// 32: the adjusted answer names the listing day and its source too, each
// source by its name, and says when none knows it.
func TestListingDayFromBaseDBFWhenTheGBBQLacksIt(t *testing.T) {
	h, tok := klineClient(t)
	putTestActions(t, h)
	ctx := context.Background()
	code := market.MustCode("600519.SH")
	// 600519's actions without their listing record.
	all, err := h.store.Actions(ctx, code)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := h.store.ReplaceActions(ctx, "tdx", all[1:]); err != nil {
		t.Fatal(err)
	}
	listing := func() (string, string) {
		t.Helper()
		r := h.signed(http.MethodGet, "/v1/api/corporate_actions?code=600519.SH", tok, nil)
		r.expect(t, 200, "OK")
		var a struct {
			ListingDay       *string `json:"listing_day"`
			ListingDaySource *string `json:"listing_day_source"`
		}
		if err := json.Unmarshal(r.data, &a); err != nil {
			t.Fatal(err)
		}
		if a.ListingDay == nil || a.ListingDaySource == nil {
			return "", ""
		}
		return *a.ListingDay, *a.ListingDaySource
	}
	rng := "code=600519.SH&freq=D&start=2026-11-02&end=2026-11-20"
	if d, src := listing(); d != "" || src != "" {
		t.Fatalf("no listing record and no base.dbf: listing %q from %q, want none", d, src)
	}
	// No source knows it: every event applies, and the answer says so
	// (issue 32), where it said nothing.
	_, none := h.adjusted(t, tok, "/v1/api/kline/adjusted?"+rng+"&mode=hfq")
	if none.Anchor != "" || none.ListingDay != nil || none.ListingDaySource != nil || !strings.Contains(str(none.AnchorNote), "every event") {
		t.Errorf("hfq without a listing day: anchor %q, listing %q from %q, note %q; want nulls and a note saying every event applies",
			none.Anchor, str(none.ListingDay), str(none.ListingDaySource), str(none.AnchorNote))
	}
	// The terminal's base.dbf, named as its import stores it (the answer
	// named every stored day base.dbf's, whatever source stated it).
	if err := h.store.ReplaceListingDays(ctx, tdx.BaseDBFSource, map[market.Code]market.Day{code: 20010827}); err != nil {
		t.Fatal(err)
	}
	if d, src := listing(); d != "2001-08-27" || src != "base.dbf" {
		t.Fatalf("with base.dbf: listing %q from %q, want 2001-08-27 from base.dbf", d, src)
	}
	_, hq := h.adjusted(t, tok, "/v1/api/kline/adjusted?"+rng+"&mode=hfq")
	if hq.Anchor != "2001-08-27" || str(hq.ListingDay) != "2001-08-27" || str(hq.ListingDaySource) != "base.dbf" || hq.AnchorNote != nil {
		t.Errorf("hfq anchor %q, listing %q from %q, note %q; want base.dbf's 2001-08-27 and no note",
			hq.Anchor, str(hq.ListingDay), str(hq.ListingDaySource), str(hq.AnchorNote))
	}
	// An exchange's list of delisted companies states it last, by its name.
	if err := h.store.ReplaceListingDays(ctx, tdx.BaseDBFSource, nil); err != nil {
		t.Fatal(err)
	}
	if err := h.store.ReplaceDelistings(ctx, "sse", []db.Delisting{{Code: code, Name: "贵州茅台", Listed: 20010827}}, h.clock.Now()); err != nil {
		t.Fatal(err)
	}
	if d, src := listing(); d != "2001-08-27" || src != "sse" {
		t.Errorf("from the exchange's list: listing %q from %q, want 2001-08-27 from sse", d, src)
	}
	putTestActions(t, h) // the gbbq's listing record again
	if err := h.store.ReplaceListingDays(ctx, tdx.BaseDBFSource, map[market.Code]market.Day{code: 20010901}); err != nil {
		t.Fatal(err)
	}
	if d, src := listing(); d != "2001-08-27" || src != "gbbq" {
		t.Errorf("with both: listing %q from %q, want the gbbq's 2001-08-27", d, src)
	}
}

// Today's forming bars are joined and adjusted like the final ones.
func TestAdjustedJoinsTodaysFormingBars(t *testing.T) {
	h, tok := klineClient(t)
	putTestActions(t, h)
	rng := "code=600519.SH&freq=D&start=2026-11-19&end=2026-11-23"
	_, raw := h.kline(t, tok, "/v1/api/kline?"+rng)
	r, a := h.adjusted(t, tok, "/v1/api/kline/adjusted?"+rng+"&mode=hfq")
	if r.status != 200 || a.ProvisionalRows != 1 || raw.ProvisionalRows != 1 || len(a.Rows) != len(raw.Rows) {
		t.Fatalf("hfq with today: %d, %d provisional of %d rows (raw %d of %d)", r.status, a.ProvisionalRows, len(a.Rows), raw.ProvisionalRows, len(raw.Rows))
	}
	last := len(a.Rows) - 1
	if a.Rows[last]["provisional"] != true {
		t.Fatalf("the last row is not today's forming bar: %v", a.Rows[last])
	}
	for i, row := range a.Rows {
		d, _ := market.ParseDay(row["trade_date"].(string))
		if want := hfqByHand(num(raw.Rows[i], "close"), d); num(row, "close") != want {
			t.Errorf("hfq %s (provisional %v): %v, want %v", d, row["provisional"], num(row, "close"), want)
		}
	}
}

// 前复权 defaults to the code's latest stored bar, not today's date: on a
// store whose bars stop before the last trading day, and a source that
// cannot give later ones, an event after the last bar is not applied, so
// that bar shows its raw close (issue 32: 600028.SH's last bar served at
// 5.85 against a raw close of 5.95), and the answer says what it is
// anchored at.
func TestAdjustedQFQAnchorsAtTheLatestStoredBar(t *testing.T) {
	h, tok := klineClient(t)
	ctx := context.Background()
	code := market.MustCode("605999.SH") // unknown to the harness's source: nothing later to fetch
	var bars []market.Bar
	for i, d := range []market.Day{20261026, 20261027, 20261028, 20261029, 20261030} {
		c := 6.0 - 0.01*float64(i)
		bars = append(bars, market.Bar{Day: d, TS: d.At(15, 0, 0).Unix(), Open: c, High: c + 0.05, Low: c - 0.05, Close: c, Volume: 1000, Amount: 1000 * c})
	}
	bars[4].Close = 5.95
	if _, err := h.store.IngestBars(ctx, []db.BarBatch{{Code: code, Freq: market.Daily, Source: "tdx", Bars: bars,
		Cover: &db.Span{First: 20261026, Last: 20261030}}}); err != nil {
		t.Fatal(err)
	}
	if _, err := h.store.ReplaceActions(ctx, "tdx", []db.Action{
		{Code: code, Day: 20261028, Category: 1, F: [4]float64{2, 0, 0, 0}, Source: "tdx"},
		{Code: code, Day: 20261110, Category: 1, F: [4]float64{1, 0, 0, 0}, Source: "tdx"}, // after the last bar
	}); err != nil {
		t.Fatal(err)
	}
	rng := "code=605999.SH&freq=D&start=2026-10-26&end=2026-10-30"
	r, q := h.adjusted(t, tok, "/v1/api/kline/adjusted?"+rng+"&mode=qfq")
	if r.status != 200 || len(q.Rows) != 5 {
		t.Fatalf("qfq: %d, %d rows: %s", r.status, len(q.Rows), r.raw)
	}
	if q.Anchor != "2026-10-30" || len(q.Events) != 1 || q.Events[0].Date != "2026-10-28" {
		t.Errorf("anchor %q, events %+v; want the last bar's 2026-10-30 and only the event up to it", q.Anchor, q.Events)
	}
	if got := num(q.Rows[4], "close"); got != 5.95 {
		t.Errorf("the last bar's qfq close %v, want its raw close 5.95", got)
	}
	if got, want := num(q.Rows[0], "close"), 6.0-0.2; got != want {
		t.Errorf("the first bar's qfq close %v, want %v (the 2026-10-28 event only)", got, want)
	}
	if note := str(q.AnchorNote); !strings.Contains(note, "2026-10-30") || !strings.Contains(note, "not applied") {
		t.Errorf("anchor_note %q: want it to say the anchor is the latest bar held", note)
	}
	// adj_factor and adj_offset carry the same map: the last bar's is 1·p + 0.
	_, f := h.kline(t, tok, "/v1/api/kline?"+rng+"&fields=close,adj_factor,adj_offset")
	if n := len(f.Rows); n != 5 || num(f.Rows[4], "adj_factor") != 1 || num(f.Rows[4], "adj_offset") != 0 {
		t.Errorf("adj_factor/adj_offset of the last bar: %v", f.Rows)
	}
}

// A fund's adjusted prices keep its 0.001 tick: 510300.SH pays 0.05 a
// share (0.5 per 10) ex 2026-11-10; qfq takes it off the bars before, to
// the 0.001, and leaves the bars after unchanged, their last digit too.
func TestAdjustedFundPricesKeepThreeDecimals(t *testing.T) {
	h, tok := klineClient(t)
	putTestActions(t, h)
	fund := market.MustCode("510300.SH")
	if _, err := h.store.ReplaceActions(context.Background(), "tdx-fund", []db.Action{
		{Code: fund, Day: 20261110, Category: 1, Source: "tdx-fund", F: [4]float64{0.5, 0, 0, 0}}}); err != nil {
		t.Fatal(err)
	}
	rng := "code=510300.SH&freq=D&start=2026-11-02&end=2026-11-20"
	_, raw := h.kline(t, tok, "/v1/api/kline?"+rng)
	r, q := h.adjusted(t, tok, "/v1/api/kline/adjusted?"+rng+"&mode=qfq")
	if r.status != 200 || len(q.Rows) != len(raw.Rows) || len(raw.Rows) < 10 {
		t.Fatalf("qfq: %d %s", r.status, r.raw)
	}
	thirdDigit := 0
	for i, row := range q.Rows {
		day, _ := market.ParseDay(row["trade_date"].(string))
		want := num(raw.Rows[i], "close")
		if day < 20261110 {
			want = math.Round((want-0.05)*1000) / 1000
		}
		if got := num(row, "close"); got != want {
			t.Errorf("%v: qfq close %v, want %v (raw %v)", day, got, want, num(raw.Rows[i], "close"))
		}
		if c := num(row, "close") * 100; math.Abs(c-math.Round(c)) > 1e-6 {
			thirdDigit++
		}
	}
	if thirdDigit == 0 {
		t.Fatal("no qfq close with a third decimal: the fund's tick was rounded away")
	}
}

// An event's own map is written as its decimals too (issue 32, "numbers as
// they were written"): 2.18 per 10 is an offset of −0.218, which float64
// division writes as −0.21800000000000003; 1 / 1.2 keeps its 15
// significant digits.
func TestCorporateActionsMapIsWrittenAsDecimals(t *testing.T) {
	h, tok := klineClient(t)
	code := market.MustCode("600519.SH")
	if _, err := h.store.ReplaceActions(context.Background(), "tdx", []db.Action{
		{Code: code, Day: 20261102, Category: 1, F: [4]float64{2.18, 0, 0, 0}, Source: "tdx"},
		{Code: code, Day: 20261109, Category: 1, F: [4]float64{0, 0, 2, 0}, Source: "tdx"},
	}); err != nil {
		t.Fatal(err)
	}
	r := h.signed(http.MethodGet, "/v1/api/corporate_actions?code=600519.SH&start=2026-11-01", tok, nil)
	r.expect(t, 200, "OK")
	for _, want := range []string{`"ex_offset":-0.218`, `"ex_factor":0.833333333333333`} {
		if !strings.Contains(string(r.data), want+",") && !strings.Contains(string(r.data), want+"}") {
			t.Errorf("want %s in %s", want, r.data)
		}
	}
	if strings.Contains(string(r.data), "0000000") || strings.Contains(string(r.data), "9999999") || strings.Contains(string(r.data), ":-0,") {
		t.Errorf("float noise in %s", r.data)
	}
}
