package bridge

import (
	pathpkg "path"
	"testing"

	"mdqs/internal/tdx"
)

func TestStoreOrder(t *testing.T) {
	file := func(path string) tdx.File {
		code, kind, ok := tdx.ParseBarName(pathpkg.Base(path))
		if !ok {
			t.Fatalf("%s: not a bar file name", path)
		}
		return tdx.File{Path: path, Kind: kind, Code: code, Market: code.Exchange}
	}
	// The scan's order: by path.
	paths := []string{
		"vipdoc/bj/lday/bj920001.day",
		"vipdoc/sh/fzline/sh600000.lc5",
		"vipdoc/sh/lday/sh600000.day",
		"vipdoc/sh/lday/sh600001.day",
		"vipdoc/sh/minline/sh600000.1",
		"vipdoc/sh/minline/sh600000.lc1",
		"vipdoc/sz/lday/sz000001.day",
		"vipdoc/sz/lday/sz300750.day",
	}
	files := make([]tdx.File, len(paths))
	for i, p := range paths {
		files[i] = file(p)
	}
	var got []string
	for _, i := range storeOrder(files) {
		got = append(got, files[i].Path)
	}
	// By code, then frequency (1, 5, 1440 minutes); the two 1-minute files
	// of 600000.SH in the folder's order.
	want := []string{
		"vipdoc/sz/lday/sz000001.day",
		"vipdoc/sz/lday/sz300750.day",
		"vipdoc/sh/minline/sh600000.1",
		"vipdoc/sh/minline/sh600000.lc1",
		"vipdoc/sh/fzline/sh600000.lc5",
		"vipdoc/sh/lday/sh600000.day",
		"vipdoc/sh/lday/sh600001.day",
		"vipdoc/bj/lday/bj920001.day",
	}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("storeOrder = %v,\nwant %v", got, want)
		}
	}
}
