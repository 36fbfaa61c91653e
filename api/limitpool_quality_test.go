package api

import (
	"context"
	"encoding/json"
	"math"
	"net/http"
	"slices"
	"testing"
	"time"

	"mdqs/db"
	"mdqs/internal/archive"
	"mdqs/internal/limitpool"
	"mdqs/internal/market"
)

type poolQualityAnswer struct {
	LimitPools struct {
		Status     string  `json:"status"`
		Detail     *string `json:"detail"`
		Source     *string `json:"source"`
		ImportedAt *string `json:"imported_at"`
		Kinds      []struct {
			Kind          string   `json:"kind"`
			Published     int      `json:"published"`
			Derived       int      `json:"derived"`
			Both          []string `json:"both"`
			OnlyPublished []string `json:"only_published"`
			OnlyDerived   []string `json:"only_derived"`
			Excluded      []struct {
				Code, Why string
			} `json:"excluded"`
			Fields []struct {
				Field    string `json:"field"`
				Compared int    `json:"compared"`
				Disagree int    `json:"disagree"`
				Worst    []struct {
					Code      string  `json:"code"`
					Published string  `json:"published"`
					Derived   string  `json:"derived"`
					Off       float64 `json:"off"`
				} `json:"worst"`
			} `json:"fields"`
		} `json:"kinds"`
	} `json:"limit_pools"`
}

// Issue 31: GET /v1/api/quality sets the published pools the store holds
// against the pools derived for the day. The demo publishes none, so the
// test stores a "published" limit-up pool made from the derived one with
// known differences (test data, not a demo feature): one invented stock
// added, one first seal ten minutes off, one board count off by one,
// every other seal 30 s before the derived minute's end (within the
// minute's tolerance), and the other kinds empty, so that their derived
// rows are "only derived". Before the import the part says not_imported.
func TestQualityComparesThePublishedLimitPools(t *testing.T) {
	h := newHarness(t, withSecurityHistory(60))
	ctx := context.Background()
	// The harness's small demo market has few limit-ups a day: the test
	// takes the day of the last five (the minutes the source still has) with
	// the most outside ST and STAR.
	last := market.Day(20261120)
	seedLimitDemo(t, h, last, 90)
	day, most := last, -1
	for d, i := last, 0; i < 5; d, i = h.api.Calendar.Prev(d), i+1 {
		got, err := h.api.LimitPools.Derive(ctx, d)
		if err != nil {
			t.Fatal(err)
		}
		n := 0
		for _, r := range got.Pool("up") {
			if r.ST == "" && r.Board != "star" {
				n++
			}
		}
		if n > most {
			day, most = d, n
		}
	}
	if _, err := h.api.Archive.Run(ctx, archive.Request{Day: day}); err != nil {
		t.Fatal(err)
	}
	h.clock.Set(time.Date(2026, 11, 23, 10, 0, 0, 0, market.Shanghai()))
	h.addClient("q", "secret-q", clientOpts{scopes: "market"})
	tok := h.token("q", "secret-q")
	get := func() poolQualityAnswer {
		t.Helper()
		r := h.signed(http.MethodGet, "/v1/api/quality?date="+day.String(), tok, nil)
		r.expect(t, 200, "OK")
		var a poolQualityAnswer
		if err := json.Unmarshal(r.data, &a); err != nil {
			t.Fatal(err)
		}
		return a
	}
	if a := get(); a.LimitPools.Status != "not_imported" || a.LimitPools.Detail == nil || len(a.LimitPools.Kinds) != 0 {
		t.Fatalf("before the import: %+v", a.LimitPools)
	}

	derived, err := h.api.LimitPools.Derive(ctx, day)
	if err != nil {
		t.Fatal(err)
	}
	var common []db.PublishedRow
	for _, r := range derived.Pool("up") {
		if r.ST != "" || r.Board == "star" || r.UpSeals == nil {
			continue
		}
		common = append(common, db.PublishedRow{Code: r.Code, Name: r.Name, Price: r.Bar.Close, LimitPrice: math.NaN(), ChangePct: math.NaN(),
			Amount: math.NaN(), FloatCap: math.NaN(), Turnover: math.NaN(), SealFund: math.NaN(), Boards: r.Boards,
			FirstSeal: int(r.UpSeals.First)*60 - 30, LastSeal: int(r.UpSeals.Last)*60 - 30, OpenedTimes: r.UpSeals.Opened,
			CountDays: -1, CountUp: -1})
	}
	if len(common) < 2 {
		t.Fatalf("the demo day %v has %d limit-ups with minutes outside ST and STAR; the test needs 2", day, len(common))
	}
	common[0].FirstSeal += 600
	common[1].Boards++
	invented := db.PublishedRow{Code: market.MustCode("600198.SH"), Name: "大 唐电信", Price: 8.5, LimitPrice: math.NaN(), ChangePct: math.NaN(),
		Amount: math.NaN(), FloatCap: math.NaN(), Turnover: math.NaN(), SealFund: math.NaN(), Boards: 1, FirstSeal: 33900, LastSeal: 33900,
		CountDays: -1, CountUp: -1}
	if slices.ContainsFunc(derived.Rows, func(r limitpool.Row) bool { return r.Code == invented.Code }) {
		t.Fatal("the invented stock is in the demo's pools")
	}
	// The strong pool: one derived strong stock outside ST and STAR, and
	// the invented one.
	strongDay, err := h.api.LimitPools.Strong(ctx, day)
	if err != nil {
		t.Fatal(err)
	}
	var strong []db.PublishedRow
	for _, r := range strongDay.Pool("strong") {
		if r.ST == "" && r.Board != "star" {
			strong = append(strong, db.PublishedRow{Code: r.Code, Name: r.Name, Price: r.Bar.Close, LimitPrice: math.NaN(), ChangePct: math.NaN(),
				Amount: math.NaN(), FloatCap: math.NaN(), Turnover: math.NaN(), SealFund: math.NaN(), Boards: -1, FirstSeal: -1, LastSeal: -1,
				OpenedTimes: -1, CountDays: -1, CountUp: -1})
			break
		}
	}
	if len(strong) == 0 {
		t.Fatalf("no strong stock outside ST and STAR on %v", day)
	}
	pub := db.PublishedDay{Day: day, Asked: day, Source: "push2ex", ImportedAt: day.At(15, 40, 0), Pools: []db.PublishedPool{
		{Kind: "up", Total: len(common) + 1, Rows: append(slices.Clone(common), invented)},
		{Kind: "broken"}, {Kind: "down"}, {Kind: "yesterday"}, {Kind: "strong", Total: 2, Rows: append(strong, invented)}}}
	if err := h.store.ReplacePublishedPools(ctx, pub); err != nil {
		t.Fatal(err)
	}

	a := get().LimitPools
	if a.Status != "compared" || a.Source == nil || *a.Source != "push2ex" || a.ImportedAt == nil || len(a.Kinds) != 5 {
		t.Fatalf("after the import: %+v", a)
	}
	if k := a.Kinds[4]; k.Kind != "strong" || k.Published != 2 || !slices.Contains(k.Both, strong[0].Code.String()) ||
		!slices.Equal(k.OnlyPublished, []string{"600198.SH"}) || k.Derived != len(strongDay.Pool("strong")) {
		t.Errorf("strong: %+v", k)
	}
	up := a.Kinds[0]
	if up.Kind != "up" || up.Published != len(common)+1 || up.Derived != len(derived.Pool("up")) || len(up.Both) != len(common) ||
		!slices.Equal(up.OnlyPublished, []string{"600198.SH"}) || len(up.OnlyDerived) != 0 {
		t.Errorf("up membership: %+v", up)
	}
	for _, e := range up.Excluded {
		if e.Why != "st" && e.Why != "star" {
			t.Errorf("excluded %+v", e)
		}
	}
	fields := map[string]int{}
	for _, f := range up.Fields {
		fields[f.Field] = f.Disagree
		switch f.Field {
		case "first_seal":
			if f.Compared != len(common) || len(f.Worst) != 1 || f.Worst[0].Code != common[0].Code.String() || f.Worst[0].Off != -570 {
				t.Errorf("first_seal %+v", f)
			}
		case "boards":
			if len(f.Worst) != 1 || f.Worst[0].Code != common[1].Code.String() || f.Worst[0].Off != -1 {
				t.Errorf("boards %+v", f)
			}
		}
	}
	if fields["first_seal"] != 1 || fields["boards"] != 1 || fields["last_seal"] != 0 || fields["opened_times"] != 0 || fields["price"] != 0 {
		t.Errorf("disagreements by field %v, want first_seal 1, boards 1, the rest 0", fields)
	}
	onlyDerived := 0
	for i, k := range a.Kinds[1:4] {
		if k.Kind != []string{"down", "broken", "yesterday"}[i] || k.Published != 0 || len(k.Both) != 0 ||
			len(k.OnlyDerived)+len(k.Excluded) != k.Derived {
			t.Errorf("%s against an empty published pool: %+v", k.Kind, k)
		}
		onlyDerived += len(k.OnlyDerived)
	}
	if onlyDerived == 0 {
		t.Errorf("no derived row outside the empty published pools: nothing shows only_derived")
	}
}

// Issue 31: a day the security master did not record has no archive
// measure, but its published pools are still set against the pools
// derived from the stored bars: the quality answer says the archive part
// is not recorded instead of answering 404 for the whole day (a fresh
// store imports about two weeks of published pools on its first day).
func TestQualityOfADayBeforeTheRecordStillComparesThePools(t *testing.T) {
	h := newHarness(t) // records the last day only
	last := market.Day(20261120)
	seedLimitDemo(t, h, last, 40)
	day := h.api.Calendar.Prev(last)
	h.clock.Set(t0)
	h.addClient("q", "secret-q", clientOpts{scopes: "market"})
	tok := h.token("q", "secret-q")
	ctx := context.Background()
	derived, err := h.api.LimitPools.Derive(ctx, day)
	if err != nil {
		t.Fatal(err)
	}
	pub := db.PublishedDay{Day: day, Asked: day, Source: "push2ex", ImportedAt: day.At(15, 40, 0), Pools: []db.PublishedPool{
		{Kind: "up"}, {Kind: "broken"}, {Kind: "down"}, {Kind: "yesterday"}}}
	if err := h.store.ReplacePublishedPools(ctx, pub); err != nil {
		t.Fatal(err)
	}
	r := h.signed(http.MethodGet, "/v1/api/quality?date="+day.String(), tok, nil)
	if r.status != http.StatusOK {
		t.Fatalf("quality of %v before the record: %d %s", day, r.status, r.raw)
	}
	var a struct {
		poolQualityAnswer
		ArchiveStatus string  `json:"archive_status"`
		ArchiveDetail *string `json:"archive_detail"`
		Universe      int     `json:"universe"`
	}
	if err := json.Unmarshal(r.data, &a); err != nil {
		t.Fatal(err)
	}
	if a.ArchiveStatus != "not_recorded" || a.ArchiveDetail == nil || a.Universe != 0 {
		t.Errorf("archive part: status %q detail %v universe %d, want not_recorded with the reason", a.ArchiveStatus, a.ArchiveDetail, a.Universe)
	}
	if a.LimitPools.Status != "compared" || len(a.LimitPools.Kinds) != 4 || a.LimitPools.Kinds[0].Derived != len(derived.Pool("up")) {
		t.Errorf("limit pools: %+v, want compared with %d derived up", a.LimitPools, len(derived.Pool("up")))
	}
	// A recorded day says measured.
	r = h.signed(http.MethodGet, "/v1/api/quality?date="+last.String(), tok, nil)
	r.expect(t, 200, "OK")
	if err := json.Unmarshal(r.data, &a); err != nil || a.ArchiveStatus != "measured" || a.ArchiveDetail != nil {
		t.Errorf("a recorded day: archive_status %q detail %v (%v)", a.ArchiveStatus, a.ArchiveDetail, err)
	}
}
