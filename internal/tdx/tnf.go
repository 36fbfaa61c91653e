package tdx

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"iter"
	"math"
	"path/filepath"
	"strings"

	"mdqs/internal/market"
)

// TNFLayout is the record size of a name file: the older shm/szm.tnf use
// 314 bytes, the newer shs/szs/bjs.tnf 360 (tdx.md §6).
type TNFLayout int

const (
	TNF314 TNFLayout = 314
	TNF360 TNFLayout = 360
)

const tnfHeaderSize = 50

// TNFHeader is the 50-byte header: the quote server the file came from and
// when it was written.
type TNFHeader struct {
	Server string
	Port   int
	Date   market.Day // zero when the stored word is not a date
	Time   int        // HHMMSS
}

// Security is one record of a name file.
type Security struct {
	Code market.Code
	// Name is as stored, minus padding; short names keep the spaces the
	// terminal pads them with ("万 科Ａ") and full-width letters.
	Name      string
	Decimals  int     // price decimals; 0 when the layout does not give them (360)
	LotSize   float64 // 100 for stocks and funds, 10 for bonds; 0 when unknown (360)
	PrevClose float64 // NaN when unknown (360)
	Pinyin    string  // initials, e.g. PAYH; "" when unknown (360)
}

// TNFFile is a decoded name file.
type TNFFile struct {
	Header     TNFHeader
	Layout     TNFLayout
	Market     market.Exchange // from the file name; "" when it did not say
	Securities []Security
}

func decodeTNFHeader(b []byte) TNFHeader {
	le := binary.LittleEndian
	h := TNFHeader{
		Server: string(bytes.TrimSpace(cstring(b[:40]))),
		Port:   int(le.Uint16(b[40:])),
		Time:   int(le.Uint32(b[46:])),
	}
	if d, ok := dayOf(le.Uint32(b[42:])); ok {
		h.Date = d
	}
	return h
}

// tnfName tells the market and layout a file name implies: shm/szm.tnf are
// the 314-byte generation, shs/szs/bjs.tnf the 360-byte one.
func tnfName(name string) (market.Exchange, TNFLayout, bool) {
	n := strings.ToLower(name)
	if len(n) != 7 || !strings.HasSuffix(n, ".tnf") {
		return "", 0, false
	}
	ex, ok := exchangeOfPrefix(n[:2])
	if !ok {
		return "", 0, false
	}
	switch n[2] {
	case 'm':
		return ex, TNF314, true
	case 's':
		return ex, TNF360, true
	}
	return "", 0, false
}

// tnfLayoutOf picks the layout from the size, which is exact for all but
// sizes that fit both record lengths; the name settles those.
func tnfLayoutOf(size int64, byName TNFLayout) (TNFLayout, error) {
	if size < tnfHeaderSize {
		return 0, formatErr(0, "file of %d bytes is shorter than the %d-byte header", size, tnfHeaderSize)
	}
	body := size - tnfHeaderSize
	fits314, fits360 := body%314 == 0, body%360 == 0
	switch {
	case body == 0 && byName == 0:
		return TNF314, nil // no records: either layout reads nothing
	case fits314 && fits360:
		if byName != 0 {
			return byName, nil
		}
		return 0, formatErr(0, "size %d fits both 314- and 360-byte records and the file name does not tell", size)
	case fits314:
		return TNF314, nil
	case fits360:
		return TNF360, nil
	}
	return 0, formatErr(0, "size %d is not a 50-byte header plus whole 314- or 360-byte records", size)
}

// Securities streams the records of a name file after its header. ex is
// the market of the file (from its name); when "" the 314-byte records'
// market byte is used and, for 360-byte records, the code ranges. A record
// whose code is not six digits is yielded as a *FormatError; a trailing
// partial record as a *PartialRecordError.
func Securities(r io.Reader, layout TNFLayout, ex market.Exchange) iter.Seq2[Security, error] {
	return func(yield func(Security, error) bool) {
		if layout != TNF314 && layout != TNF360 {
			yield(Security{}, fmt.Errorf("tdx: unknown tnf layout %d", layout))
			return
		}
		head := make([]byte, tnfHeaderSize)
		if n, err := io.ReadFull(r, head); err != nil {
			if errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF) {
				err = formatErr(0, "file of %d bytes is shorter than the %d-byte header", n, tnfHeaderSize)
			}
			yield(Security{}, err)
			return
		}
		g := newGBK()
		stopped, err := eachRecord(r, int(layout), func(off int64, rec []byte) bool {
			s, why := decodeSecurity(g, rec, layout, ex)
			if why != "" {
				return yield(Security{}, formatErr(off+tnfHeaderSize, "%s", why))
			}
			return yield(s, nil)
		})
		if err != nil && !stopped {
			var pe *PartialRecordError
			if errors.As(err, &pe) {
				pe.Offset += tnfHeaderSize
			}
			yield(Security{}, err)
		}
	}
}

func decodeSecurity(g gbkText, rec []byte, layout TNFLayout, ex market.Exchange) (Security, string) {
	nameAt, codeEnd := 23, 23
	if layout == TNF360 {
		nameAt, codeEnd = 31, 31
	}
	code := bytes.TrimSpace(cstring(rec[:codeEnd]))
	if !isSymbol(code) {
		return Security{}, fmt.Sprintf("code %q is not six digits", code)
	}
	s := Security{
		Name:      g.string(bytes.TrimRight(cstring(rec[nameAt:nameAt+49]), " ")),
		PrevClose: math.NaN(),
	}
	if layout == TNF314 {
		le := binary.LittleEndian
		s.Decimals = int(le.Uint16(rec[72:]))
		s.LotSize = Decimal32(math.Float32frombits(le.Uint32(rec[74:])))
		pc := float64(math.Float32frombits(le.Uint32(rec[276:])))
		if s.Decimals < 0 || s.Decimals > 6 || !(s.LotSize >= 0) || math.IsInf(s.LotSize, 0) {
			return Security{}, fmt.Sprintf("code %s: decimals %d / lot size %g out of range", code, s.Decimals, s.LotSize)
		}
		if pc >= 0 && pc < maxPrice {
			s.PrevClose = roundTo(pc, s.Decimals)
		}
		s.Pinyin = string(bytes.TrimSpace(cstring(rec[285:314])))
		if ex == "" {
			ex, _ = exchangeOfDigit('0' + rec[280])
		}
	}
	if ex == "" {
		ex = market.InferExchange(string(code))
	}
	s.Code = market.Code{Symbol: string(code), Exchange: ex}
	return s, ""
}

// ReadTNF reads a name file, choosing the layout from its size (and its
// name when the size fits both) and the market from its name.
func ReadTNF(path string) (*TNFFile, error) {
	data, err := readShared(path)
	if err != nil {
		return nil, err
	}
	ex, byName, _ := tnfName(filepath.Base(path))
	layout, err := tnfLayoutOf(int64(len(data)), byName)
	if err != nil {
		return nil, named(err, path)
	}
	tf := &TNFFile{Header: decodeTNFHeader(data), Layout: layout, Market: ex}
	tf.Securities = make([]Security, 0, (len(data)-tnfHeaderSize)/int(layout))
	var errs errorList
	for s, err := range Securities(bytes.NewReader(data), layout, ex) {
		if err != nil {
			errs.add(named(err, path))
			continue
		}
		tf.Securities = append(tf.Securities, s)
	}
	return tf, errs.err()
}
