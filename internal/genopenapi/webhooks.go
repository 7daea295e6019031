package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/creativeops/creativeops/internal/eventtypes"
)

// webhooksDocument is the OpenAPI 3.1 document of the webhook events
// (gen/openapi/webhooks.json): one entry of webhooks per event type the
// protos declare, whose request body is the delivery's envelope with its
// type as a const and its data the payload message's schema, taken from
// the API's document (doc, finished), which is OpenAPI 3.1 too; see
// docs/webhooks.md.
func webhooksDocument(doc map[string]any) ([]byte, error) {
	all, err := eventtypes.All()
	if err != nil {
		return nil, err
	}
	apiSchemas := child(child(doc, "components"), "schemas")
	schemas := map[string]any{}
	webhooks := map[string]any{}
	for _, e := range all {
		payload := string(e.Payload.Name())
		if _, ok := apiSchemas[payload]; !ok {
			return nil, fmt.Errorf("event %s: its payload %s has no schema in the API's document (return it from an RPC)", e.Type, payload)
		}
		if err := copySchema(apiSchemas, schemas, payload); err != nil {
			return nil, fmt.Errorf("event %s: %w", e.Type, err)
		}
		envelope := e.GoName() + "Event"
		if _, taken := apiSchemas[envelope]; taken {
			return nil, fmt.Errorf("event %s: its envelope's schema name %s is a message's of the API: rename the message", e.Type, envelope)
		}
		schemas[envelope] = map[string]any{
			"type":                 "object",
			"description":          "The body of a " + e.Type + " delivery. " + e.Description,
			"required":             []any{"id", "type", "timestamp", "data"},
			"additionalProperties": false,
			"properties": map[string]any{
				"id":        map[string]any{"type": "string", "pattern": "^evt_[0-9a-z]{26}$", "description": "The event id, also the webhook-id header: the same on every attempt and redelivery."},
				"type":      map[string]any{"type": "string", "const": e.Type},
				"timestamp": map[string]any{"type": "string", "format": "date-time", "description": "When the event happened: RFC 3339, UTC, three fractional digits."},
				"data":      map[string]any{"$ref": "#/components/schemas/" + payload},
			},
		}
		webhooks[e.Type] = map[string]any{"post": map[string]any{
			"operationId": e.GoName(),
			"summary":     e.Type,
			"description": e.Description,
			"parameters":  signatureHeaders(),
			// Authenticated by the signature header, not by a scheme the
			// receiver could declare.
			"security": []any{},
			"requestBody": map[string]any{
				"required": true,
				"content":  map[string]any{"application/json": map[string]any{"schema": map[string]any{"$ref": "#/components/schemas/" + envelope}}},
			},
			"responses": map[string]any{
				"200": map[string]any{"description": "Any 2xx status acknowledges the delivery; others are retried with backoff for about 28 hours."},
				"410": map[string]any{"description": "Gone: the webhook is disabled and receives nothing more."},
			},
		}}
	}
	out := map[string]any{
		"openapi": "3.1.0",
		"info": map[string]any{
			"title":       "creativeops webhooks",
			"version":     "v1",
			"description": "The events creativeops POSTs to the endpoints registered with POST /v1/webhooks, signed per Standard Webhooks (https://www.standardwebhooks.com). The REST API's own document is GET /v1/openapi.json.",
		},
		"servers":    []any{map[string]any{"url": "/", "description": "The creativeops server that sends the events; it serves this document at /v1/openapi/webhooks.json."}},
		"webhooks":   webhooks,
		"components": map[string]any{"schemas": schemas},
	}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetIndent("", "  ")
	if err := enc.Encode(out); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

// signatureHeaders are the headers of every delivery (docs/webhooks.md).
func signatureHeaders() []any {
	header := func(name, description, pattern string) map[string]any {
		return map[string]any{"name": name, "in": "header", "required": true, "description": description, "schema": map[string]any{"type": "string", "pattern": pattern}}
	}
	return []any{
		header("webhook-id", "The event id (evt_...), the same on every attempt.", "^evt_[0-9a-z]{26}$"),
		header("webhook-timestamp", "The time of this attempt, Unix seconds.", "^[0-9]+$"),
		header("webhook-signature", "Space-separated signatures: v1, + base64(HMAC-SHA256(key, {webhook-id}.{webhook-timestamp}.{body})). The key is the base64 decoding of what follows whsec_, or the raw UTF-8 bytes of any other secret. Verify against the raw body.", `^v1,\S+( v1,\S+)*$`),
	}
}

// copySchema copies the named schema of from, and those it refers to, into
// to.
func copySchema(from, to map[string]any, name string) error {
	if _, done := to[name]; done {
		return nil
	}
	raw, ok := from[name]
	if !ok {
		return fmt.Errorf("no schema %s", name)
	}
	b, err := json.Marshal(raw)
	if err != nil {
		return err
	}
	var copied any
	if err := json.Unmarshal(b, &copied); err != nil {
		return err
	}
	to[name] = copied
	var refs []string
	collectRefs(to[name], &refs)
	for _, ref := range refs {
		if err := copySchema(from, to, strings.TrimPrefix(ref, "#/components/schemas/")); err != nil {
			return err
		}
	}
	return nil
}

func collectRefs(v any, refs *[]string) {
	switch x := v.(type) {
	case map[string]any:
		for _, k := range slices.Sorted(maps.Keys(x)) {
			if k == "$ref" {
				if s, ok := x[k].(string); ok {
					*refs = append(*refs, s)
				}
				continue
			}
			collectRefs(x[k], refs)
		}
	case []any:
		for _, e := range x {
			collectRefs(e, refs)
		}
	}
}
