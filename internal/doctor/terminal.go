package doctor

import (
	"encoding/binary"
	"errors"
	"fmt"
	"os"
	"slices"
	"strings"
	"time"

	"mdqs/internal/market"
	"mdqs/internal/tdx"
)

// usualPlaces is how the fix names the places FindInstalls looks in.
const usualPlaces = `C:\new_tdx, D:\new_tdx, C:\new_*tdx*, C:\zd_*, a name with tdx or 通达信 on any fixed drive, and in Program Files`

// checkTerminal says what the terminal folder holds: tdx.dir when set,
// else an install found in the usual places, which the fix then names.
func checkTerminal(d Deps) Check {
	cfg := d.Config
	var installs []string
	if d.Drives != nil {
		installs = FindInstalls(d.Drives())
	}
	ck := Check{Name: "terminal"}
	switch {
	case cfg.UsesDemoTerminal():
		ck.Status, ck.Found = OK, "demo mode reads the demo market's own terminal folder, "+cfg.TerminalDir()+", which the start writes"
		if len(installs) > 0 {
			sum, err := summarize(installs[0], d)
			ck.Found += "; found a terminal install: " + describe(installs[0], sum, err)
			ck.Fix = fmt.Sprintf("to go live with it: [tdx] dir = '%s' in config.toml", installs[0])
			ck.Details = map[string]any{"dir": cfg.TerminalDir(), "installs": installs, "found": sum}
		}
		return ck
	case cfg.TDX.Dir != "" && cfg.TDX.Dir != "demo":
		sum, err := summarize(cfg.TDX.Dir, d)
		ck.Details = map[string]any{"dir": cfg.TDX.Dir, "installs": installs, "found": sum}
		if err != nil {
			ck.Status, ck.Found = Fail, "tdx.dir = "+cfg.TDX.Dir+": "+describe(cfg.TDX.Dir, sum, err)
			ck.Fix = "set [tdx] dir to the terminal's install folder, the one holding vipdoc and T0002" + installsHint(installs)
			return ck
		}
		ck.Status, ck.Found, ck.Fix = sum.status(), "tdx.dir = "+describe(cfg.TDX.Dir, sum, nil), sum.fix()
		return ck
	}
	ck.Details = map[string]any{"dir": "", "installs": installs}
	if len(installs) == 0 {
		ck.Status = Warn
		ck.Found = "tdx.dir is not set, and no terminal install was found in the usual places: the terminal's files are not read, and its endpoints (/v1/api/tdx/...) answer 503"
		ck.Fix = "set [tdx] dir in config.toml to the terminal's install folder (the one holding vipdoc and T0002); looked in " + usualPlaces
		return ck
	}
	sum, err := summarize(installs[0], d)
	ck.Details.(map[string]any)["found"] = sum
	ck.Status = Warn
	ck.Found = "tdx.dir is not set, so the terminal's files are not read; found an install: " + describe(installs[0], sum, err)
	if len(installs) > 1 {
		ck.Found += "; others: " + strings.Join(installs[1:], ", ")
	}
	ck.Fix = fmt.Sprintf("set [tdx] dir = '%s' in config.toml (single quotes keep the backslashes)", installs[0])
	return ck
}

func installsHint(installs []string) string {
	if len(installs) == 0 {
		return "; none was found in the usual places (" + usualPlaces + ")"
	}
	return "; found: " + strings.Join(installs, ", ")
}

// terminalSummary is what a terminal folder holds, as the check tells it.
type terminalSummary struct {
	Dir string `json:"dir"`
	// Daily, 1-minute and 5-minute bar files by market (sh, sz, bj).
	Lday    map[string]int `json:"lday"`
	Minline map[string]int `json:"minline"`
	Fzline  map[string]int `json:"fzline"`
	// HQCache lists the reference files of T0002/hq_cache mdqs reads.
	HQCache []string `json:"hq_cache"`
	// GBBQ is T0002/hq_cache/gbbq, the ex-rights file: its size and day.
	GBBQBytes int64      `json:"gbbq_bytes"`
	GBBQDay   market.Day `json:"gbbq_day,omitempty"`
	// NewestBar is the last daily bar of the most recently written .day
	// files; LastSession the last trading session that has closed, and
	// Behind the sessions between them.
	NewestBar   market.Day `json:"newest_bar,omitempty"`
	LastSession market.Day `json:"last_session"`
	Behind      int        `json:"sessions_behind"`
	Problems    int        `json:"problems"`
}

// newestFiles is how many of the latest written .day files are read for
// the newest bar: the terminal writes every file of a download together,
// and a file of a suspended stock ends early.
const newestFiles = 20

// summarize scans a terminal folder (tdx.Open lists and stats its files)
// and reads the last record of its latest daily files.
func summarize(dir string, d Deps) (terminalSummary, error) {
	now := d.Clock.Now()
	sum := terminalSummary{Dir: dir, Lday: map[string]int{}, Minline: map[string]int{}, Fzline: map[string]int{}, HQCache: []string{},
		LastSession: lastSession(d.Calendar, now)}
	t, err := tdx.Open(dir)
	if err != nil {
		return sum, err
	}
	sum.Problems = len(t.Problems)
	var days []tdx.File
	for _, f := range t.Files {
		mkt := strings.ToLower(string(f.Market))
		switch f.Kind {
		case tdx.KindDay:
			sum.Lday[mkt]++
			days = append(days, f)
		case tdx.KindLC1, tdx.KindMin1:
			sum.Minline[mkt]++
		case tdx.KindLC5, tdx.KindMin5:
			sum.Fzline[mkt]++
		case tdx.KindGBBQ:
			sum.GBBQBytes, sum.GBBQDay = f.Size, market.DayOf(f.ModTime)
		case tdx.KindIncon, tdx.KindBlockNew, tdx.KindBLK:
		default:
			sum.HQCache = append(sum.HQCache, f.Path[strings.LastIndexAny(f.Path, `/\`)+1:])
		}
	}
	slices.SortFunc(days, func(a, b tdx.File) int { return b.ModTime.Compare(a.ModTime) })
	for _, f := range days[:min(len(days), newestFiles)] {
		if day, ok := lastBar(f); ok && day > sum.NewestBar {
			sum.NewestBar = day
		}
	}
	if sum.NewestBar != 0 && sum.NewestBar < sum.LastSession {
		sum.Behind = d.Calendar.Count(sum.NewestBar.AddDays(1), sum.LastSession)
	}
	return sum, nil
}

// lastSession is the last trading session that has closed at now.
func lastSession(cal *market.Calendar, now time.Time) market.Day {
	today := market.DayOf(now)
	if cal.IsTradingDay(today) && !now.Before(today.At(15, 0, 0)) {
		return today
	}
	return cal.Prev(today)
}

// lastBar is the date of a .day file's last record.
func lastBar(f tdx.File) (market.Day, bool) {
	if f.Size < tdx.BarRecordSize {
		return 0, false
	}
	file, err := os.Open(f.Path)
	if err != nil {
		return 0, false
	}
	defer file.Close()
	var rec [tdx.BarRecordSize]byte
	if _, err := file.ReadAt(rec[:], f.Size/tdx.BarRecordSize*tdx.BarRecordSize-tdx.BarRecordSize); err != nil {
		return 0, false
	}
	day, err := market.ParseDay(fmt.Sprintf("%08d", binary.LittleEndian.Uint32(rec[:4])))
	return day, err == nil
}

// describe says what a folder holds, or why it could not be read.
func describe(dir string, s terminalSummary, err error) string {
	switch {
	case errors.Is(err, tdx.ErrNotTerminal):
		return dir + " is not a terminal folder: it has neither vipdoc nor T0002"
	case errors.Is(err, os.ErrNotExist):
		return dir + " does not exist"
	case err != nil:
		return dir + ": " + err.Error()
	}
	counts := func(m map[string]int) string {
		var parts []string
		for _, mkt := range []string{"sh", "sz", "bj"} {
			if m[mkt] > 0 {
				parts = append(parts, fmt.Sprintf("%s %d", mkt, m[mkt]))
			}
		}
		if len(parts) == 0 {
			return "none"
		}
		return strings.Join(parts, ", ")
	}
	out := fmt.Sprintf("%s: vipdoc daily files %s; 1-minute %s; 5-minute %s; hq_cache %d files mdqs reads", dir, counts(s.Lday), counts(s.Minline),
		counts(s.Fzline), len(s.HQCache))
	if s.GBBQBytes > 0 {
		out += fmt.Sprintf("; gbbq %d KB of %s", (s.GBBQBytes+1023)/1024, s.GBBQDay)
	} else {
		out += "; no gbbq (T0002/hq_cache/gbbq: the ex-rights file that adjusted prices need)"
	}
	switch {
	case s.NewestBar == 0:
	case s.Behind == 0:
		out += fmt.Sprintf("; daily bars up to %s, the last session", s.NewestBar)
	default:
		out += fmt.Sprintf("; daily bars up to %s, %d session(s) behind the last one, %s", s.NewestBar, s.Behind, s.LastSession)
	}
	if s.Problems > 0 {
		out += fmt.Sprintf("; %d file(s) or folder(s) could not be used", s.Problems)
	}
	return out
}

// status is a readable folder's verdict: without daily bars, or behind
// the last session, the terminal's data need a download first.
func (s terminalSummary) status() Status {
	if len(s.Lday) == 0 || s.Behind > 0 || s.GBBQBytes == 0 {
		return Warn
	}
	return OK
}

func (s terminalSummary) fix() string {
	var fix []string
	if len(s.Lday) == 0 || s.Behind > 0 {
		fix = append(fix, "download the daily data in the terminal (系统 → 盘后数据下载, 日线和分钟线), then mdqs imports them after the close or at once with mdqs import tdx")
	}
	if s.GBBQBytes == 0 {
		fix = append(fix, "log in to the terminal once after the close: it downloads T0002/hq_cache/gbbq with the day's data")
	}
	return strings.Join(fix, "; ")
}
