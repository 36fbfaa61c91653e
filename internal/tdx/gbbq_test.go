package tdx

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"mdqs/internal/market"
)

// The table must be the published one byte for byte (adjust.md §2.2).
func TestGBBQKeyTable(t *testing.T) {
	sum := sha256.Sum256(gbbqKeyTable)
	if got := hex.EncodeToString(sum[:]); got != "2cdbe88a76fd70bdb3338d1cf5e2400e16412994c8cf5e1eafbefe2dcabd2e45" || len(gbbqKeyTable) != 4176 {
		t.Errorf("key table: %d bytes, sha256 %s", len(gbbqKeyTable), got)
	}
	if k := loadGBBQKey(); k.p[0] != 0x1DC2A738 {
		t.Errorf("P[0] = %#x, want 0x1DC2A738", k.p[0])
	}
}

// fmtGBBQ formats values like the testdata README (%g, 6 digits).
func fmtGBBQ(e GBBQEvent) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s %d %d ", e.Code, e.Day, e.Category)
	for i, v := range e.F {
		if i > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(strconv.FormatFloat(float64(v), 'g', 6, 32))
	}
	return b.String()
}

// Record subsets of two real files (testdata/gbbq/README.md): whole
// records copied byte for byte under a new count.
func TestGBBQRealFiles(t *testing.T) {
	tests := []struct {
		file  string
		n     int
		cats  map[GBBQCategory]int
		known []string // records the shared README decodes, in its format
	}{
		{"gbbq_ginkgo_20201031_subset", 819, nil, []string{
			"000001.SZ 19900301 1 0 3.56 0 1",
			"000001.SZ 20001106 1 0 8 0 3",
			"000001.SZ 20140612 9 557590 952075 669106 1.14249e+06",
			"000001.SZ 20200528 1 2.18 0 0 0",
			"000002.SZ 20051201 14 3.73 0 8 0",
			"000002.SZ 20200814 1 10.1661 0 0 0",
			"000651.SZ 19980421 1 0 22 0 3",
			"159001.SZ 20141013 11 0 0 0.01 0",
			"300750.SZ 20180611 5 0 0 21724.4 217244",
			"600036.SH 20200710 1 12 0 0 0",
			"600519.SH 20150717 1 43.74 0 1 0",
			"600519.SH 20200624 1 170.25 0 0 0",
			"601995.SH 20201102 5 0 0 26027.9 482726", // the full file's last record
			"600956.SH 20201102 1 ",                   // ex-dates after the file's 2020-10-31
			"002540.SZ 20201105 1 ",
		}},
		{"gbbq_rustdx_20211109_subset", 839, map[GBBQCategory]int{1: 345, 5: 342, 2: 74, 10: 24, 9: 21, 3: 18, 8: 5, 14: 3, 6: 2, 4: 1, 7: 1, 11: 1, 12: 1, 13: 1}, []string{
			"000001.SZ 19900301 1 0 3.56 0 1",
			"000001.SZ 20210514 1 1.8 0 0 0",
			"300750.SZ 20210705 1 ",
			"600519.SH 20210625 1 192.93 0 0 0",
			"600519.SH 20060524 1 5.91 0 0 0", // 送转 0 here; newer data says 1.2
			"601318.SH 20180607 1 12 0 0 0",
		}},
	}
	for _, tc := range tests {
		t.Run(tc.file, func(t *testing.T) {
			path := sample("gbbq", tc.file)
			events, err := ReadGBBQ(path)
			if err != nil {
				t.Fatal(err)
			}
			if len(events) != tc.n {
				t.Fatalf("%d records, want %d", len(events), tc.n)
			}
			cats := map[GBBQCategory]int{}
			var all strings.Builder
			for _, e := range events {
				cats[e.Category]++
				all.WriteString(fmtGBBQ(e) + "\n")
			}
			if tc.cats != nil && fmt.Sprint(cats) != fmt.Sprint(tc.cats) {
				t.Errorf("categories %v, want %v", cats, tc.cats)
			}
			for _, k := range tc.known {
				if !strings.Contains(all.String(), k) {
					t.Errorf("no record %q", k)
				}
			}
			if got := fmtGBBQ(events[0]); got != "000001.SZ 19900301 1 0 3.56 0 1" {
				t.Errorf("first record %s", got)
			}
			checkGBBQOrder(t, events)
			// Re-encrypting gives back the file byte for byte.
			data, _ := os.ReadFile(path)
			var buf bytes.Buffer
			if err := WriteGBBQ(&buf, events); err != nil || !bytes.Equal(buf.Bytes(), data) {
				t.Errorf("WriteGBBQ does not reproduce the file (%v)", err)
			}
		})
	}
}

// checkGBBQOrder: one contiguous run per code, dates ascending within it,
// at most one record per (code, date, category) (adjust.md §1.2).
func checkGBBQOrder(t *testing.T, events []GBBQEvent) {
	t.Helper()
	done := map[market.Code]bool{}
	keys := map[string]bool{}
	for i, e := range events {
		if i > 0 && events[i-1].Code != e.Code {
			if done[e.Code] {
				t.Errorf("%s: second run at record %d", e.Code, i)
			}
			done[events[i-1].Code] = true
		} else if i > 0 && e.Day < events[i-1].Day {
			t.Errorf("%s: %s after %s", e.Code, e.Day, events[i-1].Day)
		}
		k := fmt.Sprint(e.Code, e.Day, e.Category)
		if keys[k] {
			t.Errorf("duplicate %s", k)
		}
		keys[k] = true
	}
}

// Between the two versions exactly two category-1 values changed for the
// codes both subsets hold (testdata/gbbq/README.md).
func TestGBBQVersions(t *testing.T) {
	old, err := ReadGBBQ(sample("gbbq", "gbbq_ginkgo_20201031_subset"))
	if err != nil {
		t.Fatal(err)
	}
	cur, err := ReadGBBQ(sample("gbbq", "gbbq_rustdx_20211109_subset"))
	if err != nil {
		t.Fatal(err)
	}
	key := func(e GBBQEvent) string { return fmt.Sprint(e.Code, " ", e.Day, " ", int(e.Category)) }
	was := map[string]GBBQEvent{}
	for _, e := range old {
		was[key(e)] = e
	}
	shared := 0
	var changed []string
	for _, e := range cur {
		if o, ok := was[key(e)]; ok {
			shared++
			if o.F != e.F {
				changed = append(changed, fmt.Sprintf("%s %v→%v", key(e), o.F, e.F))
			}
		}
	}
	want := []string{"601088.SH 2017-07-10 1 [25.1 0 0 0]→[29.7 0 0 0]", "601318.SH 2018-06-07 1 [10 0 0 0]→[12 0 0 0]"}
	if shared != 785 || fmt.Sprint(changed) != fmt.Sprint(want) {
		t.Errorf("%d shared keys, changed %v; want 785 and %v", shared, changed, want)
	}
}

func TestGBBQAccessors(t *testing.T) {
	events, err := ReadGBBQ(sample("gbbq", "gbbq_rustdx_20211109_subset"))
	if err != nil {
		t.Fatal(err)
	}
	var x XDXR
	var s ShareCounts
	for _, e := range events {
		switch {
		case e.Code.Symbol == "000651" && e.Day == 19980421 && e.Category == Dividend:
			x, _ = e.XDXR()
			if _, ok := e.Shares(); ok {
				t.Error("Shares of a dividend record")
			}
		case e.Code.Symbol == "300750" && e.Day == 20180611 && e.Category == ShareChange:
			s, _ = e.Shares()
			if _, ok := e.XDXR(); ok {
				t.Error("XDXR of a share change")
			}
		}
	}
	if x != (XDXR{RightsPrice: 22, RightsPer10: 3}) {
		t.Errorf("000651 19980421: %+v, want a rights issue of 3 per 10 at 22", x)
	}
	if s.FloatBefore != 0 || s.TotalBefore != 0 || s.FloatAfter != 21724.373 || s.TotalAfter != 217243.7 {
		t.Errorf("300750 listing: %+v", s)
	}
	if got := Dividend.Fields(); got != [4]string{"cash_per_10", "rights_price", "bonus_per_10", "rights_per_10"} {
		t.Errorf("Dividend.Fields() = %v", got)
	}
	if Dividend.String() != "除权除息" || Split.String() != "扩缩股" || GBBQCategory(15).String() != "category 15" {
		t.Error("category names")
	}
	// Values are the float32's decimals, never rounded to the cent:
	// 000002's 2020 cash is 10.166131, not 10.17, and 000001's 2017 cash
	// 1.58, not the 1.5800000429153442 the float32 widens to.
	seen := 0
	for _, e := range events {
		switch {
		case e.Code.Symbol == "000002" && e.Day == 20200814 && e.Category == Dividend:
			seen++
			if e.F[0] != 10.166131 {
				t.Errorf("000002 20200814 cash %v, want 10.166131", e.F[0])
			}
		case e.Code == market.MustCode("000001.SZ") && e.Day == 20170721 && e.Category == Dividend:
			seen++
			if e.F[0] != 1.58 {
				t.Errorf("000001 20170616 cash %v, want 1.58", e.F[0])
			}
		}
	}
	if seen != 2 {
		t.Errorf("found %d of the two dividends", seen)
	}
	for _, tt := range []struct {
		code string
		want market.Day
		ok   bool
	}{
		{"000001.SZ", 19910403, true}, {"603777.SH", 20161012, true}, {"000002.SZ", 19910129, true},
		{"600519.SH", 0, false}, {"000651.SZ", 0, false},
		// Shares held before the listing stay as total before.
		{"002709.SZ", 20140123, true}, {"601088.SH", 20071009, true}, {"601318.SH", 20070301, true},
	} {
		if d, ok := ListingDay(events, market.MustCode(tt.code)); d != tt.want || ok != tt.ok {
			t.Errorf("ListingDay(%s) = %s, %v; want %s, %v", tt.code, d, ok, tt.want, tt.ok)
		}
	}
}

// The listing records of the 2020 terminal file that a rule of "a share
// change from nothing" misses or misdates (issue 32: 后复权 applied events
// before the listing where the gbbq's record went unseen).
func TestListingDayOfRealRecords(t *testing.T) {
	events, err := ReadGBBQ(sample("gbbq", "gbbq_ginkgo_20201031_listings"))
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		code string
		want market.Day // 0: no listing record
		why  string
	}{
		{"601336.SH", 20111216, "H shares on 2011-12-15 (0, 0 → 0, 311696), the A shares the next day"},
		{"688981.SH", 20200716, "a first record of 2020-06-30, the STAR listing 2020-07-16"},
		{"601866.SH", 20071212, "issued 2007-11-28 (float after 0), listed 2007-12-12"},
		{"002181.SZ", 20071116, "a dividend of 2007-06-15 before it"},
		{"300150.SZ", 20101222, "dividends of 2009 and 2010 before it"},
		{"000921.SZ", 19990713, "a dividend of 1999-06-22 before it"},
		{"600601.SH", 19901219, "the exchange's first day, a category-2 record"},
		{"300477.SZ", 0, "its first share record has float before it (3053.8)"},
		{"600513.SH", 0, "no share record from zero float"},
	} {
		d, ok := ListingDay(events, market.MustCode(tt.code))
		if d != tt.want || ok != (tt.want != 0) {
			t.Errorf("ListingDay(%s) = %s, %v; want %s (%s)", tt.code, d, ok, tt.want, tt.why)
		}
	}
	// Any order of the records gives the same day.
	slices.Reverse(events)
	if d, _ := ListingDay(events, market.MustCode("601336.SH")); d != 20111216 {
		t.Errorf("reversed records: ListingDay(601336.SH) = %s", d)
	}
}

func gbbqFile(events ...GBBQEvent) []byte {
	var buf bytes.Buffer
	_ = WriteGBBQ(&buf, events)
	return buf.Bytes()
}

func goodGBBQ(d market.Day) GBBQEvent {
	return GBBQEvent{Code: market.MustCode("600519.SH"), Day: d, Category: Dividend, F: [4]float64{43.74, 0, 1, 0}}
}

func TestGBBQBadInput(t *testing.T) {
	good := gbbqFile(goodGBBQ(20150717), goodGBBQ(20160701))
	withCount := func(n uint32, b []byte) []byte {
		b = bytes.Clone(b)
		binary.LittleEndian.PutUint32(b, n)
		return b
	}
	bad := func(mut func(*GBBQEvent)) []byte {
		e := goodGBBQ(20170707)
		mut(&e)
		return gbbqFile(goodGBBQ(20150717), e, goodGBBQ(20180615))
	}
	day := AppendDayRecord(nil, goodDay(20230224))
	tests := []struct {
		name   string
		data   []byte
		n      int // records decoded by GBBQ
		errs   []string
		sizeOK bool // ReadGBBQ decodes it (else: only its size error)
	}{
		{"empty", nil, 0, []string{"shorter than the 4-byte header"}, false},
		{"header only", gbbqFile(), 0, nil, true},
		{"short header", []byte{1, 0}, 0, []string{"shorter than the 4-byte header"}, false},
		{"truncated inside a record", good[:len(good)-5], 1, []string{"offset 33: file ends 24 bytes into record 1 of the header's 2"}, false},
		{"ends after a record", good[:4+29], 1, []string{"offset 33: file ends after 1 of the header's 2 records"}, false},
		{"data after", append(bytes.Clone(good), 0), 2, []string{"offset 62: data after the header's 2 records"}, false},
		{"record after", withCount(1, good), 1, []string{"offset 33: data after the header's 1 records"}, false},
		{"absurd count", withCount(math.MaxUint32, good), 0, []string{"record count 4294967295 exceeds 2000000: not a gbbq file"}, false},
		{"foreign file", day, 0, []string{"exceeds 2000000: not a gbbq file"}, false},
		{"bad market", bad(func(e *GBBQEvent) { e.Code.Exchange = "HK" }), 2, []string{"offset 33: market 9 is not 0 (SZ), 1 (SH) or 2 (BJ)"}, true},
		{"bad code", bad(func(e *GBBQEvent) { e.Code.Symbol = "6005A9" }), 2, []string{`offset 33: code "6005A9\x00" is not six digits and a NUL`}, true},
		{"bad date", bad(func(e *GBBQEvent) { e.Day = 20170230 }), 2, []string{"offset 33: invalid date 20170230"}, true},
		{"category 0", bad(func(e *GBBQEvent) { e.Category = 0 }), 2, []string{"offset 33: category 0"}, true},
		{"NaN", bad(func(e *GBBQEvent) { e.F[0] = math.NaN() }), 2, []string{"offset 33: value 1 is NaN"}, true},
		{"negative", bad(func(e *GBBQEvent) { e.F[3] = -1 }), 2, []string{"offset 33: value 4 is -1"}, true},
		{"infinite", bad(func(e *GBBQEvent) { e.F[2] = math.Inf(1) }), 2, []string{"offset 33: value 3 is +Inf"}, true},
		{"unknown category kept", bad(func(e *GBBQEvent) { e.Category = 15 }), 3, nil, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var got []GBBQEvent
			var errs []string
			for e, err := range GBBQ(bytes.NewReader(tc.data)) {
				if err != nil {
					var fe *FormatError
					if !errors.As(err, &fe) {
						t.Fatalf("%T %v, want a *FormatError", err, err)
					}
					errs = append(errs, err.Error())
					continue
				}
				got = append(got, e)
			}
			if len(got) != tc.n || len(errs) != len(tc.errs) {
				t.Fatalf("%d records, errors %q; want %d and %q", len(got), errs, tc.n, tc.errs)
			}
			for i := range errs {
				if !strings.Contains(errs[i], tc.errs[i]) {
					t.Errorf("error %q, want %q", errs[i], tc.errs[i])
				}
			}
			path := filepath.Join(t.TempDir(), "gbbq")
			if err := os.WriteFile(path, tc.data, 0o644); err != nil {
				t.Fatal(err)
			}
			evs, err := ReadGBBQ(path)
			var fe *FormatError
			switch {
			case !tc.sizeOK && (evs != nil || !errors.As(err, &fe) || fe.File != path):
				t.Errorf("ReadGBBQ = %d records, %v; want only a size error naming the file", len(evs), err)
			case tc.sizeOK && (len(evs) != tc.n || (err != nil) != (len(tc.errs) > 0)):
				t.Errorf("ReadGBBQ = %d records, %v", len(evs), err)
			}
		})
	}
}

func TestGBBQStopEarly(t *testing.T) {
	data := gbbqFile(goodGBBQ(20150717), goodGBBQ(20160701), goodGBBQ(20170707))
	n := 0
	for range GBBQ(bytes.NewReader(data)) {
		n++
		if n == 2 {
			break
		}
	}
	if n != 2 {
		t.Errorf("%d records before break", n)
	}
}

func BenchmarkDecodeGBBQ(b *testing.B) {
	data, err := os.ReadFile(sample("gbbq", "gbbq_rustdx_20211109_subset"))
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	var r bytes.Reader
	for b.Loop() {
		r.Reset(data)
		n := 0
		for _, err := range GBBQ(&r) {
			if err != nil {
				b.Fatal(err)
			}
			n++
		}
		if n != 839 {
			b.Fatalf("%d records", n)
		}
	}
	b.ReportMetric(float64(839*b.N)/b.Elapsed().Seconds(), "records/s")
}
