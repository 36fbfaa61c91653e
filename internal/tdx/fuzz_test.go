package tdx

// One fuzz target per decoder. Beyond "never panics", each checks what the
// decoder promises for whatever it accepts, re-encodes accepted values where
// a writer exists, and stops iterations early to catch a yield after break.
// Seed corpora are in testdata/fuzz/<FuzzName>/.

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"iter"
	"math"
	"strings"
	"testing"

	"mdqs/internal/market"
)

// drain ranges over seq fully, then again stopping after k items, and
// returns the values and errors of the full pass.
func drain[T any](t *testing.T, mk func() iter.Seq2[T, error], k int) ([]T, []error) {
	t.Helper()
	var vals []T
	var errs []error
	for v, err := range mk() {
		if err != nil {
			errs = append(errs, err)
			continue
		}
		vals = append(vals, v)
	}
	n := 0
	for range mk() {
		n++
		if n >= k {
			break
		}
	}
	return vals, errs
}

// onlyDecodeErrors fails on errors other than the decoders' own types: a
// bytes.Reader never fails, so anything else is a bug.
func onlyDecodeErrors(t *testing.T, errs []error) (partial int) {
	t.Helper()
	for _, err := range errs {
		var fe *FormatError
		var pe *PartialRecordError
		switch {
		case errors.As(err, &fe):
			if fe.Reason == "" || fe.Offset < 0 {
				t.Fatalf("empty FormatError %+v", fe)
			}
		case errors.As(err, &pe):
			partial++
		default:
			t.Fatalf("unexpected error type %T: %v", err, err)
		}
	}
	if partial > 1 {
		t.Fatalf("%d partial-record errors", partial)
	}
	return partial
}

func checkBar(t *testing.T, b market.Bar, daily bool) {
	t.Helper()
	if !(b.Low > 0 && b.Low <= b.Open && b.Low <= b.Close && b.Open <= b.High && b.Close <= b.High) {
		t.Fatalf("inconsistent prices %+v", b)
	}
	if b.Volume < 0 || !(b.Amount >= 0) || math.IsInf(b.Amount, 0) {
		t.Fatalf("volume/amount %+v", b)
	}
	if _, err := market.ParseDay(b.Day.Compact()); err != nil {
		t.Fatalf("invalid day %v", b.Day)
	}
	if daily && b.TS != b.Day.At(15, 0, 0).Unix() {
		t.Fatalf("daily TS %d for %v", b.TS, b.Day)
	}
	if !daily && market.DayOf(timeOf(b.TS)) != b.Day {
		t.Fatalf("minute TS %d not on %v", b.TS, b.Day)
	}
}

func FuzzDay(f *testing.F) {
	f.Add(dayFile(goodDay(20230224)), uint8(1))
	f.Fuzz(func(t *testing.T, data []byte, k uint8) {
		recs, errs := drain(t, func() iter.Seq2[DayRecord, error] { return DayRecords(bytes.NewReader(data), 0) }, int(k))
		partial := onlyDecodeErrors(t, errs)
		if got, want := len(recs)+len(errs)-partial, len(data)/32; got != want {
			t.Fatalf("%d records and errors for %d records", got, want)
		}
		if (partial == 1) != (len(data)%32 != 0) {
			t.Fatalf("partial %d for %d bytes", partial, len(data))
		}
		s := ScaleFor(market.MustCode("600000.SH")) // DayRecords applies a stock's rules
		var out []byte
		for i, r := range recs {
			if i > 0 && r.Date <= recs[i-1].Date {
				t.Fatalf("dates not increasing: %d after %d", r.Date, recs[i-1].Date)
			}
			checkBar(t, r.Bar(s), true)
			out = AppendDayRecord(out, r)
		}
		bars, berrs := drain(t, func() iter.Seq2[market.Bar, error] { return DayBars(bytes.NewReader(data), s, 0) }, int(k))
		if len(bars) != len(recs) || len(berrs) != len(errs) {
			t.Fatalf("DayBars: %d bars %d errors, DayRecords: %d and %d", len(bars), len(berrs), len(recs), len(errs))
		}
		for i := range bars {
			if !sameBar(bars[i], recs[i].Bar(s)) {
				t.Fatalf("DayBars bar %d differs from DayRecords", i)
			}
		}
		// The decoders' fast path agrees with the per-record checks.
		checkDayPaths(t, data, 0)
		checkDayPaths(t, data, 20230224)
		// What was accepted must survive a re-encode unchanged.
		again, errs := drain(t, func() iter.Seq2[DayRecord, error] { return DayRecords(bytes.NewReader(out), 0) }, 1)
		if len(errs) != 0 || fmt.Sprint(again) != fmt.Sprint(recs) {
			t.Fatalf("re-encoded records differ: %v", errs)
		}
		// An index may close outside low..high, a statistic index holds
		// counts: still one bar or error per record, dates in order.
		for _, code := range []string{"000001.SH", "880006.SH"} {
			ls := ScaleFor(market.MustCode(code))
			lbars, lerrs := drain(t, func() iter.Seq2[market.Bar, error] { return DayBars(bytes.NewReader(data), ls, 0) }, int(k))
			onlyDecodeErrors(t, lerrs)
			if len(lbars)+len(lerrs) != len(bars)+len(berrs) {
				t.Fatalf("%s: %d bars and %d errors for %d records", code, len(lbars), len(lerrs), len(bars)+len(berrs))
			}
			for i, b := range lbars {
				checkLooseBar(t, b, ls)
				if i > 0 && b.Day <= lbars[i-1].Day {
					t.Fatalf("%s: dates not increasing", code)
				}
			}
		}
	})
}

// checkLooseBar checks what every bar promises whatever its type's price
// rules: a valid day, finite non-negative prices (positive but for counts),
// a usable volume and amount.
func checkLooseBar(t *testing.T, b market.Bar, s Scale) {
	t.Helper()
	for _, p := range []float64{b.Open, b.High, b.Low, b.Close} {
		if !(p >= 0) || math.IsInf(p, 0) || (p == 0 && !s.countsOnly()) {
			t.Fatalf("price %v in %+v", p, b)
		}
	}
	if b.Volume < 0 || !(b.Amount >= 0) || math.IsInf(b.Amount, 0) {
		t.Fatalf("volume/amount %+v", b)
	}
	if _, err := market.ParseDay(b.Day.Compact()); err != nil {
		t.Fatalf("invalid day %v", b.Day)
	}
}

// FuzzSettle runs the per-file decisions on whatever the decoders accept:
// the bond/repo divisor, the index and statistic flags, and the index
// minute volumes computed from daily bars (the same bytes read as both).
func FuzzSettle(f *testing.F) {
	bond := func(d, raw, lots uint32, amount float32) DayRecord {
		return DayRecord{Date: d, Open: raw, High: raw, Low: raw, Close: raw, Volume: lots, Amount: amount}
	}
	f.Add(dayFile(bond(20140822, 110170, 61000, 110.17*610000)), uint8(0))                                            // 2014 bond, ÷1000
	f.Add(dayFile(bond(20230224, 1047970, 372968, 104.797*3729680)), uint8(0))                                        // bond, ÷10000
	f.Add(dayFile(bond(20140822, 110170, 0, 0)), uint8(0))                                                            // no volume: undecided
	f.Add(dayFile(bond(20140822, 3240, 95000, 9.5e8), bond(20140825, 32400, 95000, 9.5e8)), uint8(1))                 // repo, split
	f.Add(dayFile(DayRecord{Date: 19921009, Open: 60000, High: 61000, Low: 59000, Close: 62000}), uint8(2))           // early index day
	f.Add(dayFile(DayRecord{Date: 20230224, Open: 4500, High: 0, Low: 1200, Close: 0}), uint8(3))                     // statistic counts
	f.Add(dayFile(DayRecord{Date: 20230224, Open: 1, High: 1, Low: 1, Close: 1, Amount: 1e-40, Volume: 1}), uint8(2)) // absurd rate
	codes := []string{"113011.SH", "204001.SH", "000001.SH", "880006.SH", "600000.SH"}
	f.Fuzz(func(t *testing.T, data []byte, which uint8) {
		code := market.MustCode(codes[int(which)%len(codes)])
		s := ScaleFor(code).norm()
		days, _ := drain(t, func() iter.Seq2[market.Bar, error] { return DayBars(bytes.NewReader(data), s, 0) }, 1)
		bf := &BarFile{File: File{Kind: KindDay, Code: code}, Scale: s, Bars: days}
		if err := bf.settle(0, nil); err != nil {
			t.Fatalf("a day file's decisions failed: %v", err)
		}
		if d := bf.Scale.PriceDiv; d != s.PriceDiv && d != s.OlderDiv {
			t.Fatalf("divisor %v, want %v or %v", d, s.PriceDiv, s.OlderDiv)
		}
		for _, b := range bf.Bars {
			checkLooseBar(t, b, s)
		}
		for _, fl := range bf.Flagged {
			if fl.Reason == "" || fl.Records < 0 || fl.Records > len(bf.Bars) {
				t.Fatalf("flag %+v for %d bars", fl, len(bf.Bars))
			}
		}
		idx := ScaleFor(market.MustCode("000001.SH"))
		mins, _ := drain(t, func() iter.Seq2[market.Bar, error] { return MinuteBars(bytes.NewReader(data), LayoutLC, idx, 0) }, 1)
		estimated, ok := indexMinuteVolumes(mins, days)
		if estimated < 0 || estimated > len(mins) || (!ok && estimated != 0) {
			t.Fatalf("estimated %d of %d, ok %v", estimated, len(mins), ok)
		}
		for _, m := range mins {
			if ok && (m.Volume < 0 || m.Volume > maxVolume) {
				t.Fatalf("minute volume %d", m.Volume)
			}
		}
	})
}

func FuzzMinute(f *testing.F) {
	f.Add(minuteRec(35239, 571, 10, 11, 9, 10.5, 1000, 100), false, uint8(1))
	f.Fuzz(func(t *testing.T, data []byte, old bool, k uint8) {
		layout := LayoutLC
		if old {
			layout = LayoutOld
		}
		s := Scale{}
		bars, errs := drain(t, func() iter.Seq2[market.Bar, error] { return MinuteBars(bytes.NewReader(data), layout, s, 0) }, int(k))
		partial := onlyDecodeErrors(t, errs)
		if got, want := len(bars)+len(errs)-partial, len(data)/32; got != want {
			t.Fatalf("%d bars and errors for %d records", got, want)
		}
		small := true
		for i, b := range bars {
			checkBar(t, b, false)
			if i > 0 && b.TS <= bars[i-1].TS {
				t.Fatalf("times not increasing")
			}
			if b.Open != roundTo(b.Open, 2) || b.Close != roundTo(b.Close, 2) {
				t.Fatalf("prices not rounded: %+v", b)
			}
			small = small && b.High < 1e5 // float32 keeps 2 decimals exactly only below ~131072
		}
		checkMinutePaths(t, data, layout, 0)
		checkMinutePaths(t, data, layout, 20210325)
		// A statistic index's minute values are counts: zeros and any order.
		cs := ScaleFor(market.MustCode("880006.SH"))
		cbars, cerrs := drain(t, func() iter.Seq2[market.Bar, error] { return MinuteBars(bytes.NewReader(data), layout, cs, 0) }, int(k))
		onlyDecodeErrors(t, cerrs)
		if len(cbars)+len(cerrs) != len(bars)+len(errs) {
			t.Fatalf("counts: %d bars and %d errors for %d records", len(cbars), len(cerrs), len(bars)+len(errs))
		}
		for _, b := range cbars {
			checkLooseBar(t, b, cs)
		}
		if !small && layout == LayoutLC {
			return
		}
		var buf bytes.Buffer
		if err := WriteMinute(&buf, layout, bars, s); err != nil {
			t.Fatalf("accepted bars do not encode: %v", err)
		}
		again, errs := drain(t, func() iter.Seq2[market.Bar, error] { return MinuteBars(bytes.NewReader(buf.Bytes()), layout, s, 0) }, 1)
		if len(errs) != 0 || len(again) != len(bars) {
			t.Fatalf("re-encode: %d bars, %v", len(again), errs)
		}
		for i := range bars {
			if !sameBar(again[i], bars[i]) {
				t.Fatalf("bar %d: %+v != %+v", i, again[i], bars[i])
			}
		}
	})
}

func FuzzBlockDat(f *testing.F) {
	f.Fuzz(func(t *testing.T, data []byte, k uint8) {
		sizeErr := blockDatSize(data)
		blocks, errs := drain(t, func() iter.Seq2[Block, error] { return Blocks(bytes.NewReader(data)) }, int(k))
		onlyDecodeErrors(t, errs)
		for _, b := range blocks {
			if len(b.Codes) > MaxBlockMembers || b.Truncated != (len(b.Codes) == MaxBlockMembers) {
				t.Fatalf("block %q: %d codes, truncated %v", b.Name, len(b.Codes), b.Truncated)
			}
			for _, c := range b.Codes {
				if _, err := market.ParseCode(c.String()); err != nil {
					t.Fatalf("code %v: %v", c, err)
				}
			}
		}
		if sizeErr == nil {
			n := int(data[384]) | int(data[385])<<8
			if len(blocks)+len(errs) != n {
				t.Fatalf("%d blocks and %d errors for a header of %d", len(blocks), len(errs), n)
			}
		}
	})
}

// fuzzText checks a line decoder: only FormatErrors, one value or error per
// non-blank line at most, and a writer round trip where one exists.
func fuzzText[T any](t *testing.T, data []byte, k uint8, parse func(io.Reader) iter.Seq2[T, error], write func(io.Writer, []T) error) {
	vals, errs := drain(t, func() iter.Seq2[T, error] { return parse(bytes.NewReader(data)) }, int(k))
	onlyDecodeErrors(t, errs)
	if lines := bytes.Count(data, []byte("\n")) + 1; len(vals)+len(errs) > lines {
		t.Fatalf("%d values and errors from %d lines", len(vals), lines)
	}
	if write == nil {
		return
	}
	var buf bytes.Buffer
	if err := write(&buf, vals); err != nil {
		return // e.g. a name with a character GBK cannot hold (decoded from GB18030)
	}
	again, errs := drain(t, func() iter.Seq2[T, error] { return parse(bytes.NewReader(buf.Bytes())) }, 1)
	if len(errs) != 0 || fmt.Sprintf("%+v", again) != fmt.Sprintf("%+v", vals) {
		t.Fatalf("round trip:\n got %+v\nwant %+v\nerrs %v", again, vals, errs)
	}
}

func FuzzZSCfg(f *testing.F) {
	f.Fuzz(func(t *testing.T, data []byte, k uint8) { fuzzText(t, data, k, ZSEntries, WriteZSCfg) })
}

func FuzzHYCfg(f *testing.F) {
	f.Fuzz(func(t *testing.T, data []byte, k uint8) {
		// Writing needs one layout: the newer one holds X-codes only, the
		// older SW and H codes only.
		older := func(w io.Writer, es []HYEntry) error { return WriteHYCfg(w, es, true) }
		newer := func(w io.Writer, es []HYEntry) error { return WriteHYCfg(w, es, false) }
		es, _ := drain(t, func() iter.Seq2[HYEntry, error] { return HYEntries(bytes.NewReader(data)) }, 1)
		hasX, hasOld := false, false
		for _, e := range es {
			hasX = hasX || e.XCode != ""
			hasOld = hasOld || e.SWCode != "" || e.HCode != ""
		}
		switch {
		case hasX && hasOld:
			fuzzText(t, data, k, HYEntries, nil)
		case hasX:
			fuzzText(t, data, k, HYEntries, newer)
		default:
			fuzzText(t, data, k, HYEntries, older)
		}
	})
}

func FuzzBKCfg(f *testing.F) {
	f.Fuzz(func(t *testing.T, data []byte, k uint8) { fuzzText(t, data, k, BKEntries, WriteBKCfg) })
}

func FuzzIncon(f *testing.F) {
	f.Fuzz(func(t *testing.T, data []byte, k uint8) {
		fuzzText(t, data, k, InconEntries, nil)
		es, _ := drain(t, func() iter.Seq2[InconEntry, error] { return InconEntries(bytes.NewReader(data)) }, 1)
		for _, e := range es {
			if e.Section == "" || e.Code == "" {
				t.Fatalf("entry %+v without section or code", e)
			}
		}
	})
}

func FuzzInfoHarbor(f *testing.F) {
	f.Fuzz(func(t *testing.T, data []byte, k uint8) {
		write := func(w io.Writer, bs []HarborBlock) error {
			for _, b := range bs {
				// Names with a comma or CR/LF cannot come out of the
				// parser whole; leading/trailing spaces are trimmed.
				if strings.ContainsAny(b.Name, ",\r\n") {
					return errors.New("skip")
				}
			}
			return WriteInfoHarbor(w, bs, 7)
		}
		fuzzText(t, data, k, HarborBlocks, write)
	})
}

func FuzzTNF(f *testing.F) {
	f.Fuzz(func(t *testing.T, data []byte, wide bool, k uint8) {
		layout := TNF314
		if wide {
			layout = TNF360
		}
		if _, err := tnfLayoutOf(int64(len(data)), 0); err != nil {
			var fe *FormatError
			if !errors.As(err, &fe) {
				t.Fatalf("layout error type %T", err)
			}
		}
		secs, errs := drain(t, func() iter.Seq2[Security, error] { return Securities(bytes.NewReader(data), layout, "") }, int(k))
		onlyDecodeErrors(t, errs)
		for _, s := range secs {
			if _, err := market.ParseCode(s.Code.String()); err != nil || s.Decimals < 0 || s.Decimals > 6 {
				t.Fatalf("security %+v", s)
			}
		}
		if len(data) >= tnfHeaderSize {
			if h := decodeTNFHeader(data); h.Date != 0 {
				if _, err := market.ParseDay(h.Date.Compact()); err != nil {
					t.Fatalf("header date %v", h.Date)
				}
			}
			if got, want := len(secs)+len(errs), (len(data)-tnfHeaderSize)/int(layout); got < want || got > want+1 {
				t.Fatalf("%d records and errors for %d records", got, want)
			}
		}
	})
}

func FuzzBlockNewCfg(f *testing.F) {
	f.Fuzz(func(t *testing.T, data []byte, k uint8) {
		bs, errs := drain(t, func() iter.Seq2[UserBlock, error] { return UserBlockEntries(bytes.NewReader(data)) }, int(k))
		onlyDecodeErrors(t, errs)
		for _, b := range bs {
			if b.Stem == "" || strings.ContainsAny(b.Stem, "/\\:\x00") {
				t.Fatalf("stem %q", b.Stem)
			}
		}
	})
}

func FuzzBLK(f *testing.F) {
	f.Fuzz(func(t *testing.T, data []byte, k uint8) {
		write := func(w io.Writer, cs []market.Code) error { return WriteBLK(w, cs, k%2 == 0) }
		fuzzText(t, data, k, BLKCodes, write)
	})
}

func FuzzParseBarName(f *testing.F) {
	f.Fuzz(func(t *testing.T, name string) {
		code, kind, ok := ParseBarName(name)
		if !ok {
			return
		}
		if !kind.IsBars() || kind.Freq() == "" {
			t.Fatalf("%q: kind %q", name, kind)
		}
		if back, err := market.ParseCode(code.String()); err != nil || back != code {
			t.Fatalf("%q: code %v", name, code)
		}
	})
}

func FuzzGBBQ(f *testing.F) {
	f.Add(gbbqFile(goodGBBQ(20150717), goodGBBQ(20160701)), uint8(1))
	f.Fuzz(func(t *testing.T, data []byte, k uint8) {
		count, sizeErr := gbbqSize(data)
		events, errs := drain(t, func() iter.Seq2[GBBQEvent, error] { return GBBQ(bytes.NewReader(data)) }, int(k))
		if onlyDecodeErrors(t, errs) != 0 {
			t.Fatal("a gbbq file has no partial records, only a size that contradicts its header")
		}
		if sizeErr == nil && len(events)+len(errs) != count {
			t.Fatalf("%d records and %d errors for a header of %d", len(events), len(errs), count)
		}
		if sizeErr != nil && len(errs) == 0 {
			t.Fatalf("size error %v not reported while streaming", sizeErr)
		}
		for _, e := range events {
			if _, err := market.ParseCode(e.Code.String()); err != nil || e.Code.Exchange == "" {
				t.Fatalf("code %v: %v", e.Code, err)
			}
			if _, ok := dayOf(uint32(e.Day)); !ok || e.Category == 0 {
				t.Fatalf("day %d category %d", e.Day, e.Category)
			}
			for _, v := range e.F {
				if !(v >= 0) || math.IsInf(float64(v), 0) {
					t.Fatalf("value %v in %+v", v, e)
				}
			}
		}
		out := gbbqFile(events...)
		if sizeErr == nil && len(errs) == 0 && !bytes.Equal(out, data) {
			t.Fatal("re-encoding a clean file changed its bytes")
		}
		again, errs := drain(t, func() iter.Seq2[GBBQEvent, error] { return GBBQ(bytes.NewReader(out)) }, 1)
		if len(errs) != 0 || fmt.Sprint(again) != fmt.Sprint(events) {
			t.Fatalf("re-encoded records differ: %v", errs)
		}
	})
}

// FuzzBaseDBF: base.dbf's reader returns FormatErrors only, never panics,
// never more rows than the header counts, and every row it keeps has a
// code that parses and days that exist.
func FuzzBaseDBF(f *testing.F) {
	f.Add(EncodeBaseDBF([]BaseRecord{{Code: market.MustCode("000001.SZ"), Listed: 19910403, Updated: 20201030, TotalShares: 1e10, FloatShares: 1e10}}))
	f.Fuzz(func(t *testing.T, data []byte) {
		rows, err := DecodeBaseDBF(data)
		if err != nil {
			errs := []error{err}
			if list, ok := err.(interface{ Unwrap() []error }); ok {
				errs = list.Unwrap()
			}
			for _, e := range errs {
				var fe *FormatError
				if !errors.As(e, &fe) && !strings.HasPrefix(e.Error(), "tdx: and ") {
					t.Fatalf("not a FormatError: %v", e)
				}
			}
		}
		if len(data) >= 8 && len(rows) > int(binary.LittleEndian.Uint32(data[4:])) {
			t.Fatalf("%d rows from a header of %d", len(rows), binary.LittleEndian.Uint32(data[4:]))
		}
		for _, r := range rows {
			if _, perr := market.ParseCode(r.Code.String()); perr != nil {
				t.Fatalf("row code %v: %v", r.Code, perr)
			}
			for _, d := range []market.Day{r.Listed, r.Updated} {
				if d != 0 {
					if _, perr := market.ParseDay(d.String()); perr != nil {
						t.Fatalf("row day %v: %v", d, perr)
					}
				}
			}
		}
	})
}

func FuzzSPBlock(f *testing.F) {
	f.Fuzz(func(t *testing.T, data []byte, k uint8) {
		write := func(w io.Writer, bs []SPBlock) error {
			for _, b := range bs {
				// Names the parser trims or cuts cannot come back whole.
				if b.Name != strings.TrimSpace(b.Name) || strings.ContainsAny(b.Name, "\r\n") {
					return errors.New("skip")
				}
			}
			return WriteSPBlock(w, bs)
		}
		fuzzText(t, data, k, SPBlocks, write)
		bs, _ := drain(t, func() iter.Seq2[SPBlock, error] { return SPBlocks(bytes.NewReader(data)) }, 1)
		for _, b := range bs {
			seen := map[market.Code]bool{}
			for _, c := range b.Members {
				if _, err := market.ParseCode(c.String()); err != nil || seen[c] {
					t.Fatalf("block %q member %v: %v (or listed twice)", b.Name, c, err)
				}
				seen[c] = true
			}
		}
	})
}
