package demotdx

import (
	"bytes"
	"context"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"mdqs/internal/demo"
	"mdqs/internal/market"
	"mdqs/internal/tdx"
)

// Monday 2026-11-23 after the close: its daily bars are final.
var monday = time.Date(2026, 11, 23, 16, 0, 0, 0, market.Shanghai())

func newDemo(t testing.TB, cfg demo.Config, now time.Time) (*demo.Market, *market.FixedClock) {
	t.Helper()
	clk := market.NewFixedClock(now)
	m, err := demo.New(cfg, clk)
	if err != nil {
		t.Fatal(err)
	}
	return m, clk
}

func small() demo.Config { return demo.Config{Seed: 7, Stocks: 600, Industries: 30, Concepts: 60} }

func write(t testing.TB, m *demo.Market, dir string, days int) Stats {
	t.Helper()
	st, err := Write(context.Background(), m, market.DefaultCalendar(), dir, Through(market.DefaultCalendar(), monday), days, "stamp\n")
	if err != nil {
		t.Fatalf("Write: %v", err)
	}
	return st
}

// float32 is what the files keep of an amount.
func f32(x float64) float64 { return tdx.Decimal32(float32(x)) }

// Every file the writer makes decodes with the tdx package to what the
// demo market says: bars (amounts to float32, as the format holds them, read
// back as their decimals),
// names, industries, concepts, index constituents and user blocks.
func TestWrittenFolderDecodesToTheDemoMarket(t *testing.T) {
	m, _ := newDemo(t, small(), monday)
	dir := filepath.Join(t.TempDir(), "mdqs-demo-tdx")
	st := write(t, m, dir, 30)
	ctx := context.Background()
	term, err := tdx.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(term.Problems) > 0 || st.Through != 20261123 {
		t.Fatalf("scan problems %v, through %v", term.Problems, st.Through)
	}
	from := market.Day(20261013) // 30 sessions back from Monday 2026-11-23 (National Day week in between)
	if got := market.DefaultCalendar().Between(from, 20261123); len(got) != 30 {
		t.Fatalf("test setup: %d sessions", len(got))
	}
	indices := m.Indices()
	counts := map[tdx.Kind]int{}
	for _, f := range term.Files {
		counts[f.Kind]++
		if !f.Kind.IsBars() {
			continue
		}
		bf, err := term.Bars(f)
		if err != nil || len(bf.Flagged) > 0 {
			t.Fatalf("%s: %v, flagged %v", f.Path, err, bf.Flagged)
		}
		lo := from
		if f.Kind != tdx.KindDay {
			lo = 20261117 // five sessions
		}
		want, err := m.Klines(ctx, f.Code, f.Kind.Freq(), lo, 20261123)
		if err != nil || len(want) != len(bf.Bars) || len(want) == 0 {
			t.Fatalf("%s: %d bars decoded, demo market %d (%v)", f.Path, len(bf.Bars), len(want), err)
		}
		index := market.Classify(f.Code) == market.TypeIndex
		for i, w := range want {
			g := bf.Bars[i]
			if g.Day != w.Day || g.TS != w.TS || g.Open != w.Open || g.High != w.High || g.Low != w.Low || g.Close != w.Close || g.Amount != f32(w.Amount) {
				t.Fatalf("%s bar %d: decoded %+v, demo %+v", f.Path, i, g, w)
			}
			// An index minute's volume is derived from its amount and the
			// day's shares per yuan, as the terminal's files require.
			if ok := g.Volume == w.Volume; !ok && !(index && f.Kind != tdx.KindDay && math.Abs(float64(g.Volume-w.Volume)) <= 0.001*float64(w.Volume)+100) {
				t.Fatalf("%s bar %d: volume %d, demo %d", f.Path, i, g.Volume, w.Volume)
			}
		}
	}
	hs300 := indices[1]
	if hs300.Code.Symbol != "000300" {
		t.Fatalf("indices %v", indices)
	}
	if counts[tdx.KindDay] != len(hs300.Members)+4 || counts[tdx.KindLC1] != MinuteStocks+4 || counts[tdx.KindLC5] != MinuteStocks+4 {
		t.Errorf("bar files %v: want .day for the 4 indices and %d members, minute files for the indices and %d", counts, len(hs300.Members), MinuteStocks)
	}

	secs, err := term.Names()
	if err != nil {
		t.Fatal(err)
	}
	names := map[market.Code]string{}
	for _, s := range secs {
		names[s.Code] = s.Name
	}
	delisted := 0
	for _, s := range m.Stocks() {
		want := s.Name
		if s.Delisted != 0 && s.Delisted <= st.Through {
			want = "" // the terminal lists what is listed
			delisted++
		}
		if names[s.Code] != want {
			t.Fatalf("name of %v (delisted %v): %q, want %q", s.Code, s.Delisted, names[s.Code], want)
		}
	}
	if delisted == 0 {
		t.Error("no stock of the market was delisted by then: the name files' leaving it out is not tested")
	}
	for _, ix := range indices {
		if names[ix.Code] != ix.Name {
			t.Fatalf("name of %v: %q, want %q", ix.Code, names[ix.Code], ix.Name)
		}
	}

	zs, err := tdx.ReadZSCfg(filepath.Join(dir, "T0002", "hq_cache", "tdxzs3.cfg"))
	if err != nil {
		t.Fatal(err)
	}
	hy, err := tdx.ReadHYCfg(filepath.Join(dir, "T0002", "hq_cache", "tdxhy.cfg"))
	if err != nil {
		t.Fatal(err)
	}
	byKey := map[string][]market.Code{}
	for _, e := range hy {
		byKey[e.TCode] = append(byKey[e.TCode], e.Code)
	}
	industries := map[string][]market.Code{}
	concepts := map[string]market.Code{}
	for _, e := range zs {
		switch e.Type {
		case tdx.ZSIndustry:
			industries[e.Name] = byKey[e.Key]
		case tdx.ZSConcept:
			concepts[e.Name] = e.Code
		}
	}
	for _, b := range m.Boards(market.Industry) {
		if got := industries[b.Name]; !slices.Equal(got, b.Members) {
			t.Fatalf("industry %s: %d members in the files, %d in the demo", b.Name, len(got), len(b.Members))
		}
	}
	harbor, err := tdx.ReadInfoHarbor(filepath.Join(dir, "T0002", "hq_cache", "infoharbor_block.dat"))
	if err != nil {
		t.Fatal(err)
	}
	blocks := map[string]tdx.HarborBlock{}
	for _, h := range harbor {
		blocks[h.Kind+" "+h.Name] = h
	}
	for _, b := range m.Boards(market.Concept) {
		h := blocks["GN "+b.Name]
		if !slices.Equal(h.Members, b.Members) || h.Code != concepts[b.Name] || h.Code.IsZero() {
			t.Fatalf("concept %s: %d members, code %v (tdxzs3 %v); the demo has %d", b.Name, len(h.Members), h.Code, concepts[b.Name], len(b.Members))
		}
	}
	if h := blocks["ZS "+hs300.Name]; !slices.Equal(h.Members, hs300.Members) || len(harbor) != len(m.Boards(market.Concept))+1 {
		t.Fatalf("index block %s: %d members, want %d; %d blocks in all", hs300.Name, len(h.Members), len(hs300.Members), len(harbor))
	}
	users, err := term.UserBlocks()
	if err != nil || len(users) != 2 || users[0].Name != "演示组合" || len(users[0].Codes) != MinuteStocks ||
		users[1].Name != "自选股" || users[1].Codes[0] != market.MustCode("000001.SH") || len(users[1].Codes) != 6 {
		t.Fatalf("user blocks %+v, %v", users, err)
	}
	gbbq, ok := term.First(tdx.KindGBBQ)
	if !ok {
		t.Fatal("no gbbq in the folder")
	}
	events, err := tdx.ReadGBBQ(gbbq.Path)
	if err != nil {
		t.Fatal(err)
	}
	var want []tdx.GBBQEvent
	for _, s := range m.Stocks() {
		// A newer gbbq drops the delisted codes (adjust.md §1.2).
		if s.Delisted == 0 || s.Delisted > st.Through {
			want = append(want, m.ActionsAsOf(s.Code, 20261123)...)
		}
	}
	if len(want) == 0 || !slices.Equal(events, want) {
		t.Fatalf("gbbq holds %d events, the demo market %d", len(events), len(want))
	}
}

// The same demo market and day give the same folder, byte for byte.
func TestWrittenFolderIsDeterministic(t *testing.T) {
	a, _ := newDemo(t, small(), monday)
	b, _ := newDemo(t, small(), monday)
	da, db := filepath.Join(t.TempDir(), "a"), filepath.Join(t.TempDir(), "b")
	write(t, a, da, 20)
	// b is asked for another folder first, so no cache can make them agree.
	write(t, b, filepath.Join(t.TempDir(), "c"), 5)
	write(t, b, db, 20)
	fa, fb := tree(t, da), tree(t, db)
	if len(fa) == 0 || len(fa) != len(fb) {
		t.Fatalf("%d files against %d", len(fa), len(fb))
	}
	for name, data := range fa {
		if !bytes.Equal(data, fb[name]) {
			t.Fatalf("%s differs between two writes", name)
		}
	}
}

func tree(t *testing.T, root string) map[string][]byte {
	t.Helper()
	out := map[string][]byte{}
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(p)
		rel, _ := filepath.Rel(root, p)
		out[filepath.ToSlash(rel)] = b
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// Ensure writes a missing folder, leaves a current one alone, and writes
// it again (in one swap, leaving nothing beside it) when the day moves on
// at 15:00 or the demo market is another.
func TestEnsureWritesWhenMissingOrStale(t *testing.T) {
	m, clk := newDemo(t, small(), monday)
	parent := t.TempDir()
	w := &Writer{Market: m, Calendar: market.DefaultCalendar(), Clock: clk, Dir: filepath.Join(parent, "mdqs-demo-tdx"), Days: 10, Identity: "seed 7"}
	ensure := func(want bool, why string) {
		t.Helper()
		wrote, err := w.Ensure(context.Background())
		if err != nil || wrote != want {
			t.Fatalf("%s: Ensure = %v, %v; want %v", why, wrote, err, want)
		}
	}
	ensure(true, "no folder")
	ensure(false, "a current folder")
	clk.Set(time.Date(2026, 11, 24, 14, 59, 0, 0, market.Shanghai()))
	ensure(false, "Tuesday before the close: Monday is still the last final day")
	clk.Set(time.Date(2026, 11, 24, 15, 0, 0, 0, market.Shanghai()))
	ensure(true, "Tuesday's close")
	stamp, _ := os.ReadFile(filepath.Join(w.Dir, stampName))
	if !strings.Contains(string(stamp), "through 2026-11-24") {
		t.Fatalf("stamp %q", stamp)
	}
	term, err := tdx.Open(w.Dir)
	if err != nil {
		t.Fatal(err)
	}
	f, _ := term.DayFile(market.MustCode("000001.SH"))
	if bf, err := term.Bars(f); err != nil || bf.Bars[len(bf.Bars)-1].Day != 20261124 {
		t.Fatalf("rewritten index file: %v", err)
	}
	w.Identity = "seed 8"
	ensure(true, "another demo market")
	entries, _ := os.ReadDir(parent)
	if len(entries) != 1 {
		t.Fatalf("beside the folder: %v", entries)
	}
}

// The folder of the default demo market (5,300 stocks, 130 sessions) is
// written well within the start-up budget; the figures go in docs/performance.md.
func TestWriteAtDefaultScale(t *testing.T) {
	if testing.Short() {
		t.Skip("the default scale")
	}
	m, _ := newDemo(t, demo.DefaultConfig(), monday)
	st := write(t, m, filepath.Join(t.TempDir(), "mdqs-demo-tdx"), 130)
	t.Logf("default scale: %d files, %.2f MB, %v", st.Files, float64(st.Bytes)/1e6, st.Elapsed)
	if st.Elapsed > 15*time.Second || st.Bytes > 8e6 {
		t.Errorf("%d files, %d bytes in %v", st.Files, st.Bytes, st.Elapsed)
	}
}
