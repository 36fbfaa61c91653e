package doctor

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"mdqs/internal/config"
	"mdqs/internal/market"
	"mdqs/internal/tdx"
)

// fakeTerminal writes a terminal install folder in the real layouts:
// daily files of three Shanghai, two Shenzhen and one Beijing code ending
// on last, 1-minute files of two, a 5-minute file, the hq_cache reference
// files mdqs reads by name, and a gbbq unless gbbq is false.
func fakeTerminal(t *testing.T, root string, last market.Day, gbbq bool) {
	t.Helper()
	codes := []market.Code{
		{Symbol: "000001", Exchange: market.SH}, {Symbol: "600000", Exchange: market.SH}, {Symbol: "600519", Exchange: market.SH},
		{Symbol: "000001", Exchange: market.SZ}, {Symbol: "300750", Exchange: market.SZ},
		{Symbol: "920001", Exchange: market.BJ},
	}
	for i, c := range codes {
		var bars []market.Bar
		for d := last.AddDays(-10); d <= last; d = d.AddDays(1) {
			if d.Weekday() == time.Saturday || d.Weekday() == time.Sunday {
				continue
			}
			bars = append(bars, market.Bar{Day: d, Open: 10, High: 11, Low: 9, Close: 10.5, Volume: 1000, Amount: 10500})
		}
		if err := tdx.WriteBars(root, c, tdx.KindDay, bars); err != nil {
			t.Fatal(err)
		}
		if i%3 == 0 {
			mins := []market.Bar{{Day: last, TS: last.At(9, 31, 0).Unix(), Open: 10, High: 10, Low: 10, Close: 10, Volume: 100, Amount: 1000}}
			if err := tdx.WriteBars(root, c, tdx.KindLC1, mins); err != nil {
				t.Fatal(err)
			}
		}
	}
	fz := filepath.Join(root, "vipdoc", "sh", "fzline")
	os.MkdirAll(fz, 0o755)
	os.WriteFile(filepath.Join(fz, "sh600519.lc5"), make([]byte, 32), 0o644)
	hq := filepath.Join(root, "T0002", "hq_cache")
	os.MkdirAll(hq, 0o755)
	for _, name := range []string{"block_gn.dat", "tdxhy.cfg", "tdxzs3.cfg", "shs.tnf", "szs.tnf", "unrelated.txt"} {
		os.WriteFile(filepath.Join(hq, name), []byte("x"), 0o644)
	}
	if gbbq {
		os.WriteFile(filepath.Join(hq, "gbbq"), make([]byte, 29*100), 0o644)
	}
}

func testDeps(cfg config.Config, at time.Time) Deps {
	return Deps{Config: cfg, Clock: market.NewFixedClock(at), Calendar: market.DefaultCalendar(), Timeout: time.Second}
}

func TestTerminalCheck(t *testing.T) {
	friday := market.NewDay(2026, time.November, 20)
	afterClose := friday.At(16, 0, 0)
	tuesdayEvening := market.NewDay(2026, time.November, 24).At(18, 0, 0)
	live := config.Default()
	live.Sources.Default = "push2"

	fresh := filepath.Join(t.TempDir(), "new_tdx")
	fakeTerminal(t, fresh, friday, true)
	noGBBQ := filepath.Join(t.TempDir(), "new_tdx")
	fakeTerminal(t, noGBBQ, friday, false)
	notTerminal := t.TempDir()
	os.WriteFile(filepath.Join(notTerminal, "readme.txt"), []byte("x"), 0o644)
	// A machine with the terminal where installers put it, seen through
	// a drive rooted in a temp folder.
	drive := t.TempDir()
	fakeTerminal(t, filepath.Join(drive, "new_tdx"), friday, true)
	drives := func() []Drive { return []Drive{{Root: drive + string(filepath.Separator), FS: os.DirFS(drive)}} }

	for _, tt := range []struct {
		name     string
		dir      string // tdx.dir
		demo     bool
		drives   func() []Drive
		at       time.Time
		want     Status
		found    []string
		fix      []string
		notFound []string
	}{
		{name: "current", dir: fresh, at: afterClose, want: OK,
			found: []string{"vipdoc daily files sh 3, sz 2, bj 1", "1-minute sh 1, sz 1", "5-minute sh 1", "hq_cache 5 files", "gbbq 3 KB of ", "daily bars up to 2026-11-20, the last session"}},
		{name: "two sessions behind", dir: fresh, at: tuesdayEvening, want: Warn,
			found: []string{"daily bars up to 2026-11-20, 2 session(s) behind the last one, 2026-11-24"}, fix: []string{"盘后数据下载"}},
		{name: "before Monday's close the last session is Friday's", dir: fresh, at: market.NewDay(2026, time.November, 23).At(14, 59, 0), want: OK,
			found: []string{"the last session"}},
		{name: "no gbbq", dir: noGBBQ, at: afterClose, want: Warn, found: []string{"no gbbq"}, fix: []string{"gbbq"}},
		{name: "a folder that is not a terminal", dir: notTerminal, at: afterClose, want: Fail,
			found: []string{"is not a terminal folder: it has neither vipdoc nor T0002"}, fix: []string{"vipdoc and T0002", "none was found"}},
		{name: "a folder that does not exist, an install elsewhere", dir: filepath.Join(notTerminal, "new_tdx"), drives: drives, at: afterClose, want: Fail,
			found: []string{"does not exist"}, fix: []string{"found: " + filepath.Join(drive, "new_tdx")}},
		{name: "not set, found in the usual places", drives: drives, at: afterClose, want: Warn,
			found: []string{"tdx.dir is not set", filepath.Join(drive, "new_tdx") + ": vipdoc daily files sh 3"},
			fix:   []string{"[tdx] dir = '" + filepath.Join(drive, "new_tdx") + "'"}},
		{name: "not set, none found", at: afterClose, want: Warn, found: []string{"no terminal install was found"}, fix: []string{`C:\new_tdx`, `C:\zd_*`}},
		{name: "demo mode", demo: true, drives: drives, at: afterClose, want: OK,
			found: []string{"demo market's own terminal folder", "mdqs-demo-tdx", "found a terminal install"}, fix: []string{"to go live with it"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			cfg := live
			if tt.demo {
				cfg = config.Default()
			}
			cfg.TDX.Dir = tt.dir
			d := testDeps(cfg, tt.at)
			d.Drives = tt.drives
			got := checkTerminal(d)
			if got.Status != tt.want {
				t.Errorf("status %s, want %s: %s (fix: %s)", got.Status, tt.want, got.Found, got.Fix)
			}
			for _, w := range tt.found {
				if !strings.Contains(got.Found, w) {
					t.Errorf("found lacks %q:\n%s", w, got.Found)
				}
			}
			for _, w := range tt.fix {
				if !strings.Contains(got.Fix, w) {
					t.Errorf("fix lacks %q:\n%s", w, got.Fix)
				}
			}
		})
	}
}
