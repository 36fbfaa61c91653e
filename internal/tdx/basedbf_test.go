package tdx

import (
	"errors"
	"math"
	"testing"

	"mdqs/internal/market"
)

func TestBaseDBFRoundTrip(t *testing.T) {
	rows := []BaseRecord{
		{Code: market.MustCode("000001.SZ"), Listed: 19910403, Updated: 20201030, TotalShares: 19405918700, FloatShares: 19405600000},
		{Code: market.MustCode("600519.SH"), Listed: 20010827, Updated: 20201030, TotalShares: 1256197800, FloatShares: 1256197800},
		{Code: market.MustCode("430047.BJ"), Listed: 0, Updated: 0, TotalShares: math.NaN(), FloatShares: math.NaN()},
	}
	got, err := DecodeBaseDBF(EncodeBaseDBF(rows))
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != len(rows) {
		t.Fatalf("%d rows, want %d", len(got), len(rows))
	}
	for i, r := range rows {
		g := got[i]
		same := func(a, b float64) bool { return a == b || (math.IsNaN(a) && math.IsNaN(b)) }
		if g.Code != r.Code || g.Listed != r.Listed || g.Updated != r.Updated || !same(g.TotalShares, r.TotalShares) || !same(g.FloatShares, r.FloatShares) {
			t.Errorf("row %d = %+v, want %+v", i, g, r)
		}
	}
}

// Deleted rows are skipped; a bad row is reported with its offset and the
// others kept; a file cut inside a row keeps the whole ones before it.
func TestBaseDBFBadRowsAndTruncation(t *testing.T) {
	rows := []BaseRecord{
		{Code: market.MustCode("000001.SZ"), Listed: 19910403, TotalShares: 1, FloatShares: 1},
		{Code: market.MustCode("000002.SZ"), Listed: 19910129, TotalShares: 1, FloatShares: 1},
		{Code: market.MustCode("600000.SH"), Listed: 19991110, TotalShares: 1, FloatShares: 1},
	}
	data := EncodeBaseDBF(rows)
	headLen := int(data[8]) | int(data[9])<<8
	recLen := int(data[10]) | int(data[11])<<8
	deleted := append([]byte(nil), data...)
	deleted[headLen] = '*'
	if got, err := DecodeBaseDBF(deleted); err != nil || len(got) != 2 || got[0].Code.Symbol != "000002" {
		t.Errorf("a deleted first row: %+v, %v", got, err)
	}
	badDate := append([]byte(nil), data...)
	ssdate := headLen + recLen + recLen - 18 // the second row's SSDATE (8 bytes before GDRS's 10)
	copy(badDate[ssdate:], "19911340")
	got, err := DecodeBaseDBF(badDate)
	var fe *FormatError
	if !errors.As(err, &fe) || fe.Offset != int64(headLen+recLen) || len(got) != 2 {
		t.Errorf("a row with 1991-13-40: %+v, %v; want the two others and an error at offset %d", got, err, headLen+recLen)
	}
	if got, err := DecodeBaseDBF(data[:headLen+2*recLen+5]); err != nil || len(got) != 2 {
		t.Errorf("cut inside the third row: %+v, %v; want the first two", got, err)
	}
	for name, b := range map[string][]byte{"empty": nil, "not dBASE": append([]byte{0x30}, data[1:]...), "no SSDATE": renameField(data, "SSDATE", "XXDATE")} {
		if got, err := DecodeBaseDBF(b); err == nil || len(got) != 0 {
			t.Errorf("%s: %+v, %v; want an error and no rows", name, got, err)
		}
	}
}

func renameField(data []byte, from, to string) []byte {
	out := append([]byte(nil), data...)
	for i := dbfHeaderLen; i+dbfFieldLen <= len(out) && out[i] != 0x0D; i += dbfFieldLen {
		if string(out[i:i+len(from)]) == from {
			copy(out[i:i+11], to+"\x00\x00\x00\x00\x00")
		}
	}
	return out
}
