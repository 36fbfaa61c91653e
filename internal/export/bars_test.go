package export

import (
	"bytes"
	"context"
	"encoding/csv"
	"errors"
	"log/slog"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/parquet-go/parquet-go"

	"mdqs/db"
	"mdqs/db/dbtest"
	"mdqs/internal/adjust"
	"mdqs/internal/demo"
	"mdqs/internal/kline"
	"mdqs/internal/market"
)

// now is a Tuesday evening in Shanghai, after the close: 2026-11-24's
// bars are final.
var now = time.Date(2026, 11, 24, 20, 0, 0, 0, market.Shanghai())

// fixture is a store holding a small demo market's bars, and the K-line
// service that fills it as the API does.
type fixture struct {
	store  *db.Store
	demo   *demo.Market
	klines *kline.Service
	cal    *market.Calendar
	clock  *market.FixedClock
	codes  []market.Code
}

func newFixture(t testing.TB, stocks int) *fixture {
	t.Helper()
	clock := market.NewFixedClock(now)
	cal := market.DefaultCalendar()
	dm, err := demo.New(demo.Config{Seed: 11, Stocks: max(stocks, 10), Industries: 2, Concepts: 2, Calendar: cal}, clock)
	if err != nil {
		t.Fatal(err)
	}
	store := dbtest.Open(t)
	window := market.Window{Start: 9*60 + 25, End: 15 * 60}
	in := kline.NewIntraday(dm, cal, window, clock, kline.IntradayConfig{MaxWatched: 10, RefreshAge: time.Minute})
	svc := kline.NewService(store, dm, "demo", in, cal, clock, kline.Config{Window: window}, slog.New(slog.DiscardHandler))
	f := &fixture{store: store, demo: dm, klines: svc, cal: cal, clock: clock}
	for _, s := range dm.Stocks() {
		f.codes = append(f.codes, s.Code)
	}
	return f
}

// fill stores the codes' bars of freq over [from, to] as the API would.
func (f *fixture) fill(t testing.TB, freq market.Freq, from, to market.Day, codes ...market.Code) {
	t.Helper()
	for _, c := range codes {
		if err := f.klines.Ensure(context.Background(), c, freq, from, to); err != nil {
			t.Fatal(err)
		}
	}
}

func (f *fixture) deps() BarDeps {
	return BarDeps{Store: f.store, Calendar: f.cal, Clock: f.clock, Fill: f.klines, Meta: Meta{{"mdqs_version", "test"}}}
}

// storedRows are what the store holds of the codes over the range, in
// the export's order (code, then time), as BarRows.
func (f *fixture) storedRows(t testing.TB, freq market.Freq, from, to market.Day, codes []market.Code) []BarRow {
	t.Helper()
	var out []BarRow
	for _, c := range codes {
		bars, err := f.store.Bars(context.Background(), db.BarQuery{Code: c, Freq: freq, FromTS: from.Start().Unix(), ToTS: to.AddDays(1).Start().Unix() - 1})
		if err != nil {
			t.Fatal(err)
		}
		for _, b := range bars {
			r := BarRow{Code: c.String(), TradeDate: int32(b.Day.EpochDays()), TS: b.TS * 1000, Open: b.Open, High: b.High,
				Low: b.Low, Close: b.Close, Volume: b.Volume, Amount: b.Amount, Source: "demo"}
			if market.IsKnown(b.TurnoverRate) {
				v := b.TurnoverRate
				r.TurnoverRate = &v
			}
			if market.IsKnown(b.LargeOrderNet) {
				v := b.LargeOrderNet
				r.LargeOrderNet = &v
			}
			out = append(out, r)
		}
	}
	return out
}

// readCSVBars reads an exported CSV back as BarRows, holding each number
// to the JSON's spelling of it.
func readCSVBars(t testing.TB, path string) []BarRow {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	records, err := csv.NewReader(bytes.NewReader(b)).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	if got := records[0]; !equalStrings(got, barColumns) {
		t.Fatalf("header %v, want %v", got, barColumns)
	}
	num := func(s string) float64 {
		v, err := strconv.ParseFloat(s, 64)
		if err != nil {
			t.Fatalf("%q: %v", s, err)
		}
		if got := string(market.AppendJSONFloat(nil, v)); got != s {
			t.Fatalf("%q is not as the JSON writes it (%q)", s, got)
		}
		return v
	}
	var out []BarRow
	for _, r := range records[1:] {
		day, err := market.ParseDay(r[1])
		if err != nil {
			t.Fatal(err)
		}
		ts, _ := strconv.ParseInt(r[2], 10, 64)
		vol, _ := strconv.ParseInt(r[7], 10, 64)
		row := BarRow{Code: r[0], TradeDate: int32(day.EpochDays()), TS: ts * 1000, Open: num(r[3]), High: num(r[4]), Low: num(r[5]),
			Close: num(r[6]), Volume: vol, Amount: num(r[8]), Source: r[11]}
		if r[9] != "" {
			v := num(r[9])
			row.TurnoverRate = &v
		}
		if r[10] != "" {
			v := num(r[10])
			row.LargeOrderNet = &v
		}
		out = append(out, row)
	}
	return out
}

func equalStrings(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

func sameRows(t testing.TB, got, want []BarRow) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%d rows, want %d", len(got), len(want))
	}
	opt := func(p *float64) float64 {
		if p == nil {
			return math.NaN()
		}
		return *p
	}
	same := func(a, b float64) bool { return a == b || math.IsNaN(a) && math.IsNaN(b) }
	for i := range got {
		g, w := got[i], want[i]
		if g.Code != w.Code || g.TradeDate != w.TradeDate || g.TS != w.TS || g.Open != w.Open || g.High != w.High || g.Low != w.Low ||
			g.Close != w.Close || g.Volume != w.Volume || g.Amount != w.Amount || g.Source != w.Source ||
			!same(opt(g.TurnoverRate), opt(w.TurnoverRate)) || !same(opt(g.LargeOrderNet), opt(w.LargeOrderNet)) {
			t.Fatalf("row %d = %+v, want %+v", i, g, w)
		}
	}
}

// TestBarsRoundTrip exports stored bars to each format at each frequency
// and reads them back: every stored bar, in code then time order, with
// its values exactly (CSV: as the JSON writes them), its source, and the
// provenance in the Parquet footer.
func TestBarsRoundTrip(t *testing.T) {
	f := newFixture(t, 6)
	codes := f.codes[:4]
	from, to := market.Day(20261102), market.Day(20261124)
	f.fill(t, market.Daily, from, to, codes...)
	f.fill(t, market.Min5, 20261123, 20261124, codes...)
	for _, tc := range []struct {
		name     string
		format   Format
		freq     market.Freq
		from, to market.Day
	}{
		{"daily csv", CSV, market.Daily, from, to},
		{"daily parquet", Parquet, market.Daily, from, to},
		{"5m csv", CSV, market.Min5, 20261123, 20261124},
		{"5m parquet", Parquet, market.Min5, 20261123, 20261124},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out := filepath.Join(t.TempDir(), "bars."+string(tc.format))
			sum, err := ExportBars(context.Background(), f.deps(), BarRequest{Codes: codes, Freq: tc.freq, From: tc.from, To: tc.to,
				Format: tc.format, Out: out, StoreOnly: true})
			if err != nil {
				t.Fatal(err)
			}
			want := f.storedRows(t, tc.freq, tc.from, tc.to, codes)
			if sum.Rows != len(want) || sum.Series != len(codes) || sum.Files != 1 || sum.Bytes != fileSize(out) {
				t.Errorf("summary %+v, want %d rows of %d codes in 1 file of %d bytes", sum, len(want), len(codes), fileSize(out))
			}
			if tc.format == CSV {
				sameRows(t, readCSVBars(t, out), want)
				return
			}
			got, err := parquet.ReadFile[BarRow](out)
			if err != nil {
				t.Fatal(err)
			}
			sameRows(t, got, want)
			pf := openParquet(t, out)
			for k, v := range map[string]string{"source": "demo", "as_of": "2026-11-24 20:00:00", "final_through": tc.to.String(),
				"freq": string(tc.freq), "rows": strconv.Itoa(len(want)), "mdqs_version": "test", "adj": "none"} {
				if got, _ := pf.Lookup(k); got != v {
					t.Errorf("metadata %s = %q, want %q", k, got, v)
				}
			}
		})
	}
}

func openParquet(t testing.TB, path string) *parquet.File {
	t.Helper()
	fh, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { fh.Close() })
	st, _ := fh.Stat()
	pf, err := parquet.OpenFile(fh, st.Size())
	if err != nil {
		t.Fatal(err)
	}
	return pf
}

// TestParquetTypes: the columns are the JSON's names, with types that
// keep what the store holds.
func TestParquetTypes(t *testing.T) {
	f := newFixture(t, 2)
	f.fill(t, market.Daily, 20261116, 20261120, f.codes[0])
	out := filepath.Join(t.TempDir(), "bars.parquet")
	if _, err := ExportBars(context.Background(), f.deps(), BarRequest{Codes: f.codes[:1], Freq: market.Daily, From: 20261116, To: 20261120,
		Format: Parquet, Out: out}); err != nil {
		t.Fatal(err)
	}
	want := map[string]string{"code": "STRING", "trade_date": "DATE", "ts": "TIMESTAMP(isAdjustedToUTC=true,unit=MILLIS)",
		"open": "DOUBLE", "close": "DOUBLE", "volume": "INT(64,true)", "amount": "DOUBLE", "turnover_rate": "DOUBLE", "source": "STRING"}
	var names []string
	for _, c := range openParquet(t, out).Schema().Fields() {
		names = append(names, c.Name())
		w, ok := want[c.Name()]
		if !ok {
			continue
		}
		got := c.Type().String()
		if lt := c.Type().LogicalType(); lt != nil {
			got = lt.String()
		}
		if got != w {
			t.Errorf("%s: %s, want %s", c.Name(), got, w)
		}
	}
	if !equalStrings(names, barColumns) {
		t.Errorf("columns %v, want %v", names, barColumns)
	}
}

// TestStoreOnlyReportsMissing: a store-only export of a range the store
// does not cover names each code and its missing days, and writes nothing.
func TestStoreOnlyReportsMissing(t *testing.T) {
	f := newFixture(t, 3)
	f.fill(t, market.Daily, 20261116, 20261120, f.codes[0])
	f.fill(t, market.Daily, 20261102, 20261124, f.codes[1])
	out := filepath.Join(t.TempDir(), "bars.csv")
	_, err := ExportBars(context.Background(), f.deps(), BarRequest{Codes: f.codes[:3], Freq: market.Daily, From: 20261109, To: 20261124,
		Format: CSV, Out: out, StoreOnly: true})
	var me *MissingError
	if !errors.As(err, &me) {
		t.Fatalf("err = %v, want a MissingError", err)
	}
	want := []Missing{
		{Code: f.codes[0], Spans: []db.Span{{First: 20261109, Last: 20261113}, {First: 20261123, Last: 20261124}}},
		{Code: f.codes[2], Spans: []db.Span{{First: 20261109, Last: 20261124}}},
	}
	if len(me.Missing) != len(want) {
		t.Fatalf("missing %+v, want %+v", me.Missing, want)
	}
	for i := range want {
		if me.Missing[i].Code != want[i].Code || len(me.Missing[i].Spans) != len(want[i].Spans) {
			t.Fatalf("missing %+v, want %+v", me.Missing, want)
		}
		for k := range want[i].Spans {
			if me.Missing[i].Spans[k] != want[i].Spans[k] {
				t.Errorf("%s: missing %v, want %v", want[i].Code, me.Missing[i].Spans, want[i].Spans)
			}
		}
	}
	if _, err := os.Stat(out); !os.IsNotExist(err) {
		t.Errorf("a refused export left %s (%v)", out, err)
	}
	entries, _ := os.ReadDir(filepath.Dir(out))
	if len(entries) != 0 {
		t.Errorf("left behind: %v", entries)
	}
}

// TestFillsWhatTheStoreLacks: without -store-only the export fills the
// store as the API would (the demo market here) and exports every day.
func TestFillsWhatTheStoreLacks(t *testing.T) {
	f := newFixture(t, 3)
	f.fill(t, market.Daily, 20261116, 20261120, f.codes[0])
	out := filepath.Join(t.TempDir(), "bars.csv")
	sum, err := ExportBars(context.Background(), f.deps(), BarRequest{Codes: f.codes[:2], Freq: market.Daily, From: 20261109, To: 20261124,
		Format: CSV, Out: out})
	if err != nil {
		t.Fatal(err)
	}
	if days := len(f.cal.Between(20261109, 20261124)); sum.Rows != 2*days {
		t.Errorf("%d rows, want %d", sum.Rows, 2*days)
	}
	for _, c := range f.codes[:2] {
		cov, _, ok, err := f.store.Coverage(context.Background(), c, market.Daily)
		if err != nil || !ok || cov.First > 20261109 || cov.Last < 20261124 {
			t.Errorf("%s coverage after the export: %v %v %v", c, cov, ok, err)
		}
	}
	sameRows(t, readCSVBars(t, out), f.storedRows(t, market.Daily, 20261109, 20261124, f.codes[:2]))
}

// failingFill fails on its second code.
type failingFill struct {
	Filler
	n int
}

func (f *failingFill) Ensure(ctx context.Context, code market.Code, freq market.Freq, from, to market.Day) error {
	if f.n++; f.n == 2 {
		return market.Errorf(market.KindUnavailable, "push2his is down")
	}
	return f.Filler.Ensure(ctx, code, freq, from, to)
}

// TestFailureLeavesNoFile: an export that fails halfway (a source down)
// says why and leaves neither a half file nor the last good one touched.
func TestFailureLeavesNoFile(t *testing.T) {
	f := newFixture(t, 3)
	dir := t.TempDir()
	out := filepath.Join(dir, "bars.parquet")
	if err := os.WriteFile(out, []byte("the last good export"), 0o644); err != nil {
		t.Fatal(err)
	}
	d := f.deps()
	d.Fill = &failingFill{Filler: f.klines}
	_, err := ExportBars(context.Background(), d, BarRequest{Codes: f.codes[:3], Freq: market.Daily, From: 20261116, To: 20261120, Format: Parquet, Out: out})
	if market.KindOf(err) != market.KindUnavailable {
		t.Fatalf("err = %v, want the source's outage", err)
	}
	if b, _ := os.ReadFile(out); string(b) != "the last good export" {
		t.Errorf("the file was touched: %q", b)
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 1 {
		t.Errorf("left behind: %v", entries)
	}
}

// TestQlibLayout: one CSV per code named as qlib names instruments, the
// columns dump_bin reads, factor 1 unadjusted; adjusted, factor is the
// adjusted close over the stored one and volume is divided by it.
func TestQlibLayout(t *testing.T) {
	f := newFixture(t, 3)
	codes := f.codes[:2]
	f.fill(t, market.Daily, 20261116, 20261120, codes...)
	raw := f.storedRows(t, market.Daily, 20261116, 20261120, codes)
	for _, tc := range []struct {
		name  string
		mode  adjust.Mode
		sched adjust.Schedule
	}{
		{"unadjusted", adjust.None, adjust.Schedule{}},
		// A schedule by hand: prices doubled and 1 yuan added before
		// 2026-11-18 (an affine map, as the terminal's are), then as they are.
		{"adjusted", adjust.HFQ, adjust.Schedule{Mode: adjust.HFQ, Steps: []adjust.Step{{From: 0, Affine: adjust.Affine{A: 2, B: 1}}, {From: 20261118, Affine: adjust.Identity}}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "qlib")
			d := f.deps()
			d.Adjustment = func(context.Context, market.Code, adjust.Mode) (adjust.Schedule, error) { return tc.sched, nil }
			sum, err := ExportBars(context.Background(), d, BarRequest{Codes: codes, Freq: market.Daily, From: 20261116, To: 20261120,
				Out: dir, Qlib: true, Adjust: tc.mode, StoreOnly: true})
			if err != nil {
				t.Fatal(err)
			}
			if sum.Files != 2 {
				t.Errorf("%d files, want 2", sum.Files)
			}
			k := 0
			for _, c := range codes {
				b, err := os.ReadFile(filepath.Join(dir, QlibName(c)))
				if err != nil {
					t.Fatal(err)
				}
				records, err := csv.NewReader(bytes.NewReader(b)).ReadAll()
				if err != nil {
					t.Fatal(err)
				}
				if !equalStrings(records[0], []string{"date", "open", "high", "low", "close", "volume", "amount", "factor"}) {
					t.Fatalf("header %v", records[0])
				}
				for _, r := range records[1:] {
					w := raw[k]
					k++
					day := market.DayFromEpochDays(int64(w.TradeDate))
					f := tc.sched.At(day)
					if tc.mode == adjust.None {
						f = adjust.Identity
					}
					wantClose := adjust.Round(f.Price(w.Close))
					close, _ := strconv.ParseFloat(r[4], 64)
					factor, _ := strconv.ParseFloat(r[7], 64)
					vol, _ := strconv.ParseFloat(r[5], 64)
					amount, _ := strconv.ParseFloat(r[6], 64)
					if r[0] != day.String() || close != wantClose || math.Abs(factor-wantClose/w.Close) > 1e-12 ||
						math.Abs(vol-float64(w.Volume)/factor) > 1e-6 || amount != w.Amount {
						t.Errorf("%s %s: %v; want close %v factor %v volume %v amount %v", c, day, r, wantClose, wantClose/w.Close, float64(w.Volume)/factor, w.Amount)
					}
					if tc.mode == adjust.None && (r[7] != "1" || r[5] != strconv.FormatInt(w.Volume, 10)) {
						t.Errorf("unadjusted row %v: factor and volume must be 1 and the stored %d", r, w.Volume)
					}
				}
			}
			if k != len(raw) {
				t.Errorf("%d rows in the files, want %d", k, len(raw))
			}
		})
	}
}
