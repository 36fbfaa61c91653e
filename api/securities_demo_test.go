package api

import (
	"context"
	"encoding/json"
	"math"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"mdqs/internal/market"
	"mdqs/internal/quote"
)

type securitiesAnswer struct {
	Date  string `json:"date"`
	Items []struct {
		Code     string  `json:"code"`
		Name     string  `json:"name"`
		ST       *string `json:"st"`
		LimitPct *int64  `json:"limit_pct"`
	} `json:"items"`
}

type historyAnswer struct {
	LastSeen          *string `json:"last_seen"`
	DelistedDay       *string `json:"delisted_day"`
	DelistedDaySource *string `json:"delisted_day_source"`
	Spans             []struct {
		Field string  `json:"field"`
		Value *string `json:"value"`
		From  string  `json:"from"`
		To    string  `json:"to"`
	} `json:"spans"`
}

// Issue 28, through the API on the demo market's own past: the universe of
// a past day holds a code delisted since, a stock's limit on a day it was
// under a warning is the ST rule's and its prices kept to it, and a
// rename shows both names with their days.
func TestSecurityMasterKeepsWhatTheSourcesForget(t *testing.T) {
	h := newHarness(t, withSecurityHistory(150))
	ctx := context.Background()
	cal := market.DefaultCalendar()
	code, delisted, today := afterFirstDelisting(t, h, 15)
	h.addClient("c", "secret-c", clientOpts{scopes: "market,kline,screener"})
	tok := h.token("c", "secret-c")
	get := func(path string, into any) {
		t.Helper()
		r := h.signed(http.MethodGet, path, tok, nil)
		r.expect(t, 200, "OK")
		if err := json.Unmarshal(r.data, into); err != nil {
			t.Fatal(err)
		}
	}
	universe := func(day market.Day) securitiesAnswer {
		t.Helper()
		var a securitiesAnswer
		get("/v1/api/securities?date="+day.String(), &a)
		return a
	}
	has := func(a securitiesAnswer, c market.Code) bool {
		return slices.ContainsFunc(a.Items, func(it struct {
			Code     string  `json:"code"`
			Name     string  `json:"name"`
			ST       *string `json:"st"`
			LimitPct *int64  `json:"limit_pct"`
		}) bool {
			return it.Code == c.String()
		})
	}

	// Delisted since, yet in the cross-section of its last day.
	last := cal.Prev(delisted)
	if !has(universe(last), code) || has(universe(delisted), code) || has(universe(today), code) {
		t.Fatalf("%v (delisted %v): want it in the universe of %v only, not of %v nor today", code, delisted, last, delisted)
	}
	var hist historyAnswer
	get("/v1/api/securities/history?code="+code.String(), &hist)
	if hist.LastSeen == nil || *hist.LastSeen != last.String() {
		t.Fatalf("%v: last_seen %v; want %v", code, hist.LastSeen, last)
	}
	if hist.DelistedDay == nil || *hist.DelistedDay != delisted.String() || hist.DelistedDaySource == nil || *hist.DelistedDaySource != "demo" {
		t.Fatalf("%v: delisted_day %v from %v; want %v from the demo's list", code, hist.DelistedDay, hist.DelistedDaySource, delisted)
	}

	// Its last weeks were under *ST: the ST rule's ±5 % those days, and
	// every daily bar kept inside the limit prices of that rule.
	var warned []market.Day
	for _, sp := range hist.Spans {
		if sp.Field == "st" && sp.Value != nil && *sp.Value == "*ST" && sp.To == last.String() {
			from, _ := market.ParseDay(sp.From)
			warned = cal.Between(from, last)
		}
	}
	if len(warned) < 20 {
		t.Fatalf("%v: *ST span before its delisting covers %d days; want its last weeks (%+v)", code, len(warned), hist.Spans)
	}
	var kl klineAnswer
	get("/v1/api/kline?code="+code.String()+"&freq=D&start="+cal.Prev(warned[0]).String()+"&end="+last.String(), &kl)
	if len(kl.Rows) < len(warned) {
		t.Fatalf("%d daily bars for %d warned days", len(kl.Rows), len(warned))
	}
	slices.SortFunc(kl.Rows, func(a, b klineRow) int { return strings.Compare(a["trade_date"].(string), b["trade_date"].(string)) })
	for k := 1; k < len(kl.Rows); k++ {
		day, _ := market.ParseDay(kl.Rows[k]["trade_date"].(string))
		var a securitiesAnswer
		get("/v1/api/securities?date="+day.String()+"&st=true", &a)
		i := slices.IndexFunc(a.Items, func(it struct {
			Code     string  `json:"code"`
			Name     string  `json:"name"`
			ST       *string `json:"st"`
			LimitPct *int64  `json:"limit_pct"`
		}) bool {
			return it.Code == code.String()
		})
		if i < 0 || a.Items[i].LimitPct == nil || *a.Items[i].LimitPct != 5 || !strings.HasPrefix(a.Items[i].Name, "*ST") {
			t.Fatalf("%v on %v: %+v; want it under *ST with the 5 %% limit", code, day, a.Items)
		}
		up, down, _ := quote.Limits(num(kl.Rows[k-1], "close"), *a.Items[i].LimitPct)
		for _, f := range []string{"open", "high", "low", "close"} {
			if v := num(kl.Rows[k], f); v > up+1e-9 || v < down-1e-9 || math.IsNaN(v) {
				t.Fatalf("%v on %v: %s %v outside the limit prices %v..%v", code, day, f, v, down, up)
			}
		}
	}

	// A screen of its last day finds it, at that day's close (the bars the
	// K-line request above stored); today's does not.
	for _, c := range []struct {
		date    string
		matched int
	}{{last.String(), 1}, {"", 0}} {
		body := `{"expression": "code == \"` + code.String() + `\" && price > 0", "universe": {"date": "` + c.date + `"}}`
		r := h.signed(http.MethodPost, "/v1/api/screener/queue/submit", tok, []byte(body))
		r.expect(t, 200, "OK")
		var job struct {
			ID string `json:"id"`
		}
		json.Unmarshal(r.data, &job)
		var st struct {
			State   string `json:"state"`
			Matched int    `json:"matched"`
			Error   string `json:"error"`
		}
		for range 500 {
			get("/v1/api/screener/queue/status?id="+job.ID, &st)
			if st.State == "succeeded" || st.State == "failed" {
				break
			}
			time.Sleep(10 * time.Millisecond)
		}
		if st.State != "succeeded" || st.Matched != c.matched {
			t.Fatalf("screen of %q: %s (%s), %d matched; want %d", c.date, st.State, st.Error, st.Matched, c.matched)
		}
	}
	r := h.signed(http.MethodPost, "/v1/api/screener/queue/submit", tok, []byte(`{"expression": "price > 0", "universe": {"date": "2019-01-02"}}`))
	r.expect(t, 404, "not found")

	// A rename inside the recorded days: both names, each with its days.
	rec, err := h.api.Securities.Recorded(ctx)
	if err != nil {
		t.Fatal(err)
	}
	before, after := h.demo.NamesOn(rec.First), h.demo.NamesOn(today)
	renamed := 0
	for c, old := range before {
		now, ok := after[c]
		if !ok || unwarned(old) == unwarned(now) {
			continue
		}
		renamed++
		var hc historyAnswer
		get("/v1/api/securities/history?code="+c.String(), &hc)
		var names []string
		var spans []string
		for _, sp := range hc.Spans {
			if sp.Field == "name" {
				names = append(names, unwarned(*sp.Value))
				spans = append(spans, sp.From+".."+sp.To)
			}
		}
		i, j := slices.Index(names, unwarned(old)), slices.Index(names, unwarned(now))
		if i < 0 || j <= i {
			t.Fatalf("%v renamed from %q to %q: name spans %v %v", c, old, now, names, spans)
		}
		// The new name starts the session after the former one ends.
		endOld, _ := market.ParseDay(strings.Split(spans[j-1], "..")[1])
		startNew, _ := market.ParseDay(strings.Split(spans[j], "..")[0])
		if cal.Next(endOld) != startNew {
			t.Fatalf("%v: former name to %v, new name from %v; want consecutive sessions", c, endOld, startNew)
		}
	}
	if renamed == 0 {
		t.Fatal("no rename within the recorded days to test")
	}
}

// afterFirstDelisting finds the first delisting of the harness's demo
// market after mid-2023, sets the clock to the close sessions later and
// records the security master (its back-fill covers the days before).
func afterFirstDelisting(t *testing.T, h *harness, sessions int) (code market.Code, delisted, today market.Day) {
	t.Helper()
	for c, d := range h.demo.DelistingDays() {
		if d > 20230601 && (delisted == 0 || d < delisted) {
			code, delisted = c, d
		}
	}
	if delisted == 0 {
		t.Fatal("the harness's demo market delists nothing after 2023: no case to test")
	}
	cal := market.DefaultCalendar()
	today = delisted
	for range sessions {
		today = cal.Next(today)
	}
	h.clock.Set(today.At(16, 0, 0))
	if err := h.api.Securities.Record(context.Background()); err != nil {
		t.Fatal(err)
	}
	return code, delisted, today
}

// unwarned is a name without its warning's prefix.
func unwarned(name string) string {
	for _, p := range []string{"S*ST", "SST", "*ST", "ST"} {
		if strings.HasPrefix(name, p) {
			return name[len(p):]
		}
	}
	return name
}
