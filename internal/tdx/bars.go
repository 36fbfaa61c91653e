package tdx

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"mdqs/internal/market"
)

// BarFile is a decoded .day or minute file.
type BarFile struct {
	File
	Scale Scale
	Bars  []market.Bar
	// Partial is set when the file ends inside a record, as a file the
	// terminal is appending to does; every whole record before it is in Bars.
	Partial *PartialRecordError
	// Flagged lists what the bars hold as the terminal shows them although
	// it breaks a rule, and decisions the data could not settle; see Flag.
	Flagged []Flag
}

// ReadBars decodes a bar file, taking the code, market, period and layout
// from its name (sh600000.day, sz000001.lc1, bj430047.5) and the scale from
// ScaleFor. Records dated after notAfter are rejected (0 disables it).
//
// Beyond the scale, a file's bars get what its type needs (see BarFile.Scale
// and Flagged): a bond or repo .day file the divisor its data agrees with
// (decideDivisor), an index's minute bars volumes in shares computed with
// the code's .day file, found in the sibling lday folder
// (indexMinuteVolumes).
//
// The error is nil, or the open/read failure (the *BarFile is then nil), or
// the records that failed validation joined (each a *FormatError; the
// *BarFile then holds every good record). A trailing partial record is not
// an error: see BarFile.Partial.
func ReadBars(path string, notAfter market.Day) (*BarFile, error) {
	code, kind, ok := ParseBarName(filepath.Base(path))
	if !ok {
		return nil, fmt.Errorf("tdx: %s: not a bar file name (want e.g. sh600000.day or sz000001.lc1)", path)
	}
	f := File{Kind: kind, Path: path, Code: code, Market: code.Exchange}
	return readBars(f, ScaleFor(code), notAfter, func() (File, bool) { return siblingDayFile(path, code) })
}

// siblingDayFile finds the .day file of code for a minute file at path:
// vipdoc/sh/minline/sh000001.lc1 → vipdoc/sh/lday/sh000001.day, names
// matched case-insensitively as the scan does.
func siblingDayFile(path string, code market.Code) (File, bool) {
	mkt := filepath.Dir(filepath.Dir(path))
	entries, err := os.ReadDir(mkt)
	if err != nil {
		return File{}, false
	}
	lday, ok := findEntry(entries, "lday", true)
	if !ok {
		return File{}, false
	}
	dir := filepath.Join(mkt, lday.Name())
	name := strings.ToLower(string(code.Exchange)) + code.Symbol + ".day"
	if _, err := os.Stat(filepath.Join(dir, name)); err != nil {
		entries, err := os.ReadDir(dir)
		if err != nil {
			return File{}, false
		}
		e, ok := findEntry(entries, name, false)
		if !ok {
			return File{}, false
		}
		name = e.Name()
	}
	return File{Kind: KindDay, Path: filepath.Join(dir, name), Code: code, Market: code.Exchange}, true
}

// readBars decodes one file; dayFile finds the code's .day file, which an
// index's minute file needs (nil: there is none).
func readBars(meta File, s Scale, notAfter market.Day, dayFile func() (File, bool)) (*BarFile, error) {
	f, err := openShared(meta.Path)
	if err != nil {
		return nil, fmt.Errorf("tdx: %w", err)
	}
	defer f.Close()
	if st, err := f.Stat(); err == nil {
		meta.Size, meta.ModTime = st.Size(), st.ModTime()
	}
	bf := &BarFile{File: meta, Scale: s.norm()}
	var bad error
	bf.Bars, bf.Partial, bad, err = collectBars(f, meta, bf.Scale, notAfter)
	if err != nil {
		return nil, fmt.Errorf("tdx: %s: %w", meta.Path, err)
	}
	if err := bf.settle(notAfter, dayFile); err != nil {
		return nil, fmt.Errorf("tdx: %s: %w", meta.Path, err)
	}
	return bf, bad
}

// settle makes the per-file decisions of the bars' type, recording them in
// Scale and Flagged.
func (bf *BarFile) settle(notAfter market.Day, dayFile func() (File, bool)) error {
	s := bf.Scale
	switch {
	case bf.Kind == KindDay && s.OlderDiv != 0:
		div, note := decideDivisor(bf.Bars, s)
		if div != s.PriceDiv {
			rescale(bf.Bars, s.PriceDiv, div)
			bf.Scale.PriceDiv = div
		}
		if note != "" {
			bf.Flagged = append(bf.Flagged, Flag{Reason: note, Records: len(bf.Bars)})
		}
	case s.countsOnly():
		bf.Flagged = append(bf.Flagged, Flag{Reason: "statistic index: its bars hold counts of stocks, not prices, and are kept as they are", Records: len(bf.Bars)})
	case bf.Kind == KindDay && s.indexLike():
		if f, ok := unorderedFlag(bf.Bars); ok {
			bf.Flagged = append(bf.Flagged, f)
		}
	}
	if s.Type == market.TypeRepo {
		if odd := repoVolumes(bf.Bars); odd > 0 {
			bf.Flagged = append(bf.Flagged, Flag{Reason: "repo volumes whose amount ÷ volume is neither 1,000 nor 10,000 yuan a lot, kept in lots of 10 pieces", Records: odd})
		}
	}
	if bf.Kind == KindDay || !s.minutesUseDay() || len(bf.Bars) == 0 {
		return nil
	}
	var days *BarFile
	if dayFile != nil {
		if f, ok := dayFile(); ok {
			days, _ = readBars(f, s, notAfter, nil) // its bad records are its own file's problem
		}
	}
	if days == nil {
		return fmt.Errorf("an index's minute volumes hold amount ÷ 100; turning them into shares needs its .day file (%s%s.day in lday), which is missing or unreadable",
			strings.ToLower(string(bf.Code.Exchange)), bf.Code.Symbol)
	}
	estimated, ok := indexMinuteVolumes(bf.Bars, days.Bars)
	if !ok {
		return fmt.Errorf("an index's minute volumes hold amount ÷ 100; turning them into shares needs a daily bar with volume and amount, and its .day file has none")
	}
	if estimated > 0 {
		bf.Flagged = append(bf.Flagged, Flag{Reason: "minute volumes of days the .day file lacks yet, converted with the nearest day's shares per yuan", Records: estimated})
	}
	return nil
}

// collectBars decodes the file's kind into a slice sized from the file, a
// buffer of records at a time: bad is the joined record errors, err a read
// failure.
func collectBars(r io.Reader, meta File, s Scale, notAfter market.Day) (bars []market.Bar, partial *PartialRecordError, bad, err error) {
	var decode func(dst []market.Bar, b []byte, off int64, bad func(int, *FormatError)) []market.Bar
	if l, ok := LayoutOf(meta.Kind); ok {
		m, err := newMinuteDecoder(l, s, notAfter)
		if err != nil {
			return nil, nil, nil, err
		}
		decode = m.decodeAll
	} else if meta.Kind == KindDay {
		decode = newDayDecoder(s, notAfter).decode
	} else {
		return nil, nil, nil, fmt.Errorf("%q is not a bar kind", meta.Kind)
	}
	bars = make([]market.Bar, 0, max(0, min(meta.Size/BarRecordSize, 1<<20)))
	var errs errorList
	report := func(_ int, e *FormatError) {
		e.File = meta.Path
		errs.add(e)
	}
	_, err = eachChunk(r, BarRecordSize, func(off int64, chunk []byte) bool {
		bars = decode(bars, chunk, off, report)
		return true
	})
	if errors.As(err, &partial) {
		partial.File, err = meta.Path, nil
	}
	return bars, partial, errs.err(), err
}
