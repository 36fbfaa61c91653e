package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// A release stamps its version with -X main.version (goreleaser's ldflags,
// .goreleaser.yaml): mdqs version prints that, whatever the build info
// holds. A build without the stamp still says what it said before, here
// -buildvcs=false's "(devel)" with the note on how to get a version.
func TestVersionStamp(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary twice")
	}
	dir := t.TempDir()
	for _, tt := range []struct {
		name, ldflags, want string
		note                bool // the "carries no version" note on stderr
	}{
		{"a release", "-X main.version=1.2.3", "mdqs 1.2.3 " + runtime.Version() + "\n", false},
		{"unstamped", "", "mdqs (devel) " + runtime.Version() + "\n", true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			bin := filepath.Join(dir, strings.ReplaceAll(tt.name, " ", "-"))
			// -buildvcs=false, as this machine's go env has it, so that
			// the stamp is all the build says about its version.
			build := exec.Command("go", "build", "-buildvcs=false", "-ldflags", tt.ldflags, "-o", bin, ".")
			build.Env = append(os.Environ(), "CGO_ENABLED=0")
			if out, err := build.CombinedOutput(); err != nil {
				t.Fatalf("go build: %v\n%s", err, out)
			}
			cmd := exec.Command(bin, "version")
			var stderr strings.Builder
			cmd.Stderr = &stderr
			out, err := cmd.Output()
			if err != nil || string(out) != tt.want {
				t.Errorf("mdqs version = %q (%v), want %q", out, err, tt.want)
			}
			if got := strings.Contains(stderr.String(), "carries no version"); got != tt.note {
				t.Errorf("the no-version note printed: %v, want %v; stderr: %q", got, tt.note, stderr.String())
			}
		})
	}
}
