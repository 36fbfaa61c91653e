package api

import (
	_ "embed"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"sync"
)

// openAPISource is the API's contract (OpenAPI 3), written by hand.
//
//go:embed openapi.json
var openAPISource []byte

// openAPIExamples are real answers of the endpoints, recorded by
// TestResponsesMatchOpenAPI with -update-examples ("METHOD /path" -> the
// 200 answer, lists cut to three entries). They become the examples of
// the operations whose 200 answer has none written by hand.
//
//go:embed openapi_examples.json
var openAPIExamples []byte

// openAPI is the served document: the source with the recorded examples.
var openAPI = sync.OnceValue(func() []byte {
	doc, err := withExamples(openAPISource, openAPIExamples)
	if err != nil {
		// Both files are embedded and a test loads them: this cannot
		// happen in a build that passed its tests.
		panic("openapi: " + err.Error())
	}
	return doc
})

// handleOpenAPI is GET /v1/openapi.json.
func (s *Server) handleOpenAPI(w http.ResponseWriter, r *http.Request) error {
	writeBytes(w, http.StatusOK, jsonType, openAPI())
	return nil
}

func withExamples(source, examples []byte) ([]byte, error) {
	var doc map[string]any
	if err := json.Unmarshal(source, &doc); err != nil {
		return nil, fmt.Errorf("openapi.json: %w", err)
	}
	var ex map[string]json.RawMessage
	if err := json.Unmarshal(examples, &ex); err != nil {
		return nil, fmt.Errorf("openapi_examples.json: %w", err)
	}
	paths, _ := doc["paths"].(map[string]any)
	for key, raw := range ex {
		method, path, _ := strings.Cut(key, " ")
		op, _ := dig(paths, path, strings.ToLower(method))
		mt, ok := dig(op, "responses", "200", "content", "application/json")
		if !ok {
			return nil, fmt.Errorf("openapi_examples.json: %s has no JSON 200 answer in openapi.json", key)
		}
		if _, written := mt["example"]; !written {
			mt["example"] = raw
		}
	}
	return json.Marshal(doc)
}

// dig walks nested JSON objects by key.
func dig(m map[string]any, keys ...string) (map[string]any, bool) {
	for _, k := range keys {
		next, ok := m[k].(map[string]any)
		if !ok {
			return nil, false
		}
		m = next
	}
	return m, m != nil
}
