package adjust_test

import (
	"encoding/csv"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"

	"mdqs/internal/adjust"
	"mdqs/internal/market"
	"mdqs/internal/tdx"
)

// The ground truth and its raw inputs are copies of shared/testdata/adjust
// (see testdata/README.md).

var gbbqEvents = sync.OnceValues(func() ([]tdx.GBBQEvent, error) {
	return tdx.ReadGBBQ(filepath.Join("testdata", "gbbq", "gbbq_rustdx_20211109_subset"))
})

// eventsOf converts the gbbq's category-1 records of code, as a service
// does: each float32 value as its shortest decimal (tdx.Decimal32).
func eventsOf(t testing.TB, code string) []adjust.Event {
	t.Helper()
	out := bundled(t, code)
	if len(out) == 0 {
		t.Fatalf("no events for %s", code)
	}
	return out
}

// bundled is eventsOf allowing none.
func bundled(t testing.TB, code string) []adjust.Event {
	t.Helper()
	all, err := gbbqEvents()
	if err != nil {
		t.Fatal(err)
	}
	c := market.MustCode(code)
	var out []adjust.Event
	for _, e := range all {
		if x, ok := e.XDXR(); ok && e.Code == c {
			out = append(out, adjust.Event{Day: e.Day, CashPer10: x.CashPer10, RightsPrice: x.RightsPrice, BonusPer10: x.BonusPer10, RightsPer10: x.RightsPer10})
		}
	}
	return out
}

// withExtra adds the events of extra_events_after_gbbq.csv for code; a row
// marked REVISION replaces the bundled event of its day instead, when
// revised is set, and is skipped otherwise.
func withExtra(t testing.TB, code string, events []adjust.Event, revised bool) []adjust.Event {
	t.Helper()
	out := append([]adjust.Event(nil), events...)
	for _, r := range readCSV(t, "extra_events_after_gbbq.csv") {
		if r["code"]+"."+map[string]string{"0": "SZ", "1": "SH"}[r["market"]] != code || r["category"] != "1" {
			continue
		}
		// The values are decimal transcriptions of float32 fields: read
		// them as the decoder reads the terminal's (f32).
		e := adjust.Event{Day: day(t, r["date"]), CashPer10: f32(t, r["fenhong"]), RightsPrice: f32(t, r["peigujia"]),
			BonusPer10: f32(t, r["songzhuangu"]), RightsPer10: f32(t, r["peigu"])}
		if !strings.HasPrefix(r["note"], "REVISION") {
			out = append(out, e)
			continue
		}
		if !revised {
			continue
		}
		found := false
		for i := range out {
			if out[i].Day == e.Day {
				out[i], found = e, true
			}
		}
		if !found {
			t.Fatalf("revision %s has no bundled event to replace", e.Day)
		}
	}
	return out
}

// readCSV reads a testdata CSV into maps keyed by the header.
func readCSV(t testing.TB, name string) []map[string]string {
	t.Helper()
	f, err := os.Open(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	rows, err := csv.NewReader(f).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	var out []map[string]string
	for _, row := range rows[1:] {
		if strings.Join(row, ",") == strings.Join(rows[0], ",") {
			continue // 002709_gbbq_events.csv repeats its header once
		}
		m := map[string]string{}
		for i, h := range rows[0] {
			m[h] = row[i]
		}
		out = append(out, m)
	}
	return out
}

// barsOf decodes a raw .day file of testdata/raw. The CSVs name 300750's
// file by its place in shared/testdata/tdx; its copy is in raw/redmine-2023.
func barsOf(t testing.TB, rawFile string) []market.Bar {
	t.Helper()
	if strings.HasPrefix(rawFile, "../tdx/redmine-2023/") {
		rawFile = "raw/redmine-2023/" + filepath.Base(rawFile)
	}
	bf, err := tdx.ReadBars(filepath.Join("testdata", filepath.FromSlash(rawFile)), 0)
	if err != nil {
		t.Fatal(err)
	}
	return bf.Bars
}

func barOn(t testing.TB, bars []market.Bar, d market.Day) market.Bar {
	t.Helper()
	for _, b := range bars {
		if b.Day == d {
			return b
		}
	}
	t.Fatalf("no bar on %s", d)
	return market.Bar{}
}

func day(t testing.TB, s string) market.Day {
	t.Helper()
	d, err := market.ParseDay(s)
	if err != nil {
		t.Fatal(err)
	}
	return d
}

func num(t testing.TB, s string) float64 {
	t.Helper()
	v, err := strconv.ParseFloat(s, 64)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// f32 is a value the terminal would store as float32, as tdx decodes it:
// the float32's shortest decimal.
func f32(t testing.TB, s string) float64 {
	t.Helper()
	v, err := strconv.ParseFloat(s, 32)
	if err != nil {
		t.Fatal(err)
	}
	return tdx.Decimal32(float32(v))
}

func factors(t testing.TB, events []adjust.Event, mode adjust.Mode, anchor market.Day) adjust.Schedule {
	t.Helper()
	s, err := adjust.Factors(events, mode, anchor)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// field picks a price of a bar by the CSVs' column names.
func field(b market.Bar, name string) float64 {
	switch name {
	case "open":
		return b.Open
	case "high":
		return b.High
	case "low":
		return b.Low
	}
	return b.Close
}

var ohlc = []string{"open", "close", "high", "low"}
