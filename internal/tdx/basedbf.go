package tdx

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"strconv"
	"strings"

	"mdqs/internal/market"
)

// BaseDBFSource names the facts base.dbf gives (listing days) where they
// are stored and answered.
const BaseDBFSource = "base.dbf"

// BaseRecord is one row of T0002/hq_cache/base.dbf (tdx.md §6.3), the
// terminal's table of each stock's capital and accounts: what mdqs takes
// from it is the listing day (SSDATE), which many codes' gbbq lacks, and
// the share counts it was last updated with.
type BaseRecord struct {
	Code        market.Code
	Listed      market.Day // SSDATE; 0 when the row gives none
	Updated     market.Day // GXRQ; 0 when the row gives none
	TotalShares float64    // ZGB in shares (the file counts in 10,000s); NaN when empty
	FloatShares float64    // LTAG (tradable A shares) in shares; NaN when empty
}

// dBASE III, as base.dbf is written: a 32-byte header (version byte,
// update date, uint32 record count at 4, uint16 header length at 8,
// uint16 record length at 10), 32-byte field descriptors up to a 0x0D
// byte, then fixed-width records whose first byte is ' ' (live) or '*'
// (deleted). No dBASE package is on the module proxy this project builds
// from, and the file is fixed-width ASCII of which five fields are read,
// so the reader is written out here; FuzzBaseDBF holds it to never panic.
const (
	dbfHeaderLen     = 32
	dbfFieldLen      = 32
	maxBaseDBFRows   = 100_000 // about 5,300 in a 2020 file
	maxBaseDBFRecLen = 4096    // 481 in a 2020 file
)

type dbfField struct {
	off, len int
}

// DecodeBaseDBF reads base.dbf's bytes. A header that is not dBASE, or
// lacks the fields named above, is an error and no record; a row whose
// market, code or date cannot be read is reported in the joined error and
// skipped, the others kept. A file cut short keeps its whole rows.
func DecodeBaseDBF(data []byte) ([]BaseRecord, error) {
	if len(data) < dbfHeaderLen+1 {
		return nil, &FormatError{Reason: fmt.Sprintf("%d bytes: too short for a dBASE header", len(data))}
	}
	if v := data[0] & 0x07; v != 0x03 {
		return nil, &FormatError{Reason: fmt.Sprintf("version byte %#02x: not a dBASE III table", data[0])}
	}
	count := int(binary.LittleEndian.Uint32(data[4:]))
	headLen := int(binary.LittleEndian.Uint16(data[8:]))
	recLen := int(binary.LittleEndian.Uint16(data[10:]))
	switch {
	case count > maxBaseDBFRows:
		return nil, &FormatError{Offset: 4, Reason: fmt.Sprintf("%d records: more than a base.dbf holds", count)}
	case recLen < 2 || recLen > maxBaseDBFRecLen:
		return nil, &FormatError{Offset: 10, Reason: fmt.Sprintf("record length %d", recLen)}
	case headLen < dbfHeaderLen+1 || headLen > len(data):
		return nil, &FormatError{Offset: 8, Reason: fmt.Sprintf("header length %d in a file of %d bytes", headLen, len(data))}
	}
	fields, err := dbfFields(data[dbfHeaderLen:headLen], recLen)
	if err != nil {
		return nil, err
	}
	for _, name := range []string{"SC", "GPDM", "SSDATE"} {
		if _, ok := fields[name]; !ok {
			return nil, &FormatError{Offset: dbfHeaderLen, Reason: "no field " + name + ": not the terminal's base.dbf"}
		}
	}
	body := data[headLen:]
	if whole := len(body) / recLen; whole < count {
		count = whole // cut short while being written: the whole rows
	}
	out := make([]BaseRecord, 0, count)
	var errs errorList
	for i := range count {
		rec := body[i*recLen : (i+1)*recLen]
		if rec[0] == '*' {
			continue
		}
		r, err := baseRecord(rec, fields)
		if err != nil {
			errs.add(&FormatError{Offset: int64(headLen + i*recLen), Reason: err.Error()})
			continue
		}
		out = append(out, r)
	}
	return out, errs.err()
}

// ReadBaseDBF reads the file at path (opened so the terminal may go on
// writing it).
func ReadBaseDBF(path string) ([]BaseRecord, error) {
	data, err := readShared(path)
	if err != nil {
		return nil, err
	}
	recs, err := DecodeBaseDBF(data)
	return recs, namedAll(err, path)
}

// dbfFields maps each field's name to its place in a record (after the
// deletion flag byte).
func dbfFields(desc []byte, recLen int) (map[string]dbfField, error) {
	out := map[string]dbfField{}
	off := 1
	for i := 0; i+dbfFieldLen <= len(desc) && desc[i] != 0x0D; i += dbfFieldLen {
		d := desc[i : i+dbfFieldLen]
		name := string(bytes.TrimRight(d[:11], "\x00 "))
		n := int(d[16])
		if off+n > recLen {
			return nil, &FormatError{Offset: int64(dbfHeaderLen + i), Reason: fmt.Sprintf("field %q ends at %d, past the record length %d", name, off+n, recLen)}
		}
		out[strings.ToUpper(name)] = dbfField{off: off, len: n}
		off += n
	}
	return out, nil
}

func baseRecord(rec []byte, fields map[string]dbfField) (BaseRecord, error) {
	text := func(name string) string {
		f, ok := fields[name]
		if !ok {
			return ""
		}
		return strings.TrimSpace(string(rec[f.off : f.off+f.len]))
	}
	var ex market.Exchange
	switch sc := text("SC"); sc {
	case "0":
		ex = market.SZ
	case "1":
		ex = market.SH
	case "2":
		ex = market.BJ
	default:
		return BaseRecord{}, fmt.Errorf("market %q: want 0 (SZ), 1 (SH) or 2 (BJ)", sc)
	}
	code, err := market.ParseCode(text("GPDM") + "." + string(ex))
	if err != nil {
		return BaseRecord{}, fmt.Errorf("code %q: %v", text("GPDM"), err)
	}
	r := BaseRecord{Code: code, TotalShares: tenThousands(text("ZGB")), FloatShares: tenThousands(text("LTAG"))}
	if r.Listed, err = dbfDay(text("SSDATE")); err != nil {
		return BaseRecord{}, fmt.Errorf("%s: SSDATE %v", code, err)
	}
	if r.Updated, err = dbfDay(text("GXRQ")); err != nil {
		return BaseRecord{}, fmt.Errorf("%s: GXRQ %v", code, err)
	}
	return r, nil
}

// dbfDay reads a YYYYMMDD number; empty or zero is no day.
func dbfDay(s string) (market.Day, error) {
	if s == "" || strings.Trim(s, "0") == "" {
		return 0, nil
	}
	d, err := market.ParseDay(s)
	if err != nil || len(s) != 8 || d < 19900101 {
		return 0, fmt.Errorf("%q is not a day", s)
	}
	return d, nil
}

// tenThousands reads a count of 10,000 shares as shares; NaN when empty
// or not a number.
func tenThousands(s string) float64 {
	v, err := strconv.ParseFloat(s, 64)
	if err != nil || v < 0 {
		return market.Unknown()
	}
	return v * 10_000
}

// EncodeBaseDBF writes rows as a base.dbf of the fields mdqs reads, in the
// file's order with others between them, as a terminal's would be laid out
// (tests and the bridge's test terminal build files with it). A zero day is
// written as blanks, a NaN count as blanks.
func EncodeBaseDBF(rows []BaseRecord) []byte {
	type field struct {
		name string
		typ  byte
		len  int
		val  func(BaseRecord) string
	}
	day := func(d market.Day) string {
		if d == 0 {
			return ""
		}
		return strconv.Itoa(int(d))
	}
	count := func(v float64) string {
		if v != v {
			return ""
		}
		return strconv.FormatFloat(v/10_000, 'f', 2, 64)
	}
	fields := []field{
		{"SC", 'C', 1, func(r BaseRecord) string {
			return map[market.Exchange]string{market.SZ: "0", market.SH: "1", market.BJ: "2"}[r.Code.Exchange]
		}},
		{"GPDM", 'C', 6, func(r BaseRecord) string { return r.Code.Symbol }},
		{"GXRQ", 'N', 8, func(r BaseRecord) string { return day(r.Updated) }},
		{"ZGB", 'N', 12, func(r BaseRecord) string { return count(r.TotalShares) }},
		{"GJG", 'N', 12, func(BaseRecord) string { return "0.00" }},
		{"LTAG", 'N', 12, func(r BaseRecord) string { return count(r.FloatShares) }},
		{"JLY", 'N', 14, func(BaseRecord) string { return "0.00" }},
		{"SSDATE", 'N', 8, func(r BaseRecord) string { return day(r.Listed) }},
		{"GDRS", 'N', 10, func(BaseRecord) string { return "0" }},
	}
	recLen := 1
	for _, f := range fields {
		recLen += f.len
	}
	headLen := dbfHeaderLen + len(fields)*dbfFieldLen + 1
	b := make([]byte, headLen, headLen+len(rows)*recLen+1)
	b[0] = 0x03
	binary.LittleEndian.PutUint32(b[4:], uint32(len(rows)))
	binary.LittleEndian.PutUint16(b[8:], uint16(headLen))
	binary.LittleEndian.PutUint16(b[10:], uint16(recLen))
	for i, f := range fields {
		d := b[dbfHeaderLen+i*dbfFieldLen:]
		copy(d[:11], f.name)
		d[11] = f.typ
		d[16] = byte(f.len)
	}
	b[headLen-1] = 0x0D
	for _, r := range rows {
		b = append(b, ' ')
		for _, f := range fields {
			v := f.val(r)
			if f.typ == 'N' {
				b = append(b, fmt.Sprintf("%*s", f.len, v)...) // numbers right-aligned, as dBASE writes them
			} else {
				b = append(b, fmt.Sprintf("%-*s", f.len, v)...)
			}
		}
	}
	return append(b, 0x1A)
}
