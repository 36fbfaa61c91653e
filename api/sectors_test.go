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

	"mdqs/internal/market"
	"mdqs/internal/movement"
	"mdqs/internal/upstream/upstreamtest"
)

type rowsAnswer struct {
	Data []struct {
		BoardCode string   `json:"board_code"`
		BoardName string   `json:"board_name"`
		Type      string   `json:"type"`
		Pct       *float64 `json:"pct"`
		Amount    *float64 `json:"amount"`
		Turnover  *float64 `json:"turnover"`
		MainNet   *float64 `json:"main_net"`
		EventTS   *string  `json:"event_ts"`
	} `json:"data"`
	Meta struct {
		Day    string `json:"day"`
		Type   string `json:"type"`
		Source string `json:"source"`
		Total  int    `json:"total"`
		Count  int    `json:"count"`
	} `json:"meta"`
	Analysis *movement.Analysis `json:"-"`
}

func (h *harness) rows(t *testing.T, tok, path string) (response, rowsAnswer) {
	t.Helper()
	r := h.signed(http.MethodGet, path, tok, nil)
	var a rowsAnswer
	if r.status == 200 {
		if err := json.Unmarshal(r.raw, &a); err != nil {
			t.Fatalf("%s: %v", path, err)
		}
	}
	return r, a
}

func names(a rowsAnswer) string {
	var out []string
	for _, r := range a.Data {
		out = append(out, r.BoardName)
	}
	return strings.Join(out, ",")
}

func TestBoardsQueryParameters(t *testing.T) {
	h := newHarness(t)
	h.addClient("c", "secret-c", clientOpts{scopes: "market"})
	tok := h.token("c", "secret-c")
	// 行业i has pct (6-i)*0.5, main net (6-i)*1e8, amount 5e9, code BK(100+i).
	tests := []struct {
		query string
		want  string
	}{
		{"", "行业0,行业1,行业2,行业3,行业4,行业5,行业6,行业7,行业8,行业9,行业10,行业11"},
		{"?top=3", "行业0,行业1,行业2"},
		{"?sort=pct&order=asc&top=2", "行业11,行业10"},
		{"?sort=main_net&order=asc&top=2", "行业11,行业10"},
		{"?sort=amount&top=2", "行业0,行业1"},   // equal amounts order by name
		{"?sort=turnover&top=2", "行业0,行业1"}, // likewise
		{"?min_main_net=0", "行业0,行业1,行业2,行业3,行业4,行业5,行业6"},
		{"?min_amount=6e9", ""},
		{"?min_turnover=1.5&top=1", "行业0"},
		{"?excode=BK0100,bk0101&top=2", "行业2,行业3"},
		{"?code=BK0103", "行业3"},
		{"?board_code=bk0103", "行业3"},
		{"?name=" + url.QueryEscape("行业1"), "行业1,行业10,行业11"},
		{"?board_name=" + url.QueryEscape("业1"), "行业1,行业10,行业11"},
		{"?name=" + url.QueryEscape("行业1") + "&min_main_net=-1e8", "行业1"},
		{"?name=" + url.QueryEscape("行业1") + "&sort=pct&order=asc", "行业11,行业10,行业1"},
		{"?source=push2&day=20261123&top=1", "行业0"},
	}
	for _, tt := range tests {
		r, a := h.rows(t, tok, "/v1/api/boards/industry"+tt.query)
		if r.status != 200 {
			t.Fatalf("%s: %d %s", tt.query, r.status, r.raw)
		}
		if got := names(a); got != tt.want {
			t.Errorf("boards/industry%s = %s, want %s", tt.query, got, tt.want)
		}
		if a.Meta.Total != 12 || a.Meta.Count != len(a.Data) || a.Meta.Type != "industry" || a.Meta.Source != "push2" || a.Meta.Day != "20261123" {
			t.Errorf("%s: meta = %+v", tt.query, a.Meta)
		}
	}
	r, a := h.rows(t, tok, "/v1/api/boards/concept?top=1")
	if r.status != 200 || a.Meta.Total != 30 || names(a) != "概念0" || a.Data[0].Type != "concept" {
		t.Fatalf("boards/concept: %s", r.raw)
	}
	first := a.Data[0]
	if first.BoardCode != "BK0100" || *first.Pct != 7.5 || *first.Amount != 5e9 || *first.Turnover != 1.5 || *first.MainNet != 15e8 {
		t.Fatalf("concept row = %s", r.raw)
	}
}

func TestBoardsQueryErrors(t *testing.T) {
	h := newHarness(t)
	h.addClient("c", "secret-c", clientOpts{})
	tok := h.token("c", "secret-c")
	for _, tt := range []struct {
		path    string
		status  int
		message string
	}{
		{"/v1/api/boards/industry?sort=volume", 400, "invalid sort field"},
		{"/v1/api/boards/industry?sort=volume&top=x", 400, "invalid sort field"},
		{"/v1/api/market/movements?sort=name", 400, "invalid sort field"},
		{"/v1/api/boards/industry?order=up", 400, "missing or invalid params"},
		{"/v1/api/boards/industry?min_amount=abc", 400, "missing or invalid params"},
		{"/v1/api/boards/industry?min_turnover=", 400, "missing or invalid params"},
		{"/v1/api/boards/industry?min_main_net=1e999", 400, "missing or invalid params"},
		{"/v1/api/boards/industry?top=0", 400, "missing or invalid params"},
		{"/v1/api/boards/industry?day=2026-02-30", 400, "missing or invalid params"},
		{"/v1/api/boards/industry?day=20270101", 400, "missing or invalid params"},
		{"/v1/api/boards/industry?source=sina", 400, "missing or invalid params"},
		{"/v1/api/market/movements?type=region", 400, "missing or invalid params"},
		{"/v1/api/boards/industry?code=BK9999", 404, "board not found"},
		{"/v1/api/boards/concept?name=" + url.QueryEscape("不存在"), 404, "board not found"},
		{"/v1/api/market/movements?board_code=BK9999", 404, "board not found"},
		{"/v1/api/market/movements/events?code=BK9999", 404, "board not found"},
		{"/v1/api/market/movements/events?sort=pct", 400, "invalid sort field"},
		{"/v1/api/market/movements/events?since=yesterday", 400, "missing or invalid params"},
		{"/v1/api/boards/industry?day=20261118", 404, "not found"},                // a past day with no data
		{"/v1/api/boards/industry?source=demo", 400, "missing or invalid params"}, // a source this server does not have
	} {
		h.signed(http.MethodGet, tt.path, tok, nil).expect(t, tt.status, tt.message)
	}
}

// tick publishes a family's pcts (everything else as upstreamtest.Sectors)
// at the clock's time and runs the scheduler's collection.
func (h *harness) tick(t *testing.T, kind market.SectorKind, pcts map[string]float64) {
	t.Helper()
	prefix := map[market.SectorKind]string{market.Industry: "行业", market.Concept: "概念"}[kind]
	list := upstreamtest.Sectors(prefix, 12)
	for i := range list {
		if p, ok := pcts[list[i].Name]; ok {
			list[i].Pct = p
		} else {
			list[i].Pct = 0.5
		}
	}
	h.push2.SetSectors(kind, h.clock.Now(), list)
	other := market.Concept
	if kind == market.Concept {
		other = market.Industry
	}
	if h.push2.Requests(other) == 0 {
		h.push2.SetSectors(other, h.clock.Now(), upstreamtest.Sectors(map[market.SectorKind]string{market.Industry: "行业", market.Concept: "概念"}[other], 12))
	}
	if err := h.api.Rankings.Collect(context.Background()); err != nil {
		t.Fatal(err)
	}
}

func TestEventTSIsTheFirstCrossing(t *testing.T) {
	h := newHarness(t)
	h.addClient("c", "secret-c", clientOpts{})
	tok := h.token("c", "secret-c")
	for _, step := range []float64{1.0, 2.5, 1.5, 3.0} { // crosses 2 %, falls back, crosses again
		h.tick(t, market.Industry, map[string]float64{"行业3": step})
		h.clock.Advance(time.Minute)
	}
	_, a := h.rows(t, tok, "/v1/api/boards/industry?code=BK0103")
	if a.Data[0].EventTS == nil || *a.Data[0].EventTS != "2026-11-23 10:01:00" {
		t.Fatalf("行业3 event_ts = %v, want its first crossing 2026-11-23 10:01:00", a.Data[0].EventTS)
	}
	_, a = h.rows(t, tok, "/v1/api/boards/industry?code=BK0104")
	if a.Data[0].EventTS != nil {
		t.Fatalf("a sector that never moved has event_ts %q", *a.Data[0].EventTS)
	}
	r := h.signed(http.MethodGet, "/v1/api/market/movements/events?type=industry&code=BK0103", tok, nil)
	var tl struct {
		Items []struct {
			Trigger string  `json:"trigger"`
			EventTS string  `json:"event_ts"`
			Pct     float64 `json:"pct"`
			Delta   *float64
		} `json:"items"`
	}
	json.Unmarshal(r.data, &tl)
	// pct_up at 10:01 (2.5 >= 2) and surge at 10:01 (+1.5 within 5 min); the
	// second crossing at 10:03 adds nothing.
	if len(tl.Items) != 2 || tl.Items[0].EventTS != "2026-11-23 10:01:00" || tl.Items[1].EventTS != "2026-11-23 10:01:00" ||
		tl.Items[0].Pct != 2.5 {
		t.Fatalf("timeline of 行业3 = %s", r.data)
	}
	triggers := tl.Items[0].Trigger + "," + tl.Items[1].Trigger
	if triggers != "pct_up,surge" {
		t.Fatalf("triggers = %s, want pct_up,surge", triggers)
	}
}

func TestEventsPullIncrementallyWithoutGapsOrDuplicates(t *testing.T) {
	h := newHarness(t)
	h.addClient("c", "secret-c", clientOpts{})
	tok := h.token("c", "secret-c")
	seen := map[int64]bool{}
	var order []int64
	since := ""
	pull := func() {
		t.Helper()
		path := "/v1/api/market/movements/events"
		if since != "" {
			path += "?since=" + since
		}
		r := h.signed(http.MethodGet, path, tok, nil)
		r.expect(t, 200, "OK")
		var tl struct {
			Items []struct {
				ID      int64 `json:"id"`
				EventMS int64 `json:"event_ms"`
			} `json:"items"`
			NextSince int64 `json:"next_since"`
		}
		json.Unmarshal(r.data, &tl)
		for _, it := range tl.Items {
			if seen[it.ID] {
				t.Fatalf("event %d delivered twice", it.ID)
			}
			seen[it.ID] = true
			order = append(order, it.EventMS)
		}
		since = strconvItoa(tl.NextSince)
	}
	// Sectors cross one after another on both families, with polls between
	// (and several events inside one collection).
	steps := []map[string]float64{
		{"行业0": 2.1}, {"行业1": -2.2, "行业2": 2.0}, {}, {"行业3": 4}, {"行业4": -3, "行业5": -3, "行业6": 3},
	}
	for i, st := range steps {
		h.tick(t, market.Industry, st)
		pull()
		h.tick(t, market.Concept, map[string]float64{"概念" + strconvItoa(int64(i)): 2.5})
		h.clock.Advance(time.Minute)
		pull()
	}
	pull()
	all, err := h.api.Store.Events(context.Background(), eventFilterAll())
	if err != nil {
		t.Fatal(err)
	}
	if len(all) == 0 || len(seen) != len(all) {
		t.Fatalf("pulled %d events, the day has %d", len(seen), len(all))
	}
	for i := 1; i < len(order); i++ {
		if order[i] <= order[i-1] {
			t.Fatalf("events out of order at %d: %d then %d", i, order[i-1], order[i])
		}
	}
	// The seconds form of since means "after that whole second".
	r := h.signed(http.MethodGet, "/v1/api/market/movements/events?since="+url.QueryEscape("2026-11-23 10:01:00"), tok, nil)
	var tl struct {
		Items []struct {
			EventTS string `json:"event_ts"`
		} `json:"items"`
	}
	json.Unmarshal(r.data, &tl)
	for _, it := range tl.Items {
		if it.EventTS <= "2026-11-23 10:01:00" {
			t.Fatalf("since=10:01:00 returned an event at %s", it.EventTS)
		}
	}
	if len(tl.Items) == 0 {
		t.Fatal("since=10:01:00 returned nothing, want the later events")
	}
}

func TestEventsSurviveARestart(t *testing.T) {
	h := newHarness(t)
	h.addClient("c", "secret-c", clientOpts{})
	tok := h.token("c", "secret-c")
	h.tick(t, market.Industry, map[string]float64{"行业1": 2.2})
	before := h.signed(http.MethodGet, "/v1/api/market/movements/events", tok, nil).raw
	// A new process: fresh collector, detector and services on the same file,
	// seeing the same collection again.
	h.clock.Advance(time.Minute)
	_, mv, _ := newMarket(t, h.push2.URL, h.store, market.DefaultCalendar(), h.clock, h.api.log, nil)
	h.api.Movements = mv
	h.tick(t, market.Industry, map[string]float64{"行业1": 2.9})
	after := h.signed(http.MethodGet, "/v1/api/market/movements/events", tok, nil).raw
	if string(before) != string(after) {
		t.Fatalf("the timeline changed across a restart:\n%s\n%s", before, after)
	}
	_, a := h.rows(t, tok, "/v1/api/boards/industry?code=BK0101")
	if *a.Data[0].EventTS != "2026-11-23 10:00:00" {
		t.Fatalf("event_ts after restart = %s", *a.Data[0].EventTS)
	}
}

func TestMovementsAnalysis(t *testing.T) {
	h := newHarness(t)
	h.addClient("c", "secret-c", clientOpts{})
	tok := h.token("c", "secret-c")
	// The previous session (Friday) at 10:00: 12 industries of 4e9 each.
	friday := time.Date(2026, 11, 20, 10, 0, 0, 0, market.Shanghai())
	prev := upstreamtest.Sectors("行业", 12)
	for i := range prev {
		prev[i].Amount = 4e9
	}
	if _, err := h.store.SaveSnapshot(context.Background(), market.SectorSnapshot{Kind: market.Industry, Source: "push2", At: friday, Sectors: prev}, friday); err != nil {
		t.Fatal(err)
	}
	r := h.signed(http.MethodGet, "/v1/api/market/movements?top=2", tok, nil)
	r.expect(t, 200, "OK")
	var ans struct {
		Data     []json.RawMessage `json:"data"`
		Meta     struct{ Type string }
		Analysis struct {
			SessionMinutes int      `json:"session_minutes"`
			Amount         float64  `json:"amount"`
			PrevDay        string   `json:"prev_day"`
			PrevAmount     *float64 `json:"prev_amount"`
			AmountRatio    *float64 `json:"amount_ratio"`
			PrevDayAmount  *float64 `json:"prev_day_amount"`
			MainNet        float64  `json:"main_net"`
			MainNetRatio   float64  `json:"main_net_ratio"`
			SectorsUp      int      `json:"sectors_up"`
			SectorsDown    int      `json:"sectors_down"`
			SectorsFlat    int      `json:"sectors_flat"`
			StocksUp       *int     `json:"stocks_up"`
			StocksDown     *int     `json:"stocks_down"`
			Movers         int      `json:"movers"`
		} `json:"analysis"`
	}
	if err := json.Unmarshal(r.raw, &ans); err != nil {
		t.Fatal(err)
	}
	a := ans.Analysis
	// Main nets (6-i)*1e8 for i=0..11 sum to 1.2e9 - 6.6e9 = 6e8.
	if len(ans.Data) != 2 || ans.Meta.Type != "industry" || a.SessionMinutes != 30 || a.Amount != 6e10 || math.Abs(a.MainNet-6e8) > 1 {
		t.Fatalf("analysis = %+v (rows %d)", a, len(ans.Data))
	}
	if a.PrevDay != "2026-11-20" || a.PrevAmount == nil || *a.PrevAmount != 4.8e10 || a.AmountRatio == nil || *a.AmountRatio != 1.25 {
		t.Fatalf("previous session: %+v", a)
	}
	if a.PrevDayAmount == nil || *a.PrevDayAmount != 4.8e10 {
		t.Fatalf("prev_day_amount = %v", a.PrevDayAmount)
	}
	// Counts are over the whole family, not the top=2 rows: pct (6-i)*0.5.
	if a.SectorsUp != 6 || a.SectorsDown != 5 || a.SectorsFlat != 1 || *a.StocksUp != 186 || *a.StocksDown != 60 || a.Movers != 5 {
		t.Fatalf("counts = %+v", a)
	}
	r = h.signed(http.MethodGet, "/v1/api/market/movements?type=concept", tok, nil)
	json.Unmarshal(r.raw, &ans)
	if ans.Meta.Type != "concept" || len(ans.Data) != 30 || ans.Analysis.Amount != 6e10 {
		t.Fatalf("type=concept: %d rows, analysis amount %v (the market's, from industries)", len(ans.Data), ans.Analysis.Amount)
	}
}

func TestAfterTheCloseTheDayIsServedFromTheStore(t *testing.T) {
	h := newHarness(t)
	h.addClient("c", "secret-c", clientOpts{})
	tok := h.token("c", "secret-c")
	h.tick(t, market.Industry, map[string]float64{"行业2": 2.4})
	h.clock.Set(time.Date(2026, 11, 23, 15, 30, 0, 0, market.Shanghai()))
	h.push2.SetSectors(market.Industry, h.clock.Now(), upstreamtest.Sectors("行业", 12))
	h.push2.SetSectors(market.Concept, h.clock.Now(), upstreamtest.Sectors("概念", 30))
	tok = h.token("c", "secret-c")
	h.signed(http.MethodGet, "/v1/api/market/movements", tok, nil).expect(t, 200, "OK") // the final collection
	h.push2.Fail(market.Industry, http.StatusBadGateway)
	h.push2.Fail(market.Concept, http.StatusBadGateway)
	requests := h.push2.Requests(market.Industry)
	h.clock.Set(time.Date(2026, 11, 23, 20, 0, 0, 0, market.Shanghai()))
	tok = h.token("c", "secret-c") // the morning's token has expired
	for _, p := range []string{"/v1/api/boards/industry", "/v1/api/boards/concept", "/v1/api/market/movements", "/v1/api/market/movements/events"} {
		h.signed(http.MethodGet, p, tok, nil).expect(t, 200, "OK")
	}
	if h.push2.Requests(market.Industry) != requests {
		t.Fatal("queries after the close called the upstream")
	}
	// The next morning, before the open, the day is a past day.
	h.clock.Set(time.Date(2026, 11, 24, 8, 0, 0, 0, market.Shanghai()))
	tok = h.token("c", "secret-c")
	_, a := h.rows(t, tok, "/v1/api/boards/industry?day=20261123&code=BK0102")
	if a.Meta.Day != "20261123" || a.Data[0].EventTS == nil || *a.Data[0].EventTS != "2026-11-23 10:00:00" {
		t.Fatalf("yesterday from the store: %+v %v", a.Meta, a.Data)
	}
	if _, a := h.rows(t, tok, "/v1/api/boards/industry"); a.Meta.Day != "20261123" {
		t.Fatalf("before the open the default day is %s, want the last session", a.Meta.Day)
	}
}
