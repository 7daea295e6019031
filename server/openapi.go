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

// webhooksOpenAPIPath is where the webhook events' document is served,
// without a credential, like the API's.
const webhooksOpenAPIPath = "/v1/openapi/webhooks.json"

// serveWebhooksOpenAPI serves the generated OpenAPI 3.1 document of the
// webhook events as it is.
func serveWebhooksOpenAPI(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", "application/json")
	_, _ = w.Write(creativeops.WebhooksOpenAPIJSON)
}
