package tdx

import (
	"fmt"
	"io"
	"path/filepath"

	"mdqs/market"
)

// BarFile is a decoded .day or minute file.
type BarFile struct {
	File
	Scale Scale
	Bars  []market.Bar
	// Partial is set when the file ends inside a record, as a file the
	// terminal is appending to does; every whole record before it is in Bars.
	Partial *PartialRecordError
}

// ReadBars decodes a bar file, taking the code, market, period and layout
// from its name (sh600000.day, sz000001.lc1, bj430047.5) and the scale from
// ScaleFor. Records dated after notAfter are rejected (0 disables it).
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
	return readBars(f, ScaleFor(code), notAfter)
}

func readBars(meta File, s Scale, notAfter market.Day) (*BarFile, error) {
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
	return bf, bad
}

// collectBars drains the iterator of the file's kind into a slice sized
// from the file: bad is the joined record errors, err a read failure.
func collectBars(r io.Reader, meta File, s Scale, notAfter market.Day) (bars []market.Bar, partial *PartialRecordError, bad, err error) {
	seq := DayBars(r, s, notAfter)
	if l, ok := LayoutOf(meta.Kind); ok {
		seq = MinuteBars(r, l, s, notAfter)
	} else if meta.Kind != KindDay {
		return nil, nil, nil, fmt.Errorf("%q is not a bar kind", meta.Kind)
	}
	bars = make([]market.Bar, 0, max(0, min(meta.Size/BarRecordSize, 1<<20)))
	var errs errorList
	for b, err := range seq {
		switch e := err.(type) {
		case nil:
			bars = append(bars, b)
		case *PartialRecordError:
			e.File = meta.Path
			partial = e
		case *FormatError:
			e.File = meta.Path
			errs.add(e)
		default:
			return bars, partial, errs.err(), err
		}
	}
	return bars, partial, errs.err(), nil
}
