package main

import (
	"encoding/json"
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
	var nullable func(v any) bool
	nullable = func(v any) bool {
		switch x := v.(type) {
		case map[string]any:
			if _, ok := x["nullable"]; ok {
				return true
			}
			for _, e := range x {
				if nullable(e) {
					return true
				}
			}
		case []any:
			for _, e := range x {
				if nullable(e) {
					return true
				}
			}
		}
		return false
	}
	if nullable(raw) {
		t.Error("the 3.1 document says nullable, which 3.1 does not have")
	}
}

func TestNullTypes(t *testing.T) {
	in := map[string]any{"properties": map[string]any{
		"at":   map[string]any{"type": "string", "nullable": true},
		"kind": map[string]any{"type": "string", "nullable": true, "enum": []any{"a"}},
		"job":  map[string]any{"oneOf": []any{map[string]any{"$ref": "#/x"}, map[string]any{"type": "object", "nullable": true, "enum": []any{nil}}}},
	}}
	got, _ := json.Marshal(nullTypes(in))
	want := `{"properties":{"at":{"type":["string","null"]},"job":{"oneOf":[{"$ref":"#/x"},{"type":"null"}]},"kind":{"enum":["a",null],"type":["string","null"]}}}`
	if string(got) != want {
		t.Errorf("nullTypes = %s\nwant %s", got, want)
	}
}
