package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/reflect/protoregistry"

	"github.com/creativeops/creativeops/engine"
	"github.com/creativeops/creativeops/engine/enginetest"
	_ "github.com/creativeops/creativeops/engine/workflows" // registers every workflow
	"github.com/creativeops/creativeops/internal/rpcrule"
	"github.com/creativeops/creativeops/internal/valueset"
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

// finished is the served document, decoded as encoding/json decodes it.
func finished(t *testing.T) map[string]any {
	t.Helper()
	src, err := os.ReadFile("../../gen/openapi/openapi.yaml")
	if err != nil {
		t.Fatal(err)
	}
	out, err := finish(src)
	if err != nil {
		t.Fatal(err)
	}
	var doc map[string]any
	if err := json.Unmarshal(out, &doc); err != nil {
		t.Fatal(err)
	}
	return doc
}

// A closed set declared in the protos (a string.in rule, or the
// creativeops.v1.values of a returned field) is an enum wherever the
// field appears: in the schemas of requests and responses, and as a query
// parameter, so that a generated client types job status as a union.
func TestEnumsWhereDeclared(t *testing.T) {
	doc := finished(t)
	schemas := doc["components"].(map[string]any)["schemas"].(map[string]any)
	checked := 0
	protoregistry.GlobalFiles.RangeFilesByPackage(rpcrule.Package, func(fd protoreflect.FileDescriptor) bool {
		ms := fd.Messages()
		for i := 0; i < ms.Len(); i++ {
			schema, ok := schemas[string(ms.Get(i).Name())].(map[string]any)
			if !ok {
				continue
			}
			fs := ms.Get(i).Fields()
			for j := 0; j < fs.Len(); j++ {
				f := fs.Get(j)
				set, err := valueset.Of(f)
				if err != nil {
					t.Fatal(err)
				}
				if len(set) == 0 {
					continue
				}
				prop := schema["properties"].(map[string]any)[string(f.Name())].(map[string]any)
				if f.IsList() {
					prop = prop["items"].(map[string]any)
				}
				if got := fmt.Sprint(prop["enum"]); got != fmt.Sprint(set) {
					t.Errorf("%s: enum %s, declared %v", f.FullName(), got, set)
				}
				checked++
			}
		}
		return true
	})
	if checked < 15 {
		t.Errorf("only %d schema properties with a declared set", checked)
	}
	job := schemas["Job"].(map[string]any)["properties"].(map[string]any)["status"].(map[string]any)
	if got := fmt.Sprint(job["enum"]); got != "[queued processing completed failed canceled]" {
		t.Errorf("Job.status enum = %s", got)
	}
	for _, p := range doc["paths"].(map[string]any)["/v1/engine/jobs"].(map[string]any)["get"].(map[string]any)["parameters"].([]any) {
		p := p.(map[string]any)
		if p["name"] == "status" {
			if got := fmt.Sprint(p["schema"].(map[string]any)["enum"]); got != "[queued processing completed failed canceled]" {
				t.Errorf("GET /v1/engine/jobs?status: enum %s", got)
			}
		}
	}
}

// The plan every workflow returns is typed as PlanResult, and every
// workflow's plan (for its example context and for contexts generated
// across its schema: replanned dates, post-event plans) matches it, with
// the plan's shared parts held to exactly the documented keys.
func TestPlanResultTyped(t *testing.T) {
	doc := finished(t)
	schemas := doc["components"].(map[string]any)["schemas"].(map[string]any)
	result := schemas["Job"].(map[string]any)["properties"].(map[string]any)["result"].(map[string]any)
	if ref := fmt.Sprint(result["oneOf"]); ref != "[map[$ref:#/components/schemas/PlanResult] map[type:null]]" {
		t.Fatalf("Job.result = %v, not a nullable PlanResult", result)
	}
	planResult := schemas["Plan"].(map[string]any)["properties"].(map[string]any)["result"].(map[string]any)
	// Null, as Job.result is, in a list's basic view.
	if fmt.Sprint(planResult["oneOf"]) != fmt.Sprint(result["oneOf"]) {
		t.Errorf("Plan.result = %v, not typed as Job.result is", planResult)
	}
	plan := schemas["PlanResult"].(map[string]any)
	if plan["additionalProperties"] != true {
		t.Errorf("PlanResult must admit each workflow's own keys: %v", plan["additionalProperties"])
	}
	for _, k := range []string{"strategy", "recommendations", "timeline", "warnings", "as_of"} {
		if !slices.Contains(plan["required"].([]any), any(k)) {
			t.Errorf("PlanResult does not require %s", k)
		}
	}
	// The shared parts are closed here, so a key the engine adds without
	// documenting it fails.
	for _, name := range []string{"PlanRecommendation", "PlanTimeline", "PlanTimelineMilestone", "PlanWarning"} {
		schemas[name].(map[string]any)["additionalProperties"] = false
	}
	validate := compile(t, doc, "PlanResult")
	asOf := time.Date(2026, 11, 2, 0, 0, 0, 0, time.UTC)
	runs := 0
	for _, w := range engine.Workflows("") {
		for _, c := range enginetest.GenerateContexts(w, asOf, 6, 1) {
			in, err := w.Prepare(c)
			if err != nil {
				continue
			}
			res, err := w.Run(context.Background(), in, asOf, nil)
			if err != nil {
				continue
			}
			runs++
			if err := validate(res); err != nil {
				t.Fatalf("%s: the plan does not match PlanResult: %v", w.ID, err)
			}
		}
	}
	if runs < 50 {
		t.Errorf("only %d plans checked", runs)
	}
}

// int64 fields travel as decimal strings in protobuf JSON; the document
// says so (format int64 and a description), and bytes are base64
// (format byte), in schemas and query parameters alike.
func TestInt64AndBytesFormats(t *testing.T) {
	doc := finished(t)
	schemas := doc["components"].(map[string]any)["schemas"].(map[string]any)
	checked := map[string]bool{}
	protoregistry.GlobalFiles.RangeFilesByPackage(rpcrule.Package, func(fd protoreflect.FileDescriptor) bool {
		ms := fd.Messages()
		for i := 0; i < ms.Len(); i++ {
			schema, ok := schemas[string(ms.Get(i).Name())].(map[string]any)
			if !ok {
				continue
			}
			fs := ms.Get(i).Fields()
			for j := 0; j < fs.Len(); j++ {
				f := fs.Get(j)
				prop := schema["properties"].(map[string]any)[string(f.Name())].(map[string]any)
				checkScalar(t, string(f.FullName()), f, prop, prop)
				checked[string(f.Kind().String())] = true
			}
		}
		return true
	})
	if !checked["int64"] || !checked["bytes"] {
		t.Errorf("no int64 or no bytes field checked: %v", checked)
	}
	params := 0
	for _, m := range rpcrule.All() {
		op := doc["paths"].(map[string]any)[openAPIPath(m.Template)].(map[string]any)[strings.ToLower(m.HTTPMethod)].(map[string]any)
		ps, _ := op["parameters"].([]any)
		for _, p := range ps {
			p := p.(map[string]any)
			f := m.Descriptor.Input().Fields().ByName(protoreflect.Name(p["name"].(string)))
			if f == nil {
				continue
			}
			if f.Kind() == protoreflect.Int64Kind {
				params++
			}
			checkScalar(t, m.Name+" ?"+p["name"].(string), f, p["schema"].(map[string]any), p)
		}
	}
	if params < 2 {
		t.Errorf("only %d int64 query parameters checked; GetConsistencyProof has two", params)
	}
}

func checkScalar(t *testing.T, where string, f protoreflect.FieldDescriptor, schema, described map[string]any) {
	t.Helper()
	if f.IsList() {
		schema = schema["items"].(map[string]any)
	}
	d, _ := described["description"].(string)
	switch f.Kind() {
	case protoreflect.Int64Kind:
		if schema["type"] != "string" || schema["format"] != "int64" {
			t.Errorf("%s: %v, not a string of format int64", where, schema)
		}
		if !strings.Contains(d, int64Note) {
			t.Errorf("%s: description %q does not say it is a decimal string", where, d)
		}
	case protoreflect.BytesKind:
		if schema["format"] != "byte" {
			t.Errorf("%s: format %v, not byte", where, schema["format"])
		}
	}
}

// Every operation shows a realistic example of what it answers (and of
// what it takes): each example matches its schema, enums and required
// fields included, and the examples of API keys and OAuth clients are not
// named after a creator.
func TestExamplesOnEveryOperation(t *testing.T) {
	doc := finished(t)
	examples := 0
	for path, ops := range doc["paths"].(map[string]any) {
		for method, raw := range ops.(map[string]any) {
			op := raw.(map[string]any)
			where := method + " " + path
			for code, r := range op["responses"].(map[string]any) {
				if !strings.HasPrefix(code, "2") || code == "204" {
					continue
				}
				content, _ := r.(map[string]any)["content"].(map[string]any)
				media, ok := content["application/json"].(map[string]any)
				if !ok {
					continue // raw bytes (the RFC 3161 token), or no body (a revocation)
				}
				checkExample(t, doc, where+" "+code, media)
				examples++
			}
			if body, ok := op["requestBody"].(map[string]any); ok {
				for ct, media := range body["content"].(map[string]any) {
					checkExample(t, doc, where+" request "+ct, media.(map[string]any))
				}
			}
		}
	}
	if examples < 30 {
		t.Errorf("only %d response examples", examples)
	}
	for _, op := range []string{"/v1/keys", "/v1/oauth/clients"} {
		b, _ := json.Marshal(doc["paths"].(map[string]any)[op])
		if strings.Contains(string(b), "Nova Reyes") {
			t.Errorf("%s: an example is named after a creator", op)
		}
	}
	run := doc["paths"].(map[string]any)["/v1/engine/run"].(map[string]any)["post"].(map[string]any)["responses"].(map[string]any)
	status := func(code string) any {
		return run[code].(map[string]any)["content"].(map[string]any)["application/json"].(map[string]any)["example"].(map[string]any)["status"]
	}
	if status("200") != "completed" || status("202") != "queued" {
		t.Errorf("a run answers a completed job (200) or a queued one (202); the examples say %v and %v", status("200"), status("202"))
	}
}

func checkExample(t *testing.T, doc map[string]any, where string, media map[string]any) {
	t.Helper()
	example, ok := media["example"]
	if !ok {
		t.Errorf("%s: no example", where)
		return
	}
	ref, _ := media["schema"].(map[string]any)["$ref"].(string)
	validate := compile(t, doc, strings.TrimPrefix(ref, "#/components/schemas/"))
	if err := validate(example); err != nil {
		t.Errorf("%s: the example does not match %s: %v", where, ref, err)
	}
}

// compile returns a validator of the named schema of doc, read as what an
// OpenAPI 3.1 schema is: JSON Schema 2020-12.
func compile(t *testing.T, doc map[string]any, name string) func(any) error {
	t.Helper()
	b, err := json.Marshal(doc)
	if err != nil {
		t.Fatal(err)
	}
	var copied any
	if err := json.Unmarshal(b, &copied); err != nil {
		t.Fatal(err)
	}
	c := jsonschema.NewCompiler()
	c.DefaultDraft(jsonschema.Draft2020)
	c.AssertFormat()
	if err := c.AddResource("openapi.json", copied); err != nil {
		t.Fatal(err)
	}
	s, err := c.Compile("openapi.json#/components/schemas/" + name)
	if err != nil {
		t.Fatal(err)
	}
	return func(v any) error {
		b, err := json.Marshal(v)
		if err != nil {
			return err
		}
		inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(b))
		if err != nil {
			return err
		}
		return s.Validate(inst)
	}
}
