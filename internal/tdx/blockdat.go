package tdx

import (
	"bytes"
	"encoding/binary"
	"errors"
	"io"
	"iter"

	"mdqs/internal/market"
)

// block_*.dat layout (tdx.md §5.1): a 384-byte header, a uint16 block count,
// then fixed 2813-byte blocks of 9-byte name, uint16 member count, uint16
// type and 400 slots of 7 bytes (6 ASCII digits + NUL).
const (
	blockHeaderSize = 384
	blockDataStart  = blockHeaderSize + 2
	blockNameSize   = 9
	blockSlotSize   = 7
	blockRecordSize = blockNameSize + 2 + 2 + MaxBlockMembers*blockSlotSize

	// MaxBlockMembers is the terminal's cap on a block_*.dat member list. A
	// block with exactly this many members may have been cut short.
	MaxBlockMembers = 400
)

// blockHeaderText opens every real block file; the writer reproduces it.
const blockHeaderText = "Registry ver:1.0 (1999-9-28)"

// Block is one block of block_zs.dat, block_fg.dat or block_gn.dat.
type Block struct {
	Name string // cut to 8 GBK bytes by the format; tdxbk.cfg has some full names
	Type int    // 2 in every block seen; meaning unknown
	// Codes carry no market in the file; it is inferred from the code
	// ranges (market.InferExchange), which is right for stocks and for the
	// 399xxx/999999 indices block_zs lists.
	Codes []market.Code
	// Truncated marks a block at the 400-member cap: its real membership may
	// be larger. infoharbor_block.dat, where present, has the full list.
	Truncated bool
}

// blockDatSize checks the file size against the header's block count; a
// mismatch means a file being replaced or a different format, and no block
// of it can be trusted.
func blockDatSize(data []byte) error {
	if len(data) < blockDataStart {
		return formatErr(0, "file of %d bytes is shorter than the %d-byte header", len(data), blockDataStart)
	}
	n := int(binary.LittleEndian.Uint16(data[blockHeaderSize:]))
	if want := blockDataStart + n*blockRecordSize; len(data) != want {
		return formatErr(blockHeaderSize, "size %d does not match the header's %d blocks (want %d bytes)", len(data), n, want)
	}
	return nil
}

// Blocks streams the blocks of a block_*.dat file through one reused record
// buffer. A block with a member count over 400 or a slot that is not six
// digits is yielded as a *FormatError and decoding goes on. A file shorter
// or longer than its header promises yields a *FormatError when the
// mismatch is found, which ends the sequence; ReadBlockDat checks the size
// first and returns no blocks for such a file.
func Blocks(r io.Reader) iter.Seq2[Block, error] {
	return func(yield func(Block, error) bool) {
		head := make([]byte, blockDataStart)
		if n, err := io.ReadFull(r, head); err != nil {
			if errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF) {
				err = formatErr(0, "file of %d bytes is shorter than the %d-byte header", n, blockDataStart)
			}
			yield(Block{}, err)
			return
		}
		count := int(binary.LittleEndian.Uint16(head[blockHeaderSize:]))
		rec := make([]byte, blockRecordSize)
		g := newGBK()
		for i := 0; i < count; i++ {
			off := int64(blockDataStart + i*blockRecordSize)
			if n, err := io.ReadFull(r, rec); err != nil {
				if errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF) {
					err = formatErr(off, "file ends %d bytes into block %d of the header's %d", n, i, count)
				}
				yield(Block{}, err)
				return
			}
			b, err := decodeBlock(rec, off, g)
			if !yield(b, err) {
				return
			}
		}
		var one [1]byte
		if n, _ := io.ReadFull(r, one[:]); n > 0 {
			yield(Block{}, formatErr(int64(blockDataStart+count*blockRecordSize),
				"data after the header's %d blocks", count))
		}
	}
}

func decodeBlock(rec []byte, off int64, g gbkText) (Block, error) {
	le := binary.LittleEndian
	b := Block{
		Name: g.string(bytes.TrimRight(cstring(rec[:blockNameSize]), " ")),
		Type: int(le.Uint16(rec[blockNameSize+2:])),
	}
	m := int(le.Uint16(rec[blockNameSize:]))
	if m > MaxBlockMembers {
		return Block{}, formatErr(off+blockNameSize, "block %q: member count %d exceeds the format's %d slots", b.Name, m, MaxBlockMembers)
	}
	b.Truncated = m == MaxBlockMembers
	b.Codes = make([]market.Code, 0, m)
	slots := rec[blockNameSize+4:]
	for j := 0; j < m; j++ {
		slot := slots[j*blockSlotSize : (j+1)*blockSlotSize]
		if !isSymbol(slot[:6]) {
			return Block{}, formatErr(off+int64(blockNameSize+4+j*blockSlotSize),
				"block %q: member %d is %q, not a six-digit code", b.Name, j, cstring(slot))
		}
		b.Codes = append(b.Codes, inferCode(slot[:6]))
	}
	return b, nil
}

// ReadBlockDat reads a block_zs.dat, block_fg.dat or block_gn.dat file. A
// size that contradicts the header returns only a *FormatError. Blocks that
// fail to decode are left out and their *FormatErrors joined into the error,
// next to the good blocks.
func ReadBlockDat(path string) ([]Block, error) {
	data, err := readShared(path)
	if err != nil {
		return nil, err
	}
	if err := blockDatSize(data); err != nil {
		return nil, named(err, path)
	}
	var out []Block
	var errs errorList
	for b, err := range Blocks(bytes.NewReader(data)) {
		if err != nil {
			errs.add(named(err, path))
			continue
		}
		out = append(out, b)
	}
	return out, errs.err()
}
