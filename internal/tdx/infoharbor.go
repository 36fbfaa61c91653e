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

// harborBlock is the block being assembled, with the facts needed to check
// it once its member lines end.
type harborBlock struct {
	b     HarborBlock
	count int
	off   int64
	no    int
	why   string
}

// HarborBlocks streams infoharbor_block.dat: a header line
// "#GN_name,count,code,start,updated,," then member lines of "m#code,"
// tokens (market digit, '#', six digits) until the next header. The file
// carries the market of every member, so none is guessed. A block whose
// header or members do not parse, or whose member count differs from the
// header's, is yielded as one *FormatError at its header line; the next
// block decodes normally.
func HarborBlocks(r io.Reader) iter.Seq2[HarborBlock, error] {
	return func(yield func(HarborBlock, error) bool) {
		g := newGBK()
		var cur *harborBlock
		stopped := false
		flush := func() bool {
			if cur == nil {
				return true
			}
			c := cur
			cur = nil
			if c.why == "" && c.count != len(c.b.Members) {
				c.why = fmt.Sprintf("header declares %d members, found %d", c.count, len(c.b.Members))
			}
			if c.why != "" {
				return yield(HarborBlock{}, lineErr(c.off, c.no, "block %q: %s", c.b.Name, c.why))
			}
			return yield(c.b, nil)
		}
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
				cur = parseHarborHeader(g, line[1:], off, no)
			case cur == nil:
				stopped = !yield(HarborBlock{}, lineErr(off, no, "member line before the first #KIND_name header"))
				return !stopped
			case cur.why == "":
				cur.why = parseHarborMembers(line, &cur.b.Members)
			}
			return true
		})
		if stopped {
			return
		}
		if err != nil {
			yield(HarborBlock{}, err)
			return
		}
		flush()
	}
}

func parseHarborHeader(g gbkText, h []byte, off int64, no int) *harborBlock {
	c := &harborBlock{off: off, no: no}
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
