package cli

import (
	"runtime/debug"
	"testing"
)

func TestVersionOf(t *testing.T) {
	vcs := func(rev, at, modified string) []debug.BuildSetting {
		return []debug.BuildSetting{{Key: "vcs", Value: "git"}, {Key: "vcs.revision", Value: rev}, {Key: "vcs.time", Value: at}, {Key: "vcs.modified", Value: modified}}
	}
	rev := "22a200ff1c2d5b5475db8cae036261db0334541f"
	for _, tt := range []struct {
		name  string
		stamp string // -X main.version, as a release sets it
		bi    debug.BuildInfo
		want  string
	}{
		// A release's stamp wins over whatever the build info says.
		{"a release", "1.2.3", debug.BuildInfo{GoVersion: "go1.26.8", Main: debug.Module{Version: "(devel)"}}, "1.2.3 go1.26.8"},
		{"a release built in a checkout", "0.0.0-SNAPSHOT-22a200f", debug.BuildInfo{GoVersion: "go1.26.8", Main: debug.Module{Version: "v0.0.0-20261125140146-22a200ff1c2d+dirty"},
			Settings: vcs(rev, "2026-11-25T14:01:46Z", "true")}, "0.0.0-SNAPSHOT-22a200f go1.26.8"},
		{"go install of a tag", "", debug.BuildInfo{GoVersion: "go1.26.8", Main: debug.Module{Version: "v1.4.0"}}, "v1.4.0 go1.26.8"},
		{"go build in a checkout", "", debug.BuildInfo{GoVersion: "go1.26.8", Main: debug.Module{Version: "v0.0.0-20261125140146-22a200ff1c2d+dirty"},
			Settings: vcs(rev, "2026-11-25T14:01:46Z", "true")}, "v0.0.0-20261125140146-22a200ff1c2d+dirty go1.26.8"},
		{"an older toolchain's checkout build", "", debug.BuildInfo{GoVersion: "go1.23.4", Main: debug.Module{Version: "(devel)"},
			Settings: vcs(rev, "2026-11-25T14:01:46Z", "true")}, "devel-22a200ff1c2d-20261125140146+dirty go1.23.4"},
		{"clean", "", debug.BuildInfo{GoVersion: "go1.23.4", Main: debug.Module{Version: "(devel)"},
			Settings: vcs(rev, "2026-11-25T14:01:46Z", "false")}, "devel-22a200ff1c2d-20261125140146 go1.23.4"},
		{"go run, or -buildvcs=false", "", debug.BuildInfo{GoVersion: "go1.26.8", Main: debug.Module{Version: "(devel)"}}, "(devel) go1.26.8"},
	} {
		if got := versionOf(tt.stamp, &tt.bi); got != tt.want {
			t.Errorf("%s: versionOf = %q, want %q", tt.name, got, tt.want)
		}
	}
}
