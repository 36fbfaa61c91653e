package tdx

import (
	"bytes"
	"fmt"
	"io"
	"iter"
)

// InconEntry is one code → name line of incon.dat, in the section it
// belongs to (ZJHHY, TDXNHY, SWHY, TDXXHYFL, TDXRSHY …; tdx.md §5.6).
type InconEntry struct {
	Section string
	Code    string
	Name    string // the last field
	Extra   string // fields between code and name, as written ("" for most sections)
}

// InconEntries streams incon.dat. A "#NAME" line opens a section and
// "######" closes it; a section opened without closing the previous one
// (the real file has one) simply starts a new section. Lines outside any
// section and lines without a "|" are yielded as *FormatError.
func InconEntries(r io.Reader) iter.Seq2[InconEntry, error] {
	return func(yield func(InconEntry, error) bool) {
		g := newGBK()
		section := ""
		stopped := false
		err := eachLine(r, func(no int, off int64, line []byte) bool {
			line = bytes.TrimSpace(line)
			var e InconEntry
			var why string
			switch {
			case len(line) == 0:
				return true
			case bytes.HasPrefix(line, []byte("######")):
				section = ""
				return true
			case line[0] == '#':
				section = g.string(line[1:])
				return true
			case section == "":
				why = "entry outside any #SECTION"
			default:
				first := bytes.IndexByte(line, '|')
				last := bytes.LastIndexByte(line, '|')
				if first <= 0 {
					why = "want code|name"
					break
				}
				e = InconEntry{Section: section, Code: g.string(line[:first]), Name: g.string(line[last+1:])}
				if last > first {
					e.Extra = g.string(line[first+1 : last])
				}
			}
			if why != "" {
				stopped = !yield(InconEntry{}, lineErr(off, no, "%s", why))
			} else {
				stopped = !yield(e, nil)
			}
			return !stopped
		})
		if err != nil && !stopped {
			yield(InconEntry{}, err)
		}
	}
}

// ReadIncon reads incon.dat: the good entries, and the bad lines joined
// into the error.
func ReadIncon(path string) ([]InconEntry, error) {
	f, err := openShared(path)
	if err != nil {
		return nil, fmt.Errorf("tdx: %w", err)
	}
	defer f.Close()
	var out []InconEntry
	var errs errorList
	for e, err := range InconEntries(f) {
		if err != nil {
			errs.add(named(err, path))
			continue
		}
		out = append(out, e)
	}
	return out, errs.err()
}
