package tdx

import (
	"bytes"
	"fmt"
	"io"
	"iter"

	"mdqs/internal/market"
)

// HarborBlock is one block of infoharbor_block.dat (tdx.md §5.5, a layout
// known from third-party parsers only: no real file was available).
type HarborBlock struct {
	Kind    string      // GN (concept), FG (style), ZS (index), as written
	Name    string      // full name, not cut like block_*.dat names
	Code    market.Code // the 880xxx block index; zero when the file leaves it empty (ZS)
	Start   market.Day  // zero when absent
	Updated market.Day  // zero when absent
	Members []market.Code
}

// HarborBlocks streams infoharbor_block.dat: a header line
// "#GN_name,count,code,start,updated,," then member lines of "m#code,"
// tokens (market digit, '#', six digits) until the next header. The file
// carries the market of every member, so none is guessed. A block whose
// header or members do not parse, or whose member count differs from the
// header's, is yielded as one *FormatError at its header line
// (hashBlocks); the next block decodes normally.
func HarborBlocks(r io.Reader) iter.Seq2[HarborBlock, error] {
	g := newGBK()
	count := 0
	open := func(h []byte) (HarborBlock, string) {
		c := parseHarborHeader(g, h)
		count = c.count
		return c.b, c.why
	}
	member := func(b *HarborBlock, _ int, line []byte) string { return parseHarborMembers(line, &b.Members) }
	done := func(b *HarborBlock) string {
		if count != len(b.Members) {
			return fmt.Sprintf("header declares %d members, found %d", count, len(b.Members))
		}
		return ""
	}
	return hashBlocks(r, "#KIND_name", open, member, done, func(b *HarborBlock) string { return b.Name })
}

// harborHeader is a header read, with the member count it declares.
type harborHeader struct {
	b     HarborBlock
	count int
	why   string
}

func parseHarborHeader(g gbkText, h []byte) *harborHeader {
	c := &harborHeader{}
	var buf [8][]byte
	f := splitFields(h, ',', buf[:0])
	kind, name, ok := bytes.Cut(f[0], []byte("_"))
	c.b.Kind, c.b.Name = string(kind), g.string(name)
	if !ok || len(kind) == 0 {
		c.why = "header does not start with #KIND_name"
		return c
	}
	if len(f) < 3 {
		c.why = fmt.Sprintf("header has %d fields, want name,count,code[,start,updated]", len(f))
		return c
	}
	if c.count, ok = atoi(f[1]); !ok {
		c.why = fmt.Sprintf("member count %q is not a number", f[1])
		return c
	}
	if code := bytes.TrimSpace(f[2]); len(code) > 0 {
		if !isSymbol(code) {
			c.why = fmt.Sprintf("block code %q is not six digits", code)
			return c
		}
		c.b.Code = inferCode(code)
	}
	for i, dst := range []*market.Day{&c.b.Start, &c.b.Updated} {
		if len(f) <= 3+i {
			break
		}
		v := bytes.TrimSpace(f[3+i])
		if len(v) == 0 || string(v) == "0" {
			continue
		}
		n, ok := atoi(v)
		d, valid := dayOf(uint32(n))
		if !ok || !valid {
			c.why = fmt.Sprintf("date %q is not YYYYMMDD", v)
			return c
		}
		*dst = d
	}
	c.b.Members = make([]market.Code, 0, min(c.count, 8192))
	return c
}

// parseHarborMembers appends the "m#code" tokens of one line, or says why
// a token is not one.
func parseHarborMembers(line []byte, dst *[]market.Code) string {
	for len(line) > 0 {
		tok := line
		if i := bytes.IndexByte(line, ','); i >= 0 {
			tok, line = line[:i], line[i+1:]
		} else {
			line = nil
		}
		tok = bytes.TrimSpace(tok)
		if len(tok) == 0 {
			continue
		}
		ex, ok := market.Exchange(""), len(tok) == 8 && tok[1] == '#'
		if ok {
			ex, ok = exchangeOfDigit(tok[0])
		}
		if !ok || !isSymbol(tok[2:]) {
			return fmt.Sprintf("member %q is not market#code", tok)
		}
		*dst = append(*dst, market.Code{Symbol: string(tok[2:]), Exchange: ex})
	}
	return ""
}

// ReadInfoHarbor reads infoharbor_block.dat: the good blocks, and the bad
// ones joined into the error.
func ReadInfoHarbor(path string) ([]HarborBlock, error) {
	f, err := openShared(path)
	if err != nil {
		return nil, fmt.Errorf("tdx: %w", err)
	}
	defer f.Close()
	var out []HarborBlock
	var errs errorList
	for b, err := range HarborBlocks(f) {
		if err != nil {
			errs.add(named(err, path))
			continue
		}
		out = append(out, b)
	}
	return out, errs.err()
}
