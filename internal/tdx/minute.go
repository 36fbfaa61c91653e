package tdx

import (
	"encoding/binary"
	"fmt"
	"io"
	"iter"
	"math"
	"time"

	"mdqs/internal/market"
)

// MinuteLayout tells the two minute-file generations apart; the extension
// decides it (tdx.md §4): .lc1/.lc5 store float prices, .1/.5 integers.
type MinuteLayout uint8

const (
	LayoutLC  MinuteLayout = iota + 1 // .lc1/.lc5: float32 prices, int32 volume
	LayoutOld                         // .1/.5: uint32 price × 100, uint32 volume
)

func (l MinuteLayout) String() string {
	switch l {
	case LayoutLC:
		return "lc"
	case LayoutOld:
		return "old"
	}
	return fmt.Sprintf("MinuteLayout(%d)", uint8(l))
}

// LayoutOf is the minute layout of a bar kind; ok is false for .day and
// non-bar kinds.
func LayoutOf(k Kind) (l MinuteLayout, ok bool) {
	switch k {
	case KindLC1, KindLC5:
		return LayoutLC, true
	case KindMin1, KindMin5:
		return LayoutOld, true
	}
	return 0, false
}

// The packed date word counts years from 2004 in units of 2048 and keeps
// month×100+day below that, so the format ends in 2035 (tdx.md §4.1).
const (
	minuteEpochYear = 2004
	minutesPerDay   = 24 * 60
)

func packedDay(w uint16) (market.Day, bool) {
	y := int(w)/2048 + minuteEpochYear
	rest := int(w) % 2048
	m, d := rest/100, rest%100
	if m < 1 || m > 12 || d < 1 || d > daysIn(y, m) {
		return 0, false
	}
	return market.NewDay(y, time.Month(m), d), true
}

// packDay is the inverse; ok is false for days the word cannot hold.
func packDay(d market.Day) (uint16, bool) {
	y := d.Year() - minuteEpochYear
	if y < 0 || y > 31 {
		return 0, false
	}
	return uint16(y*2048 + int(d.Month())*100 + d.Dom()), true
}

// minuteDecoder converts and validates records in file order.
type minuteDecoder struct {
	layout   MinuteLayout
	s        Scale
	notAfter market.Day
	prev     int64 // day×1440+minute of the last good record
	counts   bool  // a statistic index: values are counts, see dayChecker
	// The last good record's date word (-1: none yet), day, day×1440,
	// minute, and the Unix time of the day's 00:00, for decodeAll's fast
	// path: minute files start in 2004, after the last daylight saving
	// time change, so a day's minutes are whole minutes from its start.
	word       int32
	day        market.Day
	dayKey     int64
	prevMinute int32
	dayTS      int64
}

func (m *minuteDecoder) decode(b []byte) (market.Bar, string) {
	le := binary.LittleEndian
	_ = b[31]
	d, ok := packedDay(le.Uint16(b[0:]))
	if !ok {
		return market.Bar{}, fmt.Sprintf("invalid packed date word %d", le.Uint16(b[0:]))
	}
	if m.notAfter != 0 && d > m.notAfter {
		return market.Bar{}, "date " + d.String() + " is in the future (after " + m.notAfter.String() + ")"
	}
	t := int(le.Uint16(b[2:]))
	if t >= minutesPerDay {
		return market.Bar{}, fmt.Sprintf("time word %d is not a minute of the day", t)
	}
	key := int64(d)*minutesPerDay + int64(t)
	if key <= m.prev {
		return market.Bar{}, fmt.Sprintf("%s %02d:%02d does not follow the previous record", d, t/60, t%60)
	}
	var px [4]float64
	for i := range px {
		w := le.Uint32(b[4+4*i:])
		var v float64
		if m.layout == LayoutOld {
			v = float64(w) / 100
		} else {
			v = float64(math.Float32frombits(w))
		}
		if !(v > 0 && v < maxPrice) && !(m.counts && v == 0) { // also true for NaN
			return market.Bar{}, fmt.Sprintf("impossible price %g", v)
		}
		// A price that rounds to zero is usually an integer read as a
		// float (≈1e-42): the wrong layout, not a real quote.
		if px[i] = roundTo(v, m.s.Decimals); px[i] == 0 && !m.counts {
			return market.Bar{}, fmt.Sprintf("price %g rounds to zero", v)
		}
	}
	o, h, l, c := px[0], px[1], px[2], px[3]
	if unordered(o, h, l, c) && !m.counts {
		return market.Bar{}, "prices outside the low..high range"
	}
	amount := Decimal32(math.Float32frombits(le.Uint32(b[20:])))
	if !(amount >= 0) || math.IsInf(amount, 0) {
		return market.Bar{}, "invalid amount"
	}
	var vol int64
	if m.layout == LayoutOld {
		vol = int64(le.Uint32(b[24:]))
	} else {
		vol = int64(int32(le.Uint32(b[24:])))
		if vol < 0 {
			return market.Bar{}, fmt.Sprintf("negative volume %d", vol)
		}
	}
	m.prev = key
	if w := int32(le.Uint16(b[0:])); w != m.word {
		m.word, m.day, m.dayKey, m.dayTS = w, d, int64(d)*minutesPerDay, shanghaiUnix(d, 0)
	}
	m.prevMinute = int32(t)
	return market.Bar{
		Day:           d,
		TS:            shanghaiUnix(d, t*60),
		Open:          o,
		High:          h,
		Low:           l,
		Close:         c,
		Volume:        vol * m.s.VolumeMul,
		Amount:        amount,
		TurnoverRate:  market.Unknown(),
		LargeOrderNet: market.Unknown(),
	}, ""
}

// MinuteBars streams a 1- or 5-minute file. Each bar carries its end minute
// (the 09:31 bar covers 09:30–09:31). Prices are rounded to s.Decimals and
// the volume multiplied by s.VolumeMul, as for .day files; that indices'
// minute volumes are lots like their daily ones is an assumption (tdx.md §4.1
// leaves it open). Errors are reported as in DayRecords: bad records as
// *FormatError (decoding goes on), a trailing partial record as
// *PartialRecordError.
func MinuteBars(r io.Reader, layout MinuteLayout, s Scale, notAfter market.Day) iter.Seq2[market.Bar, error] {
	return func(yield func(market.Bar, error) bool) {
		m, err := newMinuteDecoder(layout, s, notAfter)
		if err != nil {
			yield(market.Bar{}, err)
			return
		}
		streamBars(r, yield, m.decodeAll)
	}
}

func newMinuteDecoder(layout MinuteLayout, s Scale, notAfter market.Day) (*minuteDecoder, error) {
	if layout != LayoutLC && layout != LayoutOld {
		return nil, fmt.Errorf("tdx: unknown minute layout %d", layout)
	}
	s = s.norm()
	return &minuteDecoder{layout: layout, s: s, notAfter: notAfter, prev: -1, counts: s.countsOnly(), word: -1}, nil
}

// fastPrice is a stored price w rounded as decode rounds it (roundTo with
// p = 10^decimals), and whether decode would take it without a second
// look: positive, plausible and not rounding to zero.
//
// It rounds by truncating x+0.5 instead of calling math.Round, whose bit
// manipulation was most of decodeAll's time (issue 19). The two agree for
// every x = v·p in [0.5, 2⁵¹): 0.5 is then a multiple of x's ulp, so x+0.5
// is exact, or, crossing into the next binade, rounds to a neighbour on the
// same side of the next integer. Prices below maxPrice at up to four
// decimals stay under 10¹², and x < 0.5 (a price rounding to zero) is
// refused, so the fast path never sees the cases where they differ;
// TestFastPriceIsRoundTo checks it over random and edge words.
func fastPrice(w uint32, old bool, p float64) (float64, bool) {
	v := float64(math.Float32frombits(w))
	if old {
		v = float64(w) / 100
	}
	x := v * p
	return float64(int64(x+0.5)) / p, v < maxPrice && x >= 0.5
}

// decodeAll appends the bars of b, whole records starting at file offset
// off, to dst, and reports each bad record to bad with the number of bars
// before it in dst. A record of the day of the good record before it, at
// a later minute, with prices, amount and volume that pass every check,
// takes the fast path: no calendar check and no date conversion. Every
// other record takes decode, which gives the reasons; FuzzMinute holds the
// two paths to the same bars and errors.
func (m *minuteDecoder) decodeAll(dst []market.Bar, b []byte, off int64, bad func(at int, err *FormatError)) []market.Bar {
	le := binary.LittleEndian
	old, counts := m.layout == LayoutOld, m.counts
	p, mul := math.Pow10(m.s.Decimals), m.s.VolumeMul
	for i := 0; i+BarRecordSize <= len(b); i += BarRecordSize {
		rec := b[i : i+BarRecordSize : i+BarRecordSize]
		t := int32(le.Uint16(rec[2:]))
		amount := math.Float32frombits(le.Uint32(rec[20:]))
		vol := int64(int32(le.Uint32(rec[24:])))
		if old {
			vol = int64(le.Uint32(rec[24:]))
		}
		o, okO := fastPrice(le.Uint32(rec[4:]), old, p)
		h, okH := fastPrice(le.Uint32(rec[8:]), old, p)
		l, okL := fastPrice(le.Uint32(rec[12:]), old, p)
		c, okC := fastPrice(le.Uint32(rec[16:]), old, p)
		fast := int32(le.Uint16(rec[0:])) == m.word && t > m.prevMinute && t < minutesPerDay &&
			amount >= 0 && amount <= math.MaxFloat32 && vol >= 0 && okO && okH && okL && okC
		if !fast || (!counts && unordered(o, h, l, c)) {
			bar, why := m.decode(rec)
			if why != "" {
				bad(len(dst), formatErr(off+int64(i), "%s", why))
				continue
			}
			dst = append(dst, bar)
			continue
		}
		m.prevMinute = t
		m.prev = m.dayKey + int64(t)
		dst = append(dst, market.Bar{
			Day:           m.day,
			TS:            m.dayTS + int64(t)*60,
			Open:          o,
			High:          h,
			Low:           l,
			Close:         c,
			Volume:        vol * mul,
			Amount:        Decimal32(amount),
			TurnoverRate:  market.Unknown(),
			LargeOrderNet: market.Unknown(),
		})
	}
	return dst
}
