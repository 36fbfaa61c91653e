package tdx

import (
	"bytes"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"mdqs/internal/market"
)

func sample(parts ...string) string { return filepath.Join(append([]string{"testdata"}, parts...)...) }

// rawDay formats a record like testdata README's decoded lines.
func rawDay(r DayRecord) map[string]string {
	return map[string]string{
		"date":   strconv.FormatUint(uint64(r.Date), 10),
		"o":      strconv.FormatUint(uint64(r.Open), 10),
		"h":      strconv.FormatUint(uint64(r.High), 10),
		"l":      strconv.FormatUint(uint64(r.Low), 10),
		"c":      strconv.FormatUint(uint64(r.Close), 10),
		"amount": strconv.FormatFloat(float64(r.Amount), 'f', -1, 32),
		"vol":    strconv.FormatUint(uint64(r.Volume), 10),
		"res":    fmt.Sprintf("0x%08x", r.Reserved),
	}
}

// checkRaw compares every field the README line gives ("…" elides some).
func checkRaw(t *testing.T, what string, r DayRecord, want string) {
	t.Helper()
	got := rawDay(r)
	toks := strings.Fields(want)
	if got["date"] != toks[0] {
		t.Errorf("%s: date %s, want %s", what, got["date"], toks[0])
	}
	for _, tok := range toks[1:] {
		k, v, ok := strings.Cut(tok, "=")
		if !ok {
			continue
		}
		if k == "res" && v == "0" {
			v = "0x00000000"
		}
		if k == "amount" { // the README rounds float32 amounts to integers
			want, _ := strconv.ParseFloat(v, 64)
			if math.Abs(float64(r.Amount)-want) > 0.5 {
				t.Errorf("%s: amount=%v, want %s", what, r.Amount, v)
			}
			continue
		}
		if got[k] != v {
			t.Errorf("%s: %s=%s, want %s", what, k, got[k], v)
		}
	}
}

func readDayRecords(t *testing.T, path string) []DayRecord {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []DayRecord
	for r, err := range DayRecords(f, 0) {
		if err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		out = append(out, r)
	}
	return out
}

// The first and last records of every real .day sample, as decoded by hand
// in testdata/README (copied from shared/testdata/tdx/README.md).
func TestDayRealFiles(t *testing.T) {
	tests := []struct {
		path        string
		n           int
		first, last string
	}{
		{"mootdx-2022/vipdoc/sh/lday/sh000001.day", 5156,
			"20000214 o=159144 h=167413 l=158781 c=167394 amount=26587693056 vol=43645603 res=0x0004021c",
			"20210514 o=343609 h=349064 l=342257 c=349038 amount=411116929024 vol=336982309 res=0x01ac0585"},
		{"mootdx-2022/vipdoc/sz/lday/sz000001.day", 4995,
			"20000214 o=1920 h=2038 l=1870 c=2037 amount=460704992 vol=23370900 res=0",
			"20210514 o=2314 h=2343 l=2260 c=2332 amount=1300250880 vol=56378536 res=0x00010000"},
		{"mootdx-2022/vipdoc/sh/lday/sh881478.day", 1747,
			"20150902 o=158065 … c=158709 amount=2246951424 vol=2298600 res=0",
			"20221110 o=107470 h=108738 l=107168 c=108294 amount=1800421760 vol=2385129 res=0x00070007"},
		{"redmine-2023/vipdoc/sh/lday/sh600000.day", 1792,
			"20150902 o=1490 h=1537 l=1472 c=1489 amount=3831534848 vol=255045273 res=0x00010000",
			"20230224 o=722 h=726 l=718 c=718 amount=120124648 vol=16681114 res=0x00010000"},
		{"redmine-2023/vipdoc/sh/lday/sh688001.day", 873,
			"20190722 o=5540 h=7202 l=3959 c=5550 …",
			"20230224 o=3300 h=3348 l=3261 c=3330 amount=30546348 vol=920502"},
		{"redmine-2023/vipdoc/sz/lday/sz300750.day", 1144,
			"20180611 o=3017 h=3620 l=3017 c=3620 amount=2845472 vol=78829",
			"20230224 o=41100 h=41180 l=40402 c=40540 amount=4060495104 vol=9989388"},
		{"redmine-2023/vipdoc/sh/lday/sh510300.day", 1817,
			"20150902 o=3279 h=3420 l=3231 c=3372 amount=821052352 vol=244408893",
			"20230224 o=4098 h=4098 l=4040 c=4060 amount=3282777088 vol=808776154"},
		{"redmine-2023/vipdoc/sz/lday/sz200011.day", 1817,
			"20150902 o=566 h=618 l=550 c=589 amount=3629222 vol=606610",
			"20230224 o=596 h=599 l=593 c=599 amount=362640 vol=61000"},
		{"redmine-2023/vipdoc/sz/lday/sz160105.day", 1746,
			"20150902 o=1420 h=1460 l=1402 c=1420 amount=119641 vol=84289",
			"20230224 o=1150 h=1166 l=1149 c=1149 amount=8322 vol=7200"},
		{"redmine-2023/vipdoc/sz/lday/sz131810.day", 1817,
			"20150902 o=18000 h=26320 l=7550 c=8000 amount=27878707200 vol=27878707",
			"20230224 o=23000 h=39200 l=18000 c=26700 amount=192197492736 vol=192197498"},
		{"redmine-2023/vipdoc/sz/lday/sz159915.day", 1816,
			"20150902 o=1646 h=1804 l=1638 c=1690 …",
			"20230224 o=2388 h=2390 l=2354 c=2357 amount=1167374592 vol=493528769"},
		{"redmine-2023/vipdoc/sh/lday/sh900901.day", 1739,
			"20150902 o=504 h=546 l=503 c=511 amount=1458090 vol=2803016",
			"20230224 o=575 h=590 l=571 c=589 amount=1485926 vol=2565345"},
		{"redmine-2023/vipdoc/sh/lday/sh113011.day", 1434,
			"20170405 o=1020000 h=1031500 l=1012500 c=1030000 amount=9958591488 vol=9703291",
			"20230224 o=1047750 h=1048410 l=1047520 c=1047970 amount=390803328 vol=372968"},
		{"redmine-2023/vipdoc/sz/lday/sz123002.day", 1254,
			"20171225 o=1160000 h=1170000 l=1135800 c=1138000 amount=687758720 vol=598111",
			"20230224 o=1139810 h=1141500 l=1134190 c=1137380 amount=1884716 vol=1657"},
		{"redmine-2023/vipdoc/sh/lday/sh204001.day", 1817,
			"20150902 o=21050 h=26050 l=50 c=50 amount=395905105920 vol=395905100",
			"20230224 o=23000 h=36500 l=21550 c=27200 amount=1421918732288 vol=142191873 res=0xc30a0007"},
		{"redmine-2023/vipdoc/sz/lday/sz399001.day", 1817,
			"20150902 o=969448 h=1031950 l=968271 c=1005480 amount=325500239872 vol=259173728 res=0",
			"20230224 o=1188777 h=1188924 l=1174273 c=1178745 amount=417778040832 vol=326405501 res=0x068903ce"},
		{"redmine-2023/vipdoc/sh/lday/sh880001.day", 1817,
			"20150902 o=408920 h=430465 l=405241 c=421353 amount=747963154432 vol=695882530 res=0x06ed01f1",
			"20230224 o=853906 h=854030 l=845136 c=848606 amount=726344990720 vol=560906472 res=0x0c1506e6"},
		{"redmine-2023/vipdoc/bj/lday/bj430047.day", 1144,
			"20150910 o=2000 h=2000 l=2000 c=2000 amount=7000000 vol=350000 res=0",
			"20230224 o=1410 h=1410 l=1385 c=1396 amount=2021992 vol=145491 res=0x00010000"},
		{"redmine-2023/vipdoc/bj/lday/bj899050.day", 200,
			"20220429 o=100000 … c=100000 amount=581906432 vol=455216 res=0",
			"20230224 o=101289 h=101397 l=100464 c=100788 amount=695385856 vol=572642 res=0x0070002f"},
	}
	for _, tc := range tests {
		t.Run(filepath.Base(tc.path), func(t *testing.T) {
			recs := readDayRecords(t, sample(tc.path))
			if len(recs) != tc.n {
				t.Fatalf("%d records, want %d", len(recs), tc.n)
			}
			checkRaw(t, "first", recs[0], tc.first)
			checkRaw(t, "last", recs[len(recs)-1], tc.last)
		})
	}
}

// Scaled values of the last record per security type (tdx.md §3.1), with
// amount ÷ volume as an independent check that volume is in shares (or
// bond pieces) after scaling.
func TestDayScaling(t *testing.T) {
	tests := []struct {
		path     string
		typ      market.SecurityType
		close    float64
		volume   int64
		avgCheck bool // amount/volume ≈ close
	}{
		{"redmine-2023/vipdoc/sh/lday/sh600000.day", market.TypeStock, 7.18, 16681114, true},
		{"redmine-2023/vipdoc/sz/lday/sz300750.day", market.TypeStock, 405.40, 9989388, true},
		{"redmine-2023/vipdoc/bj/lday/bj430047.day", market.TypeStock, 13.96, 145491, true},
		{"redmine-2023/vipdoc/sh/lday/sh510300.day", market.TypeFund, 4.060, 808776154, true},
		{"redmine-2023/vipdoc/sz/lday/sz160105.day", market.TypeFund, 1.149, 7200, true},
		{"redmine-2023/vipdoc/sz/lday/sz159915.day", market.TypeFund, 2.357, 493528769, true},
		{"redmine-2023/vipdoc/sh/lday/sh900901.day", market.TypeBShare, 0.589, 2565345, true},
		{"redmine-2023/vipdoc/sz/lday/sz200011.day", market.TypeBShare, 5.99, 61000, true},
		{"redmine-2023/vipdoc/sh/lday/sh113011.day", market.TypeBond, 104.797, 3729680, true},
		{"redmine-2023/vipdoc/sz/lday/sz123002.day", market.TypeBond, 113.738, 16570, true},
		{"redmine-2023/vipdoc/sz/lday/sz131810.day", market.TypeRepo, 2.67, 1921974980, false},
		{"redmine-2023/vipdoc/sz/lday/sz399001.day", market.TypeIndex, 11787.45, 32640550100, false},
		{"redmine-2023/vipdoc/sh/lday/sh880001.day", market.TypeBlock, 8486.06, 56090647200, false},
		{"redmine-2023/vipdoc/bj/lday/bj899050.day", market.TypeIndex, 1007.88, 57264200, false},
		{"mootdx-2022/vipdoc/sh/lday/sh000001.day", market.TypeIndex, 3490.38, 33698230900, false},
		{"mootdx-2022/vipdoc/sz/lday/sz000001.day", market.TypeStock, 23.32, 56378536, true},
	}
	for _, tc := range tests {
		t.Run(filepath.Base(tc.path), func(t *testing.T) {
			bf, err := ReadBars(sample(tc.path), 0)
			if err != nil {
				t.Fatal(err)
			}
			if got := market.Classify(bf.Code); got != tc.typ {
				t.Fatalf("type %s, want %s", got, tc.typ)
			}
			last := bf.Bars[len(bf.Bars)-1]
			if last.Close != tc.close || last.Volume != tc.volume {
				t.Errorf("close %v volume %d, want %v %d", last.Close, last.Volume, tc.close, tc.volume)
			}
			if tc.avgCheck {
				avg := last.Amount / float64(last.Volume)
				if math.Abs(avg/last.Close-1) > 0.02 {
					t.Errorf("amount/volume %.4f is not within 2%% of close %.3f: volume unit wrong", avg, last.Close)
				}
			}
			if want := market.Day(20230224); bf.Code.Symbol != "000001" && last.Day != want {
				t.Errorf("last day %v, want %v", last.Day, want)
			}
			if !math.IsNaN(last.TurnoverRate) || !math.IsNaN(last.LargeOrderNet) {
				t.Error("unknown measures must be NaN")
			}
		})
	}
}

func TestDayBreadth(t *testing.T) {
	tests := []struct {
		path     string
		up, down int // of the last record; README
	}{
		{"redmine-2023/vipdoc/sz/lday/sz399001.day", 974, 1673},
		{"redmine-2023/vipdoc/sh/lday/sh880001.day", 1766, 3093},
		{"redmine-2023/vipdoc/bj/lday/bj899050.day", 47, 112},
	}
	for _, tc := range tests {
		recs := readDayRecords(t, sample(tc.path))
		up, down := recs[len(recs)-1].Breadth()
		if up != tc.up || down != tc.down {
			t.Errorf("%s: breadth %d/%d, want %d/%d", tc.path, up, down, tc.up, tc.down)
		}
	}
	recs := readDayRecords(t, sample("mootdx-2022/vipdoc/sh/lday/sh000001.day"))
	if up, down := recs[0].Breadth(); up != 540 || down != 4 {
		t.Errorf("sh000001 first breadth %d/%d, want 540/4", up, down)
	}
}

// TS is 15:00 Shanghai of the trade day, including the DST summers of
// 1986–1991 that the arithmetic fast path skips.
func TestDayTimestamp(t *testing.T) {
	for _, d := range []market.Day{19901219, 19910701, 19911231, 19920101, 20000214, 20230224, 20350101, 20991231} {
		r := DayRecord{Date: uint32(d), Open: 100, High: 100, Low: 100, Close: 100}
		if got, want := r.Bar(Scale{}).TS, d.At(15, 0, 0).Unix(); got != want {
			t.Errorf("%v: TS %d, want %d (%v)", d, got, want, time.Unix(got, 0).In(market.Shanghai()))
		}
	}
}

func dayFile(recs ...DayRecord) []byte {
	var b []byte
	for _, r := range recs {
		b = AppendDayRecord(b, r)
	}
	return b
}

func goodDay(d uint32) DayRecord {
	return DayRecord{Date: d, Open: 1000, High: 1100, Low: 900, Close: 1050, Amount: 1e6, Volume: 1000}
}

type dayOutcome struct {
	bars    int
	bad     []string // substrings of the FormatErrors, in order
	partial int      // bytes of a trailing partial record
}

func decodeDayOutcome(data []byte, notAfter market.Day) (dayOutcome, []int64) {
	var o dayOutcome
	var offs []int64
	for _, err := range DayBars(bytes.NewReader(data), Scale{}, notAfter) {
		var fe *FormatError
		var pe *PartialRecordError
		switch {
		case err == nil:
			o.bars++
		case errors.As(err, &fe):
			o.bad = append(o.bad, fe.Reason)
			offs = append(offs, fe.Offset)
		case errors.As(err, &pe):
			o.partial = pe.Len
		}
	}
	return o, offs
}

func TestDayEdgeCases(t *testing.T) {
	tests := []struct {
		name     string
		data     []byte
		notAfter market.Day
		bars     int
		bad      []string
		badOffs  []int64
		partial  int
	}{
		{name: "empty file", data: nil},
		{name: "one good", data: dayFile(goodDay(20230224)), bars: 1},
		{name: "truncated last record", data: dayFile(goodDay(20230223), goodDay(20230224))[:50], bars: 1, partial: 18},
		{name: "only a partial record", data: make([]byte, 31), partial: 31},
		{name: "future date", data: dayFile(goodDay(20230224), goodDay(20300101)), notAfter: 20230225,
			bars: 1, bad: []string{"in the future"}, badOffs: []int64{32}},
		{name: "zero prices", data: dayFile(DayRecord{Date: 20230224}, goodDay(20230227)),
			bars: 1, bad: []string{"zero price"}, badOffs: []int64{0}},
		{name: "one zero price", data: dayFile(DayRecord{Date: 20230224, Open: 0, High: 10, Low: 5, Close: 6}),
			bad: []string{"zero price"}, badOffs: []int64{0}},
		{name: "invalid date", data: dayFile(goodDay(20230230), goodDay(20231301), goodDay(0), goodDay(19800101), goodDay(20230224)),
			bars: 1, bad: []string{"invalid date 20230230", "invalid date 20231301", "invalid date 0", "invalid date 19800101"},
			badOffs: []int64{0, 32, 64, 96}},
		{name: "dates not increasing", data: dayFile(goodDay(20230224), goodDay(20230224), goodDay(20230223), goodDay(20230227)),
			bars: 2, bad: []string{"does not follow", "does not follow"}, badOffs: []int64{32, 64}},
		{name: "high below low", data: dayFile(DayRecord{Date: 20230224, Open: 10, High: 9, Low: 11, Close: 10}),
			bad: []string{"outside the low..high"}},
		{name: "close above high", data: dayFile(DayRecord{Date: 20230224, Open: 10, High: 11, Low: 9, Close: 12}),
			bad: []string{"outside the low..high"}},
		{name: "NaN amount", data: dayFile(DayRecord{Date: 20230224, Open: 10, High: 11, Low: 9, Close: 10, Amount: float32(math.NaN())}),
			bad: []string{"invalid amount"}},
		{name: "negative amount", data: dayFile(DayRecord{Date: 20230224, Open: 10, High: 11, Low: 9, Close: 10, Amount: -1}),
			bad: []string{"invalid amount"}},
		{name: "bad record then good ones", data: append(dayFile(goodDay(20230224), DayRecord{Date: 20230227}), dayFile(goodDay(20230228))...),
			bars: 2, bad: []string{"zero price"}, badOffs: []int64{32}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			o, offs := decodeDayOutcome(tc.data, tc.notAfter)
			if o.bars != tc.bars || o.partial != tc.partial || len(o.bad) != len(tc.bad) {
				t.Fatalf("got %d bars, bad %q, partial %d; want %d, %q, %d", o.bars, o.bad, o.partial, tc.bars, tc.bad, tc.partial)
			}
			for i, want := range tc.bad {
				if !strings.Contains(o.bad[i], want) {
					t.Errorf("error %d = %q, want it to contain %q", i, o.bad[i], want)
				}
			}
			if tc.badOffs != nil && fmt.Sprint(offs) != fmt.Sprint(tc.badOffs) {
				t.Errorf("error offsets %v, want %v", offs, tc.badOffs)
			}
		})
	}
}

func TestReadBarsErrors(t *testing.T) {
	dir := t.TempDir()
	good := filepath.Join(dir, "sh600000.day")
	data := dayFile(goodDay(20230223), DayRecord{Date: 20230224}, goodDay(20230227))
	if err := os.WriteFile(good, append(data, 1, 2, 3), 0o644); err != nil {
		t.Fatal(err)
	}
	bf, err := ReadBars(good, 0)
	if bf == nil || len(bf.Bars) != 2 {
		t.Fatalf("bars %v, err %v; want the 2 good bars", bf, err)
	}
	var fe *FormatError
	if !errors.As(err, &fe) || fe.File != good || fe.Offset != 32 {
		t.Errorf("err %v: want a *FormatError for %s at offset 32", err, good)
	}
	if bf.Partial == nil || bf.Partial.Len != 3 || bf.Partial.Offset != 96 || bf.Partial.File != good || !errors.Is(bf.Partial, ErrPartialRecord) {
		t.Errorf("partial %+v, want 3 bytes at 96 of %s", bf.Partial, good)
	}
	if errors.Is(err, ErrPartialRecord) {
		t.Error("a partial tail must not be reported as a record error")
	}
	if _, err := ReadBars(filepath.Join(dir, "sh600001.day"), 0); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("missing file: %v", err)
	}
	if _, err := ReadBars(filepath.Join(dir, "600000.day"), 0); err == nil {
		t.Error("a name without market prefix must fail")
	}
}

func TestDayWriteRoundTrip(t *testing.T) {
	codes := []string{"600000.SH", "510300.SH", "113011.SH", "000001.SH", "399001.SZ", "880001.SH", "900901.SH", "200011.SZ", "131810.SZ", "430047.BJ"}
	for _, cs := range codes {
		code := market.MustCode(cs)
		s := ScaleFor(code)
		recs := readDayRecords(t, sample("redmine-2023/vipdoc/sh/lday/sh600000.day"))[:50]
		var bars []market.Bar
		for _, r := range recs {
			bars = append(bars, r.Bar(s))
		}
		var buf bytes.Buffer
		if err := WriteDay(&buf, bars, s); err != nil {
			t.Fatalf("%s: %v", cs, err)
		}
		var got []market.Bar
		for b, err := range DayBars(&buf, s, 0) {
			if err != nil {
				t.Fatalf("%s: %v", cs, err)
			}
			got = append(got, b)
		}
		if len(got) != len(bars) {
			t.Fatalf("%s: %d bars back, want %d", cs, len(got), len(bars))
		}
		for i := range bars {
			if !sameBar(got[i], bars[i]) {
				t.Fatalf("%s bar %d: %+v, want %+v", cs, i, got[i], bars[i])
			}
		}
	}
	if _, err := DayRecordOf(market.Bar{Day: 20230224, Open: 1, High: 1, Low: 1, Close: 1, Volume: 150}, ScaleFor(market.MustCode("000001.SH"))); err == nil {
		t.Error("a volume that is not whole lots must not encode")
	}
	if _, err := DayRecordOf(market.Bar{Day: 20230224, Open: -1, High: 1, Low: 1, Close: 1}, Scale{}); err == nil {
		t.Error("a negative price must not encode")
	}
}

func sameBar(a, b market.Bar) bool {
	same := func(x, y float64) bool { return x == y || (math.IsNaN(x) && math.IsNaN(y)) }
	return a.Day == b.Day && a.TS == b.TS && a.Open == b.Open && a.High == b.High && a.Low == b.Low &&
		a.Close == b.Close && a.Volume == b.Volume && a.Amount == b.Amount &&
		same(a.TurnoverRate, b.TurnoverRate) && same(a.LargeOrderNet, b.LargeOrderNet)
}

func TestScaleFor(t *testing.T) {
	// The numbers only: Type is market.Classify's answer, tested there.
	type num struct {
		div   float64
		dec   int
		mul   int64
		older float64
	}
	tests := []struct {
		code string
		want num
	}{
		{"600000.SH", num{100, 2, 1, 0}},
		{"688001.SH", num{100, 2, 1, 0}},
		{"000001.SZ", num{100, 2, 1, 0}},
		{"300750.SZ", num{100, 2, 1, 0}},
		{"430047.BJ", num{100, 2, 1, 0}},
		{"920001.BJ", num{100, 2, 1, 0}},
		{"510300.SH", num{1000, 3, 1, 0}},
		{"588000.SH", num{1000, 3, 1, 0}},
		{"159915.SZ", num{1000, 3, 1, 0}},
		{"160105.SZ", num{1000, 3, 1, 0}},
		{"900901.SH", num{1000, 3, 1, 0}},
		{"200011.SZ", num{100, 2, 1, 0}},
		{"113011.SH", num{10000, 3, 10, 1000}},
		{"123002.SZ", num{10000, 3, 10, 1000}},
		{"204001.SH", num{10000, 3, 10, 1000}},
		{"131810.SZ", num{10000, 3, 10, 1000}},
		{"000001.SH", num{100, 2, 100, 0}},
		{"399001.SZ", num{100, 2, 100, 0}},
		{"880001.SH", num{100, 2, 100, 0}},
		{"881478.SH", num{100, 2, 100, 0}},
		{"899050.BJ", num{100, 2, 100, 0}},
		{"880006.SH", num{100, 2, 1, 0}},  // statistic: counts, volume too kept as the terminal shows it
		{"395004.SZ", num{100, 2, 1, 0}},  // SZ statistic (创业板 counts), likewise
		{"751001.SH", num{100, 2, 10, 0}}, // lots of 10, prices as stored
		{"140001.SZ", num{100, 2, 1, 0}},  // preferred shares: per share, not bond scale
		{"190001.SZ", num{1000, 3, 1, 0}}, // asset-backed: 3 decimals
		{"191001.SZ", num{1000, 3, 1, 0}},
	}
	for _, tc := range tests {
		c := market.MustCode(tc.code)
		got := ScaleFor(c)
		if (num{got.PriceDiv, got.Decimals, got.VolumeMul, got.OlderDiv}) != tc.want || got.Type != market.Classify(c) {
			t.Errorf("ScaleFor(%s) = %+v, want %+v", tc.code, got, tc.want)
		}
	}
	if got := (Scale{}).norm(); got != (Scale{PriceDiv: 100, Decimals: 2, VolumeMul: 1}) {
		t.Errorf("zero Scale normalises to %+v, want the A-share scale", got)
	}
}

// One stored record read as each security type: the divisor and the volume
// unit come from the code alone.
func TestDayScalingGenerated(t *testing.T) {
	rec := DayRecord{Date: 20230224, Open: 1047750, High: 1048410, Low: 1047520, Close: 1047970, Amount: 390803328, Volume: 372968}
	tests := []struct {
		file   string
		close  float64
		volume int64
	}{
		{"sh600000.day", 10479.70, 372968},   // A share ÷100, shares
		{"sz000001.day", 10479.70, 372968},   // same code on SZ is Ping An Bank
		{"sh000001.day", 10479.70, 37296800}, // index: lots of 100
		{"sh880301.day", 10479.70, 37296800}, // TDX block index
		{"bj899050.day", 10479.70, 37296800}, // BSE index
		{"sh510300.day", 1047.970, 372968},   // ETF ÷1000
		{"sz159915.day", 1047.970, 372968},   // ETF ÷1000
		{"sh900901.day", 1047.970, 372968},   // SH B share ÷1000
		{"sz200011.day", 10479.70, 372968},   // SZ B share ÷100
		{"sh113011.day", 104.797, 3729680},   // bond ÷10000, lots of 10
		{"sz123002.day", 104.797, 3729680},   // bond
		{"sz131810.day", 104.797, 3729680},   // repo
		{"bj920001.day", 10479.70, 372968},   // BSE stock, new range
		{"sh751001.day", 10479.70, 3729680},  // SH 751xxx: ÷100 as stored, lots of 10
		{"sz140001.day", 10479.70, 372968},   // SZ preferred share: ÷100, not bond scale
		{"sz190001.day", 1047.970, 372968},   // SZ asset-backed: 3 decimals
	}
	dir := t.TempDir()
	for _, tc := range tests {
		path := filepath.Join(dir, tc.file)
		mustWrite(t, path, dayFile(rec))
		bf, err := ReadBars(path, 0)
		if err != nil {
			t.Fatal(err)
		}
		b := bf.Bars[0]
		// The float32 390803328 holds 3.9080333e8: eight digits, not nine.
		if b.Close != tc.close || b.Volume != tc.volume || b.Amount != 390803330 {
			t.Errorf("%s: close %v volume %d amount %v, want %v %d", tc.file, b.Close, b.Volume, b.Amount, tc.close, tc.volume)
		}
	}
}
