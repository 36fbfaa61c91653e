package dashboardtest

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"sync"
	"testing"
)

// mdqsBinary is the mdqs every test of the package serves with, built once
// a run: each test used to build its own, the same file.
var mdqsBinary sharedBinary

func TestMain(m *testing.M) {
	code := m.Run()
	mdqsBinary.remove()
	os.Exit(code)
}

// sharedBinary builds mdqs once, into a temporary folder that remove
// deletes.
type sharedBinary struct {
	once      sync.Once
	dir, file string
	err       error
}

// path builds mdqs from the module at root on the first call (CGO_ENABLED=0,
// as shipped) and answers the binary's path.
func (b *sharedBinary) path(root string) (string, error) {
	b.once.Do(func() {
		if b.dir, b.err = os.MkdirTemp("", "mdqs-dashboardtest-"); b.err != nil {
			return
		}
		b.file = filepath.Join(b.dir, "mdqs")
		if runtime.GOOS == "windows" {
			b.file += ".exe"
		}
		gobin := filepath.Join(runtime.GOROOT(), "bin", "go")
		if p, err := exec.LookPath("go"); err == nil {
			gobin = p
		}
		build := exec.Command(gobin, "build", "-o", b.file, ".")
		build.Dir = root
		build.Env = append(os.Environ(), "CGO_ENABLED=0")
		if out, err := build.CombinedOutput(); err != nil {
			b.err = fmt.Errorf("go build: %w\n%s", err, out)
		}
	})
	return b.file, b.err
}

func (b *sharedBinary) remove() {
	if b.dir != "" {
		os.RemoveAll(b.dir)
	}
}
