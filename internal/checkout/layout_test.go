package checkout

import (
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// The layers of mdqs, lowest first. A package imports only packages of its
// own layer or of a lower one: api -> services -> store, and the sources
// know nothing of HTTP. A new package has to be placed here, which is the
// moment to decide where it belongs (docs/architecture.md draws the same).
var layers = []struct {
	name string
	pkgs []string
}{
	{"domain: types, rules and pure maths, no I/O of their own", []string{
		"internal/market", "internal/indicator", "internal/adjust"}},
	{"formats, caches and clients of the API", []string{
		"internal/tdx", "internal/minutepack", "cache", "internal/client", "internal/loadgen"}},
	{"sources: upstream clients, the demo market, Redis; no HTTP handlers, no store", []string{
		"internal/upstream", "internal/demo", "internal/demotdx", "internal/sharedstate", "internal/webhook"}},
	{"configuration and access rules", []string{"internal/config", "internal/auth"}},
	{"store", []string{"db"}},
	{"services", []string{
		"internal/board", "internal/kline", "internal/ranking", "internal/movement", "internal/bridge",
		"internal/corpaction", "internal/hotrank", "internal/news", "internal/finance", "internal/quote",
		"internal/screener", "internal/alert", "internal/stream", "internal/relay", "internal/cluster", "internal/sources", "internal/secmaster", "internal/indexmembers", "internal/etf",
		"internal/crosssection", "internal/limitpool", "internal/archive", "jobs",
		"internal/lhb", "internal/doctor", "internal/export"}},
	{"edges: the HTTP API, the MCP server over it, and the commands", []string{"api", "internal/mcpserver", "internal/cli"}},
	{"programs", []string{".", "cmd/mdqsbench", "cmd/mdqsload"}},
}

// Test helpers and test-only packages: they may import anything, and
// nothing but tests (and cmd/mdqsbench, a development tool) imports them.
var testOnly = []string{
	"internal/checkout", "internal/testservers", "internal/docpage", "internal/loadtest", "internal/faulttest",
	"internal/dashboardtest", "db/dbtest", "cache/cachetest", "internal/bridge/bridgetest",
	"internal/hotrank/hotranktest", "internal/sharedstate/redistest", "internal/upstream/upstreamtest",
	"internal/webhook/webhooktest",
}

// goPackages maps each folder holding Go files (slash-separated, relative to
// the root) to the mdqs packages its non-test files import, and to its
// test files.
func goPackages(t *testing.T) (imports map[string][]string, tests map[string][]string) {
	t.Helper()
	root, err := Root()
	if err != nil {
		t.Fatal(err)
	}
	imports, tests = map[string][]string{}, map[string][]string{}
	fset := token.NewFileSet()
	err = filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		name := d.Name()
		if d.IsDir() {
			if path != root && (strings.HasPrefix(name, ".") || name == "testdata" || name == "clients" || name == "docs") {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(name, ".go") {
			return nil
		}
		rel, _ := filepath.Rel(root, filepath.Dir(path))
		dir := filepath.ToSlash(rel)
		if strings.HasSuffix(name, "_test.go") {
			tests[dir] = append(tests[dir], path)
			return nil
		}
		f, err := parser.ParseFile(fset, path, nil, parser.ImportsOnly)
		if err != nil {
			return err
		}
		if _, ok := imports[dir]; !ok {
			imports[dir] = nil
		}
		for _, spec := range f.Imports {
			p, _ := strconv.Unquote(spec.Path.Value)
			if p == "mdqs" || strings.HasPrefix(p, "mdqs/") {
				imported := strings.TrimPrefix(strings.TrimPrefix(p, "mdqs"), "/")
				if !slices.Contains(imports[dir], imported) {
					imports[dir] = append(imports[dir], imported)
				}
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return imports, tests
}

// Every import points down (or across) the layers; a package in no layer
// fails the test until it is placed.
func TestImportsPointOneWay(t *testing.T) {
	imports, _ := goPackages(t)
	rank := map[string]int{}
	for i, l := range layers {
		for _, p := range l.pkgs {
			rank[p] = i
		}
	}
	for dir, imported := range imports {
		if slices.Contains(testOnly, dir) {
			continue
		}
		r, placed := rank[dir]
		if !placed {
			t.Errorf("package %s is in no layer: add it to layers (or testOnly) in internal/checkout/layout_test.go and to docs/architecture.md", dir)
			continue
		}
		for _, p := range imported {
			switch pr, ok := rank[p]; {
			case slices.Contains(testOnly, p) && dir != "cmd/mdqsbench":
				t.Errorf("%s imports the test helper %s", dir, p)
			case ok && pr > r:
				t.Errorf("%s (%s) imports %s (%s): imports must point down the layers", dir, layers[r].name, p, layers[pr].name)
			}
		}
	}
}

// A package whose tests skip for want of a server says so at its end:
// its TestMain runs them through testservers.
func TestServerTestsSayWhenSkipped(t *testing.T) {
	_, tests := goPackages(t)
	for dir, files := range tests {
		var needs, reports bool
		for _, f := range files {
			b, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			s := string(b)
			needs = needs || strings.Contains(s, "dbtest.NeedPostgres(") || strings.Contains(s, "redistest.URL(")
			reports = reports || strings.Contains(s, "testservers.Main(") || strings.Contains(s, "testservers.Run(")
		}
		if needs && !reports {
			t.Errorf("%s has tests that need PostgreSQL or Redis but no TestMain running them through testservers.Main", dir)
		}
	}
}
