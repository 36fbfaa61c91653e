package tdx

import (
	"bytes"
	"fmt"
)

// readShared reads a whole (small) file through openShared, so the
// terminal can replace it meanwhile; the handle is held only for the read.
func readShared(path string) ([]byte, error) {
	f, err := openShared(path)
	if err != nil {
		return nil, fmt.Errorf("tdx: %w", err)
	}
	defer f.Close()
	var buf bytes.Buffer
	if st, err := f.Stat(); err == nil && st.Size() < 1<<30 {
		buf.Grow(int(st.Size()) + bytes.MinRead)
	}
	if _, err := buf.ReadFrom(f); err != nil {
		return nil, fmt.Errorf("tdx: %s: %w", path, err)
	}
	return buf.Bytes(), nil
}
