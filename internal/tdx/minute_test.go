package tdx

import (
	"bytes"
	"encoding/binary"
	"errors"
	"math"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"mdqs/internal/market"
)

func hhmm(ts int64) string { return time.Unix(ts, 0).In(market.Shanghai()).Format("2006-01-02 15:04") }

func TestMinuteRealFiles(t *testing.T) {
	type bar struct {
		at                 string
		o, h, l, c, amount float64
		vol                int64
	}
	tests := []struct {
		path        string
		n, perDay   int
		first, last bar
		sessions    []string // first/last bar of the morning and afternoon
	}{
		{"mootdx-2022/vipdoc/sh/minline/sh688001.lc1", 2880, 240,
			bar{"2021-04-23 09:31", 36.71, 37.02, 36.71, 36.80, 256647, 7000},
			bar{"2021-06-03 15:00", 36.65, -1, -1, 36.65, 167088, 4500},
			[]string{"09:31", "11:30", "13:01", "15:00"}},
		{"mootdx-2022/vipdoc/sh/fzline/sh688001.lc5", 144, 48,
			bar{"2021-06-01 09:35", 37.69, 37.69, 36.89, 36.93, 2384077, 64000},
			bar{"2021-06-03 15:00", 36.84, 36.84, 36.65, 36.65, 933702, 25400},
			[]string{"09:35", "11:30", "13:05", "15:00"}},
	}
	for _, tc := range tests {
		t.Run(tc.path, func(t *testing.T) {
			bf, err := ReadBars(sample(tc.path), 0)
			if err != nil {
				t.Fatal(err)
			}
			if len(bf.Bars) != tc.n {
				t.Fatalf("%d bars, want %d", len(bf.Bars), tc.n)
			}
			check := func(what string, got market.Bar, want bar) {
				t.Helper()
				if hhmm(got.TS) != want.at || got.Day != market.DayOf(time.Unix(got.TS, 0)) {
					t.Errorf("%s: at %s (day %v), want %s", what, hhmm(got.TS), got.Day, want.at)
				}
				for _, p := range []struct {
					name      string
					got, want float64
				}{{"open", got.Open, want.o}, {"high", got.High, want.h}, {"low", got.Low, want.l}, {"close", got.Close, want.c}, {"amount", got.Amount, want.amount}} {
					if p.want >= 0 && p.got != p.want {
						t.Errorf("%s: %s %v, want %v", what, p.name, p.got, p.want)
					}
				}
				if got.Volume != want.vol {
					t.Errorf("%s: volume %d, want %d", what, got.Volume, want.vol)
				}
			}
			check("first", bf.Bars[0], tc.first)
			check("last", bf.Bars[len(bf.Bars)-1], tc.last)
			perDay := map[market.Day][]market.Bar{}
			for _, b := range bf.Bars {
				perDay[b.Day] = append(perDay[b.Day], b)
				if b.Open != roundTo(b.Open, 2) {
					t.Fatalf("price %v not rounded to 2 decimals", b.Open)
				}
			}
			if len(perDay)*tc.perDay != tc.n {
				t.Errorf("%d days for %d bars, want %d per day", len(perDay), tc.n, tc.perDay)
			}
			for d, bars := range perDay {
				if len(bars) != tc.perDay {
					t.Errorf("%v: %d bars, want %d", d, len(bars), tc.perDay)
					continue
				}
				half := tc.perDay / 2
				got := []string{hhmm(bars[0].TS)[11:], hhmm(bars[half-1].TS)[11:], hhmm(bars[half].TS)[11:], hhmm(bars[len(bars)-1].TS)[11:]}
				if strings.Join(got, " ") != strings.Join(tc.sessions, " ") {
					t.Errorf("%v: sessions %v, want %v", d, got, tc.sessions)
				}
			}
		})
	}
}

func TestPackedDay(t *testing.T) {
	if d, ok := packedDay(35239); !ok || d != 20210423 {
		t.Errorf("packedDay(35239) = %v %v, want 2021-04-23 (tdx.md §4.1 example)", d, ok)
	}
	for _, w := range []uint16{0, 100, 1300, 2047, 35239 - 423 + 230, 65535} { // month 0, day 0, month 13, month 20, Feb 30
		if d, ok := packedDay(w); ok {
			t.Errorf("packedDay(%d) = %v, want invalid", w, d)
		}
	}
	for _, d := range []market.Day{20040101, 20210423, 20240229, 20351231} {
		w, ok := packDay(d)
		back, ok2 := packedDay(w)
		if !ok || !ok2 || back != d {
			t.Errorf("packDay(%v) = %d → %v", d, w, back)
		}
	}
	if _, ok := packDay(20360101); ok {
		t.Error("2036 does not fit the date word")
	}
}

func minuteRec(dw, tw uint16, o, h, l, c float32, amount float32, vol int32) []byte {
	le := binary.LittleEndian
	b := le.AppendUint16(nil, dw)
	b = le.AppendUint16(b, tw)
	for _, p := range []float32{o, h, l, c, amount} {
		b = le.AppendUint32(b, math.Float32bits(p))
	}
	b = le.AppendUint32(b, uint32(vol))
	return le.AppendUint32(b, 0)
}

func TestMinuteEdgeCases(t *testing.T) {
	good := func(tw uint16) []byte { return minuteRec(35239, tw, 10, 11, 9, 10.5, 1000, 100) }
	cat := func(parts ...[]byte) []byte { return bytes.Join(parts, nil) }
	intAsFloat := make([]byte, 32)
	copy(intAsFloat, good(571))
	binary.LittleEndian.PutUint32(intAsFloat[4:], 3671) // an integer price read as float ≈ 5e-42
	tests := []struct {
		name     string
		data     []byte
		notAfter market.Day
		bars     int
		bad      []string
		partial  int
	}{
		{name: "empty", data: nil},
		{name: "good", data: cat(good(571), good(572)), bars: 2},
		{name: "truncated last record", data: cat(good(571), good(572))[:40], bars: 1, partial: 8},
		{name: "time word out of range", data: cat(good(1440), good(65535), good(571)), bars: 1, bad: []string{"time word 1440", "time word 65535"}},
		{name: "bad date word", data: cat(minuteRec(0, 571, 10, 11, 9, 10, 1, 1), good(571)), bars: 1, bad: []string{"invalid packed date"}},
		{name: "future", data: good(571), notAfter: 20210422, bad: []string{"in the future"}},
		{name: "not increasing", data: cat(good(572), good(571), good(572), good(573)), bars: 2, bad: []string{"does not follow", "does not follow"}},
		{name: "zero price", data: minuteRec(35239, 571, 0, 11, 9, 10, 1, 1), bad: []string{"impossible price 0"}},
		{name: "negative price", data: minuteRec(35239, 571, -1, 11, 9, 10, 1, 1), bad: []string{"impossible price"}},
		{name: "NaN price", data: minuteRec(35239, 571, float32(math.NaN()), 11, 9, 10, 1, 1), bad: []string{"impossible price"}},
		{name: "huge price", data: minuteRec(35239, 571, 3e38, 3e38, 3e38, 3e38, 1, 1), bad: []string{"impossible price"}},
		{name: "integer read as float", data: intAsFloat, bad: []string{"rounds to zero"}},
		{name: "high below low", data: minuteRec(35239, 571, 10, 9, 11, 10, 1, 1), bad: []string{"outside the low..high"}},
		{name: "negative volume", data: minuteRec(35239, 571, 10, 11, 9, 10, 1, -5), bad: []string{"negative volume"}},
		{name: "Inf amount", data: minuteRec(35239, 571, 10, 11, 9, 10, float32(math.Inf(1)), 5), bad: []string{"invalid amount"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var bars int
			var bad []string
			var partial int
			for _, err := range MinuteBars(bytes.NewReader(tc.data), LayoutLC, Scale{}, tc.notAfter) {
				var fe *FormatError
				var pe *PartialRecordError
				switch {
				case err == nil:
					bars++
				case errors.As(err, &fe):
					bad = append(bad, fe.Reason)
				case errors.As(err, &pe):
					partial = pe.Len
				default:
					t.Fatalf("unexpected error %v", err)
				}
			}
			if bars != tc.bars || partial != tc.partial || len(bad) != len(tc.bad) {
				t.Fatalf("got %d bars, bad %q, partial %d; want %d, %q, %d", bars, bad, partial, tc.bars, tc.bad, tc.partial)
			}
			for i := range bad {
				if !strings.Contains(bad[i], tc.bad[i]) {
					t.Errorf("error %q, want %q", bad[i], tc.bad[i])
				}
			}
		})
	}
}

// The older .1/.5 layout stores price × 100 as uint32; the same bars must
// come back from either layout.
func TestMinuteLayoutsRoundTrip(t *testing.T) {
	bf, err := ReadBars(sample("mootdx-2022/vipdoc/sh/fzline/sh688001.lc5"), 0)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		layout MinuteLayout
		code   string
	}{{LayoutLC, "688001.SH"}, {LayoutOld, "688001.SH"}, {LayoutLC, "000001.SH"}, {LayoutLC, "510300.SH"}} {
		s := ScaleFor(market.MustCode(tc.code))
		src := bf.Bars
		if s.VolumeMul > 1 {
			src = append([]market.Bar(nil), src...)
			for i := range src {
				src[i].Volume *= s.VolumeMul
			}
		}
		var buf bytes.Buffer
		if err := WriteMinute(&buf, tc.layout, src, s); err != nil {
			t.Fatal(err)
		}
		if buf.Len() != 32*len(src) {
			t.Fatalf("%d bytes for %d bars", buf.Len(), len(src))
		}
		i := 0
		for b, err := range MinuteBars(&buf, tc.layout, s, 0) {
			if err != nil {
				t.Fatalf("%v %s: %v", tc.layout, tc.code, err)
			}
			if !sameBar(b, src[i]) {
				t.Fatalf("%v %s bar %d: %+v, want %+v", tc.layout, tc.code, i, b, src[i])
			}
			i++
		}
		if i != len(src) {
			t.Fatalf("%d bars back, want %d", i, len(src))
		}
	}
	if _, err := AppendMinuteRecord(nil, LayoutLC, market.Bar{Day: 20210601, TS: market.Day(20210601).At(9, 35, 30).Unix(), Open: 1, High: 1, Low: 1, Close: 1}, Scale{}); err == nil {
		t.Error("a TS that is not a whole minute must not encode")
	}
	if _, err := AppendMinuteRecord(nil, LayoutLC, market.Bar{Day: 20400101, TS: market.Day(20400101).At(9, 35, 0).Unix(), Open: 1, High: 1, Low: 1, Close: 1}, Scale{}); err == nil {
		t.Error("a date after 2035 must not encode")
	}
}

func TestMinuteUnknownLayout(t *testing.T) {
	for _, err := range MinuteBars(bytes.NewReader(make([]byte, 64)), 0, Scale{}, 0) {
		if err == nil || !strings.Contains(err.Error(), "unknown minute layout") {
			t.Errorf("err %v", err)
		}
		return
	}
	t.Error("no error for layout 0")
}

// fastPrice must give what decode gives (roundTo) for every word it takes,
// and take exactly the words decode takes as a price: positive, below
// maxPrice, not rounding to zero. Random words of both layouts at every
// scale's decimals, and the edges: prices at and around x.5, the smallest
// that round to one unit, the largest below maxPrice, NaN and infinities.
func TestFastPriceIsRoundTo(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	check := func(w uint32, old bool, d int) {
		t.Helper()
		p := math.Pow10(d)
		v := float64(math.Float32frombits(w))
		if old {
			v = float64(w) / 100
		}
		want := roundTo(v, d)
		wantOK := v > 0 && v < maxPrice && want != 0
		got, ok := fastPrice(w, old, p)
		if ok != wantOK || (ok && got != want) {
			t.Fatalf("word %#x (old %v, %d decimals, value %v): fastPrice = %v, %v; roundTo = %v, taken %v", w, old, d, v, got, ok, want, wantOK)
		}
	}
	edges := []float32{0.005, 0.0049999, 0.00500001, 0.015, 0.025, 0.125, 1.005, 2.675, 9.995, 99999.995, 1e8, 99999992, float32(math.Inf(1)), float32(math.NaN()), 0, 1e-42}
	for d := 0; d <= 4; d++ {
		for _, f := range edges {
			w := math.Float32bits(f)
			for dw := -3; dw <= 3; dw++ {
				check(w+uint32(dw), false, d)
			}
		}
		for _, n := range []uint32{0, 1, 49, 50, 51, 149, 150, 1e10 / 100, math.MaxUint32} {
			check(n, true, d)
		}
		for range 300_000 {
			w := rng.Uint32()
			check(w, false, d)
			check(w, true, d)
			// Plausible prices: a float32 of a value with 2-4 decimals.
			check(math.Float32bits(float32(float64(rng.IntN(10_000_000))/math.Pow10(rng.IntN(5)))), false, d)
		}
	}
}
