package tdx

import (
	"bytes"
	"io"
	"iter"
)

// hashBlocks walks a text file of blocks as spblock.dat and
// infoharbor_block.dat write them: a header line starting with '#', then
// member lines until the next header; blank lines are skipped, LF and
// CRLF both accepted. open reads a header (without its '#') into a block
// and says why it is not one ("": it is); member adds member line no to
// the block or says why the line is not one, and is not called again for
// the block once it failed; done checks a whole block. A block that fails
// anywhere is yielded as one *FormatError at its header, never with a
// line left out: a list short of a member reads as the member having
// left. Member lines before the first header are one *FormatError,
// naming header, the header's form.
func hashBlocks[B any](r io.Reader, header string, open func(h []byte) (B, string), member func(b *B, no int, line []byte) string,
	done func(b *B) string, name func(b *B) string) iter.Seq2[B, error] {
	type pending struct {
		b       B
		off     int64
		no      int
		why     string
		started bool
	}
	return func(yield func(B, error) bool) {
		var zero B
		var cur pending
		stopped, orphan := false, false
		flush := func() bool {
			if !cur.started {
				return true
			}
			c := cur
			cur = pending{}
			if c.why == "" {
				c.why = done(&c.b)
			}
			if c.why != "" {
				return yield(zero, lineErr(c.off, c.no, "block %q: %s", name(&c.b), c.why))
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
				b, why := open(line[1:])
				cur = pending{b: b, off: off, no: no, why: why, started: true}
			case !cur.started:
				if !orphan { // one error for the lines before the first header
					orphan = true
					stopped = !yield(zero, lineErr(off, no, "member line before the first %s header", header))
					return !stopped
				}
			case cur.why == "":
				cur.why = member(&cur.b, no, line)
			}
			return true
		})
		if stopped {
			return
		}
		if err != nil {
			yield(zero, err)
			return
		}
		flush()
	}
}
