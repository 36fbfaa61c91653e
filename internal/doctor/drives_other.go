//go:build !windows

package doctor

import (
	"os"
	"path/filepath"
)

// SystemDrives is Wine's drive C: where the terminal runs under Wine on
// Linux or macOS, its folder is there (~/.wine/drive_c/new_tdx).
func SystemDrives() []Drive {
	home, err := os.UserHomeDir()
	if err != nil {
		return nil
	}
	c := filepath.Join(home, ".wine", "drive_c")
	if st, err := os.Stat(c); err != nil || !st.IsDir() {
		return nil
	}
	return []Drive{{Root: c + string(filepath.Separator), FS: os.DirFS(c)}}
}
