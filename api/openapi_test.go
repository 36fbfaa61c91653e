package api

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"
)

// TestOpenAPIListsEveryRoute keeps the document and the router in step:
// every registered path and method is documented, and nothing documented
// is missing from the router.
func TestOpenAPIListsEveryRoute(t *testing.T) {
	h := newHarness(t)
	r := h.do(http.MethodGet, "/v1/openapi.json", nil, nil)
	if r.status != 200 {
		t.Fatalf("GET /v1/openapi.json = %d", r.status)
	}
	var doc struct {
		OpenAPI string                                `json:"openapi"`
		Paths   map[string]map[string]json.RawMessage `json:"paths"`
	}
	if err := json.Unmarshal(r.raw, &doc); err != nil || !strings.HasPrefix(doc.OpenAPI, "3.") {
		t.Fatalf("not an OpenAPI 3 document: %v", err)
	}
	documented := map[string]bool{}
	for path, ops := range doc.Paths {
		for method := range ops {
			documented[strings.ToUpper(method)+" "+path] = true
		}
	}
	for _, route := range h.api.Routes() {
		if strings.HasPrefix(route, "GET /test/") || strings.HasPrefix(route, "POST /test/") || strings.HasPrefix(route, "HEAD ") {
			continue
		}
		if !documented[route] {
			t.Errorf("route %s is not in openapi.json", route)
		}
		delete(documented, route)
	}
	for route := range documented {
		t.Errorf("openapi.json documents %s, which the router does not serve", route)
	}
}
