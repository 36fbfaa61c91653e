package tdx

import (
	"errors"
	"path/filepath"
	"strings"
	"testing"
)

func TestErrorMessages(t *testing.T) {
	tests := []struct {
		err  error
		want string
	}{
		{&FormatError{File: "a.day", Offset: 64, Reason: "zero price"}, "tdx: a.day: offset 64: zero price"},
		{&FormatError{File: "tdxhy.cfg", Offset: 10, Line: 2, Reason: "bad"}, "tdx: tdxhy.cfg: line 2 (offset 10): bad"},
		{&FormatError{Reason: "x"}, "tdx: <input>: offset 0: x"},
		{&PartialRecordError{File: "b.day", Offset: 96, Len: 3, RecordSize: 32}, "tdx: b.day: offset 96: partial trailing record (3 of 32 bytes; file still being written?)"},
	}
	for _, tc := range tests {
		if got := tc.err.Error(); got != tc.want {
			t.Errorf("%q, want %q", got, tc.want)
		}
	}
	if errors.Is(&FormatError{}, ErrPartialRecord) || !errors.Is(&PartialRecordError{}, ErrPartialRecord) {
		t.Error("only a partial record is ErrPartialRecord")
	}
}

// A file of garbage reports a bounded number of errors, then a count.
func TestRecordErrorCap(t *testing.T) {
	path := filepath.Join(t.TempDir(), "sh600000.day")
	mustWrite(t, path, make([]byte, 32*100)) // 100 records of date 0
	bf, err := ReadBars(path, 0)
	if bf == nil || len(bf.Bars) != 0 || err == nil {
		t.Fatalf("%v %v", bf, err)
	}
	msg := err.Error()
	if n := strings.Count(msg, "invalid date 0"); n != maxReportedErrors || !strings.Contains(msg, "and 80 more bad records") {
		t.Errorf("%d errors reported: %s", n, msg)
	}
	var fe *FormatError
	if !errors.As(err, &fe) || fe.Offset != 0 || fe.File != path {
		t.Errorf("first error %+v", fe)
	}
}

func TestScaleNorm(t *testing.T) {
	got := Scale{PriceDiv: -1, Decimals: 9, VolumeMul: 0}.norm()
	if got != (Scale{PriceDiv: 100, Decimals: 2, VolumeMul: 1}) {
		t.Errorf("nonsense scale normalised to %+v", got)
	}
	if got := (Scale{PriceDiv: 1000, Decimals: 0, VolumeMul: 10}).norm(); got != (Scale{PriceDiv: 1000, Decimals: 0, VolumeMul: 10}) {
		t.Errorf("a valid scale changed: %+v", got)
	}
}
