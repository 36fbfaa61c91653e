package api

import (
	"crypto/sha256"
	"embed"
	"encoding/hex"
	"io/fs"
	"net/http"
	"path"
	"strconv"
	"strings"
)

// dashboardFiles is the single-page dashboard: plain HTML, CSS and ES
// modules, served as they are (no build step). index.html is GET /, every
// other file GET /assets/NAME.
//
//go:embed dashboard
var dashboardFiles embed.FS

// dashboardCSP keeps the page to its own origin: scripts and styles only
// from its files (no inline code), requests only to this server, no
// framing, no form posting anywhere.
const dashboardCSP = "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self'; " +
	"connect-src 'self'; object-src 'none'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"

// dashboardTypes are the content types of the files the dashboard ships;
// the platform's MIME table is not used (on Windows it may say .js is
// text/plain, which browsers refuse for a module).
var dashboardTypes = map[string]string{
	".html": "text/html; charset=utf-8",
	".css":  "text/css; charset=utf-8",
	".js":   "text/javascript; charset=utf-8",
	".svg":  "image/svg+xml",
	".txt":  "text/plain; charset=utf-8",
	".png":  "image/png",
}

// dashboardRoutes registers the embedded dashboard: one exact route per
// file, so an unknown asset path keeps answering the JSON 404 envelope.
func (s *Server) dashboardRoutes() {
	entries, err := fs.ReadDir(dashboardFiles, "dashboard")
	if err != nil {
		panic("dashboard: " + err.Error()) // embedded at build time: cannot happen
	}
	for _, e := range entries {
		if e.IsDir() {
			continue
		}
		name := e.Name()
		body, err := dashboardFiles.ReadFile("dashboard/" + name)
		if err != nil {
			panic("dashboard: " + err.Error())
		}
		route := "/assets/" + name
		if name == "index.html" {
			route = "/"
		}
		s.public(http.MethodGet, route, dashboardAsset(name, body))
	}
}

// dashboardAsset serves one embedded file with its type, security headers
// and an ETag: the browser revalidates each time (no-cache) and gets a 304
// while the binary is the same.
func dashboardAsset(name string, body []byte) handlerFunc {
	ctype, ok := dashboardTypes[path.Ext(name)]
	if !ok {
		ctype = "application/octet-stream"
	}
	sum := sha256.Sum256(body)
	etag := `"` + hex.EncodeToString(sum[:12]) + `"`
	return func(w http.ResponseWriter, r *http.Request) error {
		h := w.Header()
		h.Set("Cache-Control", "no-cache")
		h.Set("ETag", etag)
		h.Set("Content-Security-Policy", dashboardCSP)
		h.Set("X-Frame-Options", "DENY")
		h.Set("Referrer-Policy", "no-referrer")
		h.Set("Cross-Origin-Opener-Policy", "same-origin")
		h.Set("Cross-Origin-Resource-Policy", "same-origin")
		if etagMatches(r.Header.Get("If-None-Match"), etag) {
			w.WriteHeader(http.StatusNotModified)
			return nil
		}
		h.Set("Content-Length", strconv.Itoa(len(body)))
		h.Set("Content-Type", ctype)
		w.WriteHeader(http.StatusOK)
		w.Write(body)
		return nil
	}
}

// etagMatches reports whether an If-None-Match header names etag (or is *).
func etagMatches(header, etag string) bool {
	for _, tag := range strings.Split(header, ",") {
		tag = strings.TrimSpace(tag)
		if tag == "*" || tag == etag || tag == "W/"+etag {
			return true
		}
	}
	return false
}
