// Package docpage is what the tests that generate or check the docs share:
// the anchors GitHub gives headings, and the check that a generated page
// is the one the checkout holds (or its rewrite, under -update). Only
// tests import it.
package docpage

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"unicode"
)

// Slug is the anchor GitHub gives a heading's text: lower case, every
// character but letters, digits, spaces, - and _ dropped, spaces as -.
func Slug(text string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(text) {
		switch {
		case r == ' ':
			b.WriteRune('-')
		case r == '-' || r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r):
			b.WriteRune(r)
		}
	}
	return b.String()
}

// Anchors names a page's headings in order, as GitHub does: a repeated
// slug gets -1, -2, ...
type Anchors map[string]int

// Add is the anchor of the next heading with this text.
func (a Anchors) Add(text string) string {
	slug := Slug(text)
	n := a[slug]
	a[slug] = n + 1
	if n > 0 {
		slug += "-" + strconv.Itoa(n)
	}
	return slug
}

// Check fails the test when the page at path is not got, naming the first
// line that differs and the command that regenerates it; with update it
// writes got there instead.
func Check(t testing.TB, path string, got []byte, update bool, regenerate string) {
	t.Helper()
	if update {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	have, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v; generate it: %s", err, regenerate)
	}
	if string(have) != string(got) {
		t.Errorf("%s is not what its source generates (%s); regenerate it: %s", filepath.Base(path), firstDifference(string(have), string(got)), regenerate)
	}
}

func firstDifference(have, want string) string {
	h, w := strings.Split(have, "\n"), strings.Split(want, "\n")
	for i := range max(len(h), len(w)) {
		var hl, wl string
		if i < len(h) {
			hl = h[i]
		}
		if i < len(w) {
			wl = w[i]
		}
		if hl != wl {
			return fmt.Sprintf("line %d is %q, generated %q", i+1, hl, wl)
		}
	}
	return "they differ"
}
