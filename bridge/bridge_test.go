package bridge_test

import (
	"context"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"mdqs/bridge"
	"mdqs/bridge/bridgetest"
	"mdqs/db"
	"mdqs/db/dbtest"
	"mdqs/market"
	"mdqs/tdx"
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
