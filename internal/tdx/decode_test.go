package tdx

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"iter"
	"math"
	"testing"
	"testing/iotest"
	"time"

	"mdqs/internal/market"
)

// The bar decoders run a fast path for the usual record and the per-record
// checks for the rest (dayDecoder, minuteDecoder.decodeAll). These tests
// hold them to the per-record path alone, record by record, which is how
// DayBars and MinuteBars decoded before: same bars, same errors at the
// same offsets, in the same order.

// perRecordDay decodes every record with dayChecker.check and
// DayRecord.bar, one call per record.
func perRecordDay(data []byte, s Scale, notAfter market.Day) []string {
	s = s.norm()
	c := newDayChecker(s, notAfter)
	var out []string
	_, err := eachRecord(bytes.NewReader(data), BarRecordSize, func(off int64, b []byte) bool {
		r := decodeDayRecord(b)
		if why := c.check(r); why != "" {
			out = append(out, (&FormatError{Offset: off, Reason: why}).Error())
		} else {
			out = append(out, fmt.Sprintf("%+v", r.bar(s)))
		}
		return true
	})
	if err != nil {
		out = append(out, err.Error())
	}
	return out
}

// perRecordMinute decodes every record with minuteDecoder.decode.
func perRecordMinute(data []byte, l MinuteLayout, s Scale, notAfter market.Day) []string {
	m, err := newMinuteDecoder(l, s, notAfter)
	if err != nil {
		return []string{err.Error()}
	}
	var out []string
	_, err = eachRecord(bytes.NewReader(data), BarRecordSize, func(off int64, b []byte) bool {
		if bar, why := m.decode(b); why != "" {
			out = append(out, (&FormatError{Offset: off, Reason: why}).Error())
		} else {
			out = append(out, fmt.Sprintf("%+v", bar))
		}
		return true
	})
	if err != nil {
		out = append(out, err.Error())
	}
	return out
}

// streamed renders what an iterator yields as perRecordDay does.
func streamed(seq iter.Seq2[market.Bar, error]) []string {
	var out []string
	for b, err := range seq {
		if err != nil {
			out = append(out, err.Error())
		} else {
			out = append(out, fmt.Sprintf("%+v", b))
		}
	}
	return out
}

// collected renders collectBars' result: its bars, then its errors (the
// bad records joined, the partial record), as perRecordDay would list
// them with every error moved to the end. The reader hands the file over
// in pieces of r's choosing.
func collected(t *testing.T, r io.Reader, kind Kind, s Scale, notAfter market.Day) []string {
	t.Helper()
	bars, partial, bad, err := collectBars(r, File{Kind: kind}, s, notAfter)
	if err != nil {
		t.Fatalf("collectBars: %v", err)
	}
	var out []string
	for _, b := range bars {
		out = append(out, fmt.Sprintf("%+v", b))
	}
	if bad != nil {
		out = append(out, bad.Error())
	}
	if partial != nil {
		out = append(out, partial.Error())
	}
	return out
}

// errorsLast reorders perRecordDay's list as collected lists it.
func errorsLast(items []string) []string {
	var bars []string
	var errs errorList
	var partial string
	for _, it := range items {
		switch {
		case !isError(it):
			bars = append(bars, it)
		case bytes.Contains([]byte(it), []byte("partial trailing record")):
			partial = it
		default:
			errs.add(errors.New(it))
		}
	}
	if err := errs.err(); err != nil {
		bars = append(bars, err.Error())
	}
	if partial != "" {
		bars = append(bars, partial)
	}
	return bars
}

func isError(item string) bool { return len(item) > 4 && item[:4] == "tdx:" }

func sameItems(t *testing.T, what string, got, want []string) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%s: %d items, want %d\ngot  %q\nwant %q", what, len(got), len(want), got, want)
	}
	for i := range got {
		if got[i] != want[i] {
			t.Fatalf("%s: item %d = %s, want %s", what, i, got[i], want[i])
		}
	}
}

// dayScales are one scale of each set of price rules.
var dayScales = []string{"600000.SH", "000001.SH", "880006.SH", "113011.SH"}

// checkDayPaths compares DayBars and collectBars with perRecordDay for
// each set of price rules.
func checkDayPaths(t *testing.T, data []byte, notAfter market.Day) {
	t.Helper()
	for _, code := range dayScales {
		s := ScaleFor(market.MustCode(code))
		want := perRecordDay(data, s, notAfter)
		sameItems(t, code+" DayBars", streamed(DayBars(bytes.NewReader(data), s, notAfter)), want)
		sameItems(t, code+" collectBars", collected(t, bytes.NewReader(data), KindDay, s, notAfter), errorsLast(want))
	}
}

func checkMinutePaths(t *testing.T, data []byte, l MinuteLayout, notAfter market.Day) {
	t.Helper()
	kind := KindLC1
	if l == LayoutOld {
		kind = KindMin1
	}
	for _, code := range []string{"600000.SH", "000001.SH", "880006.SH", "510300.SH"} {
		s := ScaleFor(market.MustCode(code))
		want := perRecordMinute(data, l, s, notAfter)
		sameItems(t, code+" MinuteBars", streamed(MinuteBars(bytes.NewReader(data), l, s, notAfter)), want)
		sameItems(t, code+" collectBars", collected(t, bytes.NewReader(data), kind, s, notAfter), errorsLast(want))
	}
}

// TestDayDecoderEveryDay decodes a record for every calendar day from
// 1990 to 2100: each bar closes at 15:00 Shanghai time, through the
// daylight saving time of 1990 and 1991 and every month end and leap day.
func TestDayDecoderEveryDay(t *testing.T) {
	var recs []DayRecord
	for d := market.Day(19900101); d <= 21001231; d = d.AddDays(1) {
		recs = append(recs, goodDay(uint32(d)))
	}
	data := dayFile(recs...)
	var bad error
	bars := newDayDecoder(Scale{}, 0).decode(nil, data, 0, func(_ int, e *FormatError) { bad = e })
	if bad != nil || len(bars) != len(recs) {
		t.Fatalf("%d bars of %d, %v", len(bars), len(recs), bad)
	}
	for i, b := range bars {
		d := market.Day(recs[i].Date)
		if want := time.Date(d.Year(), d.Month(), d.Dom(), 15, 0, 0, 0, market.Shanghai()).Unix(); b.Day != d || b.TS != want {
			t.Fatalf("%v: bar %v TS %d, want %d", d, b.Day, b.TS, want)
		}
	}
	// A day of the pre-1992 summers through both paths: record after record
	// (the fast path) and one at a time (every record a new decoder's first).
	checkDayPaths(t, data[:800*BarRecordSize], 0)
	for _, d := range []market.Day{19900415, 19900416, 19900916, 19900917, 19910414, 19910915} {
		b := newDayDecoder(Scale{}, 0).decode(nil, dayFile(goodDay(uint32(d))), 0, nil)
		if want := d.At(15, 0, 0).Unix(); b[0].TS != want {
			t.Errorf("%v alone: TS %d, want %d", d, b[0].TS, want)
		}
	}
}

// TestDayDecoderEdges covers what the fast path must hand to the checks:
// the first record of a month, impossible days of a month it has cached,
// a bound inside the month, equal and earlier dates, and every price and
// amount rule, at buffer boundaries too.
func TestDayDecoderEdges(t *testing.T) {
	withPrices := func(d uint32, o, h, l, c uint32) DayRecord {
		r := goodDay(d)
		r.Open, r.High, r.Low, r.Close = o, h, l, c
		return r
	}
	withAmount := func(d uint32, a float32) DayRecord {
		r := goodDay(d)
		r.Amount = a
		return r
	}
	negZero := float32(0)
	negZero = -negZero
	recs := []DayRecord{
		goodDay(20230227), goodDay(20230228), goodDay(20230229), goodDay(20230230), goodDay(20230301),
		goodDay(20230301), goodDay(20230228), goodDay(20230302), goodDay(20230315), goodDay(20230316),
		goodDay(20230331), goodDay(20230332), goodDay(20230400), goodDay(20230401),
		withPrices(20230403, 0, 1100, 900, 1000), withPrices(20230404, 1000, 1100, 0, 1000),
		withPrices(20230405, 1000, 0, 0, 0), withPrices(20230406, 1200, 1100, 900, 1000),
		withPrices(20230407, 1000, 1100, 900, 800), withPrices(20230410, 1000, 900, 1100, 1000),
		withAmount(20230411, -1), withAmount(20230412, negZero), withAmount(20230413, float32(math.Inf(1))),
		withAmount(20230414, float32(math.NaN())), withAmount(20230417, 3e38),
		goodDay(20231231), goodDay(20240101), goodDay(20240229), goodDay(20250229), goodDay(21001231), goodDay(21010101),
	}
	data := dayFile(recs...)
	for _, notAfter := range []market.Day{0, 20230315, 20230331, 20230401, 20240229} {
		checkDayPaths(t, data, notAfter)
		checkDayPaths(t, append(data[:len(data):len(data)], 1, 2, 3), notAfter) // and a partial record
	}
	// Across buffers: 700 records with bad ones around each boundary, the
	// file handed over whole, a byte at a time and in halves.
	var long []DayRecord
	d := market.Day(20000103)
	for i := range 700 {
		r := goodDay(uint32(d))
		switch i {
		case 0, 255, 256, 300, 511, 512, 699:
			r.Low = 0
		case 257:
			r.Date = 19991231
		}
		long = append(long, r)
		d = d.AddDays(1)
	}
	data = append(dayFile(long...), 9, 9)
	checkDayPaths(t, data, 0)
	want := errorsLast(perRecordDay(data, Scale{}, 0))
	sameItems(t, "one byte at a time", collected(t, iotest.OneByteReader(bytes.NewReader(data)), KindDay, Scale{}, 0), want)
	sameItems(t, "halves", collected(t, iotest.HalfReader(bytes.NewReader(data)), KindDay, Scale{}, 0), want)
}

func TestMinuteDecoderEdges(t *testing.T) {
	const day = 35239 // 2021-03-25 (tdx.md §4.1's example)
	rec := func(dw, tw uint16, o, h, l, c float32, amount float32, vol int32) []byte {
		return minuteRec(dw, tw, o, h, l, c, amount, vol)
	}
	good := func(dw, tw uint16) []byte { return rec(dw, tw, 10, 11, 9, 10.5, 1000, 100) }
	data := bytes.Join([][]byte{
		good(day, 571), good(day, 572), good(day, 572), good(day, 571), good(day, 1439), good(day, 1440),
		good(day+1, 570), good(day+1, 571), good(day+1, 2000), good(day, 900),
		rec(day+1, 600, 0, 11, 9, 10, 1, 1), rec(day+1, 601, 10, 11, 0.001, 10, 1, 1), rec(day+1, 602, 12, 11, 9, 10, 1, 1),
		rec(day+1, 603, 10, 11, 9, float32(math.NaN()), 1, 1), rec(day+1, 604, 10, 11, 9, 2e8, 1, 1),
		rec(day+1, 605, 10, 11, 9, 10, -1, 1), rec(day+1, 606, 10, 11, 9, 10, float32(math.Inf(1)), 1),
		rec(day+1, 607, 10, 11, 9, 10, 1, -5), rec(day+1, 608, 10.004, 11, 9, 10.006, 1, 1),
		rec(day+1, 609, 10, 10, 10, 10, 0, 0), good(day+2, 571), good(65535, 571), good(day+3, 571),
		{1, 2, 3},
	}, nil)
	for _, l := range []MinuteLayout{LayoutLC, LayoutOld} {
		for _, notAfter := range []market.Day{0, 20210326} {
			checkMinutePaths(t, data, l, notAfter)
		}
	}
	// Across buffers: a session a day for three days.
	var long [][]byte
	for dw := uint16(day); dw < day+3; dw++ {
		for m := uint16(571); m < 571+240; m++ {
			b := good(dw, m)
			if m%97 == 0 {
				b = rec(dw, m, 10, 9, 11, 10, 1, 1)
			}
			long = append(long, b)
		}
	}
	checkMinutePaths(t, bytes.Join(long, nil), LayoutLC, 0)
}
