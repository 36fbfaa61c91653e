package tdx

import (
	"encoding/binary"
	"io"
	"iter"
	"math"
	"strconv"

	"mdqs/market"
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
		Amount:        float64(r.Amount),
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
// counts, which may be zero and in any order. It decodes directly rather
// than wrapping DayRecords, since a nested iterator costs about half the
// decoding time. The divisor is s.PriceDiv even where s.OlderDiv is set:
// deciding between them takes the whole file (ReadBars, Terminal.Bars).
func DayBars(r io.Reader, s Scale, notAfter market.Day) iter.Seq2[market.Bar, error] {
	return func(yield func(market.Bar, error) bool) {
		s = s.norm()
		c := newDayChecker(s, notAfter)
		stopped, err := eachRecord(r, BarRecordSize, func(off int64, b []byte) bool {
			rec := decodeDayRecord(b)
			if why := c.check(rec); why != "" {
				return yield(market.Bar{}, formatErr(off, "%s", why))
			}
			return yield(rec.bar(s), nil)
		})
		if !stopped && err != nil {
			yield(market.Bar{}, err)
		}
	}
}
