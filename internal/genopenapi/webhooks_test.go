package main

import (
	"encoding/json"
	"fmt"
	"os"
	"testing"

	"github.com/creativeops/creativeops/internal/eventtypes"
)

// The webhooks document has one entry per declared event type: the
// signature headers, and a body whose type is the event's and whose data
// is its payload's schema, with no 3.0 nullable left.
func TestWebhooksDocument(t *testing.T) {
	b, err := os.ReadFile("../../gen/openapi/webhooks.json")
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		OpenAPI  string                    `json:"openapi"`
		Webhooks map[string]map[string]any `json:"webhooks"`
	}
	if err := json.Unmarshal(b, &doc); err != nil {
		t.Fatal(err)
	}
	var raw map[string]any
	_ = json.Unmarshal(b, &raw)
	schemas := raw["components"].(map[string]any)["schemas"].(map[string]any)
	all, err := eventtypes.All()
	if err != nil {
		t.Fatal(err)
	}
	if doc.OpenAPI != "3.1.0" || len(doc.Webhooks) != len(all) {
		t.Fatalf("openapi %s with %d webhooks for %d declared event types", doc.OpenAPI, len(doc.Webhooks), len(all))
	}
	for _, e := range all {
		post, _ := doc.Webhooks[e.Type]["post"].(map[string]any)
		if post == nil {
			t.Errorf("no webhook %s", e.Type)
			continue
		}
		headers := map[string]bool{}
		for _, p := range post["parameters"].([]any) {
			if p := p.(map[string]any); p["in"] == "header" && p["required"] == true {
				headers[p["name"].(string)] = true
			}
		}
		if !headers["webhook-id"] || !headers["webhook-timestamp"] || !headers["webhook-signature"] {
			t.Errorf("%s: signature headers %v", e.Type, headers)
		}
		ref := post["requestBody"].(map[string]any)["content"].(map[string]any)["application/json"].(map[string]any)["schema"].(map[string]any)["$ref"].(string)
		envelope, _ := schemas[ref[len("#/components/schemas/"):]].(map[string]any)
		props, _ := envelope["properties"].(map[string]any)
		typ, _ := props["type"].(map[string]any)
		data, _ := props["data"].(map[string]any)
		if typ["const"] != e.Type || data["$ref"] != "#/components/schemas/"+string(e.Payload.Name()) {
			t.Errorf("%s: envelope %v", e.Type, envelope)
		}
	}
	noNullable(t, "webhooks.json", raw)
}

// Both documents are OpenAPI 3.1: a field that may be null has JSON
// Schema's null type, and no schema says 3.0's nullable, which 3.1 does
// not have and validators skip.
func TestNoNullableKeyword(t *testing.T) {
	doc := finished(t)
	if doc["openapi"] != "3.1.0" {
		t.Errorf("openapi %v, not 3.1.0", doc["openapi"])
	}
	noNullable(t, "openapi.json", doc)
	job := doc["components"].(map[string]any)["schemas"].(map[string]any)["Job"].(map[string]any)["properties"].(map[string]any)
	if got := fmt.Sprint(job["started_at"].(map[string]any)["type"]); got != "[string null]" {
		t.Errorf("Job.started_at type %s, not [string null]", got)
	}
}

func noNullable(t *testing.T, name string, v any) {
	t.Helper()
	switch x := v.(type) {
	case map[string]any:
		if _, ok := x["nullable"]; ok {
			t.Errorf("%s says nullable, which 3.1 does not have: %v", name, x)
			return
		}
		for _, e := range x {
			noNullable(t, name, e)
		}
	case []any:
		for _, e := range x {
			noNullable(t, name, e)
		}
	}
}
