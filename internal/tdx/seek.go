package tdx

import (
	"cmp"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"sort"

	"mdqs/internal/market"
)

// One day of a bar file, found without reading the file. A .day file holds
// years of records sorted by date and a .lc1 file many days of minutes
// sorted by time, so a question about one day over a whole market (5,300
// files) costs a handful of ReadAt calls per file instead of decoding
// hundreds of megabytes. The records found are decoded by the same
// decoders as a whole-file read, so a seek and a full decode agree
// (TestSeekAgreesWithFullDecode, FuzzSeekDay, FuzzSeekMinutes).
//
// The search trusts the date words to be sorted, as the terminal writes
// them. A corrupt date word in the middle of a file can steer it away from
// a day the file holds: that day is then reported as not held, never as
// another day's bar, because the record found must carry the day asked.

// DayOn is the bar of day in a .day file of size bytes read through r,
// converted with s (its PriceDiv: a bond's divisor, which depends on the
// whole file, is Terminal.DayOn's business). ok is false when the file
// holds no record of day. A record of day that fails validation is
// returned as a *FormatError with its offset.
func DayOn(r io.ReaderAt, size int64, s Scale, day, notAfter market.Day) (bar market.Bar, ok bool, err error) {
	n := int(size / BarRecordSize)
	var w [4]byte
	var rerr error
	// The first record dated day or later; a read error ends the search
	// (every probe after it answers true) and is returned below.
	i := sort.Search(n, func(i int) bool {
		if rerr != nil {
			return true
		}
		if got, err := r.ReadAt(w[:], int64(i)*BarRecordSize); got < len(w) {
			rerr = cmp.Or(err, io.ErrUnexpectedEOF)
			return true
		}
		return binary.LittleEndian.Uint32(w[:]) >= uint32(day)
	})
	if rerr != nil {
		return market.Bar{}, false, rerr
	}
	if i == n {
		return market.Bar{}, false, nil
	}
	var rec [BarRecordSize]byte
	off := int64(i) * BarRecordSize
	if got, err := r.ReadAt(rec[:], off); got < len(rec) {
		return market.Bar{}, false, cmp.Or(err, io.ErrUnexpectedEOF)
	}
	if binary.LittleEndian.Uint32(rec[:]) != uint32(day) {
		return market.Bar{}, false, nil
	}
	var bad *FormatError
	bars := newDayDecoder(s, notAfter).decode(nil, rec[:], off, func(_ int, e *FormatError) { bad = e })
	if bad != nil {
		return market.Bar{}, false, bad
	}
	return bars[0], true, nil
}

// MinutesOn is the bars of day in a 1- or 5-minute file of size bytes read
// through r, in file order, converted with s: nil when the file holds none.
// Records of the day that fail validation are left out and returned joined
// (each a *FormatError with its offset), next to the good ones. An index's
// volumes are still amount ÷ 100 here; Terminal.MinutesOn converts them.
func MinutesOn(r io.ReaderAt, size int64, layout MinuteLayout, s Scale, day, notAfter market.Day) ([]market.Bar, error) {
	m, err := newMinuteDecoder(layout, s, notAfter)
	if err != nil {
		return nil, err
	}
	word, ok := packDay(day)
	if !ok {
		return nil, nil // a day the date word cannot hold is in no minute file
	}
	n := int(size / BarRecordSize)
	var w [2]byte
	var rerr error
	i := sort.Search(n, func(i int) bool {
		if rerr != nil {
			return true
		}
		if got, err := r.ReadAt(w[:], int64(i)*BarRecordSize); got < len(w) {
			rerr = cmp.Or(err, io.ErrUnexpectedEOF)
			return true
		}
		return binary.LittleEndian.Uint16(w[:]) >= word
	})
	if rerr != nil {
		return nil, rerr
	}
	// The day's records follow one another from i: read a buffer of them
	// at a time (a 1-minute day is 240 records, 7.5 KB, one read) until a
	// record of another day or the end of the file.
	buf := make([]byte, recordsPerRead*BarRecordSize)
	var bars []market.Bar
	var errs errorList
	for i < n {
		off := int64(i) * BarRecordSize
		k := min(n-i, recordsPerRead)
		got, err := r.ReadAt(buf[:k*BarRecordSize], off)
		if got < k*BarRecordSize {
			return nil, cmp.Or(err, io.ErrUnexpectedEOF)
		}
		same := 0
		for same < k && binary.LittleEndian.Uint16(buf[same*BarRecordSize:]) == word {
			same++
		}
		bars = m.decodeAll(bars, buf[:same*BarRecordSize], off, func(_ int, e *FormatError) { errs.add(e) })
		if same < k {
			break
		}
		i += k
	}
	return bars, errs.err()
}

// DayOn is code's daily bar of day from its .day file, found by binary
// search (DayOn above); ok is false when the scan found no .day file of
// code or the file holds no bar of day. A bond or repo file, whose price
// divisor is decided from the whole file (decideDivisor), is read whole.
func (t *Terminal) DayOn(code market.Code, day market.Day) (market.Bar, bool, error) {
	f, ok := t.DayFile(code)
	if !ok {
		return market.Bar{}, false, nil
	}
	s := ScaleFor(code).norm()
	if s.OlderDiv != 0 {
		bf, err := readBars(f, s, t.NotAfter(), nil)
		if bf == nil {
			return market.Bar{}, false, err
		}
		for _, b := range bf.Bars {
			if b.Day == day {
				return b, true, nil
			}
		}
		return market.Bar{}, false, nil
	}
	var bar market.Bar
	err := t.readAt(f, func(r io.ReaderAt, size int64) error {
		var err error
		bar, ok, err = DayOn(r, size, s, day, t.NotAfter())
		return err
	})
	return bar, ok, err
}

// MinutesOn is code's 1-minute bars of day from its .lc1 file, found by
// binary search (MinutesOn above); nil when the scan found no .lc1 file of
// code or the file holds no minute of day. An index's minute volumes,
// stored as amount ÷ 100, are converted to shares with the day's shares
// per yuan from its .day bar (as a whole-file read does with that day),
// so without that bar they cannot be and the minutes are an error. A
// repo's volumes are made pieces of 100 yuan as ReadBars makes them.
func (t *Terminal) MinutesOn(code market.Code, day market.Day) ([]market.Bar, error) {
	f, ok := t.lc1[code]
	if !ok {
		return nil, nil
	}
	s := ScaleFor(code).norm()
	var bars []market.Bar
	err := t.readAt(f, func(r io.ReaderAt, size int64) error {
		var err error
		bars, err = MinutesOn(r, size, LayoutLC, s, day, t.NotAfter())
		return err
	})
	if s.Type == market.TypeRepo {
		repoVolumes(bars) // each record's own unit, as a whole-file read does
	}
	if err != nil || len(bars) == 0 || !s.minutesUseDay() {
		return bars, err
	}
	d, ok, derr := t.DayOn(code, day)
	if derr != nil || !ok {
		return nil, fmt.Errorf("tdx: %s: an index's minute volumes hold amount ÷ 100 and need its .day bar of %v to become shares: %v",
			f.Path, day, orNone(derr))
	}
	if _, ok := indexMinuteVolumes(bars, []market.Bar{d}); !ok {
		return nil, fmt.Errorf("tdx: %s: the .day bar of %v has no volume and amount to turn minute amounts into shares", f.Path, day)
	}
	return bars, nil
}

func orNone(err error) any {
	if err == nil {
		return "the .day file holds no bar of that day"
	}
	return err
}

// readAt opens f for reading (never locking it: the terminal may be
// appending) and calls fn with its current size, naming the file in the
// errors fn returns.
func (t *Terminal) readAt(f File, fn func(r io.ReaderAt, size int64) error) error {
	h, err := openShared(f.Path)
	if err != nil {
		return fmt.Errorf("tdx: %w", err)
	}
	defer h.Close()
	st, err := h.Stat()
	if err != nil {
		return fmt.Errorf("tdx: %w", err)
	}
	err = fn(h, st.Size())
	var fe *FormatError
	if err == nil || errors.As(err, &fe) {
		return namedAll(err, f.Path) // a FormatError names its file itself
	}
	return fmt.Errorf("tdx: %s: %w", f.Path, err)
}
