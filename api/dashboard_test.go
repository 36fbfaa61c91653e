package api

import (
	"io"
	"io/fs"
	"net/http"
	"regexp"
	"strings"
	"testing"
)

// getRaw is one request whose answer need not be JSON.
func getRaw(t *testing.T, h *harness, method, path string, header http.Header) (*http.Response, []byte) {
	t.Helper()
	req, err := http.NewRequest(method, h.srv.URL+path, nil)
	if err != nil {
		t.Fatal(err)
	}
	for k, v := range header {
		req.Header[k] = v
	}
	res, err := h.srv.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	body, _ := io.ReadAll(res.Body)
	return res, body
}

func TestDashboardServesItsFiles(t *testing.T) {
	h := newHarness(t)
	cases := []struct{ path, ctype, contains string }{
		{"/", "text/html; charset=utf-8", `<script type="module" src="/assets/app.js"></script>`},
		{"/assets/app.js", "text/javascript; charset=utf-8", "import { ApiError, Client, Live } from './api.js';"},
		{"/assets/api.js", "text/javascript; charset=utf-8", "export class Live"},
		{"/assets/md5.js", "text/javascript; charset=utf-8", "export function md5Hex"},
		{"/assets/sign.js", "text/javascript; charset=utf-8", "export async function signatureV2"},
		{"/assets/style.css", "text/css; charset=utf-8", ":root"},
		{"/assets/icon.svg", "image/svg+xml", "<svg"},
	}
	for _, c := range cases {
		res, body := getRaw(t, h, http.MethodGet, c.path, nil)
		hd := res.Header
		if res.StatusCode != 200 || hd.Get("Content-Type") != c.ctype || !strings.Contains(string(body), c.contains) {
			t.Fatalf("GET %s: %d %q, body %.80q", c.path, res.StatusCode, hd.Get("Content-Type"), body)
		}
		if hd.Get("Cache-Control") != "no-cache" || hd.Get("X-Frame-Options") != "DENY" ||
			hd.Get("X-Content-Type-Options") != "nosniff" || !strings.HasPrefix(hd.Get("Content-Security-Policy"), "default-src 'self';") ||
			strings.Contains(hd.Get("Content-Security-Policy"), "unsafe") {
			t.Fatalf("GET %s: headers %v", c.path, hd)
		}
		etag := hd.Get("ETag")
		if res, body := getRaw(t, h, http.MethodGet, c.path, http.Header{"If-None-Match": {`"other", ` + etag}}); res.StatusCode != http.StatusNotModified || len(body) != 0 {
			t.Fatalf("GET %s with its ETag: %d, %d bytes", c.path, res.StatusCode, len(body))
		}
		if res, body := getRaw(t, h, http.MethodHead, c.path, nil); res.StatusCode != 200 || len(body) != 0 || res.Header.Get("Content-Type") != c.ctype {
			t.Fatalf("HEAD %s: %d %q, %d bytes", c.path, res.StatusCode, res.Header.Get("Content-Type"), len(body))
		}
	}
	// Everything else keeps the JSON 404 envelope.
	for _, path := range []string{"/assets/nope.js", "/assets/", "/index.html", "/assets/index.html", "/assets/../api.js"} {
		r := h.do(http.MethodGet, path, nil, nil)
		if r.status != 404 || r.message != "not found" {
			t.Fatalf("GET %s: %d %q", path, r.status, r.message)
		}
	}
	if r := h.do(http.MethodPost, "/", nil, nil); r.status != http.StatusMethodNotAllowed {
		t.Fatalf("POST /: %d", r.status)
	}
}

// TestDashboardFitsItsCSP checks the page statically: no inline script,
// style or event handler (the policy would block them), every file it
// names is served, and nothing is loaded from elsewhere.
func TestDashboardFitsItsCSP(t *testing.T) {
	files, err := fs.ReadDir(dashboardFiles, "dashboard")
	if err != nil {
		t.Fatal(err)
	}
	served := map[string]bool{}
	for _, f := range files {
		served["/assets/"+f.Name()] = true
		if _, ok := dashboardTypes[f.Name()[strings.LastIndex(f.Name(), "."):]]; !ok {
			t.Errorf("dashboard/%s has no content type in dashboardTypes", f.Name())
		}
	}
	html, _ := dashboardFiles.ReadFile("dashboard/index.html")
	page := string(html)
	for _, bad := range []*regexp.Regexp{
		regexp.MustCompile(`<script(?:\s[^>]*)?>\s*[^<\s]`), // inline code
		regexp.MustCompile(`<style`),
		regexp.MustCompile(`\sstyle=`),
		regexp.MustCompile(`\son[a-z]+=`),
		regexp.MustCompile(`(?:src|href)="(?:https?:)?//`),
	} {
		if m := bad.FindString(page); m != "" {
			t.Errorf("index.html has %q, which the Content-Security-Policy forbids or which leaves the origin", m)
		}
	}
	for _, m := range regexp.MustCompile(`(?:src|href)="([^"]+)"`).FindAllStringSubmatch(page, -1) {
		if !served[m[1]] {
			t.Errorf("index.html refers to %s, which is not served", m[1])
		}
	}
	for _, f := range files {
		b, _ := dashboardFiles.ReadFile("dashboard/" + f.Name())
		for _, m := range regexp.MustCompile(`from '\./([^']+)'`).FindAllStringSubmatch(string(b), -1) {
			if !served["/assets/"+m[1]] {
				t.Errorf("%s imports %s, which is not served", f.Name(), m[1])
			}
		}
		if s := string(b); strings.Contains(s, "localStorage") || strings.Contains(s, "eval(") || strings.Contains(s, "innerHTML") {
			t.Errorf("%s uses localStorage, eval or innerHTML", f.Name())
		}
	}
}
