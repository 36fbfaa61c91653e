package main

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"
)

// readmeBlock is the first fenced block of lang after the README heading.
func readmeBlock(t *testing.T, heading, lang string) string {
	t.Helper()
	b, err := os.ReadFile("README.md")
	if err != nil {
		t.Fatal(err)
	}
	_, after, ok := strings.Cut(string(b), "\n"+heading+"\n")
	if !ok {
		t.Fatalf("README has no heading %q", heading)
	}
	_, after, ok = strings.Cut(after, "```"+lang+"\n")
	if !ok {
		t.Fatalf("no %s block after %q", lang, heading)
	}
	block, _, ok := strings.Cut(after, "\n```")
	if !ok {
		t.Fatalf("unterminated %s block after %q", lang, heading)
	}
	return block
}

func runExample(t *testing.T, base string, name string, args ...string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.Env = append(os.Environ(), "MDQS_BASE="+base)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		t.Fatalf("%s: %v\nstdout:\n%s\nstderr:\n%s", name, err, out.String(), errb.String())
	}
	return out.String()
}

func need(t *testing.T, tools ...string) {
	t.Helper()
	for _, tool := range tools {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("%s is not installed", tool)
		}
	}
}

// TestREADMEExamples runs the README's curl and Python examples, as
// written, against the real server in demo mode.
func TestREADMEExamples(t *testing.T) {
	s := startServer(t)
	base := "http://" + s.addr

	t.Run("curl", func(t *testing.T) {
		need(t, "bash", "curl", "openssl", "awk", "sed")
		out := runExample(t, base, "bash", "-euc", readmeBlock(t, "### The same signature with curl and openssl", "sh"))
		lines := strings.Split(strings.TrimSpace(out), "\n")
		if len(lines) != 2 {
			t.Fatalf("want two answers, got:\n%s", out)
		}
		if !strings.Contains(lines[0], `"code":1`) || !strings.Contains(lines[0], `"client_id":"demo"`) {
			t.Errorf("whoami answer: %s", lines[0])
		}
		if !strings.Contains(lines[1], `"code":1`) || !strings.Contains(lines[1], `"state":"queued"`) {
			t.Errorf("signed POST answer: %s", lines[1])
		}
	})
	t.Run("python", func(t *testing.T) {
		need(t, "python3")
		out := runExample(t, base, "python3", "-c", readmeBlock(t, "### The same signature in Python (standard library only)", "python"))
		lines := strings.Split(strings.TrimSpace(out), "\n")
		if len(lines) != 4 || lines[0] != "demo" || !strings.HasPrefix(lines[1], "['") || lines[2] != "queued" || lines[3] != "invalid sort field" {
			t.Errorf("python example printed:\n%s", out)
		}
	})
}
