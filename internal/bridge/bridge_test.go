package bridge_test

import (
	"bytes"
	"context"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"mdqs/db"
	"mdqs/db/dbtest"
	"mdqs/internal/bridge"
	"mdqs/internal/bridge/bridgetest"
	"mdqs/internal/market"
	"mdqs/internal/tdx"
)

func newBridge(t *testing.T) (*bridge.Service, *db.Store, string) {
	t.Helper()
	dir := t.TempDir()
	bridgetest.Write(t, dir)
	store := dbtest.Open(t)
	clock := market.NewFixedClock(time.Date(2026, 11, 23, 16, 0, 0, 0, market.Shanghai()))
	b, err := bridge.New(dir, store, market.DefaultCalendar(), clock, slog.New(slog.NewTextHandler(io.Discard, nil)))
	if err != nil {
		t.Fatal(err)
	}
	return b, store, dir
}

func TestRefreshImportsOnceThenOnlyWhatChanged(t *testing.T) {
	b, store, dir := newBridge(t)
	ctx := context.Background()
	rep, err := b.Refresh(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	// 3 daily files of 5 bars, 240 one-minute and 48 five-minute bars.
	if rep.BarFiles != 5 || rep.Bars != 3*5+240+48 || rep.BarsWritten != rep.Bars || len(rep.Problems) != 0 {
		t.Fatalf("first refresh = %+v", rep)
	}
	if rep.Names != 4 || rep.Blocks["industry"] != 4 || rep.Blocks["concept"] != 3 || rep.Blocks["style"] != 1 ||
		rep.Blocks["index"] != 1 || rep.Blocks["user"] != 2 {
		t.Fatalf("names %d, blocks %v", rep.Names, rep.Blocks)
	}
	bars, err := store.Bars(ctx, db.BarQuery{Code: market.MustCode("600519.SH"), Freq: market.Daily})
	if err != nil || len(bars) != 5 || bars[4].Close != 1504 || bars[4].Day != 20261120 {
		t.Fatalf("stored daily bars of 600519.SH: %v %v", bars, err)
	}
	span, source, ok, _ := store.Coverage(ctx, market.MustCode("600519.SH"), market.Daily)
	if !ok || span.First != 20261116 || span.Last != 20261120 || source != "tdx" {
		t.Fatalf("coverage = %+v %s %v", span, source, ok)
	}
	again, err := b.Refresh(ctx, nil)
	if err != nil || again.FilesChanged != 0 || again.BarsWritten != 0 || again.Names != 0 || again.Blocks != nil {
		t.Fatalf("second refresh with nothing new = %+v, %v", again, err)
	}
	// The terminal appends Monday's bar to one file.
	p := filepath.Join(dir, "vipdoc", "sz", "lday", "sz000001.day")
	f, err := os.OpenFile(p, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	rec, _ := tdx.DayRecordOf(market.Bar{Day: 20261123, Open: 11, High: 12, Low: 10, Close: 11.5, Volume: 500, Amount: 5700}, tdx.ScaleFor(market.MustCode("000001.SZ")))
	f.Write(tdx.AppendDayRecord(nil, rec))
	f.Close()
	os.Chtimes(p, time.Now(), time.Now().Add(time.Minute))
	third, err := b.Refresh(ctx, nil)
	if err != nil || third.FilesChanged != 1 || third.BarsWritten != 1 || third.Bars != 6 {
		t.Fatalf("refresh after one appended bar = %+v, %v", third, err)
	}
	span, _, _, _ = store.Coverage(ctx, market.MustCode("000001.SZ"), market.Daily)
	if span.Last != 20261123 {
		t.Fatalf("coverage after the append ends %v", span.Last)
	}
}

func TestBlocksNamesAndMembers(t *testing.T) {
	b, store, _ := newBridge(t)
	ctx := context.Background()
	if _, err := b.Refresh(ctx, nil); err != nil {
		t.Fatal(err)
	}
	// A stock in a leaf industry belongs to its ancestors too.
	blk, members, err := store.BlockMembers(ctx, "industry", "煤炭")
	if err != nil || blk.Code != "880301.SH" || len(members) != 1 || members[0].Code != "601088.SH" || members[0].Name != "中国神华" {
		t.Fatalf("煤炭 = %+v %v %v", blk, members, err)
	}
	if blk, _, _ := store.BlockMembers(ctx, "", "880302"); blk.Name != "煤炭开采" || blk.Parent != "煤炭" {
		t.Fatalf("880302 = %+v", blk)
	}
	all, _ := store.Blocks(ctx, db.BlockQuery{Kind: "concept"})
	got := map[string]db.Block{}
	for _, x := range all {
		got[x.Name] = x
	}
	if got["三代半导"].FullName != "第三代半导体" || got["5G概念"].Code != "880506.SH" || !got["融资融券"].Truncated || got["融资融券"].Count != 400 {
		t.Fatalf("concepts = %+v", all)
	}
	if _, m, err := store.BlockMembers(ctx, "user", "自选股"); err != nil || len(m) != 2 {
		t.Fatalf("watchlist = %v, %v", m, err)
	}
	if _, _, err := store.BlockMembers(ctx, "", "不存在"); market.KindOf(err) != market.KindNotFound {
		t.Fatalf("unknown block: %v", err)
	}
	total, stocks, err := store.Stocks(ctx, db.StockQuery{Keyword: "茅台", Limit: 10})
	if err != nil || total != 1 || stocks[0].Code.String() != "600519.SH" || stocks[0].Type != market.TypeStock {
		t.Fatalf("stocks by keyword = %d %+v %v", total, stocks, err)
	}
	if total, _, _ := store.Stocks(ctx, db.StockQuery{Type: market.TypeBlock, Limit: 10}); total != 1 {
		t.Fatalf("block-index securities = %d, want 1 (880301)", total)
	}
}

func TestDirectReadsAndBadFiles(t *testing.T) {
	b, _, dir := newBridge(t)
	ctx := context.Background()
	m, err := b.Bars(ctx, market.MustCode("600519.SH"), market.Min5, 20261120, 20261120)
	if err != nil || len(m) != 48 || time.Unix(m[0].TS, 0).In(market.Shanghai()).Format("15:04") != "09:35" {
		t.Fatalf("5m bars = %d, %v", len(m), err)
	}
	if _, err := b.Bars(ctx, market.MustCode("300750.SZ"), market.Daily, 20261101, 20261130); market.KindOf(err) != market.KindNotFound {
		t.Fatalf("a code without files: %v", err)
	}
	// A corrupt file is reported with its name and offset; the others are
	// imported. A half-written last record is not a problem.
	bad := filepath.Join(dir, "vipdoc", "sh", "lday", "sh601088.day")
	rec := make([]byte, 32)
	copy(rec, []byte{0x01, 0x02, 0x03, 0x04}) // date 67305985: not a date
	os.WriteFile(bad, rec, 0o644)
	half := filepath.Join(dir, "vipdoc", "sz", "lday", "sz300750.day")
	good, _ := tdx.DayRecordOf(bridgetest.DailyBars(200)[0], tdx.ScaleFor(market.MustCode("300750.SZ")))
	os.WriteFile(half, append(tdx.AppendDayRecord(nil, good), 1, 2, 3), 0o644)
	rep, err := b.Refresh(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Problems) != 1 || !strings.Contains(rep.Problems[0].File, "sh601088.day") || !strings.Contains(rep.Problems[0].Error, "offset") {
		t.Fatalf("problems = %+v", rep.Problems)
	}
	if rep.BarFiles != 6 {
		t.Fatalf("bar files imported = %d, want the 5 good ones and the half-written one", rep.BarFiles)
	}
}

func TestNotConfiguredAndMissingFolder(t *testing.T) {
	store := dbtest.Open(t)
	clock := market.NewFixedClock(time.Now())
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	b, err := bridge.New("", store, market.DefaultCalendar(), clock, log)
	if err != nil || b.Configured() {
		t.Fatalf("empty dir: %v configured=%v", err, b.Configured())
	}
	if _, err := b.Refresh(context.Background(), nil); market.KindOf(err) != market.KindUnavailable || !strings.Contains(err.Error(), "tdx.dir") {
		t.Fatalf("refresh without a folder: %v", err)
	}
	if _, err := bridge.New(filepath.Join(t.TempDir(), "new_tdx"), store, market.DefaultCalendar(), clock, log); err == nil ||
		!strings.Contains(err.Error(), "no such folder") {
		t.Fatalf("missing folder: %v", err)
	}
	if _, err := bridge.New(t.TempDir(), store, market.DefaultCalendar(), clock, log); err == nil || !strings.Contains(err.Error(), "not a terminal folder") {
		t.Fatalf("empty folder: %v", err)
	}
}

// A terminal of several eras: a 2014 bond file (÷1000), a statistic index
// of counts, an index whose early-1990s day closes above its high and whose
// 5-minute volumes hold amount ÷ 100, and a user block left empty. All of it
// is imported: nothing is a problem, the oddities are flagged.
func TestRefreshDecodesEveryEra(t *testing.T) {
	b, store, dir := newBridge(t)
	ctx := context.Background()
	put := func(rel string, data []byte) {
		t.Helper()
		p := filepath.Join(dir, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	rec := func(d, o, h, l, c uint32, amount float32, vol uint32) []byte {
		return tdx.AppendDayRecord(nil, tdx.DayRecord{Date: d, Open: o, High: h, Low: l, Close: c, Amount: amount, Volume: vol})
	}
	put("vipdoc/sh/lday/sh110015.day", rec(20140822, 110000, 110500, 109800, 110170, 110.17*610000, 61000))
	put("vipdoc/sh/lday/sh880006.day", rec(20261120, 4500, 0, 1200, 0, 0, 0))
	index := append(rec(19921009, 60000, 61000, 59000, 62000, 1e8, 10000),
		rec(20261120, 328000, 329000, 326000, 328700, 4.0e11, 320_000_000)...)
	put("vipdoc/sh/lday/sh000001.day", index)
	var lc5 []byte
	for _, day := range []market.Day{20261120, 20261123} {
		for i, end := range fiveMinuteEnds() {
			a := 4.0e11 / 48 * (0.5 + float64(i%2))
			bar := market.Bar{Day: day, TS: day.At(end/60, end%60, 0).Unix(), Open: 3287, High: 3290, Low: 3280, Close: 3288, Amount: a, Volume: int64(a / 100)}
			var err error
			if lc5, err = tdx.AppendMinuteRecord(lc5, tdx.LayoutLC, bar, tdx.Scale{}); err != nil {
				t.Fatal(err)
			}
		}
	}
	put("vipdoc/sh/fzline/sh000001.lc5", lc5)
	var cfg bytes.Buffer
	tdx.WriteBlockNewCfg(&cfg, []tdx.UserBlock{{Name: "我的白马", Stem: "WDBM"}, {Name: "空的", Stem: "KONG"}})
	put("T0002/blocknew/blocknew.cfg", cfg.Bytes())
	put("T0002/blocknew/KONG.blk", nil)

	rep, err := b.Refresh(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Problems) != 0 {
		t.Fatalf("problems %+v", rep.Problems)
	}
	flagged := map[string]string{}
	for _, f := range rep.Flagged {
		flagged[f.File] += f.Reason
	}
	if !strings.Contains(flagged["vipdoc/sh/lday/sh880006.day"], "counts") || !strings.Contains(flagged["vipdoc/sh/lday/sh000001.day"], "low..high") ||
		!strings.Contains(flagged["vipdoc/sh/fzline/sh000001.lc5"], "nearest day") || len(rep.Flagged) != 3 {
		t.Fatalf("flagged %+v", rep.Flagged)
	}

	bond, _ := store.Bars(ctx, db.BarQuery{Code: market.MustCode("110015.SH"), Freq: market.Daily})
	if len(bond) != 1 || bond[0].Close != 110.17 || bond[0].Volume != 610000 {
		t.Fatalf("2014 bond = %+v", bond)
	}
	days, _ := store.Bars(ctx, db.BarQuery{Code: market.MustCode("000001.SH"), Freq: market.Daily})
	stat, _ := store.Bars(ctx, db.BarQuery{Code: market.MustCode("880006.SH"), Freq: market.Daily})
	if len(days) != 2 || days[0].Close != 620 || len(stat) != 1 || stat[0].Open != 45 || stat[0].Close != 0 {
		t.Fatalf("index days %+v, statistic %+v", days, stat)
	}
	minuteSum := func() int64 {
		mins, _ := store.Bars(ctx, db.BarQuery{Code: market.MustCode("000001.SH"), Freq: market.Min5})
		var sum int64
		for _, m := range mins {
			if m.Day == 20261120 {
				sum += m.Volume
			}
		}
		return sum
	}
	if got, want := float64(minuteSum()), 320_000_000.0*100; got < 0.99*want || got > 1.01*want {
		t.Fatalf("5-minute volumes of 2026-11-20 add up to %.0f shares, the day's are %.0f", got, want)
	}
	if _, members, err := store.BlockMembers(ctx, "user", "空的"); err != nil || len(members) != 0 {
		t.Fatalf("empty user block: %v, %v", members, err)
	}

	// Nothing changed: nothing is read, nothing reported.
	again, err := b.Refresh(ctx, nil)
	if err != nil || again.FilesChanged != 0 || len(again.Flagged) != 0 || len(again.Problems) != 0 {
		t.Fatalf("second refresh = %+v, %v", again, err)
	}
	// Monday's daily bar arrives: the unchanged 5-minute file is read again,
	// and its Monday volumes now add up to Monday's volume exactly.
	p := filepath.Join(dir, "vipdoc", "sh", "lday", "sh000001.day")
	os.WriteFile(p, append(index, rec(20261123, 328700, 330000, 327000, 329000, 4.0e11, 250_000_000)...), 0o644)
	os.Chtimes(p, time.Now(), time.Now().Add(time.Minute))
	third, err := b.Refresh(ctx, nil)
	if err != nil || third.FilesChanged != 1 || third.BarFiles != 2 || len(third.Flagged) != 1 {
		t.Fatalf("refresh after Monday's day = %+v, %v", third, err)
	}
	mins, _ := store.Bars(ctx, db.BarQuery{Code: market.MustCode("000001.SH"), Freq: market.Min5})
	var monday int64
	for _, m := range mins {
		if m.Day == 20261123 {
			monday += m.Volume
		}
	}
	if want := 250_000_000.0 * 100; float64(monday) < 0.99*want || float64(monday) > 1.01*want {
		t.Fatalf("Monday's 5-minute volumes add up to %d, want about %.0f", monday, want)
	}
}

// fiveMinuteEnds are the end minutes of a session's 48 five-minute bars.
func fiveMinuteEnds() []int {
	var out []int
	for m := 9*60 + 35; m <= 11*60+30; m += 5 {
		out = append(out, m)
	}
	for m := 13*60 + 5; m <= 15*60; m += 5 {
		out = append(out, m)
	}
	return out
}

// TestRefreshReportsInFolderOrder: files are stored in the bars' key order
// (000002.SZ, 430047.BJ, 601088.SH, 880006.SH), but the report lists
// problems and flags in the folder's order, as it always has.
func TestRefreshReportsInFolderOrder(t *testing.T) {
	b, _, dir := newBridge(t)
	ctx := context.Background()
	if _, err := b.Refresh(ctx, nil); err != nil {
		t.Fatal(err)
	}
	notADate := make([]byte, 32)
	copy(notADate, []byte{0x01, 0x02, 0x03, 0x04})
	counts := tdx.AppendDayRecord(nil, tdx.DayRecord{Date: 20261120, Open: 4500, Low: 1200})
	for path, data := range map[string][]byte{
		"vipdoc/sz/lday/sz000002.day": notADate,
		"vipdoc/bj/lday/bj430047.day": notADate,
		"vipdoc/sh/lday/sh601088.day": notADate,
		"vipdoc/sh/lday/sh880006.day": counts,
	} {
		p := filepath.Join(dir, filepath.FromSlash(path))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	rep, err := b.Refresh(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	var files []string
	for _, p := range rep.Problems {
		files = append(files, p.File)
	}
	for _, f := range rep.Flagged {
		files = append(files, f.File)
	}
	want := []string{"vipdoc/bj/lday/bj430047.day", "vipdoc/sh/lday/sh601088.day", "vipdoc/sz/lday/sz000002.day", "vipdoc/sh/lday/sh880006.day"}
	if strings.Join(files, " ") != strings.Join(want, " ") {
		t.Fatalf("problems then flags of %v, want %v", files, want)
	}
}
