package tdx

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"mdqs/internal/market"
)

func mustWrite(t testing.TB, path string, data []byte) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
}

func kindsOf(files []File) map[Kind]int {
	out := map[Kind]int{}
	for _, f := range files {
		out[f.Kind]++
	}
	return out
}

func TestOpenRealInstall(t *testing.T) {
	term, err := Open(sample("mootdx-2022"))
	if err != nil {
		t.Fatal(err)
	}
	if len(term.Problems) != 0 {
		t.Errorf("problems: %v", term.Problems)
	}
	want := map[Kind]int{KindDay: 3, KindLC1: 1, KindLC5: 1, KindBlockZS: 1, KindBlockFG: 1, KindBlockGN: 1,
		KindHY: 1, KindZS: 1, KindZS3: 1, KindBK: 1, KindIncon: 1}
	if got := kindsOf(term.Files); fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("kinds %v\nwant %v", got, want)
	}
	var days []string
	for _, f := range term.Find(KindDay) {
		days = append(days, f.Code.String())
		st, err := os.Stat(f.Path)
		if err != nil || st.Size() != f.Size || !st.ModTime().Equal(f.ModTime) || f.Market != f.Code.Exchange {
			t.Errorf("%s: size %d mtime %v market %s", f.Path, f.Size, f.ModTime, f.Market)
		}
	}
	if got := strings.Join(days, " "); got != "000001.SH 881478.SH 000001.SZ" {
		t.Errorf("day files %s", got)
	}
	lc1, ok := term.First(KindLC1)
	if !ok || lc1.Code != market.MustCode("688001.SH") || lc1.Records() != 2880 || lc1.Kind.Freq() != market.Min1 {
		t.Errorf("lc1 %+v", lc1)
	}
	n := 0
	for bf, err := range term.AllBars() {
		if err != nil {
			t.Fatal(err)
		}
		if int64(len(bf.Bars)) != bf.Records() || bf.Partial != nil {
			t.Errorf("%s: %d bars of %d records", bf.Path, len(bf.Bars), bf.Records())
		}
		n++
	}
	if n != 5 {
		t.Errorf("AllBars gave %d files, want 5", n)
	}
	if n := len(term.Find(KindBlockGN, KindBlockFG)); n != 2 {
		t.Errorf("Find of two kinds: %d", n)
	}
}

func TestOpenRealT0002Only(t *testing.T) {
	term, err := Open(sample("ginkgo-2020"))
	if err != nil {
		t.Fatal(err)
	}
	want := map[Kind]int{KindTNF: 1, KindHY: 1, KindZS: 1, KindZS2: 1, KindBlockNew: 1, KindBLK: 3}
	if got := kindsOf(term.Files); fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("kinds %v, want %v", got, want)
	}
	if f, _ := term.First(KindTNF); f.Market != market.SZ {
		t.Errorf("szm.tnf market %q", f.Market)
	}
	names, err := term.Names()
	if err != nil || len(names) != 1000 || names[361].Name != "平安银行" {
		t.Errorf("Names: %d, %v", len(names), err)
	}
	ubs, err := term.UserBlocks()
	if err != nil {
		t.Fatal(err)
	}
	// 21 listed blocks (only 1-4D has a .blk in the sample) plus the
	// watchlist; 0427.blk is listed nowhere and is left out.
	if len(ubs) != 22 {
		t.Fatalf("%d user blocks, want 22", len(ubs))
	}
	if ubs[0].Stem != "1-4D" || len(ubs[0].Codes) != 665 || ubs[0].Path == "" {
		t.Errorf("first %+v", ubs[0].Stem)
	}
	if ubs[1].Path != "" || ubs[1].Codes != nil {
		t.Errorf("a listed block without a .blk: %+v", ubs[1])
	}
	w := ubs[21]
	if w.Stem != WatchlistStem || w.Name != "自选股" || len(w.Codes) != 424 {
		t.Errorf("watchlist %+v (%d codes)", w.Name, len(w.Codes))
	}
}

func TestOpenErrors(t *testing.T) {
	dir := t.TempDir()
	if _, err := Open(filepath.Join(dir, "missing")); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("missing folder: %v", err)
	}
	if _, err := Open(dir); !errors.Is(err, ErrNotTerminal) {
		t.Errorf("empty folder: %v", err)
	}
	mustWrite(t, filepath.Join(dir, "other", "x.txt"), nil)
	mustWrite(t, filepath.Join(dir, "vipdoc.txt"), nil) // a file named like the folder does not count
	if _, err := Open(dir); !errors.Is(err, ErrNotTerminal) || !strings.Contains(err.Error(), "no vipdoc and no T0002") {
		t.Errorf("non-terminal folder: %v", err)
	}
	if _, err := Open(filepath.Join(dir, "vipdoc.txt")); !errors.Is(err, ErrNotTerminal) {
		t.Errorf("a file: %v", err)
	}
	if _, err := Open(sample("redmine-2023")); err != nil {
		t.Errorf("vipdoc alone is a terminal folder: %v", err)
	}
}

// fakeTerminal builds an install with the writers, in the mixed case a
// Windows install can have, plus files the scan must skip or report.
func fakeTerminal(t *testing.T) string {
	t.Helper()
	root := t.TempDir()
	j := func(p ...string) string { return filepath.Join(append([]string{root}, p...)...) }
	writeTo := func(path string, write func(*bytes.Buffer) error) {
		var buf bytes.Buffer
		if err := write(&buf); err != nil {
			t.Fatal(err)
		}
		mustWrite(t, path, buf.Bytes())
	}
	days := func(n int, s Scale) []market.Bar {
		var out []market.Bar
		for i, d := range weekdaysBefore(20230224, n) {
			p := 10 + float64(i)/100
			out = append(out, market.Bar{Day: d, TS: d.At(15, 0, 0).Unix(), Open: p, High: p + 0.1, Low: p - 0.1, Close: p,
				Volume: 1000 * s.VolumeMul, Amount: 10000, TurnoverRate: market.Unknown(), LargeOrderNet: market.Unknown()})
		}
		return out
	}
	for _, c := range []struct {
		path, code string
	}{
		{j("VIPDOC", "SH", "LDAY", "SH600000.DAY"), "600000.SH"},
		{j("VIPDOC", "SH", "LDAY", "sh000001.day"), "000001.SH"},
		{j("VIPDOC", "sz", "Lday", "sz159915.day"), "159915.SZ"},
		{j("VIPDOC", "bj", "lday", "bj920001.day"), "920001.BJ"},
	} {
		s := ScaleFor(market.MustCode(c.code))
		writeTo(c.path, func(b *bytes.Buffer) error { return WriteDay(b, days(20, s), s) })
	}
	// A file caught mid-write, one with a corrupt record, and bad names.
	writeTo(j("VIPDOC", "SH", "LDAY", "sh600001.day"), func(b *bytes.Buffer) error {
		err := WriteDay(b, days(3, Scale{}), Scale{})
		b.Write([]byte{1, 2, 3, 4, 5})
		return err
	})
	mustWrite(t, j("VIPDOC", "SH", "LDAY", "sh600002.day"), dayFile(goodDay(20230222), DayRecord{Date: 20230223}, goodDay(20230224)))
	mustWrite(t, j("VIPDOC", "SH", "LDAY", "sh60000.day"), nil)
	mustWrite(t, j("VIPDOC", "SH", "LDAY", "sz000001.day"), nil)
	mustWrite(t, j("VIPDOC", "SH", "LDAY", "notes.txt"), nil)
	mustWrite(t, j("VIPDOC", "ds", "lday", "4#CF7D0LLS.day"), nil)
	writeTo(j("VIPDOC", "sz", "MINLINE", "SZ000001.LC1"), func(b *bytes.Buffer) error {
		d := market.Day(20230224)
		var bars []market.Bar
		for m := 9*60 + 31; m <= 11*60+30; m++ {
			bars = append(bars, market.Bar{Day: d, TS: d.At(0, m, 0).Unix(), Open: 12.34, High: 12.35, Low: 12.33, Close: 12.34, Volume: 100, Amount: 1234})
		}
		return WriteMinute(b, LayoutLC, bars, Scale{})
	})
	writeTo(j("VIPDOC", "sz", "fzline", "sz000001.5"), func(b *bytes.Buffer) error {
		d := market.Day(20230224)
		return WriteMinute(b, LayoutOld, []market.Bar{{Day: d, TS: d.At(9, 35, 0).Unix(), Open: 12.34, High: 12.35, Low: 12.33, Close: 12.34, Volume: 100, Amount: 1234}}, Scale{})
	})
	writeTo(j("t0002", "HQ_CACHE", "BLOCK_GN.DAT"), func(b *bytes.Buffer) error {
		return WriteBlockDat(b, []Block{{Name: "芯片", Type: 2, Codes: codesN(3)}})
	})
	writeTo(j("t0002", "HQ_CACHE", "TDXZS3.CFG"), func(b *bytes.Buffer) error {
		return WriteZSCfg(b, []ZSEntry{{Name: "芯片", Code: market.MustCode("880952.SH"), Type: ZSConcept, Flag: 1, Key: "芯片"}})
	})
	writeTo(j("t0002", "HQ_CACHE", "Tdxhy.cfg"), func(b *bytes.Buffer) error {
		return WriteHYCfg(b, []HYEntry{{Code: market.MustCode("600000.SH"), TCode: "T1001", XCode: "X500102"}}, false)
	})
	writeTo(j("t0002", "HQ_CACHE", "SHS.TNF"), func(b *bytes.Buffer) error {
		return WriteTNF(b, TNFHeader{}, TNF360, []Security{{Code: market.MustCode("600000.SH"), Name: "浦发银行"}})
	})
	writeTo(j("t0002", "HQ_CACHE", "shm.tnf"), func(b *bytes.Buffer) error { // older: loses to SHS.TNF
		return WriteTNF(b, TNFHeader{}, TNF314, []Security{{Code: market.MustCode("600000.SH"), Name: "旧名"}})
	})
	writeTo(j("t0002", "HQ_CACHE", "bjs.tnf"), func(b *bytes.Buffer) error {
		return WriteTNF(b, TNFHeader{}, TNF360, []Security{{Code: market.MustCode("920001.BJ"), Name: "北交甲"}})
	})
	writeTo(j("t0002", "HQ_CACHE", "GBBQ"), func(b *bytes.Buffer) error {
		return WriteGBBQ(b, []GBBQEvent{{Code: market.MustCode("600000.SH"), Day: 20220715, Category: Dividend, F: [4]float64{3.8}}})
	})
	writeTo(j("t0002", "BlockNew", "BLOCKNEW.CFG"), func(b *bytes.Buffer) error {
		return WriteBlockNewCfg(b, []UserBlock{{Name: "我的", Stem: "WD"}})
	})
	writeTo(j("t0002", "BlockNew", "wd.BLK"), func(b *bytes.Buffer) error {
		return WriteBLK(b, []market.Code{market.MustCode("600000.SH")}, false)
	})
	writeTo(j("t0002", "BlockNew", "zxg.blk"), func(b *bytes.Buffer) error {
		return WriteBLK(b, []market.Code{market.MustCode("000001.SZ"), market.MustCode("920001.BJ")}, true)
	})
	return root
}

func TestOpenFakeMixedCase(t *testing.T) {
	root := fakeTerminal(t)
	term, err := Open(root)
	if err != nil {
		t.Fatal(err)
	}
	want := map[Kind]int{KindDay: 6, KindLC1: 1, KindMin5: 1, KindBlockGN: 1, KindZS3: 1, KindHY: 1, KindTNF: 3, KindGBBQ: 1, KindBlockNew: 1, KindBLK: 2}
	if got := kindsOf(term.Files); fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("kinds %v\nwant %v", got, want)
	}
	var probs []string
	for _, p := range term.Problems {
		var pe *fs.PathError
		if !errors.As(p, &pe) {
			t.Errorf("problem %v is not a *fs.PathError", p)
			continue
		}
		probs = append(probs, filepath.Base(pe.Path))
	}
	if got := strings.Join(probs, " "); got != "sh60000.day sz000001.day" {
		t.Errorf("problems %q", got)
	}

	term.Clock = market.NewFixedClock(time.Date(2023, 2, 24, 16, 0, 0, 0, market.Shanghai()))
	type result struct {
		bars    int
		partial bool
		err     bool
	}
	got := map[string]result{}
	for bf, err := range term.AllBars() {
		if bf == nil {
			t.Fatalf("nothing decoded: %v", err)
		}
		got[filepath.Base(bf.Path)] = result{len(bf.Bars), bf.Partial != nil, err != nil}
	}
	wantBars := map[string]result{
		"SH600000.DAY": {20, false, false}, "sh000001.day": {20, false, false}, "sh600001.day": {3, true, false},
		"sh600002.day": {2, false, true}, "sz159915.day": {20, false, false}, "bj920001.day": {20, false, false},
		"SZ000001.LC1": {120, false, false}, "sz000001.5": {1, false, false},
	}
	if fmt.Sprint(got) != fmt.Sprint(wantBars) {
		t.Errorf("AllBars\n got %v\nwant %v", got, wantBars)
	}

	names, err := term.Names()
	if err != nil || fmt.Sprint(names) != fmt.Sprint([]Security{
		{Code: market.MustCode("600000.SH"), Name: "浦发银行", PrevClose: market.Unknown()},
		{Code: market.MustCode("920001.BJ"), Name: "北交甲", PrevClose: market.Unknown()},
	}) {
		t.Errorf("Names %+v %v", names, err)
	}
	ubs, err := term.UserBlocks()
	if err != nil || len(ubs) != 2 || ubs[0].Name != "我的" || len(ubs[0].Codes) != 1 || ubs[1].Stem != WatchlistStem || len(ubs[1].Codes) != 2 {
		t.Errorf("UserBlocks %+v %v", ubs, err)
	}
}

// The clock bounds plausible dates: a record after tomorrow is rejected.
func TestTerminalFutureDates(t *testing.T) {
	root := t.TempDir()
	path := filepath.Join(root, "vipdoc", "sh", "lday", "sh600000.day")
	mustWrite(t, path, dayFile(goodDay(20230224), goodDay(20230227), goodDay(20230301)))
	term, err := Open(root)
	if err != nil {
		t.Fatal(err)
	}
	term.Clock = market.NewFixedClock(time.Date(2023, 2, 26, 10, 0, 0, 0, market.Shanghai()))
	f, _ := term.First(KindDay)
	bf, err := term.Bars(f)
	var fe *FormatError
	if bf == nil || len(bf.Bars) != 2 || !errors.As(err, &fe) || fe.Offset != 64 || !strings.Contains(fe.Reason, "future") {
		t.Errorf("bars %v err %v", bf, err)
	}
	if _, err := term.Bars(File{Kind: KindHY, Path: path}); err == nil {
		t.Error("Bars of a non-bar file must fail")
	}
}

// Incremental import: a file the terminal appended to shows a new size and
// mtime after Rescan, and is read as far as its last whole record. The
// file is read-only: decoding must not need write access.
func TestRescanSeesAppends(t *testing.T) {
	root := t.TempDir()
	path := filepath.Join(root, "vipdoc", "sz", "lday", "sz000001.day")
	mustWrite(t, path, dayFile(goodDay(20230223)))
	old := time.Now().Add(-time.Hour)
	os.Chtimes(path, old, old)
	term, err := Open(root)
	if err != nil {
		t.Fatal(err)
	}
	before, _ := term.First(KindDay)
	f, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	f.Write(dayFile(goodDay(20230224))[:20])
	f.Close()
	os.Chmod(path, 0o444)
	t.Cleanup(func() { os.Chmod(path, 0o644) }) // Windows cannot remove read-only files
	if err := term.Rescan(); err != nil {
		t.Fatal(err)
	}
	after, _ := term.First(KindDay)
	if after.Size != 52 || !after.ModTime.After(before.ModTime) || after.Records() != 1 {
		t.Errorf("before %+v after %+v", before, after)
	}
	bf, err := term.Bars(after)
	if err != nil || len(bf.Bars) != 1 || bf.Partial == nil || bf.Partial.Len != 20 {
		t.Errorf("bars %v partial %v err %v", bf.Bars, bf.Partial, err)
	}
}

func TestParseBarName(t *testing.T) {
	tests := []struct {
		name string
		code string
		kind Kind
	}{
		{"sh600000.day", "600000.SH", KindDay},
		{"SZ000001.DAY", "000001.SZ", KindDay},
		{"bj430047.Day", "430047.BJ", KindDay},
		{"sh688001.lc1", "688001.SH", KindLC1},
		{"sh688001.LC5", "688001.SH", KindLC5},
		{"sz000001.1", "000001.SZ", KindMin1},
		{"sz000001.5", "000001.SZ", KindMin5},
		{"sh60000.day", "", ""},
		{"sh6000000.day", "", ""},
		{"hk600000.day", "", ""},
		{"sh60000a.day", "", ""},
		{"sh600000.lc2", "", ""},
		{"sh600000", "", ""},
		{"4#CF7D0LLS.day", "", ""},
	}
	for _, tc := range tests {
		code, kind, ok := ParseBarName(tc.name)
		if ok != (tc.code != "") || ok && (code.String() != tc.code || kind != tc.kind) {
			t.Errorf("%s: %v %q %v, want %s %q", tc.name, code, kind, ok, tc.code, tc.kind)
		}
	}
}

func timeOf(ts int64) time.Time { return time.Unix(ts, 0) }
