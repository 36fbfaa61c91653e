// Package export writes market data out as the files analysts load: CSV
// for Excel and scripts, Parquet for DuckDB, pandas and polars, and a
// qlib-ready folder of one CSV per code (mdqs export).
//
// Bars (any frequency, the minute archive's too) stream from the store a
// series at a time, through a row buffer that is reused, so a whole
// market's year takes the memory of one chunk and one Parquet row group,
// not of the year. The other datasets (the rankings, the limit pools, the
// dragon-tiger list, index members) are the API's own answers, a day at a
// time (Pages): their columns are the JSON's field names by construction.
//
// Column names are the JSON field names of the same rows; numbers in CSV
// are written as the JSON writes them; Parquet keeps their precision
// (prices as doubles: every price the store holds, an integer count of
// 1/10,000 yuan, is the double whose shortest decimal is that price) and
// carries the answer's provenance (source, as_of, ...) as key-value
// metadata.
package export

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"mdqs/internal/market"
)

// Format is a file format.
type Format string

const (
	CSV     Format = "csv"
	Parquet Format = "parquet"
)

// ParseFormat reads csv or parquet.
func ParseFormat(s string) (Format, error) {
	switch f := Format(strings.ToLower(strings.TrimSpace(s))); f {
	case CSV, Parquet:
		return f, nil
	}
	return "", fmt.Errorf("format %q: want csv or parquet", s)
}

// Meta is a file's provenance, in order: Parquet's key-value metadata.
type Meta []KV

// KV is one entry of Meta.
type KV struct{ Key, Value string }

// Set adds or replaces key.
func (m *Meta) Set(key, value string) {
	for i := range *m {
		if (*m)[i].Key == key {
			(*m)[i].Value = value
			return
		}
	}
	*m = append(*m, KV{key, value})
}

// Get is key's value, "" when absent.
func (m Meta) Get(key string) string {
	for _, kv := range m {
		if kv.Key == key {
			return kv.Value
		}
	}
	return ""
}

// Summary says what an export wrote.
type Summary struct {
	Rows    int
	Files   int
	Series  int      // codes (bars) or days (pages) with at least one row
	Sources []string // distinct, sorted
	First   market.Day
	Last    market.Day
	Bytes   int64
}

func (s *Summary) source(src string) {
	if src != "" && !slices.Contains(s.Sources, src) {
		s.Sources = append(s.Sources, src)
		slices.Sort(s.Sources)
	}
}

func (s *Summary) day(d market.Day) {
	if s.First == 0 || d < s.First {
		s.First = d
	}
	if d > s.Last {
		s.Last = d
	}
}

// atomicFile is an output file written under a temporary name beside it
// and renamed into place once complete: an interrupted or failed export
// leaves no half file where the last good one was.
type atomicFile struct {
	*os.File
	path string
}

func createAtomic(path string) (*atomicFile, error) {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return nil, err
	}
	f, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".*.part")
	if err != nil {
		return nil, err
	}
	return &atomicFile{File: f, path: path}, nil
}

// commit closes the file and puts it in place, readable as a file made
// by os.Create would be (a temporary file is the owner's alone).
func (f *atomicFile) commit() error {
	if err := f.File.Chmod(0o644); err != nil {
		f.abort()
		return err
	}
	if err := f.File.Close(); err != nil {
		os.Remove(f.Name())
		return err
	}
	if err := os.Rename(f.Name(), f.path); err != nil {
		os.Remove(f.Name())
		return err
	}
	return nil
}

// abort removes the partial file.
func (f *atomicFile) abort() {
	f.File.Close()
	os.Remove(f.Name())
}

// size is the committed file's size.
func fileSize(path string) int64 {
	if st, err := os.Stat(path); err == nil {
		return st.Size()
	}
	return 0
}
