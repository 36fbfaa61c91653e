package api

import (
	"context"
	"encoding/json"
	"math"
	"net/http"
	"strings"
	"testing"

	"mdqs/db"
	"mdqs/internal/archive"
	"mdqs/internal/limitpool"
	"mdqs/internal/market"
	"mdqs/internal/quote"
)

type limitAnswer struct {
	Date       string     `json:"date"`
	Kind       string     `json:"kind"`
	Total      int        `json:"total"`
	Final      bool       `json:"final"`
	Source     string     `json:"source"`
	Universe   int        `json:"universe"`
	NoRule     int        `json:"no_limit_rule"`
	Items      []limitRow `json:"items"`
	Levels     []ladderLevel
	Promotion  []promotionItem `json:"promotion"`
	MinutesHld int             `json:"minutes_held"`
}

// seedLimitDemo records the demo market's universe and stores its daily
// bars for days trading days through day, the clock after day's close.
func seedLimitDemo(t *testing.T, h *harness, day market.Day, days int) {
	t.Helper()
	ctx := context.Background()
	h.clock.Set(day.At(16, 0, 0))
	if err := h.api.Securities.Record(ctx); err != nil {
		t.Fatal(err)
	}
	err := h.demo.EachDailyHistory(ctx, day, days, func(c market.Code, bars []market.Bar) error {
		_, err := h.store.IngestBars(ctx, []db.BarBatch{{Code: c, Freq: market.Daily, Source: "demo", Bars: bars}})
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
}

// limitDemo is a harness with the demo market's universe recorded and
// days of its daily bars stored through 2026-11-20, the clock on the next
// session, and a market client's token.
func limitDemo(t *testing.T, days int, opts ...harnessOpt) (*harness, string) {
	t.Helper()
	h := newHarness(t, opts...)
	seedLimitDemo(t, h, 20261120, days)
	h.clock.Set(t0)
	h.addClient("c", "secret-c", clientOpts{scopes: "market"})
	return h, h.token("c", "secret-c")
}

func getLimit(t *testing.T, h *harness, tok, path string) limitAnswer {
	t.Helper()
	return limitOf(t, h.signed(http.MethodGet, path, tok, nil))
}

// limitOf decodes a pool or ladder answer, which must be a 200.
func limitOf(t *testing.T, r response) limitAnswer {
	t.Helper()
	r.expect(t, 200, "OK")
	var a limitAnswer
	if err := json.Unmarshal(r.data, &a); err != nil {
		t.Fatal(err)
	}
	return a
}

// demoLimit is the demo market's own limit rule: the exchanges' (quote.
// LimitPct), and ±5 % for a main-board stock under a risk warning, which
// the demo keeps after 2025-06-27 where mdqs's rule gives none.
func demoLimit(code market.Code, name string, d market.Day) (int64, bool) {
	if pct, ok := quote.LimitPct(code, name, d); ok {
		return pct, true
	}
	if strings.Contains(name, "ST") {
		return 5, true
	}
	return 0, false
}

// Issue 31: every stock on the demo market's ladder closed at its limit-up
// on each of the trading days its boards count, under that day's name and
// rule, and not on the traded day before them; checked on the demo's own
// K-lines and names, not on the store the ladder reads. Twenty past days
// are read from the store (the clock on the next session), the first
// with its archived minutes.
func TestLimitLadderOnTheDemoClosedAtItsLimitEveryDay(t *testing.T) {
	h := newHarness(t, withSecurityHistory(60))
	ctx := context.Background()
	cal := market.DefaultCalendar()
	last := market.Day(20261120)
	seedLimitDemo(t, h, last, 80)
	if _, err := h.api.Archive.Run(ctx, archive.Request{Day: last}); err != nil {
		t.Fatal(err)
	}
	h.clock.Set(t0) // 2026-11-23 10:00: every day asked is past
	h.addClient("c", "secret-c", clientOpts{scopes: "market"})
	tok := h.token("c", "secret-c")

	seen, multi, promoted := 0, 0, 0
	for day, i := last, 0; i < 20; day, i = cal.Prev(day), i+1 {
		lad := getLimit(t, h, tok, "/v1/api/limit_ladder?date="+day.String())
		up := getLimit(t, h, tok, "/v1/api/limit_pool?date="+day.String()+"&kind=up")
		if !lad.Final || lad.Source != "store" {
			t.Errorf("%v: final %v source %q, want final from the store", day, lad.Final, lad.Source)
		}
		inLadder := 0
		for i, l := range lad.Levels {
			if i > 0 && lad.Levels[i-1].Boards <= l.Boards {
				t.Fatalf("%v: levels not highest first: %d then %d", day, lad.Levels[i-1].Boards, l.Boards)
			}
			if l.Promoted != nil {
				promoted += *l.Promoted
			}
			for _, it := range l.Items {
				inLadder++
				if it.Boards != l.Boards {
					t.Errorf("%s on level %d says boards %d", it.Code, l.Boards, it.Boards)
				}
				if l.Boards > 1 {
					multi++
				}
				if day == last && (it.FirstSeal == nil || it.OpenedTimes == nil) {
					t.Errorf("%v %s: first seal %v, opened %v; the day's minutes are archived", day, it.Code, it.FirstSeal, it.OpenedTimes)
				}
				if day != last && it.FirstSeal != nil {
					t.Errorf("%v %s: first seal %v without the day's minutes", day, it.Code, *it.FirstSeal)
				}
				checkBoards(t, h, market.MustCode(it.Code), day, l.Boards)
			}
		}
		seen += inLadder
		if inLadder != up.Total {
			t.Errorf("%v: the ladder holds %d stocks, the up pool %d", day, inLadder, up.Total)
		}
	}
	if seen == 0 {
		t.Fatalf("20 demo days: no limit-up: nothing to check")
	}
	t.Logf("20 demo days: %d limit-up closes, %d on two boards or more, %d promoted", seen, multi, promoted)
}

// checkBoards walks code's demo K-lines back from day over its traded
// days: boards closes at the limit-up, and the traded day before them not.
func checkBoards(t *testing.T, h *harness, code market.Code, day market.Day, boards int) {
	t.Helper()
	bars, err := h.demo.Klines(context.Background(), code, market.Daily, day.AddDays(-200), day)
	if err != nil {
		t.Fatal(err)
	}
	at := func(k int) bool {
		b, p := bars[k], bars[k-1]
		pct, ok := demoLimit(code, h.demo.NamesOn(b.Day)[code], b.Day)
		hi, _, _ := quote.Limits(p.Close, pct)
		return ok && b.Close == hi
	}
	n, k := 0, len(bars)-1
	for ; k > 0 && n < boards; k-- {
		if bars[k].Volume == 0 {
			continue
		}
		if !at(k) {
			t.Errorf("%s (%d boards on %v) did not close at its limit-up on %v: %.2f", code, boards, day, bars[k].Day, bars[k].Close)
		}
		n++
	}
	for k > 0 && bars[k].Volume == 0 {
		k--
	}
	if n != boards {
		t.Errorf("%s: %d boards on %v, but only %d bars", code, boards, day, n)
	}
	if k > 0 && at(k) {
		t.Errorf("%s: %d boards on %v, but it closed at its limit-up on %v too", code, boards, day, bars[k].Day)
	}
}

// Issue 31: the pools are kept "from the stored daily bars, back through
// history for the parts that daily bars decide". A day before the
// security master's first record is derived from the stocks with a bar
// stored that day, said so (universe_recorded false), instead of a 404;
// its pools are those of a store that recorded the day, but for stocks
// whose name (risk warning) that day is not known to it.
func TestLimitPoolsBeforeTheRecordComeFromTheStoredBars(t *testing.T) {
	full, ftok := limitDemo(t, 80, withSecurityHistory(60))
	bare, btok := limitDemo(t, 80) // records the last day only
	last := market.Day(20261120)
	cal := market.DefaultCalendar()
	current := bare.demo.NamesOn(last)
	compared := 0
	for day, i := cal.Prev(last), 0; i < 10; day, i = cal.Prev(day), i+1 {
		for _, kind := range []string{"up", "down", "broken", "yesterday"} {
			path := "/v1/api/limit_pool?date=" + day.String() + "&kind=" + kind
			r := bare.signed(http.MethodGet, path, btok, nil)
			if r.status != http.StatusOK {
				t.Fatalf("%s before the record: %d %s", path, r.status, r.raw)
			}
			var meta struct {
				Recorded *bool `json:"universe_recorded"`
			}
			json.Unmarshal(r.data, &meta)
			if meta.Recorded == nil || *meta.Recorded {
				t.Errorf("%s: universe_recorded %v, want false", path, meta.Recorded)
			}
			b := limitOf(t, r) // the answer above: asking again derived the day again
			f := getLimit(t, full, ftok, path)
			named := bare.demo.NamesOn(day)
			set := func(a limitAnswer) map[string]limitRow {
				m := map[string]limitRow{}
				for _, it := range a.Items {
					c := market.MustCode(it.Code)
					if named[c] == current[c] {
						m[it.Code] = it
					}
				}
				return m
			}
			bs, fs := set(b), set(f)
			for c, fr := range fs {
				br, ok := bs[c]
				if !ok {
					t.Errorf("%v %s: %s is in the recorded store's pool, not in the one from stored bars", day, kind, c)
					continue
				}
				if br.Boards != fr.Boards || br.CountUp != fr.CountUp || *br.LimitPrice != *fr.LimitPrice {
					t.Errorf("%v %s %s: boards %d count %d limit %v; recorded: %d %d %v", day, kind, c, br.Boards, br.CountUp, *br.LimitPrice,
						fr.Boards, fr.CountUp, *fr.LimitPrice)
				}
				compared++
			}
			for c := range bs {
				if _, ok := fs[c]; !ok {
					t.Errorf("%v %s: %s only in the pool from stored bars", day, kind, c)
				}
			}
		}
		lad := bare.signed(http.MethodGet, "/v1/api/limit_ladder?date="+day.String(), btok, nil)
		lad.expect(t, 200, "OK")
	}
	if compared == 0 {
		t.Fatal("no pool row compared over ten days")
	}
	t.Logf("%d rows agree over ten days before the record", compared)
}

// Issue 31: "the sealing order size at the close where the source gives
// it". mdqs's own data hold no order book of the close; the published
// pools, once imported, state it (push2ex fund), and each derived row
// sealed at that limit carries it; a row the source does not list, or
// one not sealed at the close, has none.
func TestLimitPoolRowsCarryThePublishedSealFund(t *testing.T) {
	h, tok := limitDemo(t, 40, withSecurityHistory(60))
	ctx := context.Background()
	last := market.Day(20261120)
	var day market.Day
	var d limitpool.Day
	for day = last; ; day = h.api.Calendar.Prev(day) {
		var err error
		if d, err = h.api.LimitPools.Derive(ctx, day); err != nil {
			t.Fatal(err)
		}
		if len(d.Pool("up")) >= 2 && len(d.Pool("broken")) >= 1 {
			break
		}
	}
	path := "/v1/api/limit_pool?date=" + day.String() + "&kind="
	type fundAnswer struct {
		Source *string `json:"seal_fund_source"`
		Items  []struct {
			Code string   `json:"code"`
			Fund *float64 `json:"seal_fund"`
		} `json:"items"`
	}
	get := func(kind string) fundAnswer {
		t.Helper()
		r := h.signed(http.MethodGet, path+kind, tok, nil)
		r.expect(t, 200, "OK")
		var a fundAnswer
		if err := json.Unmarshal(r.data, &a); err != nil {
			t.Fatal(err)
		}
		return a
	}
	for _, it := range get("up").Items {
		if it.Fund != nil {
			t.Errorf("%s: seal_fund %v before any published pool", it.Code, *it.Fund)
		}
	}
	up, broken := d.Pool("up"), d.Pool("broken")
	row := func(r limitpool.Row, fund float64) db.PublishedRow {
		return db.PublishedRow{Code: r.Code, Name: r.Name, Price: r.Bar.Close, LimitPrice: math.NaN(), ChangePct: math.NaN(), Amount: math.NaN(),
			FloatCap: math.NaN(), Turnover: math.NaN(), SealFund: fund, Boards: -1, FirstSeal: -1, LastSeal: -1, OpenedTimes: -1, CountDays: -1, CountUp: -1}
	}
	pub := db.PublishedDay{Day: day, Asked: day, Source: "push2ex", ImportedAt: day.At(15, 40, 0), Pools: []db.PublishedPool{
		// The broken stock listed in the up pool with a fund: not sealed, so none.
		{Kind: "up", Total: 2, Rows: []db.PublishedRow{row(up[0], 123456789), row(broken[0], 5e6)}},
		{Kind: "broken"}, {Kind: "down"}, {Kind: "yesterday"}}}
	if err := h.store.ReplacePublishedPools(ctx, pub); err != nil {
		t.Fatal(err)
	}
	a := get("up")
	if a.Source == nil || *a.Source != "push2ex" {
		t.Errorf("seal_fund_source %v, want push2ex", a.Source)
	}
	with := 0
	for _, it := range a.Items {
		switch {
		case it.Code == up[0].Code.String():
			if it.Fund == nil || *it.Fund != 123456789 {
				t.Errorf("%s: seal_fund %v, want the published 123456789", it.Code, it.Fund)
			}
			with++
		case it.Fund != nil:
			t.Errorf("%s: seal_fund %v, but the published pool does not list it", it.Code, *it.Fund)
		}
	}
	if with != 1 {
		t.Errorf("the published stock %s is not in the up pool answered", up[0].Code)
	}
	for _, it := range get("broken").Items {
		if it.Fund != nil {
			t.Errorf("broken %s: seal_fund %v; it did not close at its limit", it.Code, *it.Fund)
		}
	}
}

// Issue 31: kind=strong (强势股池) on the demo: every stock at a 60-day
// high (its high above the highest of the 59 traded days before, worked
// out here from the demo's own K-lines for the stocks without an ex-date
// in the window) is in the pool with reason 1 or 3, and no other stock
// is for that reason; every stock with two limit-up closes in the 涨停统计
// window (the up pool's count_up) is in it with reason 2 or 3.
func TestStrongPoolOnTheDemo(t *testing.T) {
	h, tok := limitDemo(t, 100, withSecurityHistory(5))
	ctx := context.Background()
	last := market.Day(20261120)
	a := getLimit(t, h, tok, "/v1/api/limit_pool?date="+last.String()+"&kind=strong")
	if a.Kind != "strong" || len(a.Items) == 0 || a.Total != len(a.Items) {
		t.Fatalf("strong pool: kind %q, %d items, total %d", a.Kind, len(a.Items), a.Total)
	}
	strong := map[string]limitRow{}
	for _, it := range a.Items {
		strong[it.Code] = it
		if it.Reason == nil || it.NewHigh == nil || *it.Reason < 1 || *it.Reason > 3 {
			t.Fatalf("%s: reason %v new_high %v", it.Code, it.Reason, it.NewHigh)
		}
		if *it.NewHigh != (*it.Reason&1 != 0) || (*it.Reason&2 != 0) != (it.CountUp >= 2) {
			t.Errorf("%s: reason %d with new_high %v and count_up %d", it.Code, *it.Reason, *it.NewHigh, it.CountUp)
		}
		if *it.NewHigh && (it.PrevHigh == nil || *it.High <= *it.PrevHigh) {
			t.Errorf("%s: a new high %v over %v", it.Code, *it.High, it.PrevHigh)
		}
	}
	acts, err := h.store.ActionsBetween(ctx, last.AddDays(-150), last)
	if err != nil {
		t.Fatal(err)
	}
	exdated := map[market.Code]bool{}
	for _, x := range acts {
		exdated[x.Code] = true
	}
	highs, checked := 0, 0
	for code := range h.demo.NamesOn(last) {
		if market.Classify(code) != market.TypeStock || exdated[code] {
			continue
		}
		bars, err := h.demo.Klines(ctx, code, market.Daily, last.AddDays(-200), last)
		if err != nil {
			t.Fatal(err)
		}
		var traded []market.Bar
		for _, b := range bars {
			if b.Volume > 0 {
				traded = append(traded, b)
			}
		}
		n := len(traded)
		if n < 60 || traded[n-1].Day != last {
			continue
		}
		prev := 0.0
		for _, b := range traded[n-60 : n-1] {
			prev = max(prev, b.High)
		}
		checked++
		it, in := strong[code.String()]
		isHigh := traded[n-1].High > prev
		if isHigh {
			highs++
		}
		switch {
		case isHigh && (!in || !*it.NewHigh):
			t.Errorf("%s: high %.2f over the 59 days' %.2f, not a new high in the pool (%v)", code, traded[n-1].High, prev, in)
		case !isHigh && in && *it.NewHigh:
			t.Errorf("%s: high %.2f, the 59 days' %.2f, but a new high in the pool", code, traded[n-1].High, prev)
		}
	}
	up := getLimit(t, h, tok, "/v1/api/limit_pool?date="+last.String()+"&kind=up")
	many := 0
	for _, it := range up.Items {
		if it.CountUp >= 2 {
			many++
			if s, ok := strong[it.Code]; !ok || *s.Reason&2 == 0 {
				t.Errorf("%s: %d limit-ups in %d days, not in the strong pool for them", it.Code, it.CountUp, it.CountDays)
			}
		}
	}
	if checked < 100 || highs == 0 || many == 0 {
		t.Fatalf("checked %d stocks, %d at a 60-day high, %d with repeated limit-ups: too few to test", checked, highs, many)
	}
	t.Logf("%d in the strong pool; %d stocks checked against their K-lines, %d at a 60-day high; %d limit-ups with count_up >= 2", len(a.Items), checked, highs, many)
}
