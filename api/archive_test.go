package api

import (
	"context"
	"encoding/json"
	"net/http"
	"testing"
	"time"

	"mdqs/db"
	"mdqs/internal/archive"
	"mdqs/internal/kline"
	"mdqs/internal/market"
)

type archiveStatus struct {
	Source string `json:"source"`
	Days   []struct {
		Date         string `json:"date"`
		Archived     int    `json:"archived"`
		Flagged      int    `json:"flagged"`
		Gaps         int    `json:"gaps"`
		Bars         int64  `json:"bars"`
		DerivedOpens int    `json:"derived_opens"`
	} `json:"days"`
	Due         []string `json:"due"`
	Pending     []string `json:"pending"`
	Bars        int64    `json:"bars"`
	StoreBars   int64    `json:"store_bars"`
	StoreBytes  int64    `json:"store_bytes"`
	BytesPerBar *float64 `json:"bytes_per_bar"`
}

// afterTheClose is a harness on Monday 2026-11-23 after the close, its
// security master recorded (the demo's history back-filled), and a market
// client's token.
func afterTheClose(t *testing.T, opts ...harnessOpt) (*harness, string) {
	t.Helper()
	h := newHarness(t, append([]harnessOpt{withSecurityHistory(10)}, opts...)...)
	h.clock.Set(time.Date(2026, 11, 23, 16, 0, 0, 0, market.Shanghai()))
	if err := h.api.Securities.Record(context.Background()); err != nil {
		t.Fatal(err)
	}
	h.addClient("m", "secret-m", clientOpts{scopes: "market"})
	return h, h.token("m", "secret-m")
}

// The archive's status says what is due before a run and what it holds
// after: five days of the whole demo market, each day's counts, the bars
// and what they weigh on disk.
func TestArchiveStatus(t *testing.T) {
	h, tok := afterTheClose(t)
	status := func() archiveStatus {
		t.Helper()
		r := h.signed(http.MethodGet, "/v1/api/archive/status", tok, nil)
		r.expect(t, 200, "OK")
		var st archiveStatus
		if err := json.Unmarshal(r.data, &st); err != nil {
			t.Fatal(err)
		}
		return st
	}
	before := status()
	if len(before.Due) != 5 || before.Due[4] != "2026-11-23" || len(before.Pending) != 5 || len(before.Days) != 0 || before.BytesPerBar != nil {
		t.Fatalf("before a run: %+v", before)
	}
	rep, err := h.api.Archive.Run(context.Background(), archive.Request{})
	if err != nil {
		t.Fatal(err)
	}
	after := status()
	if len(after.Pending) != 0 || len(after.Days) != 5 || after.Source != "demo" || after.Bars != int64(rep.Bars) {
		t.Fatalf("after a run of %d bars: %+v", rep.Bars, after)
	}
	last := after.Days[4]
	if last.Date != "2026-11-23" || last.Archived+last.Flagged < 250 || last.Bars != int64(240*(last.Archived+last.Flagged)) || last.DerivedOpens != 0 {
		t.Fatalf("the last day: %+v", last)
	}
	if after.Days[0].DerivedOpens != after.Days[0].Archived+after.Days[0].Flagged {
		t.Fatalf("the first day's opens came from trends2's earlier days, derived: %+v", after.Days[0])
	}
	if after.StoreBars < after.Bars || after.BytesPerBar == nil || *after.BytesPerBar <= 0 || *after.BytesPerBar > 12 {
		t.Fatalf("the store: %d bars, %d bytes, %v a bar", after.StoreBars, after.StoreBytes, after.BytesPerBar)
	}
}

// The quality of a day through the API: counts, the fields compared and
// their rates; a day the security master never recorded is 404; a bad
// date is 400.
func TestQualityEndpoint(t *testing.T) {
	h, tok := afterTheClose(t)
	if _, err := h.api.Archive.Run(context.Background(), archive.Request{Day: 20261123}); err != nil {
		t.Fatal(err)
	}
	r := h.signed(http.MethodGet, "/v1/api/quality", tok, nil)
	r.expect(t, 200, "OK")
	var q struct {
		Date     string `json:"date"`
		Universe int    `json:"universe"`
		Archived int    `json:"archived"`
		Missing  int    `json:"missing"`
		Fields   []struct {
			Field    string   `json:"field"`
			Compared int      `json:"compared"`
			Rate     *float64 `json:"rate"`
		} `json:"fields"`
	}
	if err := json.Unmarshal(r.data, &q); err != nil {
		t.Fatal(err)
	}
	if q.Date != "2026-11-23" || q.Universe == 0 || q.Archived != q.Universe || q.Missing != 0 || len(q.Fields) != 6 {
		t.Fatalf("quality: %s", r.data)
	}
	// A day before the record: the archive part says why it is empty (the
	// limit pools still compare, limitpool_quality_test.go).
	r = h.signed(http.MethodGet, "/v1/api/quality?date=2026-10-09", tok, nil)
	r.expect(t, 200, "OK")
	var before struct {
		Status   string `json:"archive_status"`
		Universe int    `json:"universe"`
	}
	if err := json.Unmarshal(r.data, &before); err != nil || before.Status != "not_recorded" || before.Universe != 0 {
		t.Errorf("quality before the record: %s", r.data)
	}
	h.signed(http.MethodGet, "/v1/api/quality?date=2026-13-01", tok, nil).expect(t, 400, "missing or invalid params")
}

// The demo's ETFs are in each day's universe, as the ETF list's funds are
// live: the day recorded after the close lists them as funds (today's
// record from the ETF list, the days before from the demo's history), and
// the archive keeps their minutes for every due day, the latest one bit
// for bit the demo's (opens included: trends2's latest day gives them)
// and checked against the fund's daily bar the end of day stored.
func TestArchiveKeepsTheETFs(t *testing.T) {
	h, tok := afterTheClose(t)
	ctx := context.Background()
	r := h.signed(http.MethodGet, "/v1/api/securities?date=2026-11-23&type=fund", tok, nil)
	r.expect(t, 200, "OK")
	var secs struct {
		Items []struct {
			Code, Name, Type string
		} `json:"items"`
	}
	if err := json.Unmarshal(r.data, &secs); err != nil {
		t.Fatal(err)
	}
	etfs, err := h.demo.ETFs(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(secs.Items) != len(etfs) {
		t.Fatalf("the funds of 2026-11-23's universe: %s; the ETF list has %d", r.data, len(etfs))
	}
	// The end of day stores the funds' bars of the day, as main wires it:
	// the archive checks their minutes against them.
	if err := h.api.Klines.EndOfDay(ctx, h.demo, kline.EODConfig{More: []kline.QuoteSource{h.api.ETFs}}); err != nil {
		t.Fatal(err)
	}
	if _, err := h.api.Archive.Run(ctx, archive.Request{}); err != nil {
		t.Fatal(err)
	}
	for _, d := range h.api.Archive.Due() {
		recs, err := h.store.ArchiveDays(ctx, d)
		if err != nil {
			t.Fatal(err)
		}
		kept := map[market.Code]db.ArchiveDay{}
		for _, a := range recs {
			kept[a.Code] = a
		}
		for _, e := range etfs {
			if a, ok := kept[e.Code]; !ok || a.Status != db.ArchiveArchived || a.Bars != 240 || a.Source != "demo" {
				t.Fatalf("%v on %v: archived %v %+v", e.Code, d, ok, a)
			}
			if d != 20261123 {
				continue
			}
			if a := kept[e.Code]; a.Reason != "" {
				t.Fatalf("%v on %v: %q; checked against its daily bar, it passes", e.Code, d, a.Reason)
			}
			got, err := h.store.Bars(ctx, db.BarQuery{Code: e.Code, Freq: market.Min1, FromTS: d.Start().Unix(), ToTS: d.At(23, 0, 0).Unix()})
			if err != nil {
				t.Fatal(err)
			}
			want, err := h.demo.Klines(ctx, e.Code, market.Min1, d, d)
			if err != nil {
				t.Fatal(err)
			}
			if len(got) != 240 || len(want) != 240 {
				t.Fatalf("%v: %d bars kept, %d made", e.Code, len(got), len(want))
			}
			for i := range got {
				g, w := got[i], want[i]
				if g.TS != w.TS || g.Open != w.Open || g.High != w.High || g.Low != w.Low || g.Close != w.Close || g.Volume != w.Volume || g.Amount != w.Amount {
					t.Fatalf("%v minute %d: kept %+v, the demo's %+v", e.Code, i, g, w)
				}
			}
		}
	}
}
