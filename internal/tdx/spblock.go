package tdx

import (
	"bytes"
	"fmt"
	"io"
	"iter"

	"mdqs/internal/market"
)

// SPBlock is one block of T0002/hq_cache/spblock.dat, the terminal's
// "special blocks" (shared/reference/eastmoney-part2.md e.4): margin
// trading, the Stock Connect lists, index constituents (中证500, 深证成指,
// and in newer files 中证1000/2000), ETF and bond groups. Unlike
// block_*.dat the file is text, carries each member's market and has no
// 400-member cap; unlike infoharbor_block.dat it has no count, block code
// or dates.
type SPBlock struct {
	Name    string // as written after '#', GBK decoded
	Members []market.Code
}

// spBlock is the block being assembled.
type spBlock struct {
	b   SPBlock
	off int64
	no  int
	why string
}

// SPBlocks streams spblock.dat: a line "#name", then one member a line as
// seven characters, the market digit (0 SZ, 1 SH, 2 BJ) and the six-digit
// code, until the next "#" line. LF and CRLF are both accepted and blank
// lines skipped. A block with a line that is not a member is yielded
// whole as one *FormatError at its header, never with that line left
// out: a list short of a member would read as the member having left the
// index. Members listed twice are kept once. Lines before the first
// header are one *FormatError.
func SPBlocks(r io.Reader) iter.Seq2[SPBlock, error] {
	return func(yield func(SPBlock, error) bool) {
		g := newGBK()
		var cur *spBlock
		stopped := false
		var seen map[market.Code]bool
		flush := func() bool {
			if cur == nil {
				return true
			}
			c := cur
			cur = nil
			if c.why != "" {
				return yield(SPBlock{}, lineErr(c.off, c.no, "block %q: %s", c.b.Name, c.why))
			}
			return yield(c.b, nil)
		}
		orphan := false
		err := eachLine(r, func(no int, off int64, line []byte) bool {
			line = bytes.TrimSpace(line)
			switch {
			case len(line) == 0:
				return true
			case line[0] == '#':
				if !flush() {
					stopped = true
					return false
				}
				cur = &spBlock{b: SPBlock{Name: g.string(bytes.TrimSpace(line[1:]))}, off: off, no: no}
				if cur.b.Name == "" {
					cur.why = "header has no block name"
				}
				seen = map[market.Code]bool{}
			case cur == nil:
				if !orphan { // one error for the lines before the first header
					orphan = true
					stopped = !yield(SPBlock{}, lineErr(off, no, "member line before the first #name header"))
					return !stopped
				}
			case cur.why == "":
				c, ok := spMember(line)
				if !ok {
					cur.why = fmt.Sprintf("line %d is %q, not a market digit and a six-digit code", no, clip(line))
					return true
				}
				if !seen[c] {
					seen[c] = true
					cur.b.Members = append(cur.b.Members, c)
				}
			}
			return true
		})
		if stopped {
			return
		}
		if err != nil {
			yield(SPBlock{}, err)
			return
		}
		flush()
	}
}

// spMember decodes "1600000" (market digit + code).
func spMember(b []byte) (market.Code, bool) {
	if len(b) != 7 || !isSymbol(b[1:]) {
		return market.Code{}, false
	}
	ex, ok := exchangeOfDigit(b[0])
	if !ok {
		return market.Code{}, false
	}
	return market.Code{Symbol: string(b[1:]), Exchange: ex}, true
}

// clip shortens a bad line for a message.
func clip(b []byte) []byte {
	if len(b) > 20 {
		return b[:20]
	}
	return b
}

// ReadSPBlock reads spblock.dat: the good blocks, and the bad ones joined
// into the error.
func ReadSPBlock(path string) ([]SPBlock, error) {
	f, err := openShared(path)
	if err != nil {
		return nil, fmt.Errorf("tdx: %w", err)
	}
	defer f.Close()
	var out []SPBlock
	var errs errorList
	for b, err := range SPBlocks(f) {
		if err != nil {
			errs.add(named(err, path))
			continue
		}
		out = append(out, b)
	}
	return out, errs.err()
}
