package tdx

// Writers for tests and benchmarks: they let other packages build a fake
// terminal folder in a temp dir. They produce the layouts the decoders
// read; they are not meant to write into a live terminal install.

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"fmt"
	"io"
	"math"

	"mdqs/internal/market"
)

// AppendDayRecord appends the 32 stored bytes of r. It writes any values,
// including invalid ones, so tests can build corrupt files.
func AppendDayRecord(b []byte, r DayRecord) []byte {
	le := binary.LittleEndian
	b = le.AppendUint32(b, r.Date)
	b = le.AppendUint32(b, r.Open)
	b = le.AppendUint32(b, r.High)
	b = le.AppendUint32(b, r.Low)
	b = le.AppendUint32(b, r.Close)
	b = le.AppendUint32(b, math.Float32bits(r.Amount))
	b = le.AppendUint32(b, r.Volume)
	return le.AppendUint32(b, r.Reserved)
}

// DayRecordOf is the stored form of a bar under s: prices × PriceDiv and
// volume ÷ VolumeMul, which must come out as whole uint32 values.
func DayRecordOf(bar market.Bar, s Scale) (DayRecord, error) {
	s = s.norm()
	var px [4]uint32
	for i, p := range [4]float64{bar.Open, bar.High, bar.Low, bar.Close} {
		v := math.Round(p * s.PriceDiv)
		if !(v >= 0 && v <= math.MaxUint32) {
			return DayRecord{}, fmt.Errorf("tdx: %s: price %g does not fit the .day format at ÷%g", bar.Day, p, s.PriceDiv)
		}
		px[i] = uint32(v)
	}
	vol, err := storedVolume(bar, s, math.MaxUint32)
	if err != nil {
		return DayRecord{}, err
	}
	return DayRecord{
		Date: uint32(bar.Day), Open: px[0], High: px[1], Low: px[2], Close: px[3],
		Amount: float32(bar.Amount), Volume: uint32(vol),
	}, nil
}

func storedVolume(bar market.Bar, s Scale, limit int64) (int64, error) {
	if bar.Volume < 0 || bar.Volume%s.VolumeMul != 0 || bar.Volume/s.VolumeMul > limit {
		return 0, fmt.Errorf("tdx: %s: volume %d is not a whole number of %d-share lots that fits the format", bar.Day, bar.Volume, s.VolumeMul)
	}
	return bar.Volume / s.VolumeMul, nil
}

// WriteDay writes bars as a .day file under s. The reserved word is 0.
func WriteDay(w io.Writer, bars []market.Bar, s Scale) error {
	buf := make([]byte, 0, BarRecordSize*len(bars))
	for _, bar := range bars {
		r, err := DayRecordOf(bar, s)
		if err != nil {
			return err
		}
		buf = AppendDayRecord(buf, r)
	}
	_, err := w.Write(buf)
	return err
}

// AppendMinuteRecord appends the 32 stored bytes of a minute bar under the
// layout and s: the packed date, the end minute taken from bar.TS, prices as
// float32 (LayoutLC) or × 100 (LayoutOld), volume ÷ VolumeMul.
func AppendMinuteRecord(b []byte, layout MinuteLayout, bar market.Bar, s Scale) ([]byte, error) {
	s = s.norm()
	dw, ok := packDay(bar.Day)
	if !ok {
		return b, fmt.Errorf("tdx: %s: the minute date word holds 2004-2035 only", bar.Day)
	}
	sec := bar.TS - shanghaiUnix(bar.Day, 0)
	if sec < 0 || sec >= minutesPerDay*60 || sec%60 != 0 {
		return b, fmt.Errorf("tdx: %s: TS %d is not a whole minute of that day", bar.Day, bar.TS)
	}
	le := binary.LittleEndian
	b = le.AppendUint16(b, dw)
	b = le.AppendUint16(b, uint16(sec/60))
	for _, p := range [4]float64{bar.Open, bar.High, bar.Low, bar.Close} {
		switch layout {
		case LayoutLC:
			b = le.AppendUint32(b, math.Float32bits(float32(p)))
		case LayoutOld:
			v := math.Round(p * 100)
			if !(v >= 0 && v <= math.MaxUint32) {
				return b, fmt.Errorf("tdx: %s: price %g does not fit the old minute format", bar.Day, p)
			}
			b = le.AppendUint32(b, uint32(v))
		default:
			return b, fmt.Errorf("tdx: unknown minute layout %d", layout)
		}
	}
	b = le.AppendUint32(b, math.Float32bits(float32(bar.Amount)))
	limit := int64(math.MaxInt32)
	if layout == LayoutOld {
		limit = math.MaxUint32
	}
	vol, err := storedVolume(bar, s, limit)
	if err != nil {
		return b, err
	}
	b = le.AppendUint32(b, uint32(vol))
	return le.AppendUint32(b, 0), nil
}

// WriteMinute writes bars as a .lc1/.lc5 (LayoutLC) or .1/.5 (LayoutOld) file.
func WriteMinute(w io.Writer, layout MinuteLayout, bars []market.Bar, s Scale) error {
	buf := make([]byte, 0, BarRecordSize*len(bars))
	for _, bar := range bars {
		var err error
		if buf, err = AppendMinuteRecord(buf, layout, bar, s); err != nil {
			return err
		}
	}
	_, err := w.Write(buf)
	return err
}

// WriteBlockDat writes a block_*.dat file. Names must fit 8 GBK bytes and
// member lists 400 codes, as in the terminal's files; Truncated is not
// stored (the reader derives it from the count).
func WriteBlockDat(w io.Writer, blocks []Block) error {
	if len(blocks) > math.MaxUint16 {
		return fmt.Errorf("tdx: %d blocks do not fit the uint16 count", len(blocks))
	}
	out := make([]byte, blockDataStart, blockDataStart+len(blocks)*blockRecordSize)
	copy(out, blockHeaderText)
	le := binary.LittleEndian
	le.PutUint16(out[blockHeaderSize:], uint16(len(blocks)))
	for _, b := range blocks {
		name, err := encodeGBK(b.Name)
		if err != nil || len(name) > blockNameSize-1 {
			return fmt.Errorf("tdx: block name %q: not GBK or longer than %d bytes", b.Name, blockNameSize-1)
		}
		if len(b.Codes) > MaxBlockMembers {
			return fmt.Errorf("tdx: block %q: %d members exceed the %d-slot format", b.Name, len(b.Codes), MaxBlockMembers)
		}
		rec := make([]byte, blockRecordSize)
		copy(rec, name)
		le.PutUint16(rec[blockNameSize:], uint16(len(b.Codes)))
		le.PutUint16(rec[blockNameSize+2:], uint16(b.Type))
		for j, c := range b.Codes {
			if !isSymbol([]byte(c.Symbol)) {
				return fmt.Errorf("tdx: block %q: code %q is not six digits", b.Name, c.Symbol)
			}
			copy(rec[blockNameSize+4+j*blockSlotSize:], c.Symbol)
		}
		out = append(out, rec...)
	}
	_, err := w.Write(out)
	return err
}

// textWriter writes GBK lines ending in CRLF, as the Windows terminal does,
// and remembers the first error.
type textWriter struct {
	w   *bufio.Writer
	err error
}

func newTextWriter(w io.Writer) *textWriter { return &textWriter{w: bufio.NewWriter(w)} }

func (t *textWriter) line(format string, args ...any) {
	if t.err != nil {
		return
	}
	b, err := encodeGBK(fmt.Sprintf(format, args...))
	if err != nil {
		t.err = fmt.Errorf("tdx: text not representable in GBK: %w", err)
		return
	}
	if _, err := t.w.Write(b); err != nil {
		t.err = err
		return
	}
	_, t.err = t.w.WriteString("\r\n")
}

func (t *textWriter) close() error {
	if t.err != nil {
		return t.err
	}
	return t.w.Flush()
}

// WriteZSCfg writes a tdxzs*.cfg file.
func WriteZSCfg(w io.Writer, entries []ZSEntry) error {
	t := newTextWriter(w)
	for _, e := range entries {
		leaf := 0
		if e.Leaf {
			leaf = 1
		}
		t.line("%s|%s|%d|%d|%d|%s", e.Name, e.Code.Symbol, int(e.Type), e.Flag, leaf, e.Key)
	}
	return t.close()
}

// WriteHYCfg writes a tdxhy.cfg file in the newer 6-field layout
// (market|code|T|||X) or, with older set, the 5-field one (market|code|T|SW|H).
func WriteHYCfg(w io.Writer, entries []HYEntry, older bool) error {
	t := newTextWriter(w)
	for _, e := range entries {
		m, ok := digitOfExchange(e.Code.Exchange)
		if !ok {
			return fmt.Errorf("tdx: %s: no market digit", e.Code)
		}
		if older {
			t.line("%c|%s|%s|%s|%s", m, e.Code.Symbol, e.TCode, e.SWCode, e.HCode)
		} else {
			t.line("%c|%s|%s|||%s", m, e.Code.Symbol, e.TCode, e.XCode)
		}
	}
	return t.close()
}

// WriteBKCfg writes a tdxbk.cfg file.
func WriteBKCfg(w io.Writer, entries []BKEntry) error {
	t := newTextWriter(w)
	for _, e := range entries {
		var n int
		switch e.Kind {
		case KindBlockGN:
			n = 1
		case KindBlockFG:
			n = 2
		case KindBlockZS:
			n = 3
		default:
			return fmt.Errorf("tdx: tdxbk kind %q is not a block_*.dat kind", e.Kind)
		}
		t.line("%d|%s|%s|%d", n, e.Short, e.Full, e.Flag)
	}
	return t.close()
}

// WriteInfoHarbor writes an infoharbor_block.dat file in the layout
// HarborBlocks reads, wrapping members over lines of perLine codes (≤ 0:
// one line per block) to exercise multi-line blocks.
func WriteInfoHarbor(w io.Writer, blocks []HarborBlock, perLine int) error {
	t := newTextWriter(w)
	for _, b := range blocks {
		code, start, upd := b.Code.Symbol, "", ""
		if b.Start != 0 {
			start = b.Start.Compact()
		}
		if b.Updated != 0 {
			upd = b.Updated.Compact()
		}
		t.line("#%s_%s,%d,%s,%s,%s,,", b.Kind, b.Name, len(b.Members), code, start, upd)
		var line []byte
		for i, c := range b.Members {
			m, ok := digitOfExchange(c.Exchange)
			if !ok {
				return fmt.Errorf("tdx: %s: no market digit", c)
			}
			line = append(append(append(line, m, '#'), c.Symbol...), ',')
			if perLine > 0 && (i+1)%perLine == 0 {
				t.line("%s", line)
				line = line[:0]
			}
		}
		if len(line) > 0 {
			t.line("%s", line)
		}
	}
	return t.close()
}

// WriteTNF writes a name file of either layout. The 360-byte layout stores
// code and name only, as far as the format is known.
func WriteTNF(w io.Writer, h TNFHeader, layout TNFLayout, secs []Security) error {
	if layout != TNF314 && layout != TNF360 {
		return fmt.Errorf("tdx: unknown tnf layout %d", layout)
	}
	le := binary.LittleEndian
	out := make([]byte, tnfHeaderSize, tnfHeaderSize+len(secs)*int(layout))
	if len(h.Server) > 39 {
		return fmt.Errorf("tdx: server %q longer than 39 bytes", h.Server)
	}
	copy(out, h.Server)
	le.PutUint16(out[40:], uint16(h.Port))
	le.PutUint32(out[42:], uint32(h.Date))
	le.PutUint32(out[46:], uint32(h.Time))
	nameAt := 23
	if layout == TNF360 {
		nameAt = 31
	}
	for _, s := range secs {
		name, err := encodeGBK(s.Name)
		if err != nil || len(name) > 48 {
			return fmt.Errorf("tdx: name %q: not GBK or longer than 48 bytes", s.Name)
		}
		if !isSymbol([]byte(s.Code.Symbol)) {
			return fmt.Errorf("tdx: code %q is not six digits", s.Code.Symbol)
		}
		rec := make([]byte, layout)
		copy(rec, s.Code.Symbol)
		copy(rec[nameAt:], name)
		if layout == TNF314 {
			m, ok := digitOfExchange(s.Code.Exchange)
			if !ok || len(s.Pinyin) > 28 {
				return fmt.Errorf("tdx: %s: no market digit, or pinyin longer than 28 bytes", s.Code)
			}
			le.PutUint16(rec[72:], uint16(s.Decimals))
			le.PutUint32(rec[74:], math.Float32bits(float32(s.LotSize)))
			pc := s.PrevClose
			if math.IsNaN(pc) {
				pc = 0
			}
			le.PutUint32(rec[276:], math.Float32bits(float32(pc)))
			rec[280] = m - '0'
			le.PutUint32(rec[281:], 1)
			copy(rec[285:], s.Pinyin)
		}
		out = append(out, rec...)
	}
	_, err := w.Write(out)
	return err
}

// WriteBlockNewCfg writes blocknew.cfg from the blocks' names and stems.
func WriteBlockNewCfg(w io.Writer, blocks []UserBlock) error {
	out := make([]byte, 0, len(blocks)*blockNewRecordSize)
	for _, b := range blocks {
		name, err := encodeGBK(b.Name)
		if err != nil || len(name) >= blockNewNameSize || len(b.Stem) == 0 || len(b.Stem) >= blockNewRecordSize-blockNewNameSize {
			return fmt.Errorf("tdx: user block %q → %q: not GBK, empty stem or too long", b.Name, b.Stem)
		}
		rec := make([]byte, blockNewRecordSize)
		copy(rec, name)
		copy(rec[blockNewNameSize:], b.Stem)
		out = append(out, rec...)
	}
	_, err := w.Write(out)
	return err
}

// WriteBLK writes a .blk file, one market digit + code per line, with CRLF
// or (lf set) LF line ends.
func WriteBLK(w io.Writer, codes []market.Code, lf bool) error {
	end := "\r\n"
	if lf {
		end = "\n"
	}
	bw := bufio.NewWriter(w)
	for _, c := range codes {
		m, ok := digitOfExchange(c.Exchange)
		if !ok || !isSymbol([]byte(c.Symbol)) {
			return fmt.Errorf("tdx: %s: not a market and six-digit code", c)
		}
		bw.WriteByte(m)
		bw.WriteString(c.Symbol)
		bw.WriteString(end)
	}
	return bw.Flush()
}

// WriteSPBlock writes a spblock.dat file as the real one is: GBK, LF line
// endings, "#name" then one member a line as the market digit and the
// code, a final newline.
func WriteSPBlock(w io.Writer, blocks []SPBlock) error {
	bw := bufio.NewWriter(w)
	for _, b := range blocks {
		name, err := encodeGBK(b.Name)
		if err != nil {
			return fmt.Errorf("tdx: block name not representable in GBK: %w", err)
		}
		if bytes.ContainsAny(name, "\r\n") || b.Name == "" {
			return fmt.Errorf("tdx: block name %q cannot be one line", b.Name)
		}
		bw.WriteByte('#')
		bw.Write(name)
		bw.WriteByte('\n')
		for _, c := range b.Members {
			m, ok := digitOfExchange(c.Exchange)
			if !ok || len(c.Symbol) != 6 {
				return fmt.Errorf("tdx: %s: no market digit", c)
			}
			bw.WriteByte(m)
			bw.WriteString(c.Symbol)
			bw.WriteByte('\n')
		}
	}
	return bw.Flush()
}
