package api

import (
	_ "embed"
	"net/http"
)

// openAPI is the API's contract (OpenAPI 3), served as is.
//
//go:embed openapi.json
var openAPI []byte

// handleOpenAPI is GET /v1/openapi.json.
func (s *Server) handleOpenAPI(w http.ResponseWriter, r *http.Request) error {
	writeBytes(w, http.StatusOK, "application/json; charset=utf-8", openAPI)
	return nil
}
