package server

import (
	"encoding/json"
	"net/http"
	"strings"
	"sync"

	"go.yaml.in/yaml/v3"

	"github.com/creativeops/creativeops"
)

var openAPI = sync.OnceValues(buildOpenAPI)

func serveOpenAPI(w http.ResponseWriter, r *http.Request) {
	b, err := openAPI()
	if err != nil {
		http.Error(w, "openapi document unavailable", http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	_, _ = w.Write(b)
}

// buildOpenAPI turns the generated OpenAPI document into JSON and fills in
// what the generator cannot know: the real success codes (201, 202, 204),
// the AIP-193 error body and bearer authentication.
func buildOpenAPI() ([]byte, error) {
	var doc map[string]any
	if err := yaml.Unmarshal(creativeops.OpenAPIYAML, &doc); err != nil {
		return nil, err
	}
	components, _ := doc["components"].(map[string]any)
	if components == nil {
		components = map[string]any{}
		doc["components"] = components
	}
	schemas, _ := components["schemas"].(map[string]any)
	if schemas == nil {
		schemas = map[string]any{}
		components["schemas"] = schemas
	}
	schemas["Error"] = map[string]any{
		"type":        "object",
		"description": "Error body (Google AIP-193) of every non-2xx response.",
		"properties": map[string]any{
			"error": map[string]any{
				"type": "object",
				"properties": map[string]any{
					"code":       map[string]any{"type": "integer", "description": "HTTP status."},
					"status":     map[string]any{"type": "string", "description": "gRPC status code name, e.g. NOT_FOUND."},
					"message":    map[string]any{"type": "string"},
					"details":    map[string]any{"type": "array", "items": map[string]any{"type": "object"}, "description": "google.rpc.ErrorInfo (stable reason) and google.rpc.BadRequest (field violations)."},
					"request_id": map[string]any{"type": "string"},
				},
			},
		},
	}
	components["securitySchemes"] = map[string]any{"bearer": map[string]any{"type": "http", "scheme": "bearer", "description": "API key: co_live_..."}}
	doc["security"] = []any{map[string]any{"bearer": []any{}}}
	errorResponse := map[string]any{"description": "Error", "content": map[string]any{"application/json": map[string]any{"schema": map[string]any{"$ref": "#/components/schemas/Error"}}}}
	paths, _ := doc["paths"].(map[string]any)
	for _, item := range paths {
		ops, _ := item.(map[string]any)
		for method, op := range ops {
			o, ok := op.(map[string]any)
			if !ok {
				continue
			}
			responses, _ := o["responses"].(map[string]any)
			if responses == nil {
				continue
			}
			responses["default"] = errorResponse
			id, _ := o["operationId"].(string)
			name := id[strings.Index(id, "_")+1:]
			switch {
			case method == "delete":
				delete(responses, "200")
				responses["204"] = map[string]any{"description": "Deleted"}
			case strings.HasPrefix(name, "Create") || name == "RegisterWork":
				if ok200, found := responses["200"]; found {
					delete(responses, "200")
					r := ok200.(map[string]any)
					r["description"] = "Created"
					responses["201"] = r
				}
			case name == "TestWebhook" || name == "RedeliverDelivery":
				if ok200, found := responses["200"].(map[string]any); found {
					delete(responses, "200")
					ok200["description"] = "Accepted: the delivery is queued"
					responses["202"] = ok200
				}
			case name == "RunWorkflow":
				if ok200, found := responses["200"].(map[string]any); found {
					responses["202"] = map[string]any{"description": "Accepted: the queued job of an asynchronous run (Location: /v1/engine/status/{id})", "content": ok200["content"]}
					ok200["description"] = "The completed job of a synchronous run"
				}
			}
		}
	}
	return json.Marshal(doc)
}
