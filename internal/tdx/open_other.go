//go:build !windows

package tdx

import "os"

// openShared opens a file read-only; POSIX systems never lock it against
// the writer.
func openShared(path string) (*os.File, error) { return os.Open(path) }
