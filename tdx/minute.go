package tdx

import (
	"encoding/binary"
	"fmt"
	"io"
	"iter"
	"math"
	"time"

	"mdqs/market"
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
	amount := float64(math.Float32frombits(le.Uint32(b[20:])))
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
		if layout != LayoutLC && layout != LayoutOld {
			yield(market.Bar{}, fmt.Errorf("tdx: unknown minute layout %d", layout))
			return
		}
		s = s.norm()
		m := minuteDecoder{layout: layout, s: s, notAfter: notAfter, prev: -1, counts: s.countsOnly()}
		stopped, err := eachRecord(r, BarRecordSize, func(off int64, b []byte) bool {
			bar, why := m.decode(b)
			if why != "" {
				return yield(market.Bar{}, formatErr(off, "%s", why))
			}
			return yield(bar, nil)
		})
		if !stopped && err != nil {
			yield(market.Bar{}, err)
		}
	}
}
