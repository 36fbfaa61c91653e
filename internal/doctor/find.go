package doctor

import (
	"io/fs"
	"path"
	"slices"
	"strings"
)

// Drive is a place to look for a terminal install: a Windows drive
// ("C:\") or, elsewhere, Wine's drive_c. Root is how paths under it are
// written, separator included (`C:\`, "/home/u/.wine/drive_c/"); FS is
// its contents, so a test plays a Windows tree on any system.
type Drive struct {
	Root string
	FS   fs.FS
}

// installNames are the names of the terminal's install folders, matched
// case-insensitively: TongDaXin's own (new_tdx, new_tdx64), its broker
// builds (new_hbzq, new_gjzq and the like; 招商证券's zd_zsone), and any
// other name with tdx or 通达信 in it. A match counts only when it holds
// vipdoc or T0002, so the wide patterns cost nothing in false finds.
func installNames() []string { return []string{"new_*", "zd_*", "*tdx*", "*通达信*"} }

// installParents are where, on a drive, installs are looked for: its root
// (the terminal's installer proposes C:\new_tdx) and the program folders.
func installParents() []string { return []string{"", "Program Files", "Program Files (x86)"} }

// FindInstalls lists the terminal installs on the drives, in drive order
// and then by name: folders named like an install (installNames) at a
// drive's root or in its program folders that hold vipdoc or T0002.
func FindInstalls(drives []Drive) []string {
	var out []string
	for _, d := range drives {
		sep := "/"
		if strings.HasSuffix(d.Root, `\`) {
			sep = `\`
		}
		for _, parent := range installParents() {
			dir := "."
			if parent != "" {
				if dir = childNamed(d.FS, ".", parent); dir == "" {
					continue
				}
			}
			entries, err := fs.ReadDir(d.FS, dir)
			if err != nil {
				continue
			}
			for _, e := range entries {
				if !e.IsDir() || !slices.ContainsFunc(installNames(), func(p string) bool { return matchFold(p, e.Name()) }) {
					continue
				}
				sub := path.Join(dir, e.Name())
				if childNamed(d.FS, sub, "vipdoc") == "" && childNamed(d.FS, sub, "T0002") == "" {
					continue
				}
				out = append(out, d.Root+strings.ReplaceAll(path.Clean(sub), "/", sep))
			}
		}
	}
	return out
}

// childNamed is dir's subfolder named name in any case (Windows folders
// are VIPDOC or vipdoc alike), as a path in fsys; "" when there is none.
func childNamed(fsys fs.FS, dir, name string) string {
	entries, err := fs.ReadDir(fsys, dir)
	if err != nil {
		return ""
	}
	for _, e := range entries {
		if e.IsDir() && strings.EqualFold(e.Name(), name) {
			return path.Join(dir, e.Name())
		}
	}
	return ""
}

func matchFold(pattern, name string) bool {
	ok, err := path.Match(strings.ToLower(pattern), strings.ToLower(name))
	return err == nil && ok
}
