package server

import (
	"net/http"

	"github.com/creativeops/creativeops"
)

// serveOpenAPI serves the committed, generated OpenAPI document as it is.
func serveOpenAPI(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", "application/json")
	_, _ = w.Write(creativeops.OpenAPIJSON)
}
