//go:build windows

package doctor

import (
	"os"

	"golang.org/x/sys/windows"
)

// SystemDrives are this machine's fixed drives from C: on: A: and B: are
// floppy drives, and network, removable and optical drives can take
// seconds each to answer, where installers never put the terminal.
func SystemDrives() []Drive {
	mask, err := windows.GetLogicalDrives()
	if err != nil {
		return []Drive{{Root: `C:\`, FS: os.DirFS(`C:\`)}}
	}
	var out []Drive
	for i := 2; i < 26; i++ {
		if mask&(1<<i) == 0 {
			continue
		}
		root := string(rune('A'+i)) + `:\`
		p, err := windows.UTF16PtrFromString(root)
		if err != nil || windows.GetDriveType(p) != windows.DRIVE_FIXED {
			continue
		}
		out = append(out, Drive{Root: root, FS: os.DirFS(root)})
	}
	return out
}
