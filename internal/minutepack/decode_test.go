package minutepack

import (
	"bytes"
	"compress/flate"
	"encoding/binary"
	"errors"
	"testing"

	"mdqs/internal/market"
)

// record is a valid record of a session with the header's count and day.
func record(t testing.TB, opts Options) []byte {
	t.Helper()
	return checkRoundTrip(t, session(240), opts)
}

// withHeader is a record whose header is rebuilt from fields and followed
// by body.
func withHeader(version, flags byte, bars uint64, day int64, body []byte) []byte {
	b := []byte{Magic, version, flags}
	b = binary.AppendUvarint(b, bars)
	b = binary.AppendVarint(b, day)
	return append(b, body...)
}

func deflated(body []byte) []byte {
	var buf bytes.Buffer
	w, _ := flate.NewWriter(&buf, flate.BestCompression)
	w.Write(body)
	w.Close()
	return buf.Bytes()
}

func TestDecodeRejects(t *testing.T) {
	good := record(t, Options{})
	h, body, err := readHeader(good)
	if err != nil {
		t.Fatal(err)
	}
	bomb := make([]byte, maxBody(1)+1)
	tests := []struct {
		name string
		rec  []byte
		want error
	}{
		{"empty", nil, ErrCorrupt},
		{"no magic", append([]byte{'X'}, good[1:]...), ErrCorrupt},
		{"next version", withHeader(Version+1, 0, 240, int64(h.Day), body), ErrVersion},
		{"version 0", withHeader(0, 0, 240, int64(h.Day), body), ErrVersion},
		{"unknown flag", withHeader(Version, 0x80, 240, int64(h.Day), body), ErrCorrupt},
		{"no bars", withHeader(Version, 0, 0, int64(h.Day), body), ErrCorrupt},
		{"a hostile count", withHeader(Version, 0, 1<<40, int64(h.Day), body), ErrCorrupt},
		{"MaxBars+1", withHeader(Version, 0, MaxBars+1, int64(h.Day), body), ErrCorrupt},
		{"fewer bars than the body", withHeader(Version, 0, 239, int64(h.Day), body), ErrCorrupt},
		{"more bars than the body", withHeader(Version, 0, 241, int64(h.Day), body), ErrCorrupt},
		{"day beyond int32", withHeader(Version, 0, 240, 1<<40, body), ErrCorrupt},
		{"trailing byte", append(bytes.Clone(good), 0), ErrCorrupt},
		{"deflate flag on a plain body", withHeader(Version, flagDeflate, 240, int64(h.Day), body), ErrCorrupt},
		{"deflate bomb", withHeader(Version, flagDeflate, 1, 0, deflated(bomb)), ErrCorrupt},
		{"bytes after the deflate stream", append(bytes.Clone(record(t, Options{Deflate: true})), 1), ErrCorrupt},
	}
	for _, tt := range tests {
		if bars, err := Decode(tt.rec); !errors.Is(err, tt.want) {
			t.Errorf("Decode(%s) = %d bars, %v; want %v", tt.name, len(bars), err, tt.want)
		}
		if _, _, ok, err := BarAt(tt.rec, 0); !errors.Is(err, tt.want) {
			t.Errorf("BarAt(%s) = %v, %v; want %v", tt.name, ok, err, tt.want)
		}
	}
}

// Every prefix of a record is an error, never a panic or a short day, for
// Decode and BarAt alike.
func TestDecodeTruncated(t *testing.T) {
	for _, opts := range allOptions {
		for _, bars := range [][]market.Bar{session(240), with(240, 3, func(b *market.Bar) { b.Close = 1e-9 })} {
			rec := checkRoundTrip(t, bars, opts)
			for n := range len(rec) {
				if got, err := Decode(rec[:n]); !errors.Is(err, ErrCorrupt) {
					t.Fatalf("Decode(%d of %d bytes, %+v) = %d bars, %v; want ErrCorrupt", n, len(rec), opts, len(got), err)
				}
				if _, _, ok, err := BarAt(rec[:n], bars[0].TS); !errors.Is(err, ErrCorrupt) {
					t.Fatalf("BarAt(%d of %d bytes, %+v) = %v, %v; want ErrCorrupt", n, len(rec), opts, ok, err)
				}
			}
		}
	}
}

func TestInfo(t *testing.T) {
	for _, opts := range allOptions {
		rec := record(t, opts)
		h, err := Info(rec)
		if err != nil {
			t.Fatal(err)
		}
		want := Header{Version: Version, Bars: 240, Day: 20260302, Deflated: opts.Deflate}
		if h != want {
			t.Errorf("Info(%+v record) = %+v, want %+v", opts, h, want)
		}
	}
}
