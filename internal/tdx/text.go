package tdx

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"iter"

	"golang.org/x/text/encoding"
	"golang.org/x/text/encoding/simplifiedchinese"
)

// maxLineLen bounds one text line, so a binary file passed as text cannot
// make the reader buffer it whole; the longest real lines are a few KB.
const maxLineLen = 1 << 20

// eachLine calls fn with every line of r, without its LF and a trailing CR,
// with its 1-based number and the byte offset where it starts. The terminal
// writes CRLF on Windows, copies may have LF only, and the last line often
// lacks a newline: all are accepted.
func eachLine(r io.Reader, fn func(no int, off int64, line []byte) bool) error {
	br := bufio.NewReaderSize(r, 64<<10)
	var long []byte // assembles lines longer than the bufio buffer
	var off int64
	for no := 1; ; no++ {
		line, err := br.ReadSlice('\n')
		if errors.Is(err, bufio.ErrBufferFull) {
			long = append(long[:0], line...)
			for errors.Is(err, bufio.ErrBufferFull) && len(long) <= maxLineLen {
				line, err = br.ReadSlice('\n')
				long = append(long, line...)
			}
			if len(long) > maxLineLen {
				return lineErr(off, no, "line longer than %d bytes; not a text file?", maxLineLen)
			}
			line = long
		}
		if err != nil && !errors.Is(err, io.EOF) {
			return err
		}
		if len(line) == 0 && err != nil {
			return nil
		}
		next := off + int64(len(line))
		line = bytes.TrimSuffix(line, []byte("\n"))
		line = bytes.TrimSuffix(line, []byte("\r"))
		if !fn(no, off, line) {
			return nil
		}
		if err != nil {
			return nil
		}
		off = next
	}
}

// gbkText decodes the terminal's GBK text into UTF-8. GB18030 is a superset
// of GBK, so every GBK byte sequence decodes the same; invalid bytes become
// U+FFFD instead of failing, since a garbled name is better than no row.
type gbkText struct {
	dec *encoding.Decoder
}

func newGBK() gbkText { return gbkText{dec: simplifiedchinese.GB18030.NewDecoder()} }

func (g gbkText) string(b []byte) string {
	if isASCII(b) {
		return string(b)
	}
	out, err := g.dec.Bytes(b)
	if err != nil {
		out = b // the decoder substitutes rather than fails; this is a last resort
	}
	return string(bytes.ToValidUTF8(out, []byte("\uFFFD")))
}

func isASCII(b []byte) bool {
	for _, c := range b {
		if c >= 0x80 {
			return false
		}
	}
	return true
}

// cstring is b up to its first NUL, as the fixed-width text fields of the
// binary files are NUL-padded.
func cstring(b []byte) []byte {
	if i := bytes.IndexByte(b, 0); i >= 0 {
		return b[:i]
	}
	return b
}

// encodeGBK is for the writers: names must be representable in GBK, the
// terminal's only encoding.
func encodeGBK(s string) ([]byte, error) {
	return simplifiedchinese.GBK.NewEncoder().Bytes([]byte(s))
}

// lineParser turns one non-empty line into a value, or says why it cannot.
type lineParser[T any] func(g gbkText, line []byte) (T, string)

// parseLines streams the values of a line-per-record text file. Empty lines
// are skipped; a line the parser rejects is yielded as a *FormatError with
// its number and offset, and decoding goes on with the next line.
func parseLines[T any](r io.Reader, parse lineParser[T]) iter.Seq2[T, error] {
	return func(yield func(T, error) bool) {
		g := newGBK()
		var zero T
		stopped := false
		err := eachLine(r, func(no int, off int64, line []byte) bool {
			if len(bytes.TrimSpace(line)) == 0 {
				return true
			}
			v, why := parse(g, line)
			if why != "" {
				stopped = !yield(zero, lineErr(off, no, "%s", why))
			} else {
				stopped = !yield(v, nil)
			}
			return !stopped
		})
		if err != nil && !stopped {
			yield(zero, err)
		}
	}
}

// readLines collects parseLines of a file: the good values, and the line
// errors joined (each naming the file).
func readLines[T any](path string, parse lineParser[T]) ([]T, error) {
	f, err := openShared(path)
	if err != nil {
		return nil, fmt.Errorf("tdx: %w", err)
	}
	defer f.Close()
	var out []T
	var errs errorList
	for v, err := range parseLines(f, parse) {
		if err != nil {
			var fe *FormatError
			if !errors.As(err, &fe) {
				return out, fmt.Errorf("tdx: %s: %w", path, err)
			}
			errs.add(named(err, path))
			continue
		}
		out = append(out, v)
	}
	return out, errs.err()
}

// splitFields splits a |-separated line without allocating a new backing
// array per field beyond the slice itself.
func splitFields(line []byte, sep byte, dst [][]byte) [][]byte {
	dst = dst[:0]
	for {
		i := bytes.IndexByte(line, sep)
		if i < 0 {
			return append(dst, line)
		}
		dst = append(dst, line[:i])
		line = line[i+1:]
	}
}

// atoi parses a small non-negative decimal field.
func atoi(b []byte) (int, bool) {
	b = bytes.TrimSpace(b)
	if len(b) == 0 || len(b) > 9 {
		return 0, false
	}
	n := 0
	for _, c := range b {
		if c < '0' || c > '9' {
			return 0, false
		}
		n = n*10 + int(c-'0')
	}
	return n, true
}
