package webhook_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"mdqs/internal/checkout"
	"mdqs/internal/webhook"
)

// The Python recipe docs/screens-and-alerts.md gives generic receivers
// verifies what the sender signs, and refuses the same request with one
// byte of the body changed or signed with another secret.
func TestGenericVerificationRecipe(t *testing.T) {
	python, err := exec.LookPath("python3")
	if err != nil {
		t.Skip("python3 is not installed")
	}
	root, err := checkout.Root()
	if err != nil {
		t.Fatal(err)
	}
	page, err := os.ReadFile(filepath.Join(root, "docs", "screens-and-alerts.md"))
	if err != nil {
		t.Fatal(err)
	}
	var recipe string
	for _, m := range regexp.MustCompile("(?s)```python\n(.*?)```").FindAllStringSubmatch(string(page), -1) {
		if strings.Contains(m[1], "def verify(") {
			recipe = m[1]
		}
	}
	if recipe == "" {
		t.Fatal("docs/screens-and-alerts.md has no Python block defining verify()")
	}
	const secret = "a-shared-secret-of-the-receiver"
	req, err := webhook.Request(context.Background(), webhook.Target{URL: "https://example.com/hook", Format: "generic", Secret: secret}, sample(), time.Now())
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(req.Body)
	headers, _ := json.Marshal(map[string]string{"X-Mdqs-Timestamp": req.Header.Get("X-Mdqs-Timestamp"), "X-Mdqs-Signature": req.Header.Get("X-Mdqs-Signature")})
	dir := t.TempDir()
	tampered := bytes.Replace(body, []byte("600519.SH"), []byte("600519.SZ"), 1)
	for name, b := range map[string][]byte{"body": body, "tampered": tampered, "headers": headers} {
		if err := os.WriteFile(filepath.Join(dir, name), b, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	script := recipe + `
import json, sys
d = sys.argv[1]
h = json.load(open(d + "/headers"))
body = open(d + "/body", "rb").read()
print(verify(b"` + secret + `", h, body), verify(b"` + secret + `", h, open(d + "/tampered", "rb").read()), verify(b"another", h, body))
`
	out, err := exec.Command(python, "-c", script, dir).CombinedOutput()
	if err != nil {
		t.Fatalf("python3: %v\n%s", err, out)
	}
	if got := strings.TrimSpace(string(out)); got != "True False False" {
		t.Errorf("verify(signed, tampered, other secret) = %s, want True False False", got)
	}
}
