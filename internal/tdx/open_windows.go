//go:build windows

package tdx

import (
	"io/fs"
	"os"
	"syscall"
)

// openShared opens a file for reading while letting the terminal keep
// writing, renaming and deleting it: os.Open leaves out FILE_SHARE_DELETE,
// which would make the terminal's replace-by-rename of hq_cache files fail
// while a read is in progress.
func openShared(path string) (*os.File, error) {
	p, err := syscall.UTF16PtrFromString(path)
	if err != nil {
		return nil, &fs.PathError{Op: "open", Path: path, Err: err}
	}
	h, err := syscall.CreateFile(p, syscall.GENERIC_READ,
		syscall.FILE_SHARE_READ|syscall.FILE_SHARE_WRITE|syscall.FILE_SHARE_DELETE,
		nil, syscall.OPEN_EXISTING, syscall.FILE_ATTRIBUTE_NORMAL, 0)
	if err != nil {
		return nil, &fs.PathError{Op: "open", Path: path, Err: err}
	}
	return os.NewFile(uintptr(h), path), nil
}
