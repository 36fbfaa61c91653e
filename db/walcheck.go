package db

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"
)

// walPending counts the pages whose last committed version in path's
// -wal file differs from the main file: transactions a process committed
// and no checkpoint has copied yet (it stopped without closing the store:
// killed, crashed, the power cut). 0 when there is no -wal, it is empty,
// or everything in it is already in the file. The WAL format is SQLite's
// (https://sqlite.org/fileformat2.html#walformat): frames count only up to
// the last commit frame whose salts and running checksum are valid, as
// SQLite itself reads them.
func walPending(path string) (int, error) {
	wal, err := os.Open(path + "-wal")
	if errors.Is(err, os.ErrNotExist) {
		return 0, nil
	}
	if err != nil {
		return 0, err
	}
	defer wal.Close()
	hdr := make([]byte, 32)
	if _, err := io.ReadFull(wal, hdr); err != nil {
		return 0, nil // empty or shorter than a header: SQLite ignores it too
	}
	magic := binary.BigEndian.Uint32(hdr)
	if magic != 0x377f0682 && magic != 0x377f0683 {
		return 0, nil
	}
	var order binary.ByteOrder = binary.LittleEndian
	if magic&1 == 1 {
		order = binary.BigEndian
	}
	pageSize := int(binary.BigEndian.Uint32(hdr[8:]))
	if pageSize == 1 {
		pageSize = 65536
	}
	if pageSize < 512 || pageSize > 65536 || pageSize&(pageSize-1) != 0 {
		return 0, nil
	}
	s1, s2 := walChecksum(order, hdr[:24], 0, 0)
	if s1 != binary.BigEndian.Uint32(hdr[24:]) || s2 != binary.BigEndian.Uint32(hdr[28:]) {
		return 0, nil // an invalid header: SQLite ignores the whole file
	}
	// The last committed version of each page.
	committed := map[uint32][]byte{}
	pending := map[uint32][]byte{}
	frame := make([]byte, 24+pageSize)
	for {
		if _, err := io.ReadFull(wal, frame); err != nil {
			break
		}
		if !bytes.Equal(frame[8:16], hdr[16:24]) {
			break // a frame of an earlier generation of the log
		}
		s1, s2 = walChecksum(order, frame[:8], s1, s2)
		s1, s2 = walChecksum(order, frame[24:], s1, s2)
		if s1 != binary.BigEndian.Uint32(frame[16:]) || s2 != binary.BigEndian.Uint32(frame[20:]) {
			break // torn or never completed
		}
		pgno := binary.BigEndian.Uint32(frame)
		pending[pgno] = bytes.Clone(frame[24:])
		if binary.BigEndian.Uint32(frame[4:]) != 0 { // a commit frame ends a transaction
			for p, b := range pending {
				committed[p] = b
			}
			clear(pending)
		}
	}
	if len(committed) == 0 {
		return 0, nil
	}
	f, err := os.Open(path)
	if err != nil {
		return 0, err
	}
	defer f.Close()
	n := 0
	page := make([]byte, pageSize)
	for pgno, want := range committed {
		_, err := f.ReadAt(page, int64(pgno-1)*int64(pageSize))
		if err != nil || !bytes.Equal(page, want) {
			n++
		}
	}
	return n, nil
}

// walChecksum continues SQLite's WAL checksum over b (a multiple of 8
// bytes), reading its 32-bit words in order.
func walChecksum(order binary.ByteOrder, b []byte, s1, s2 uint32) (uint32, uint32) {
	for i := 0; i+8 <= len(b); i += 8 {
		s1 += order.Uint32(b[i:]) + s2
		s2 += order.Uint32(b[i+4:]) + s1
	}
	return s1, s2
}

// walError is the refusal of a read-only folder whose -wal file holds
// committed transactions that SQLite cannot read there.
func walError(path string, pages int) error {
	return fmt.Errorf("db: %s-wal holds %d page(s) of committed transactions that are not in %s yet (a process writing it stopped "+
		"without closing it), and this process may not write the folder, so SQLite cannot read them (it would need %s-shm, which is missing); "+
		"serving the file without them would answer from older data: open it once with write access to the folder "+
		"(mdqs serve, or sqlite3 %s 'PRAGMA wal_checkpoint(TRUNCATE)', as its owner), which copies them into the file",
		path, pages, path, path, path)
}
