package cli

import (
	"fmt"
	"runtime"
	"runtime/debug"
	"strings"
)

// BuildVersion is the version the build stamped into the binary, then the
// Go version. A release stamps its own (stamp: goreleaser's -X main.version,
// the tag without its v, e.g. 1.2.0), and that wins. Otherwise the module
// version when built as a tagged module (go install mdqs@v1.2.0), else the
// one go build derives from the checkout's VCS, a pseudo-version holding the
// commit time and revision, "+dirty" when the tree had changes (e.g.
// v0.0.0-20261125140146-22a200ff1c2d+dirty).
func BuildVersion(stamp string) string {
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		if stamp != "" {
			return stamp + " " + runtime.Version()
		}
		return unstamped + " (no build information)"
	}
	return versionOf(stamp, bi)
}

// unstamped is the version of a build that recorded none: go run, go test,
// or go build with -buildvcs=false or outside a checkout.
const unstamped = "(devel)"

func versionOf(stamp string, bi *debug.BuildInfo) string {
	if stamp != "" {
		return stamp + " " + bi.GoVersion
	}
	setting := func(key string) string {
		for _, s := range bi.Settings {
			if s.Key == key {
				return s.Value
			}
		}
		return ""
	}
	v := bi.Main.Version
	if v == "" || v == unstamped {
		v = unstamped
		// Toolchains before Go 1.24 stamp the revision but not a version.
		if rev := setting("vcs.revision"); rev != "" {
			v = "devel-" + rev[:min(12, len(rev))]
			if t := setting("vcs.time"); t != "" {
				v += "-" + strings.NewReplacer("-", "", ":", "", "T", "", "Z", "").Replace(t)
			}
			if setting("vcs.modified") == "true" {
				v += "+dirty"
			}
		}
	}
	return v + " " + bi.GoVersion
}

// Version runs `mdqs version`.
func Version(env Env, args []string) error {
	fs := newFlags("version", "version", env)
	if err := ParseFlags(env, fs, args); err != nil {
		return err
	}
	if fs.NArg() != 0 {
		return Usage("mdqs version: unexpected argument %q", fs.Arg(0))
	}
	fmt.Fprintln(env.Stdout, "mdqs", env.Version)
	if strings.HasPrefix(env.Version, unstamped) {
		fmt.Fprintln(env.Stderr, "note: this build carries no version: build it with go build in a git checkout (it stamps the commit), or install a tagged module")
	}
	return nil
}
