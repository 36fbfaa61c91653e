package doctor

import (
	"slices"
	"testing"
	"testing/fstest"
)

// The usual install folders of the terminal and its broker builds are
// found on every drive, in any case, at the root or in the program
// folders; a folder with such a name that holds no terminal is not.
func TestFindInstallsOnWindowsDrives(t *testing.T) {
	dir := &fstest.MapFile{Mode: 0o755 | 1<<31} // fs.ModeDir
	file := &fstest.MapFile{Data: []byte("x")}
	c := fstest.MapFS{
		"new_tdx/vipdoc/sh/lday/sh600000.day": file,
		"new_tdx/T0002/hq_cache/gbbq":         file,
		"zd_zsone/vipdoc":                     dir,
		"NEW_TDX64/VIPDOC":                    dir, // case as Windows leaves it
		"new_folder/docs":                     dir, // a new_* name without a terminal
		"tdxdata.txt":                         file,
		"Windows/System32":                    dir,
		"Program Files/new_gjzq/T0002":        dir, // a broker build installed with the programs
		"Program Files (x86)/通达信金融终端/vipdoc":  dir,
		"Users/trader/new_tdx/vipdoc":         dir, // too deep: not where installers put it
	}
	d := fstest.MapFS{
		"new_hbzq/vipdoc/sz/lday": dir,
		"zd_empty":                dir,
	}
	got := FindInstalls([]Drive{{Root: `C:\`, FS: c}, {Root: `D:\`, FS: d}, {Root: `E:\`, FS: fstest.MapFS{}}})
	want := []string{
		`C:\NEW_TDX64`, `C:\new_tdx`, `C:\zd_zsone`, `C:\Program Files\new_gjzq`, `C:\Program Files (x86)\通达信金融终端`,
		`D:\new_hbzq`,
	}
	if !slices.Equal(got, want) {
		t.Errorf("FindInstalls = %q\nwant %q", got, want)
	}
	// Wine's drive_c, on Linux or macOS, is written with slashes.
	if got := FindInstalls([]Drive{{Root: "/home/trader/.wine/drive_c/", FS: c}}); len(got) != 5 || got[1] != "/home/trader/.wine/drive_c/new_tdx" ||
		got[3] != "/home/trader/.wine/drive_c/Program Files/new_gjzq" {
		t.Errorf("FindInstalls on Wine's drive_c = %q", got)
	}
}
