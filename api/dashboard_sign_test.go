package api

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"testing"
	"time"
)

// TestDashboardSigningInNode runs api/testdata/dashboardjs/sign.test.mjs
// with node --test over the dashboard's modules as the server embeds them:
// sign.js against testdata/signature-v2-vectors.json (the answers every
// signer shares), and api.js's Client signing with the version the login
// answer lists, checked with node:crypto. Skipped without node 20 or later
// (WebCrypto as a global); the dashboard's Chromium test
// (internal/dashboardtest) checks the same vectors in a real page.
func TestDashboardSigningInNode(t *testing.T) {
	node, err := exec.LookPath("node")
	if err != nil {
		t.Skip("node is not installed: the dashboard's signing is checked in Chromium instead (internal/dashboardtest)")
	}
	out, err := exec.Command(node, "--version").Output()
	m := regexp.MustCompile(`^v(\d+)\.`).FindSubmatch(out)
	if err != nil || m == nil {
		t.Skipf("node --version: %v %q", err, out)
	}
	if major, _ := strconv.Atoi(string(m[1])); major < 20 {
		t.Skipf("node %s: the test needs node 20 or later (WebCrypto and fetch's Response as globals)", out)
	}
	dir := t.TempDir()
	for _, name := range []string{"sign.js", "api.js", "md5.js"} {
		b, err := dashboardFiles.ReadFile("dashboard/" + name)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, name), b, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	test, err := os.ReadFile(filepath.Join("testdata", "dashboardjs", "sign.test.mjs"))
	if err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(dir, "sign.test.mjs"), test, 0o600)
	os.WriteFile(filepath.Join(dir, "package.json"), []byte(`{"type":"module"}`), 0o600) // the .js files are ES modules
	vectors, err := filepath.Abs(filepath.Join("..", "testdata", "signature-v2-vectors.json"))
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, node, "--test", "--test-reporter=spec", filepath.Join(dir, "sign.test.mjs"))
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "MDQS_VECTORS="+vectors)
	got, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("node --test sign.test.mjs: %v\n%s", err, got)
	}
	t.Logf("node --test:\n%s", got)
}
