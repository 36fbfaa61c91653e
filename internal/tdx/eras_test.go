package tdx

import (
	"maps"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"mdqs/internal/market"
)

// Bond and repo .day files store prices ×1000 in older installs and
// ×10000 in newer ones; each file gets the divisor its own data agrees
// with. The 2014 values are the issue's: 110015.SH closed at 110.17 on
// 2014-08-22 (stored 110170) and 204001.SH's 3.24 % was stored as 3240.
func TestBondAndRepoDivisorPerFile(t *testing.T) {
	bond := func(d uint32, raw uint32, lots uint32, price float64) DayRecord {
		return DayRecord{Date: d, Open: raw, High: raw, Low: raw, Close: raw, Volume: lots, Amount: float32(price * float64(lots) * 10)}
	}
	repo := func(d uint32, raw uint32, lots uint32, face float64) DayRecord {
		// A repo's amount is the money lent: face value per lot × lots.
		return DayRecord{Date: d, Open: raw, High: raw, Low: raw, Close: raw, Volume: lots, Amount: float32(face * float64(lots))}
	}
	tests := []struct {
		name    string
		file    string
		recs    []DayRecord
		close   float64 // of the last record
		div     float64
		flagged string // substring of the one flag, "" for none
	}{
		{"bond, 2014 install (×1000)", "sh110015.day",
			[]DayRecord{bond(20140821, 109850, 52000, 109.85), bond(20140822, 110170, 61000, 110.17)}, 110.17, 1000, ""},
		{"bond, newer install (×10000)", "sh113011.day",
			[]DayRecord{bond(20230223, 1047750, 372968, 104.775), bond(20230224, 1047970, 372968, 104.797)}, 104.797, 10000, ""},
		{"SZ bond, 2014 install", "sz112001.day",
			[]DayRecord{bond(20140822, 101500, 3000, 101.5)}, 101.5, 1000, ""},
		{"repo, 2014 install (×1000)", "sh204001.day",
			[]DayRecord{repo(20140821, 3105, 90000, 10000), repo(20140822, 3240, 95000, 10000)}, 3.24, 1000, ""},
		{"repo, newer install (×10000)", "sh204001.day",
			[]DayRecord{repo(20230223, 21550, 142191873, 10000), repo(20230224, 32400, 142191873, 10000)}, 3.24, 10000, ""},
		{"SZ repo, 2014 install", "sz131810.day",
			[]DayRecord{repo(20140822, 3240, 5000, 1000)}, 3.24, 1000, ""},
		{"bond without volumes: the default, reported", "sh110015.day",
			[]DayRecord{{Date: 20140822, Open: 110170, High: 110170, Low: 110170, Close: 110170}}, 11.017, 10000, "undecided"},
		{"repo whose rates fit neither: the default, reported", "sh204001.day",
			[]DayRecord{repo(20140822, 1000000, 1, 1000)}, 100, 10000, "undecided"},
		{"split evidence: the default, reported", "sh110015.day",
			[]DayRecord{bond(20140821, 110170, 1000, 110.17), bond(20140822, 1101700, 1000, 110.17)}, 110.17, 10000, "undecided"},
	}
	dir := t.TempDir()
	for i, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(dir, string(rune('a'+i)), tc.file)
			mustWrite(t, path, dayFile(tc.recs...))
			bf, err := ReadBars(path, 0)
			if err != nil {
				t.Fatal(err)
			}
			last := bf.Bars[len(bf.Bars)-1]
			if last.Close != tc.close || bf.Scale.PriceDiv != tc.div {
				t.Errorf("close %v at ÷%v, want %v at ÷%v", last.Close, bf.Scale.PriceDiv, tc.close, tc.div)
			}
			switch {
			case tc.flagged == "" && len(bf.Flagged) != 0:
				t.Errorf("flagged %+v, want nothing", bf.Flagged)
			case tc.flagged != "" && (len(bf.Flagged) != 1 || !strings.Contains(bf.Flagged[0].Reason, tc.flagged) || bf.Flagged[0].Records != len(tc.recs)):
				t.Errorf("flagged %+v, want one flag saying %q", bf.Flagged, tc.flagged)
			}
		})
	}
}

// The real files of a 2023 install keep ÷10000, with nothing flagged.
func TestRealBondAndRepoFilesKeepTheNewerDivisor(t *testing.T) {
	for file, close := range map[string]float64{
		"sh/lday/sh113011.day": 104.797, "sz/lday/sz123002.day": 113.738,
		"sh/lday/sh204001.day": 2.72, "sz/lday/sz131810.day": 2.67,
	} {
		bf, err := ReadBars(sample("redmine-2023", "vipdoc", file), 0)
		if err != nil {
			t.Fatal(err)
		}
		if got := bf.Bars[len(bf.Bars)-1].Close; got != close || bf.Scale.PriceDiv != 10000 || len(bf.Flagged) != 0 {
			t.Errorf("%s: last close %v at ÷%v, flagged %+v; want %v at ÷10000", file, got, bf.Scale.PriceDiv, bf.Flagged, close)
		}
	}
}

// indexSession writes one day of an index's 5-minute bars as the terminal
// does: the volume word holds amount ÷ 100. The amounts follow a U-shaped
// day and add up to amount.
func indexSession(b []byte, d market.Day, amount float64) []byte {
	var minutes []int
	for m := 9*60 + 35; m <= 11*60+30; m += 5 {
		minutes = append(minutes, m)
	}
	for m := 13*60 + 5; m <= 15*60; m += 5 {
		minutes = append(minutes, m)
	}
	weights, sum := make([]float64, len(minutes)), 0.0
	for i := range weights {
		x := (float64(i) - 23.5) / 23.5
		weights[i] = 1 + 2*x*x
		sum += weights[i]
	}
	dw, _ := packDay(d)
	for i, m := range minutes {
		a := amount * weights[i] / sum
		b = append(b, minuteRec(dw, uint16(m), 3270, 3275, 3265, 3271, float32(a), int32(a/100))...)
	}
	return b
}

// An index's minute volumes add up to its day's volume: the terminal's
// minute "volume" is amount ÷ 100, about 10× the day's lots of 100 shares.
func TestIndexMinuteVolumesAddUpToTheDay(t *testing.T) {
	dir := t.TempDir()
	days := []DayRecord{
		{Date: 20230223, Open: 328000, High: 329000, Low: 326000, Close: 328700, Amount: 4.0e11, Volume: 320_000_000},
		{Date: 20230224, Open: 328700, High: 329500, Low: 326500, Close: 327000, Amount: 3.6e11, Volume: 300_000_000},
	}
	mustWrite(t, filepath.Join(dir, "vipdoc", "sh", "lday", "sh000001.day"), dayFile(days...))
	var lc5 []byte
	lc5 = indexSession(lc5, 20230223, 4.0e11)
	lc5 = indexSession(lc5, 20230224, 3.6e11)
	lc5 = indexSession(lc5, 20230227, 3.0e11) // today: not in the .day file yet
	lc5Path := filepath.Join(dir, "vipdoc", "sh", "fzline", "sh000001.lc5")
	mustWrite(t, lc5Path, lc5)

	term, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	term.Clock = market.NewFixedClock(time.Date(2023, 2, 27, 16, 0, 0, 0, market.Shanghai()))
	f, _ := term.First(KindLC5)
	fromTerm, err := term.Bars(f)
	if err != nil {
		t.Fatal(err)
	}
	byPath, err := ReadBars(lc5Path, 0)
	if err != nil {
		t.Fatal(err)
	}
	for _, bf := range []*BarFile{fromTerm, byPath} {
		sums := map[market.Day]int64{}
		for _, b := range bf.Bars {
			sums[b.Day] += b.Volume
		}
		for _, d := range days {
			want := float64(d.Volume) * 100
			if got := float64(sums[market.Day(d.Date)]); math.Abs(got-want) > 0.01*want {
				t.Errorf("%d: minute volumes add up to %.0f shares, the day's volume is %.0f", d.Date, got, want)
			}
		}
		// The day the .day file lacks uses the nearest day's shares per yuan, and says so.
		if got, want := float64(sums[20230227]), 3.0e11*300_000_000*100/3.6e11; math.Abs(got-want) > 0.01*want {
			t.Errorf("estimated day: %.0f shares, want about %.0f", got, want)
		}
		if len(bf.Flagged) != 1 || bf.Flagged[0].Records != 48 || !strings.Contains(bf.Flagged[0].Reason, "nearest day") {
			t.Errorf("flagged %+v, want the 48 estimated bars", bf.Flagged)
		}
	}

	// Without the .day file the volumes cannot be told, so the file is not served.
	os.Remove(filepath.Join(dir, "vipdoc", "sh", "lday", "sh000001.day"))
	if bf, err := ReadBars(lc5Path, 0); bf != nil || err == nil || !strings.Contains(err.Error(), ".day") {
		t.Errorf("without the day file: %v, %v", bf, err)
	}
}

// Statistic indices hold counts (zeros, in any order) and early-1990s index
// days close outside low..high: both are imported as the terminal shows
// them and flagged, not rejected.
func TestStatisticAndEarlyIndexDaysImportedAsTheyAre(t *testing.T) {
	dir := t.TempDir()
	counts := []DayRecord{
		{Date: 20230223, Open: 4500, High: 0, Low: 1200, Close: 3800, Amount: 0, Volume: 0},
		{Date: 20230224, Open: 0, High: 0, Low: 0, Close: 0, Amount: 0, Volume: 0},
	}
	stat := filepath.Join(dir, "sh880006.day")
	mustWrite(t, stat, dayFile(counts...))
	bf, err := ReadBars(stat, 0)
	if err != nil || len(bf.Bars) != 2 || bf.Bars[0].Open != 45 || bf.Scale.Type != market.TypeStatistic {
		t.Fatalf("statistic index: %+v, %v", bf, err)
	}
	if len(bf.Flagged) != 1 || !strings.Contains(bf.Flagged[0].Reason, "counts") {
		t.Errorf("statistic flags %+v", bf.Flagged)
	}
	// SZ's statistics alike: 395004's and 395013's 2010 days with a low of
	// 0 were problems on every import (zero price) before; their volumes
	// are kept as stored, as every statistic's are (not lots of 100).
	for _, name := range []string{"sz395004.day", "sz395013.day"} {
		p := filepath.Join(dir, name)
		mustWrite(t, p, dayFile(
			DayRecord{Date: 20100104, Open: 3600, High: 3600, Low: 0, Close: 3600, Amount: 1.5e9, Volume: 123456},
			DayRecord{Date: 20100105, Open: 3600, High: 3700, Low: 0, Close: 3700, Amount: 1.6e9, Volume: 234567}))
		bf, err := ReadBars(p, 0)
		if err != nil || len(bf.Bars) != 2 || bf.Scale.Type != market.TypeStatistic || bf.Bars[1].Volume != 234567 {
			t.Fatalf("%s: %+v, %v", name, bf, err)
		}
		if len(bf.Flagged) != 1 || !strings.Contains(bf.Flagged[0].Reason, "statistic") || bf.Flagged[0].Records != 2 {
			t.Errorf("%s flags %+v", name, bf.Flagged)
		}
	}

	early := []DayRecord{
		{Date: 19921009, Open: 60000, High: 61000, Low: 59000, Close: 62000, Amount: 1e8, Volume: 10000}, // closes above its high
		{Date: 19921012, Open: 62000, High: 63000, Low: 61000, Close: 62500, Amount: 1e8, Volume: 10000},
	}
	idx := filepath.Join(dir, "sh000001.day")
	mustWrite(t, idx, dayFile(early...))
	bf, err = ReadBars(idx, 0)
	if err != nil || len(bf.Bars) != 2 || bf.Bars[0].Close != 620 {
		t.Fatalf("early index days: %+v, %v", bf, err)
	}
	if len(bf.Flagged) != 1 || bf.Flagged[0].Records != 1 {
		t.Errorf("early index flags %+v, want 1 record", bf.Flagged)
	}

	// A stock's record outside low..high is still an error.
	stock := filepath.Join(dir, "sh600000.day")
	mustWrite(t, stock, dayFile(early...))
	if bf, err := ReadBars(stock, 0); err == nil || len(bf.Bars) != 1 {
		t.Errorf("stock outside low..high: %+v, %v", bf, err)
	}
}

// A repo's volume is served in pieces of 100 yuan lent, whatever lot the
// file counts in: amount ÷ volume is then 100 in every record. The real
// sz131810 counts lots of 1,000 yuan; sh204001 of a 2023 install counts
// lots of 10,000 yuan, and on some days (2015-09-02, eleven days of
// December 2022) of 1,000, so the unit is each record's own. Before, its
// volumes came out 10× too small (amount ÷ volume 1,000).
func TestRepoVolumesAreOneUnit(t *testing.T) {
	for file, lots := range map[string]map[int64]int{
		"sh/lday/sh204001.day": {1000: 6, 10000: 1811},
		"sz/lday/sz131810.day": {1000: 1817},
	} {
		f, err := os.Open(sample("redmine-2023", "vipdoc", file))
		if err != nil {
			t.Fatal(err)
		}
		got := map[int64]int{}
		for r, err := range DayRecords(f, 0) {
			if err != nil {
				t.Fatal(err)
			}
			if r.Volume > 0 {
				got[int64(math.Round(float64(r.Amount)/float64(r.Volume)))]++
			}
		}
		f.Close()
		if !maps.Equal(got, lots) {
			t.Fatalf("%s: records by yuan a lot %v, want %v (the file's evidence)", file, got, lots)
		}
		bf, err := ReadBars(sample("redmine-2023", "vipdoc", file), 0)
		if err != nil || len(bf.Flagged) != 0 {
			t.Fatalf("%s: %v, flagged %+v", file, err, bf.Flagged)
		}
		for _, b := range bf.Bars {
			if b.Volume > 0 && math.Abs(b.Amount/float64(b.Volume)-100) > 0.01 {
				t.Fatalf("%s %s: amount %v ÷ volume %d = %v, want 100 yuan a piece", file, b.Day, b.Amount, b.Volume, b.Amount/float64(b.Volume))
			}
		}
	}
	// Lots neither file uses are kept in lots of 10 pieces and flagged.
	dir := t.TempDir()
	path := filepath.Join(dir, "sh204001.day")
	mustWrite(t, path, dayFile(
		DayRecord{Date: 20230223, Open: 27200, High: 27200, Low: 27200, Close: 27200, Volume: 1000, Amount: 1e6},
		DayRecord{Date: 20230224, Open: 27200, High: 27200, Low: 27200, Close: 27200, Volume: 1000, Amount: 3e6}))
	bf, err := ReadBars(path, 0)
	if err != nil {
		t.Fatal(err)
	}
	if bf.Bars[0].Volume != 10000 || bf.Bars[1].Volume != 10000 || len(bf.Flagged) != 1 || bf.Flagged[0].Records != 1 ||
		!strings.Contains(bf.Flagged[0].Reason, "repo volumes") {
		t.Errorf("odd lots: volumes %d %d, flagged %+v; want 10000 (×100) and 10000 (kept, flagged)", bf.Bars[0].Volume, bf.Bars[1].Volume, bf.Flagged)
	}
}
