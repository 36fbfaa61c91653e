// Package demotdx writes the demo market as a TongDaXin terminal folder,
// in the terminal's own file formats, so that demo mode runs the bridge's
// real code path (scan, decode, import) with nothing installed.
//
// What the folder holds, all from the demo market:
//   - vipdoc/{sh,sz}/lday: daily bars (.day) of the four indices and of the
//     demo 沪深300's members, the last Days sessions;
//   - vipdoc/{sh,sz}/minline and fzline: .lc1 and .lc5 minute bars of the
//     indices and the 10 largest of those members, the last 5 sessions;
//   - T0002/hq_cache: names of every stock and index (shs/szs/bjs.tnf),
//     the demo's industries (tdxzs3.cfg type 2, members in tdxhy.cfg) and
//     concepts (tdxzs3.cfg type 4, members in infoharbor_block.dat, which
//     also lists 沪深300's constituents), under the terminal's 880xxx
//     block codes and the demo boards' own names; spblock.dat with every
//     demo index's members of the folder's day (the index membership the
//     bridge records);
//   - T0002/hq_cache/gbbq: every stock's corporate actions as of the
//     folder's day (demo.Market.ActionsAsOf), announced ones included, so
//     that the bridge imports them as it does a terminal's;
//   - T0002/blocknew: a user block of those 10 largest and the watchlist
//     (ZXG.blk): 000001.SH and the 5 largest.
//
// A subset of stocks has bar files because a real terminal holds what its
// user downloaded, and because the folder must be written within a
// fraction of a second at start.
package demotdx

import (
	"bytes"
	"cmp"
	"context"
	"fmt"
	"log/slog"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"mdqs/internal/demo"
	"mdqs/internal/market"
	"mdqs/internal/tdx"
)

// Sizes of the folder.
const (
	MinuteDays    = 5  // sessions of .lc1/.lc5 files
	MinuteStocks  = 10 // members of the demo 沪深300 with minute files, and in the user block
	stampName     = "mdqs-demo-terminal.txt"
	formatVersion = 4 // 2: the gbbq, 3: spblock.dat, 4: prices that go ex on the gbbq (issue 32); a folder of an older format is rewritten
	// staleTemp is how old a temporary folder of an interrupted write must
	// be before a later write removes it: a concurrent write is younger.
	staleTemp = 10 * time.Minute
)

// Writer keeps one demo terminal folder current.
type Writer struct {
	Market   *demo.Market
	Calendar *market.Calendar
	Clock    market.Clock
	Dir      string // the folder; its parent must exist
	Days     int    // daily history of the .day files, in sessions
	// Identity names the demo market (seed and scale): a folder written
	// for another is stale.
	Identity string
	Log      *slog.Logger

	mu sync.Mutex // one Ensure at a time: two would swap each other's folder
}

// Stats says what a write did.
type Stats struct {
	Through market.Day
	Files   int
	Bytes   int64
	Elapsed time.Duration
}

// Through is the last session whose daily bars are final at now: the
// demo's daily bar of a day appears at 15:00.
func Through(cal *market.Calendar, now time.Time) market.Day {
	today := market.DayOf(now)
	d := cal.OnOrBefore(today)
	if d == today && now.Before(today.At(15, 0, 0)) {
		d = cal.Prev(today)
	}
	return d
}

// stamp is the file that says what the folder was written for.
func (w *Writer) stamp(through market.Day) string {
	return fmt.Sprintf("mdqs demo terminal, format %d\nmarket %s\ndays %d\nthrough %s\n", formatVersion, w.Identity, w.Days, through)
}

// Ensure writes the folder when it is missing, was written for another
// demo market or size, or the demo market's day has moved on since. It
// reports whether it wrote.
func (w *Writer) Ensure(ctx context.Context) (bool, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	through := Through(w.Calendar, w.Clock.Now())
	want := w.stamp(through)
	if got, err := os.ReadFile(filepath.Join(w.Dir, stampName)); err == nil && string(got) == want {
		return false, nil
	}
	st, err := Write(ctx, w.Market, w.Calendar, w.Dir, through, w.Days, want)
	if err != nil {
		return false, err
	}
	if w.Log != nil {
		w.Log.Info("demo terminal written", "dir", w.Dir, "through", through.String(), "files", st.Files,
			"bytes", st.Bytes, "seconds", math.Round(st.Elapsed.Seconds()*1000)/1000)
	}
	return true, nil
}

// Write builds the folder for the sessions up to through in a temporary
// folder beside dir and then puts it in dir's place, so that a reader sees
// the old folder or the new one, never half of one. stamp is written last.
func Write(ctx context.Context, m *demo.Market, cal *market.Calendar, dir string, through market.Day, days int, stamp string) (Stats, error) {
	start := time.Now()
	parent, base := filepath.Dir(dir), filepath.Base(dir)
	removeStale(parent, base)
	tmp, err := os.MkdirTemp(parent, base+".tmp-")
	if err != nil {
		return Stats{}, fmt.Errorf("demo terminal: %w", err)
	}
	defer os.RemoveAll(tmp) // a no-op once renamed
	b := builder{ctx: ctx, m: m, cal: cal, root: tmp, through: through, days: max(days, 1)}
	if err := b.build(); err != nil {
		return Stats{}, err
	}
	if err := b.put(stampName, []byte(stamp)); err != nil {
		return Stats{}, err
	}
	if err := swap(tmp, dir); err != nil {
		return Stats{}, err
	}
	return Stats{Through: through, Files: b.files, Bytes: b.bytes, Elapsed: time.Since(start)}, nil
}

// swap puts the folder tmp in dir's place.
func swap(tmp, dir string) error {
	old := ""
	if _, err := os.Stat(dir); err == nil {
		old = tmp + ".old"
		if err := os.Rename(dir, old); err != nil {
			return fmt.Errorf("demo terminal: moving the previous folder aside: %w", err)
		}
	}
	if err := os.Rename(tmp, dir); err != nil {
		if old != "" {
			os.Rename(old, dir)
		}
		return fmt.Errorf("demo terminal: %w", err)
	}
	if old != "" {
		os.RemoveAll(old)
	}
	return nil
}

// removeStale deletes what an interrupted write left beside the folder.
func removeStale(parent, base string) {
	entries, err := os.ReadDir(parent)
	if err != nil {
		return
	}
	for _, e := range entries {
		if !e.IsDir() || !strings.HasPrefix(e.Name(), base+".tmp-") {
			continue
		}
		if info, err := e.Info(); err == nil && time.Since(info.ModTime()) > staleTemp {
			os.RemoveAll(filepath.Join(parent, e.Name()))
		}
	}
}

// builder writes one folder.
type builder struct {
	ctx     context.Context
	m       *demo.Market
	cal     *market.Calendar
	root    string
	through market.Day
	days    int
	files   int
	bytes   int64
	made    map[string]bool
}

func (b *builder) put(rel string, data []byte) error {
	p := filepath.Join(b.root, filepath.FromSlash(rel))
	d := filepath.Dir(p)
	if !b.made[d] {
		if err := os.MkdirAll(d, 0o755); err != nil {
			return fmt.Errorf("demo terminal: %w", err)
		}
		if b.made == nil {
			b.made = map[string]bool{}
		}
		b.made[d] = true
	}
	if err := os.WriteFile(p, data, 0o644); err != nil {
		return fmt.Errorf("demo terminal: %w", err)
	}
	b.files++
	b.bytes += int64(len(data))
	return nil
}

// fill writes a file from an encoder.
func (b *builder) fill(rel string, enc func(*bytes.Buffer) error) error {
	var buf bytes.Buffer
	if err := enc(&buf); err != nil {
		return fmt.Errorf("demo terminal %s: %w", rel, err)
	}
	return b.put(rel, buf.Bytes())
}

// sessionsBack is the first of the n sessions ending at through.
func (b *builder) sessionsBack(n int) market.Day {
	d := b.through
	for range n - 1 {
		d = b.cal.Prev(d)
	}
	return d
}

func barFile(c market.Code, folder, ext string) string {
	mk := strings.ToLower(string(c.Exchange))
	return "vipdoc/" + mk + "/" + folder + "/" + mk + c.Symbol + ext
}

func (b *builder) build() error {
	indices := b.m.Indices()
	// The terminal's lists hold what is listed: a stock delisted by then
	// leaves the name files, the industry map and the gbbq.
	var stocks []demo.Stock
	for _, s := range b.m.Stocks() {
		if s.Delisted == 0 || s.Delisted > b.through {
			stocks = append(stocks, s)
		}
	}
	var hs300 demo.Index
	for _, ix := range indices {
		if ix.Code.Symbol == "000300" {
			hs300 = ix
		}
	}
	floats := map[market.Code]int64{}
	for _, s := range stocks {
		floats[s.Code] = s.FloatShares
	}
	from := b.sessionsBack(b.days)
	type sized struct {
		code market.Code
		cap  float64
	}
	var largest []sized
	for _, ix := range indices {
		if err := b.indexDay(ix.Code, from); err != nil {
			return err
		}
	}
	for _, c := range hs300.Members {
		bars, err := b.m.Klines(b.ctx, c, market.Daily, from, b.through)
		if err != nil {
			return err
		}
		if len(bars) == 0 {
			continue // listed later
		}
		if err := b.fill(barFile(c, "lday", ".day"), func(w *bytes.Buffer) error { return tdx.WriteDay(w, bars, tdx.ScaleFor(c)) }); err != nil {
			return err
		}
		if last := bars[len(bars)-1]; last.Day == b.through {
			largest = append(largest, sized{c, float64(floats[c]) * last.Close})
		}
	}
	slices.SortFunc(largest, func(x, y sized) int {
		if c := cmp.Compare(y.cap, x.cap); c != 0 {
			return c
		}
		return cmp.Compare(x.code.String(), y.code.String())
	})
	largest = largest[:min(MinuteStocks, len(largest))]
	minuteCodes := make([]market.Code, 0, len(indices)+len(largest))
	for _, ix := range indices {
		minuteCodes = append(minuteCodes, ix.Code)
	}
	for _, s := range largest {
		minuteCodes = append(minuteCodes, s.code)
	}
	for _, c := range minuteCodes {
		if err := b.minutes(c); err != nil {
			return err
		}
	}
	if err := b.names(stocks, indices); err != nil {
		return err
	}
	if err := b.blocks(stocks, indices); err != nil {
		return err
	}
	if err := b.actions(stocks); err != nil {
		return err
	}
	top := make([]market.Code, len(largest))
	for i, s := range largest {
		top[i] = s.code
	}
	return b.userBlocks(top)
}

// indexDay writes an index's .day file.
func (b *builder) indexDay(c market.Code, from market.Day) error {
	bars, err := b.m.Klines(b.ctx, c, market.Daily, from, b.through)
	if err != nil || len(bars) == 0 {
		return err
	}
	return b.fill(barFile(c, "lday", ".day"), func(w *bytes.Buffer) error { return tdx.WriteDay(w, bars, tdx.ScaleFor(c)) })
}

// minutes writes a code's .lc1 and .lc5 files. An index's volume word
// holds the minute's amount ÷ 100, as the terminal's index files do (the
// bridge derives the volume from the .day file instead).
func (b *builder) minutes(c market.Code) error {
	from := b.sessionsBack(MinuteDays)
	index := market.Classify(c) == market.TypeIndex
	for _, f := range []struct {
		freq   market.Freq
		folder string
		ext    string
	}{{market.Min1, "minline", ".lc1"}, {market.Min5, "fzline", ".lc5"}} {
		bars, err := b.m.Klines(b.ctx, c, f.freq, from, b.through)
		if err != nil {
			return err
		}
		if len(bars) == 0 {
			continue
		}
		if index {
			for i := range bars {
				bars[i].Volume = int64(math.Round(bars[i].Amount/100)) * 100
			}
		}
		if err := b.fill(barFile(c, f.folder, f.ext), func(w *bytes.Buffer) error {
			return tdx.WriteMinute(w, tdx.LayoutLC, bars, tdx.ScaleFor(c))
		}); err != nil {
			return err
		}
	}
	return nil
}

// names writes shs.tnf, szs.tnf and bjs.tnf (the current terminals'
// 360-byte layout) with every stock and index.
func (b *builder) names(stocks []demo.Stock, indices []demo.Index) error {
	by := map[market.Exchange][]tdx.Security{}
	for _, ix := range indices {
		by[ix.Code.Exchange] = append(by[ix.Code.Exchange], tdx.Security{Code: ix.Code, Name: ix.Name})
	}
	for _, s := range stocks {
		by[s.Code.Exchange] = append(by[s.Code.Exchange], tdx.Security{Code: s.Code, Name: s.Name})
	}
	h := tdx.TNFHeader{Server: "mdqs demo", Date: b.through, Time: 153000}
	for _, ex := range []market.Exchange{market.SH, market.SZ, market.BJ} {
		secs := by[ex]
		if len(secs) == 0 {
			continue
		}
		name := "T0002/hq_cache/" + strings.ToLower(string(ex)) + "s.tnf"
		if err := b.fill(name, func(w *bytes.Buffer) error { return tdx.WriteTNF(w, h, tdx.TNF360, secs) }); err != nil {
			return err
		}
	}
	return nil
}

// actions writes the gbbq: each stock's events in one run, dates
// ascending, as the terminal's file has them. The folder's day is its
// through day, so the file changes when the folder is rewritten for a new
// day, not in between.
func (b *builder) actions(stocks []demo.Stock) error {
	var events []tdx.GBBQEvent
	for _, s := range stocks {
		events = append(events, b.m.ActionsAsOf(s.Code, b.through)...)
	}
	return b.fill("T0002/hq_cache/gbbq", func(w *bytes.Buffer) error { return tdx.WriteGBBQ(w, events) })
}

// Block codes: the terminal numbers its industry blocks from 880301 and
// its concepts from 880501 (tdx.md §5.2); the demo's boards keep their
// order.
const (
	industryCodeBase = 880301
	conceptCodeBase  = 880501
)

// tcode is industry i's T-code: two digits per level, as the terminal's
// (T0101), flat under parents the folder does not list.
func tcode(i int) string { return fmt.Sprintf("T%02d%02d", 1+i/99, 1+i%99) }

func (b *builder) blocks(stocks []demo.Stock, indices []demo.Index) error {
	inds := b.m.Boards(market.Industry)
	cons := b.m.Boards(market.Concept)
	var zs []tdx.ZSEntry
	keyOf := map[string]string{} // industry board code → T-code
	for i, bd := range inds {
		key := tcode(i)
		keyOf[bd.Code] = key
		zs = append(zs, tdx.ZSEntry{Name: bd.Name, Code: blockCode(industryCodeBase + i), Type: tdx.ZSIndustry, Flag: 1, Leaf: true, Key: key})
	}
	harbor := make([]tdx.HarborBlock, 0, len(cons)+len(indices))
	for j, bd := range cons {
		code := blockCode(conceptCodeBase + j)
		zs = append(zs, tdx.ZSEntry{Name: bd.Name, Code: code, Type: tdx.ZSConcept, Flag: 1, Key: bd.Name})
		harbor = append(harbor, tdx.HarborBlock{Kind: "GN", Name: bd.Name, Code: code, Updated: b.through, Members: bd.Members})
	}
	// Index constituents as the terminal lists them: 沪深300's, not the
	// composites', which hold every stock of their boards; its members
	// are those of the folder's day (the demo reviews it twice a year).
	members := b.m.IndexMembersOn(b.through)
	for _, ix := range indices {
		if ix.Code.Symbol == "000300" {
			harbor = append(harbor, tdx.HarborBlock{Kind: "ZS", Name: ix.Name, Updated: b.through, Members: members[ix.Code]})
		}
	}
	hy := make([]tdx.HYEntry, 0, len(stocks))
	for _, s := range stocks {
		hy = append(hy, tdx.HYEntry{Code: s.Code, TCode: keyOf[s.Industry]})
	}
	if err := b.fill("T0002/hq_cache/tdxzs3.cfg", func(w *bytes.Buffer) error { return tdx.WriteZSCfg(w, zs) }); err != nil {
		return err
	}
	if err := b.fill("T0002/hq_cache/tdxhy.cfg", func(w *bytes.Buffer) error { return tdx.WriteHYCfg(w, hy, false) }); err != nil {
		return err
	}
	// 100 members a line: the terminal wraps long blocks, and it keeps
	// every line short whatever the scale.
	if err := b.fill("T0002/hq_cache/infoharbor_block.dat", func(w *bytes.Buffer) error { return tdx.WriteInfoHarbor(w, harbor, 100) }); err != nil {
		return err
	}
	// spblock.dat: every demo index's members of the folder's day, the
	// lists the bridge records as the day's index membership (the
	// indices' levels are computed from exactly these), then the special
	// blocks a terminal also lists there.
	var sp []tdx.SPBlock
	for _, ix := range indices {
		sp = append(sp, tdx.SPBlock{Name: ix.Name, Members: members[ix.Code]})
	}
	return b.fill("T0002/hq_cache/spblock.dat", func(w *bytes.Buffer) error { return tdx.WriteSPBlock(w, sp) })
}

func blockCode(n int) market.Code {
	return market.Code{Symbol: fmt.Sprintf("%06d", n), Exchange: market.SH}
}

// userBlocks writes a user block of the largest stocks and the
// watchlist: the composite index and the five largest.
func (b *builder) userBlocks(largest []market.Code) error {
	if err := b.fill("T0002/blocknew/blocknew.cfg", func(w *bytes.Buffer) error {
		return tdx.WriteBlockNewCfg(w, []tdx.UserBlock{{Name: "演示组合", Stem: "DEMO"}})
	}); err != nil {
		return err
	}
	if err := b.fill("T0002/blocknew/DEMO.blk", func(w *bytes.Buffer) error {
		return tdx.WriteBLK(w, largest, false)
	}); err != nil {
		return err
	}
	watch := append([]market.Code{market.MustCode("000001.SH")}, largest[:min(5, len(largest))]...)
	return b.fill("T0002/blocknew/ZXG.blk", func(w *bytes.Buffer) error { return tdx.WriteBLK(w, watch, false) })
}
