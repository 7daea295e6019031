// Command genopenapi finishes the OpenAPI document that protoc-gen-openapi
// writes (gen/openapi/openapi.yaml) into the one the service serves,
// gen/openapi/openapi.json: it adds what the generator cannot know from the
// google.api.http annotations alone — each operation's success status as
// the method's creativeops.v1.rule declares it, the AIP-193 error body and
// bearer authentication. The served document is this file, byte for byte.
package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"log"
	"net/http"
	"os"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/creativeops/creativeops/internal/rpcrule"
)

func main() {
	in, out := "gen/openapi/openapi.yaml", "gen/openapi/openapi.json"
	if len(os.Args) == 3 {
		in, out = os.Args[1], os.Args[2]
	}
	src, err := os.ReadFile(in)
	if err != nil {
		log.Fatal(err)
	}
	doc, err := finish(src)
	if err != nil {
		log.Fatalf("%s: %v", in, err)
	}
	if err := os.WriteFile(out, doc, 0o644); err != nil {
		log.Fatal(err)
	}
}

var statusDescriptions = map[int]string{
	http.StatusOK:        "OK",
	http.StatusCreated:   "Created",
	http.StatusAccepted:  "Accepted: the work is queued",
	http.StatusNoContent: "No content",
}

func finish(src []byte) ([]byte, error) {
	var doc map[string]any
	if err := yaml.Unmarshal(src, &doc); err != nil {
		return nil, err
	}
	components := child(doc, "components")
	schemas := child(components, "schemas")
	schemas["Error"] = errorSchema()
	components["securitySchemes"] = map[string]any{"bearer": map[string]any{"type": "http", "scheme": "bearer", "description": "API key: co_live_..."}}
	doc["security"] = []any{map[string]any{"bearer": []any{}}}
	errorResponse := map[string]any{"description": "Error", "content": map[string]any{"application/json": map[string]any{"schema": map[string]any{"$ref": "#/components/schemas/Error"}}}}

	operations := map[string]rpcrule.Method{}
	for _, m := range rpcrule.All() {
		operations[strings.ToLower(m.HTTPMethod)+" "+openAPIPath(m.Template)] = m
	}
	paths, _ := doc["paths"].(map[string]any)
	seen := 0
	for path, item := range paths {
		ops, _ := item.(map[string]any)
		for method, op := range ops {
			o, ok := op.(map[string]any)
			if !ok {
				continue
			}
			m, ok := operations[method+" "+path]
			if !ok {
				return nil, fmt.Errorf("operation %s %s has no RPC in the descriptors", method, path)
			}
			seen++
			responses := child(o, "responses")
			responses["default"] = errorResponse
			ok200, _ := responses["200"].(map[string]any)
			if ok200 == nil {
				return nil, fmt.Errorf("operation %s %s has no 200 response to start from", method, path)
			}
			if m.SuccessStatus != http.StatusOK {
				delete(responses, "200")
				r := map[string]any{"description": statusDescriptions[m.SuccessStatus]}
				if m.SuccessStatus != http.StatusNoContent {
					r["content"] = ok200["content"]
				}
				responses[strconv.Itoa(m.SuccessStatus)] = r
			}
			if m.AcceptedStatus != 0 {
				responses[strconv.Itoa(m.AcceptedStatus)] = map[string]any{"description": statusDescriptions[m.AcceptedStatus], "content": ok200["content"]}
			}
		}
	}
	if seen != len(operations) {
		return nil, fmt.Errorf("the document has %d operations for %d RPCs", seen, len(operations))
	}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetIndent("", "  ")
	if err := enc.Encode(doc); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

// openAPIPath turns a google.api.http template into an OpenAPI path:
// "/v1/keys/{id}:rotate" stays as it is, "{name=*}" becomes "{name}".
func openAPIPath(template string) string {
	var b strings.Builder
	for {
		i := strings.IndexByte(template, '{')
		if i < 0 {
			b.WriteString(template)
			return b.String()
		}
		j := strings.IndexByte(template[i:], '}')
		if j < 0 {
			b.WriteString(template)
			return b.String()
		}
		name, _, _ := strings.Cut(template[i+1:i+j], "=")
		b.WriteString(template[:i] + "{" + name + "}")
		template = template[i+j+1:]
	}
}

func child(m map[string]any, key string) map[string]any {
	c, _ := m[key].(map[string]any)
	if c == nil {
		c = map[string]any{}
		m[key] = c
	}
	return c
}

func errorSchema() map[string]any {
	return map[string]any{
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
}
