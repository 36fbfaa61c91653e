package tdx

import (
	"encoding/binary"
	"io"
	"iter"
	"math"
	"strconv"

	"mdqs/internal/market"
)

// DayRecord is one 32-byte .day record exactly as stored (tdx.md §3):
// prices are scaled integers, the volume unit depends on the security type.
type DayRecord struct {
	Date     uint32 // YYYYMMDD
	Open     uint32
	High     uint32
	Low      uint32
	Close    uint32
	Amount   float32 // yuan (USD/HKD for B shares)
	Volume   uint32  // unsigned: real volumes use more than half the range
	Reserved uint32  // indices: advancers/decliners; stocks: noise
}

func decodeDayRecord(b []byte) DayRecord {
	le := binary.LittleEndian
	_ = b[31]
	return DayRecord{
		Date:     le.Uint32(b[0:]),
		Open:     le.Uint32(b[4:]),
		High:     le.Uint32(b[8:]),
		Low:      le.Uint32(b[12:]),
		Close:    le.Uint32(b[16:]),
		Amount:   math.Float32frombits(le.Uint32(b[20:])),
		Volume:   le.Uint32(b[24:]),
		Reserved: le.Uint32(b[28:]),
	}
}

// Bar converts the record with s (see ScaleFor). Dividing two exact
// integers gives the double nearest the decimal price, so no rounding is
// needed. The date must be valid, as it is in every record DayRecords yields.
func (r DayRecord) Bar(s Scale) market.Bar { return r.bar(s.norm()) }

// bar is Bar with s already normalised: DayBars normalises once per file,
// since comparing the whole Scale per record costs a third of the decoding.
func (r DayRecord) bar(s Scale) market.Bar {
	d := market.Day(r.Date)
	return market.Bar{
		Day:           d,
		TS:            shanghaiUnix(d, dailyCloseSec),
		Open:          float64(r.Open) / s.PriceDiv,
		High:          float64(r.High) / s.PriceDiv,
		Low:           float64(r.Low) / s.PriceDiv,
		Close:         float64(r.Close) / s.PriceDiv,
		Volume:        int64(r.Volume) * s.VolumeMul,
		Amount:        Decimal32(r.Amount),
		TurnoverRate:  market.Unknown(),
		LargeOrderNet: market.Unknown(),
	}
}

// Breadth reads the reserved word of an index or block-index record as the
// number of advancing and declining stocks (tdx.md §3.2, inferred from real
// data). For other securities the word is noise; do not call it for them.
func (r DayRecord) Breadth() (up, down int) {
	return int(r.Reserved & 0xffff), int(r.Reserved >> 16)
}

// dayChecker holds what validating a record needs from the ones before it.
type dayChecker struct {
	prev     uint32
	notAfter market.Day
	// counts skips the price rules: a statistic index's values are counts.
	counts bool
	// unordered lets a record close outside low..high: early-1990s index
	// days do, and the terminal shows them (readBars counts them).
	unordered bool
}

func newDayChecker(s Scale, notAfter market.Day) dayChecker {
	return dayChecker{notAfter: notAfter, counts: s.countsOnly(), unordered: s.indexLike()}
}

// check returns why r cannot be a real bar, or "".
func (c *dayChecker) check(r DayRecord) string {
	d, ok := dayOf(r.Date)
	switch {
	case !ok:
		return "invalid date " + strconv.FormatUint(uint64(r.Date), 10)
	case c.notAfter != 0 && d > c.notAfter:
		return "date " + d.String() + " is in the future (after " + c.notAfter.String() + ")"
	case r.Date <= c.prev:
		return "date " + d.String() + " does not follow the previous record's " + market.Day(c.prev).String()
	case (r.Open == 0 || r.High == 0 || r.Low == 0 || r.Close == 0) && !c.counts:
		return "zero price"
	case unordered(r.Open, r.High, r.Low, r.Close) && !c.counts && !c.unordered:
		return "prices outside the low..high range"
	case math.IsNaN(float64(r.Amount)) || math.IsInf(float64(r.Amount), 0) || r.Amount < 0:
		return "invalid amount"
	}
	c.prev = r.Date
	return ""
}

// unordered reports prices that are not low <= open, close <= high.
func unordered[T uint32 | float64](o, h, l, c T) bool {
	return l > h || o < l || o > h || c < l || c > h
}

// DayRecords streams the records of a .day file. A record that fails
// validation (impossible date, date after notAfter or not after the
// previous record, zero price, prices outside low..high, negative amount;
// the rules of a stock: DayBars applies its scale's) is yielded
// as a *FormatError and decoding goes on, since records are fixed-size and
// one bad record does not shift the others. A trailing incomplete record is
// yielded last as a *PartialRecordError; a read error is yielded and ends
// the sequence. notAfter = 0 disables the future-date check; pass a real
// bound (Terminal does) so that one corrupt far-future date cannot make
// every later record look out of order.
func DayRecords(r io.Reader, notAfter market.Day) iter.Seq2[DayRecord, error] {
	return func(yield func(DayRecord, error) bool) {
		c := dayChecker{notAfter: notAfter}
		stopped, err := eachRecord(r, BarRecordSize, func(off int64, b []byte) bool {
			rec := decodeDayRecord(b)
			if why := c.check(rec); why != "" {
				return yield(DayRecord{}, formatErr(off, "%s", why))
			}
			return yield(rec, nil)
		})
		if !stopped && err != nil {
			yield(DayRecord{}, err)
		}
	}
}

// DayBars streams a .day file as bars converted with s; errors as
// DayRecords, except that the scale's type relaxes the price rules: an
// index, block or statistic index may close outside low..high (the terminal
// shows such early-1990s index days), and a statistic index's values are
// counts, which may be zero and in any order. It decodes a buffer of
// records at a time (dayDecoder) and yields from there. The divisor is
// s.PriceDiv even where s.OlderDiv is set: deciding between them takes the
// whole file (ReadBars, Terminal.Bars).
func DayBars(r io.Reader, s Scale, notAfter market.Day) iter.Seq2[market.Bar, error] {
	return func(yield func(market.Bar, error) bool) {
		d := newDayDecoder(s, notAfter)
		streamBars(r, yield, d.decode)
	}
}

// dayDecoder turns .day records into bars a buffer at a time, in one loop
// without a call per record: the checks of dayChecker and the conversion
// of DayRecord.bar, with a fast path for the usual record, a later day of
// the month of the good record before it with prices and amount that pass
// the scale's rules. Such a record needs no calendar check (the month's
// last day bounds it) and no date conversion (its 15:00 is the month's
// base plus whole days). Every other record takes the per-record path,
// dayChecker.check, which gives the reasons; the fuzz test FuzzDay holds
// the two paths to the same bars and errors.
type dayDecoder struct {
	c dayChecker
	s Scale // normalised
	// last is the last date the fast path takes: the end of the month of
	// the last good record, or notAfter if earlier; 0 (nothing) while that
	// month's timestamps are not plain arithmetic. In that month, a date's
	// bar closes at tsBase + date × 86400.
	last   uint32
	tsBase int64
}

func newDayDecoder(s Scale, notAfter market.Day) *dayDecoder {
	s = s.norm()
	return &dayDecoder{c: newDayChecker(s, notAfter), s: s}
}

// decode appends the bars of b, whole records starting at file offset off,
// to dst, and reports each bad record to bad with the number of bars
// before it in dst.
func (d *dayDecoder) decode(dst []market.Bar, b []byte, off int64, bad func(at int, err *FormatError)) []market.Bar {
	le := binary.LittleEndian
	div, mul := d.s.PriceDiv, d.s.VolumeMul
	counts, loose := d.c.counts, d.c.unordered
	for i := 0; i+BarRecordSize <= len(b); i += BarRecordSize {
		rec := b[i : i+BarRecordSize : i+BarRecordSize]
		date := le.Uint32(rec[0:])
		o, h, l, c := le.Uint32(rec[4:]), le.Uint32(rec[8:]), le.Uint32(rec[12:]), le.Uint32(rec[16:])
		amount := math.Float32frombits(le.Uint32(rec[20:]))
		vol := le.Uint32(rec[24:])
		var ts int64
		if date > d.c.prev && date <= d.last && // a later day of the same month
			float64(amount) >= 0 && float64(amount) <= math.MaxFloat32 && // not NaN, infinite or negative
			(counts || (l != 0 && (loose && o != 0 && h != 0 && c != 0 || l <= o && o <= h && l <= c && c <= h))) {
			d.c.prev = date
			ts = d.tsBase + int64(date)*86400
		} else {
			r := DayRecord{Date: date, Open: o, High: h, Low: l, Close: c, Amount: amount, Volume: vol}
			if why := d.c.check(r); why != "" {
				bad(len(dst), formatErr(off+int64(i), "%s", why))
				continue
			}
			if ts = d.month(date); d.last == 0 {
				ts = shanghaiUnix(market.Day(date), dailyCloseSec)
			}
		}
		dst = append(dst, market.Bar{
			Day:           market.Day(date),
			TS:            ts,
			Open:          float64(o) / div,
			High:          float64(h) / div,
			Low:           float64(l) / div,
			Close:         float64(c) / div,
			Volume:        int64(vol) * mul,
			Amount:        Decimal32(amount),
			TurnoverRate:  market.Unknown(),
			LargeOrderNet: market.Unknown(),
		})
	}
	return dst
}

// month sets last and tsBase for the month of date, a valid date, and
// returns date's timestamp when the month's are plain arithmetic. Before
// 1992 China kept daylight saving time (changing at 02:00, in April or May
// and in September), so a month of then is arithmetic only when its first
// and last days close at the same offset from UTC; a month with a change
// leaves last at 0, and its records take shanghaiUnix one by one.
func (d *dayDecoder) month(date uint32) int64 {
	day := market.Day(date)
	first := market.Day(date - date%100 + 1)
	n := uint32(daysIn(day.Year(), int(day.Month())))
	start := shanghaiUnix(first, dailyCloseSec)
	end := uint32(first) + n - 1
	if day.Year() < 1992 && shanghaiUnix(market.Day(end), dailyCloseSec)-start != int64(n-1)*86400 {
		d.last = 0
		return 0
	}
	d.tsBase = start - int64(first)*86400
	d.last = end
	if na := uint32(d.c.notAfter); na != 0 && na < end {
		d.last = na
	}
	return d.tsBase + int64(date)*86400
}

// streamBars yields what decode makes of r, buffer by buffer, bars and
// errors in file order; a trailing partial record and a read error come
// last.
func streamBars(r io.Reader, yield func(market.Bar, error) bool,
	decode func(dst []market.Bar, b []byte, off int64, bad func(int, *FormatError)) []market.Bar) {
	type badAt struct {
		at  int // bars before it
		err *FormatError
	}
	bars := make([]market.Bar, 0, recordsPerRead)
	var bads []badAt
	report := func(at int, err *FormatError) { bads = append(bads, badAt{at, err}) }
	stopped, err := eachChunk(r, BarRecordSize, func(off int64, chunk []byte) bool {
		bads = bads[:0]
		bars = decode(bars[:0], chunk, off, report)
		next := 0
		for _, b := range bads {
			for ; next < b.at; next++ {
				if !yield(bars[next], nil) {
					return false
				}
			}
			if !yield(market.Bar{}, b.err) {
				return false
			}
		}
		for ; next < len(bars); next++ {
			if !yield(bars[next], nil) {
				return false
			}
		}
		return true
	})
	if !stopped && err != nil {
		yield(market.Bar{}, err)
	}
}
