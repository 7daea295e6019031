package main

import (
	"fmt"
	"regexp"
	"slices"
	"strings"
	"testing"

	"buf.build/gen/go/bufbuild/protovalidate/protocolbuffers/go/buf/validate"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"

	"github.com/creativeops/creativeops/internal/rpcrule"
)

// Every buf.validate rule of every request field is in the document, where
// the field is: a property of the body's schema or a query parameter.
// Bounds, lengths, item counts and patterns are checked one by one against
// the rule; required against protovalidate's own answer for the zero
// value; and every request schema refuses unknown properties.
func TestValidationRulesInDocument(t *testing.T) {
	doc := finished(t)
	schemas := doc["components"].(map[string]any)["schemas"].(map[string]any)
	checked := 0
	for _, m := range rpcrule.All() {
		op := doc["paths"].(map[string]any)[openAPIPath(m.Template)].(map[string]any)[strings.ToLower(m.HTTPMethod)].(map[string]any)
		params := map[string]map[string]any{}
		ps, _ := op["parameters"].([]any)
		for _, p := range ps {
			p := p.(map[string]any)
			params[p["name"].(string)] = p
		}
		var body map[string]any
		if rb, ok := op["requestBody"].(map[string]any); ok {
			ref := rb["content"].(map[string]any)["application/json"].(map[string]any)["schema"].(map[string]any)["$ref"].(string)
			body = schemas[strings.TrimPrefix(ref, "#/components/schemas/")].(map[string]any)
			if body["additionalProperties"] != false {
				t.Errorf("%s: the body's schema admits unknown properties, which the server refuses", m.Name)
			}
		}
		in := m.Descriptor.Input()
		mustSet, err := zeroRefused(in)
		if err != nil {
			t.Fatal(err)
		}
		fs := in.Fields()
		for i := 0; i < fs.Len(); i++ {
			f := fs.Get(i)
			name := string(f.Name())
			var schema map[string]any
			required := false
			switch {
			case params[name] != nil:
				schema = params[name]["schema"].(map[string]any)
				required = params[name]["required"] == true
			case body != nil && body["properties"].(map[string]any)[name] != nil:
				schema = body["properties"].(map[string]any)[name].(map[string]any)
				rs, _ := body["required"].([]any)
				required = slices.Contains(rs, any(name))
			default:
				continue // a path parameter
			}
			if mustSet[name] != required {
				t.Errorf("%s.%s: required %v in the document, the server refuses its zero value: %v", m.Name, name, required, mustSet[name])
			}
			rules, _ := proto.GetExtension(f.Options(), validate.E_Field).(*validate.FieldRules)
			if rules == nil {
				continue
			}
			checked += checkRules(t, m.Name+"."+name, f, rules, schema)
		}
	}
	if checked < 30 {
		t.Errorf("only %d rules checked", checked)
	}

	// The findings that started this: each is one of the rules above.
	register := schemas["RegisterWorkRequest"].(map[string]any)
	for _, f := range []string{"type", "content_hash"} {
		if !slices.Contains(register["required"].([]any), any(f)) {
			t.Errorf("RegisterWorkRequest does not require %s", f)
		}
	}
	for _, p := range doc["paths"].(map[string]any)["/v1/ip/log/consistency"].(map[string]any)["get"].(map[string]any)["parameters"].([]any) {
		if p := p.(map[string]any); p["required"] != true {
			t.Errorf("GET /v1/ip/log/consistency?%s is optional; the server requires it", p["name"])
		}
	}
	remind := schemas["CreatePlanRequest"].(map[string]any)["properties"].(map[string]any)["remind_days_before"].(map[string]any)
	if fmt.Sprint(remind["minimum"], remind["maximum"]) != "0 60" {
		t.Errorf("remind_days_before bounds %v–%v, not 0–60", remind["minimum"], remind["maximum"])
	}
}

func checkRules(t *testing.T, where string, f protoreflect.FieldDescriptor, rules *validate.FieldRules, schema map[string]any) int {
	t.Helper()
	n := 0
	want := func(key string, v any) {
		n++
		if fmt.Sprint(schema[key]) != fmt.Sprint(v) {
			t.Errorf("%s: %s is %v, the rule says %v", where, key, schema[key], v)
		}
	}
	if r := rules.GetRepeated(); r != nil {
		if r.HasMinItems() {
			want("minItems", r.GetMinItems())
		}
		if r.HasMaxItems() {
			want("maxItems", r.GetMaxItems())
		}
		if r.GetItems() != nil {
			return n + checkRules(t, where+"[]", f, r.GetItems(), schema["items"].(map[string]any))
		}
		return n
	}
	if r := rules.GetString(); r != nil {
		if r.HasMinLen() {
			want("minLength", r.GetMinLen())
		}
		if r.HasMaxLen() {
			want("maxLength", r.GetMaxLen())
		}
		if r.HasPattern() {
			n++
			if _, ok := schema["pattern"].(string); !ok {
				t.Errorf("%s: no pattern for the rule's %q", where, r.GetPattern())
			}
		}
	}
	if r := rules.GetInt32(); r != nil {
		if r.HasGte() {
			want("minimum", r.GetGte())
		}
		if r.HasLte() {
			want("maximum", r.GetLte())
		}
	}
	if r := rules.GetDouble(); r != nil {
		if r.HasGt() {
			want("exclusiveMinimum", r.GetGt())
		}
		if r.HasLte() {
			want("maximum", r.GetLte())
		}
	}
	return n
}

// A pattern of the protos in RE2's case-insensitive form becomes one ECMA
// (JSON Schema) reads, which matches what RE2 matches.
func TestECMAPattern(t *testing.T) {
	re2 := `^(?i)(sha256:)?[0-9a-f]{64}$`
	got, err := ecmaPattern(re2)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(got, "(?i)") {
		t.Fatalf("%s keeps (?i)", got)
	}
	hex := strings.Repeat("ab12", 16)
	for _, s := range []string{"sha256:" + hex, "SHA256:" + strings.ToUpper(hex), hex, "sha256:" + hex[1:], "md5:" + hex, ""} {
		a := regexp.MustCompile(re2).MatchString(s)
		b := regexp.MustCompile(got).MatchString(s)
		if a != b {
			t.Errorf("%q: RE2 %v, converted %q %v", s, a, got, b)
		}
	}
	if _, err := ecmaPattern(`^(?s)a.b$`); err == nil {
		t.Error("a flag JSON Schema cannot say was accepted")
	}
}

// Each operation lists every status it can answer: 413 where it reads a
// body, 404 where it names a resource (in its path, or by id in its body),
// 429 wherever a caller is rate limited; and the error body's details are
// typed.
func TestStatusesListed(t *testing.T) {
	doc := finished(t)
	for path, item := range doc["paths"].(map[string]any) {
		for method, raw := range item.(map[string]any) {
			op := raw.(map[string]any)
			responses := op["responses"].(map[string]any)
			// Only the public metadata of the OAuth server (security:
			// []) is served without a rate limit.
			if sec, ok := op["security"].([]any); (!ok || len(sec) > 0) && responses["429"] == nil {
				t.Errorf("%s %s: no 429", method, path)
			}
			if _, ok := op["requestBody"]; ok {
				if _, ok := responses["413"]; !ok {
					t.Errorf("%s %s: reads a body, lists no 413", method, path)
				}
			}
		}
	}
	for _, p := range []string{"/v1/engine/run", "/v1/ip/register", "/v1/plans"} {
		if _, ok := doc["paths"].(map[string]any)[p].(map[string]any)["post"].(map[string]any)["responses"].(map[string]any)["404"]; !ok {
			t.Errorf("POST %s names a resource by id in its body, lists no 404", p)
		}
	}
	schemas := doc["components"].(map[string]any)["schemas"].(map[string]any)
	validate := compile(t, doc, "Error")
	good := map[string]any{"error": map[string]any{"code": 400, "status": "INVALID_ARGUMENT", "message": "m", "request_id": "r", "details": []any{
		map[string]any{"@type": errorInfoType, "reason": "UNKNOWN_VERTICAL", "domain": "creativeops.dev"},
		map[string]any{"@type": badRequestType, "fieldViolations": []any{map[string]any{"field": "email", "description": "d"}}},
	}}}
	if err := validate(good); err != nil {
		t.Errorf("an error the server sends fails Error: %v", err)
	}
	bad := map[string]any{"error": map[string]any{"code": 400, "status": "INVALID_ARGUMENT", "message": "m", "request_id": "r", "details": []any{
		map[string]any{"@type": errorInfoType},
	}}}
	if validate(bad) == nil {
		t.Error("an ErrorInfo without a reason passes Error")
	}
	if _, ok := schemas["ErrorInfo"]; !ok {
		t.Error("no ErrorInfo schema")
	}
}
