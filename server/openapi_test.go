package server_test

import (
	"encoding/json"
	"fmt"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/creativeops/creativeops/internal/rpcrule"
)

var openAPIDoc = sync.OnceValues(func() (map[string]any, error) {
	b, err := os.ReadFile("../gen/openapi/openapi.json")
	if err != nil {
		return nil, err
	}
	var doc map[string]any
	return doc, json.Unmarshal(b, &doc)
})

// checkResponseSchema holds a REST response body to the schema the
// OpenAPI document declares for the method and status: every required
// field present, null only where the field is nullable, a value of a
// closed set one of its enum. Typed clients
// generated from the document rely on both.
func checkResponseSchema(t *testing.T, fullMethod string, status int, body map[string]any) {
	t.Helper()
	doc, err := openAPIDoc()
	if err != nil {
		t.Fatal(err)
	}
	m, ok := rpcrule.Lookup(fullMethod)
	if !ok || body == nil {
		return
	}
	path := m.Template
	if i := strings.Index(path, "="); i >= 0 { // "{name=*}" templates
		path = path[:i] + path[strings.IndexByte(path[i:], '}')+i:]
	}
	op, _ := doc["paths"].(map[string]any)[path].(map[string]any)[strings.ToLower(m.HTTPMethod)].(map[string]any)
	resp, _ := op["responses"].(map[string]any)[strconv.Itoa(status)].(map[string]any)
	schema, _ := resp["content"].(map[string]any)["application/json"].(map[string]any)["schema"].(map[string]any)
	if schema == nil {
		t.Errorf("OpenAPI declares no JSON body for %s %s %d", m.HTTPMethod, path, status)
		return
	}
	for _, problem := range conform(doc, schema, body, "") {
		t.Errorf("%s response breaks its OpenAPI schema: %s", fullMethod, problem)
	}
}

func conform(doc, schema map[string]any, v any, at string) []string {
	schema = resolve(doc, schema)
	if v == nil {
		if !admitsNull(schema) {
			return []string{fmt.Sprintf("%s is null but not nullable", at)}
		}
		return nil
	}
	var problems []string
	if enum, ok := schema["enum"].([]any); ok && !slices.Contains(enum, v) {
		problems = append(problems, fmt.Sprintf("%s is %v, not one of the enum %v", at, v, enum))
	}
	switch v := v.(type) {
	case map[string]any:
		props, _ := schema["properties"].(map[string]any)
		if req, ok := schema["required"].([]any); ok {
			for _, r := range req {
				if _, present := v[r.(string)]; !present {
					problems = append(problems, fmt.Sprintf("%s.%s is required but missing", at, r))
				}
			}
		}
		for k, val := range v {
			if p, ok := props[k].(map[string]any); ok {
				problems = append(problems, conform(doc, p, val, at+"."+k)...)
			} else if props != nil && (schema["additionalProperties"] == nil || schema["additionalProperties"] == false) {
				problems = append(problems, fmt.Sprintf("%s.%s is not in the schema", at, k))
			}
		}
	case []any:
		if items, ok := schema["items"].(map[string]any); ok {
			for i, val := range v {
				problems = append(problems, conform(doc, items, val, fmt.Sprintf("%s[%d]", at, i))...)
			}
		}
	}
	return problems
}

// admitsNull reports whether a schema (OpenAPI 3.1: JSON Schema) admits
// null: a null type beside its own.
func admitsNull(schema map[string]any) bool {
	switch t := schema["type"].(type) {
	case string:
		return t == "null"
	case []any:
		return slices.Contains(t, any("null"))
	}
	return false
}

// resolve follows $ref, a single allOf, and a oneOf of a schema or null
// (a nullable message field), keeping that it admits null.
func resolve(doc, schema map[string]any) map[string]any {
	nullable := admitsNull(schema)
	if all, ok := schema["allOf"].([]any); ok && len(all) == 1 {
		schema = all[0].(map[string]any)
	}
	if one, ok := schema["oneOf"].([]any); ok && len(one) == 2 {
		if admitsNull(one[1].(map[string]any)) {
			schema, nullable = one[0].(map[string]any), true
		}
	}
	if ref, ok := schema["$ref"].(string); ok {
		name := strings.TrimPrefix(ref, "#/components/schemas/")
		schema = doc["components"].(map[string]any)["schemas"].(map[string]any)[name].(map[string]any)
	}
	if nullable && !admitsNull(schema) {
		out := map[string]any{}
		for k, v := range schema {
			out[k] = v
		}
		out["type"] = []any{schema["type"], "null"}
		return out
	}
	return schema
}
