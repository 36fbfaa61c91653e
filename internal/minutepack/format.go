package minutepack

import (
	"encoding/binary"
	"errors"
	"fmt"

	"mdqs/internal/market"
)

// Magic and Version open every record. A reader that meets a version it
// does not know refuses the record rather than guess at its columns.
const (
	Magic   byte = 'M'
	Version byte = 1
)

// MaxBars bounds a record: one bar per minute of a whole day. An A-share
// session has 240 one-minute bars (241 where a source keeps the 09:30 row
// apart) and fewer of any longer period, so 1,440 leaves room for a market
// trading round the clock while keeping what a hostile count can make
// Decode allocate to a few hundred kilobytes.
const MaxBars = 24 * 60

// Flags of the header.
const (
	flagDeflate byte = 1 << iota // the body is compressed with compress/flate
	knownFlags       = flagDeflate
)

// Errors of Decode, to be told apart with errors.Is.
var (
	ErrVersion = errors.New("minutepack: unknown record version")
	ErrCorrupt = errors.New("minutepack: corrupt record")
)

func corrupt(format string, args ...any) error {
	return fmt.Errorf("%w: %s", ErrCorrupt, fmt.Sprintf(format, args...))
}

// Header is what a record says about itself before its columns.
type Header struct {
	Version  byte
	Bars     int
	Day      market.Day
	Deflated bool
}

// Info reads a record's header without decoding its columns.
func Info(b []byte) (Header, error) {
	h, _, err := readHeader(b)
	return h, err
}

// The header is never compressed, so Info stays cheap:
//
//	magic, version, flags: one byte each
//	bars: uvarint, 1..MaxBars
//	day:  zigzag varint of the YYYYMMDD int32
func appendHeader(dst []byte, h Header) []byte {
	var flags byte
	if h.Deflated {
		flags |= flagDeflate
	}
	dst = append(dst, Magic, Version, flags)
	dst = binary.AppendUvarint(dst, uint64(h.Bars))
	return binary.AppendVarint(dst, int64(h.Day))
}

// readHeader returns the header and the body after it.
func readHeader(b []byte) (Header, []byte, error) {
	if len(b) < 3 || b[0] != Magic {
		return Header{}, nil, corrupt("no magic byte")
	}
	if b[1] != Version {
		return Header{}, nil, fmt.Errorf("%w %d (this build reads %d)", ErrVersion, b[1], Version)
	}
	if b[2]&^knownFlags != 0 {
		return Header{}, nil, corrupt("unknown flags %#x", b[2])
	}
	r := reader{b: b[3:]}
	n := r.uvarint()
	day := r.varint()
	if r.err != nil {
		return Header{}, nil, r.err
	}
	if n < 1 || n > MaxBars {
		return Header{}, nil, corrupt("%d bars (want 1..%d)", n, MaxBars)
	}
	if day != int64(int32(day)) {
		return Header{}, nil, corrupt("day %d", day)
	}
	h := Header{Version: b[1], Bars: int(n), Day: market.Day(day), Deflated: b[2]&flagDeflate != 0}
	return h, r.b[r.off:], nil
}
