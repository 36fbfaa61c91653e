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
		if _, path, _ := strings.Cut(route, " "); isPprof(path) {
			continue // net/http/pprof's own interface, documented by Go (pprof_test.go)
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

// Every JSON answer in the served document has an example: written by
// hand, or recorded from the real endpoint (openapi_examples.json, made
// by go test ./api -run ResponsesMatchOpenAPI -args -update-examples) and
// validated against its schema whenever the contract test loads the
// document.
func TestOpenAPIHasAnExampleOfEveryAnswer(t *testing.T) {
	var doc struct {
		Paths map[string]map[string]struct {
			Responses map[string]struct {
				Content map[string]struct {
					Example  json.RawMessage `json:"example"`
					Examples json.RawMessage `json:"examples"`
				} `json:"content"`
			} `json:"responses"`
		} `json:"paths"`
	}
	if err := json.Unmarshal(openAPI(), &doc); err != nil {
		t.Fatal(err)
	}
	for path, ops := range doc.Paths {
		for method, op := range ops {
			mt, ok := op.Responses["200"].Content["application/json"]
			if !ok || path == "/v1/openapi.json" {
				continue
			}
			if mt.Example == nil && mt.Examples == nil {
				t.Errorf("%s %s: the 200 answer has no example", strings.ToUpper(method), path)
			}
		}
	}
	if _, err := withExamples(openAPISource, []byte(`{"GET /v1/api/nowhere": {}}`)); err == nil || !strings.Contains(err.Error(), "GET /v1/api/nowhere") {
		t.Errorf("an example of an undocumented operation: %v", err)
	}
}
