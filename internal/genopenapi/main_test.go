package main

import (
	"encoding/json"
	"os"
	"strings"
	"testing"
)

// A custom method (POST /v1/keys/{id}:rotate, body "*") takes its id from
// the path: a client generated from the document must not be asked for it
// again in the body, and a method with no other field needs no body.
func TestBodiesOmitPathParameters(t *testing.T) {
	src, err := os.ReadFile("../../gen/openapi/openapi.yaml")
	if err != nil {
		t.Fatal(err)
	}
	out, err := finish(src)
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Paths      map[string]map[string]map[string]any
		Components struct{ Schemas map[string]map[string]any }
	}
	if err := json.Unmarshal(out, &doc); err != nil {
		t.Fatal(err)
	}
	checked := 0
	for path, ops := range doc.Paths {
		if !strings.Contains(path, "{") {
			continue
		}
		for method, op := range ops {
			body, ok := op["requestBody"].(map[string]any)
			if !ok {
				continue
			}
			ref := body["content"].(map[string]any)["application/json"].(map[string]any)["schema"].(map[string]any)["$ref"].(string)
			schema := doc.Components.Schemas[strings.TrimPrefix(ref, "#/components/schemas/")]
			props, _ := schema["properties"].(map[string]any)
			for _, seg := range strings.Split(path, "{")[1:] {
				param := seg[:strings.Index(seg, "}")]
				if _, ok := props[param]; ok {
					t.Errorf("%s %s: the body's schema %s repeats the path parameter %q", method, path, ref, param)
				}
			}
			checked++
			if len(props) == 0 && body["required"] != false {
				t.Errorf("%s %s: a body with no field of its own is required", method, path)
			}
		}
	}
	rotate := doc.Paths["/v1/keys/{id}:rotate"]["post"]["requestBody"].(map[string]any)
	if rotate["required"] != false {
		t.Errorf("rotate's body is required, though grace_period is optional: %v", rotate)
	}
	if checked < 5 {
		t.Errorf("only %d operations with a path parameter and a body; the custom methods are missing", checked)
	}
}
