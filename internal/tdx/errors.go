package tdx

import (
	"errors"
	"fmt"
)

// ErrNotTerminal is returned (wrapped) by Open for a folder that exists but
// holds neither vipdoc nor T0002, so it cannot be a terminal install.
var ErrNotTerminal = errors.New("tdx: not a TongDaXin terminal folder (no vipdoc and no T0002)")

// ErrPartialRecord matches a *PartialRecordError with errors.Is.
var ErrPartialRecord = errors.New("tdx: partial trailing record")

// FormatError reports bytes that cannot be what the format says: a date that
// does not exist, a price of zero, a size that contradicts the header, a
// malformed text line. Offset is the byte offset of the bad record or line
// within the file, so the bytes can be inspected with a hex dump.
type FormatError struct {
	File   string // path, or "" when the decoder was given a bare reader
	Offset int64
	Line   int // 1-based line of a text file; 0 for binary files
	Reason string
}

func (e *FormatError) Error() string {
	name := e.File
	if name == "" {
		name = "<input>"
	}
	if e.Line > 0 {
		return fmt.Sprintf("tdx: %s: line %d (offset %d): %s", name, e.Line, e.Offset, e.Reason)
	}
	return fmt.Sprintf("tdx: %s: offset %d: %s", name, e.Offset, e.Reason)
}

// PartialRecordError reports a file that ends inside a fixed-size record.
// The terminal appends to bar files while it runs, so this is the expected
// state of a file caught mid-write, not corruption: every whole record before
// Offset was decoded, and a later read will see the record complete.
type PartialRecordError struct {
	File       string
	Offset     int64 // where the incomplete record starts
	Len        int   // bytes present of it
	RecordSize int
}

func (e *PartialRecordError) Error() string {
	name := e.File
	if name == "" {
		name = "<input>"
	}
	return fmt.Sprintf("tdx: %s: offset %d: partial trailing record (%d of %d bytes; file still being written?)",
		name, e.Offset, e.Len, e.RecordSize)
}

func (e *PartialRecordError) Is(target error) bool { return target == ErrPartialRecord }

// maxReportedErrors bounds the record errors a slice-returning reader joins,
// so a file of garbage cannot produce millions of error values.
const maxReportedErrors = 20

// errorList gathers record-level errors of one file while decoding goes on.
type errorList struct {
	errs  []error
	extra int
}

func (l *errorList) add(err error) {
	if len(l.errs) < maxReportedErrors {
		l.errs = append(l.errs, err)
		return
	}
	l.extra++
}

func (l *errorList) err() error {
	if len(l.errs) == 0 {
		return nil
	}
	if l.extra > 0 {
		return errors.Join(append(l.errs[:len(l.errs):len(l.errs)], fmt.Errorf("tdx: and %d more bad records", l.extra))...)
	}
	return errors.Join(l.errs...)
}

// named fills in the file name of an error a reader-level decoder produced;
// the decoders see only an io.Reader and cannot know it.
func named(err error, file string) error {
	var fe *FormatError
	if errors.As(err, &fe) && fe.File == "" {
		fe.File = file
	}
	var pe *PartialRecordError
	if errors.As(err, &pe) && pe.File == "" {
		pe.File = file
	}
	return err
}

// namedAll is named for each error of a joined list (a decoder's
// errorList), so every bad row says its file.
func namedAll(err error, file string) error {
	if list, ok := err.(interface{ Unwrap() []error }); ok {
		for _, e := range list.Unwrap() {
			named(e, file)
		}
		return err
	}
	if err == nil {
		return nil
	}
	return named(err, file)
}

func formatErr(off int64, format string, args ...any) *FormatError {
	return &FormatError{Offset: off, Reason: fmt.Sprintf(format, args...)}
}

func lineErr(off int64, line int, format string, args ...any) *FormatError {
	return &FormatError{Offset: off, Line: line, Reason: fmt.Sprintf(format, args...)}
}
