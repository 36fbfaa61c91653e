package tdx

import (
	"bytes"
	"fmt"
	"io"
	"iter"

	"mdqs/internal/market"
)

// blocknew.cfg: 120-byte records of a 50-byte GBK name and a 70-byte ASCII
// file stem, both NUL-padded (tdx.md §5.8).
const (
	blockNewRecordSize = 120
	blockNewNameSize   = 50
)

// WatchlistStem is the .blk stem of the watchlist (自选股), which
// blocknew.cfg does not list.
const WatchlistStem = "ZXG"

// UserBlock is a user-defined block: its display name, the stem of its .blk
// file, and (when read through a Terminal) its members.
type UserBlock struct {
	Name  string
	Stem  string
	Path  string // the .blk file; "" when it does not exist
	Codes []market.Code
}

// UserBlockEntries streams the records of blocknew.cfg. A record without a
// stem is yielded as a *FormatError; a trailing partial record as a
// *PartialRecordError.
func UserBlockEntries(r io.Reader) iter.Seq2[UserBlock, error] {
	return func(yield func(UserBlock, error) bool) {
		g := newGBK()
		stopped, err := eachRecord(r, blockNewRecordSize, func(off int64, rec []byte) bool {
			name := bytes.TrimSpace(cstring(rec[:blockNewNameSize]))
			stem := bytes.TrimSpace(cstring(rec[blockNewNameSize:]))
			if len(stem) == 0 || !isASCII(stem) || bytes.ContainsAny(stem, `/\:`) {
				return yield(UserBlock{}, formatErr(off+blockNewNameSize, "block %q: file stem %q is empty or not a plain ASCII name", g.string(name), stem))
			}
			return yield(UserBlock{Name: g.string(name), Stem: string(stem)}, nil)
		})
		if err != nil && !stopped {
			yield(UserBlock{}, err)
		}
	}
}

// ReadBlockNewCfg reads blocknew.cfg (names and stems only). A size that is
// not a multiple of 120 is a *FormatError with no entries, since the
// terminal rewrites the file whole and a partial one cannot be trusted.
func ReadBlockNewCfg(path string) ([]UserBlock, error) {
	data, err := readShared(path)
	if err != nil {
		return nil, err
	}
	if len(data)%blockNewRecordSize != 0 {
		return nil, &FormatError{File: path, Offset: int64(len(data) - len(data)%blockNewRecordSize),
			Reason: fmt.Sprintf("size %d is not a multiple of the %d-byte record", len(data), blockNewRecordSize)}
	}
	var out []UserBlock
	var errs errorList
	for b, err := range UserBlockEntries(bytes.NewReader(data)) {
		if err != nil {
			errs.add(named(err, path))
			continue
		}
		out = append(out, b)
	}
	return out, errs.err()
}

func parseBLK(_ gbkText, line []byte) (market.Code, string) {
	line = bytes.TrimSpace(line)
	if len(line) != 7 || !isSymbol(line[1:]) {
		return market.Code{}, fmt.Sprintf("%q is not a market digit and a six-digit code", line)
	}
	ex, ok := exchangeOfDigit(line[0])
	if !ok {
		return market.Code{}, fmt.Sprintf("market digit %q is not 0, 1 or 2", line[0])
	}
	return market.Code{Symbol: string(line[1:]), Exchange: ex}, ""
}

// BLKCodes streams a .blk file: one "market digit + code" per line; LF or
// CRLF, empty lines and a missing final newline are all accepted.
func BLKCodes(r io.Reader) iter.Seq2[market.Code, error] { return parseLines(r, parseBLK) }

// ReadBLK reads a .blk (or exported .EBK) file.
func ReadBLK(path string) ([]market.Code, error) { return readLines(path, parseBLK) }
