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

// SPBlocks streams spblock.dat: a line "#name", then one member a line as
// seven characters, the market digit (0 SZ, 1 SH, 2 BJ) and the six-digit
// code, until the next "#" line (hashBlocks: a block with a line that is
// not a member is one *FormatError, never yielded short of it). Members
// listed twice are kept once.
func SPBlocks(r io.Reader) iter.Seq2[SPBlock, error] {
	g := newGBK()
	var seen map[market.Code]bool
	open := func(h []byte) (SPBlock, string) {
		seen = map[market.Code]bool{}
		b := SPBlock{Name: g.string(bytes.TrimSpace(h))}
		if b.Name == "" {
			return b, "header has no block name"
		}
		return b, ""
	}
	member := func(b *SPBlock, no int, line []byte) string {
		c, ok := spMember(line)
		if !ok {
			return fmt.Sprintf("line %d is %q, not a market digit and a six-digit code", no, clip(line))
		}
		if !seen[c] {
			seen[c] = true
			b.Members = append(b.Members, c)
		}
		return ""
	}
	return hashBlocks(r, "#name", open, member, func(*SPBlock) string { return "" }, func(b *SPBlock) string { return b.Name })
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
