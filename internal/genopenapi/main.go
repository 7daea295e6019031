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

	"buf.build/gen/go/bufbuild/protovalidate/protocolbuffers/go/buf/validate"
	"go.yaml.in/yaml/v3"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/reflect/protoregistry"

	creativeopsv1 "github.com/creativeops/creativeops/gen/creativeops/v1"
	"github.com/creativeops/creativeops/internal/eventtypes"
	"github.com/creativeops/creativeops/internal/rpcrule"
	"github.com/creativeops/creativeops/internal/valueset"
)

func main() {
	in, out, hooksOut := "gen/openapi/openapi.yaml", "gen/openapi/openapi.json", "gen/openapi/webhooks.json"
	if len(os.Args) == 4 {
		in, out, hooksOut = os.Args[1], os.Args[2], os.Args[3]
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
	var finished map[string]any
	if err := json.Unmarshal(doc, &finished); err != nil {
		log.Fatal(err)
	}
	hooks, err := webhooksDocument(finished)
	if err != nil {
		log.Fatalf("webhooks: %v", err)
	}
	if err := os.WriteFile(hooksOut, hooks, 0o644); err != nil {
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
	if err := addPayloadSchemas(schemas); err != nil {
		return nil, err
	}
	if err := describeSchemas(schemas); err != nil {
		return nil, err
	}
	// The result's schemas are written by hand; one named like a proto
	// message would silently replace the message's (PlansService's
	// PlanMilestone once took the timeline milestone's).
	for name, schema := range planSchemas() {
		if _, taken := schemas[name]; taken {
			return nil, fmt.Errorf("the job result schema %s has the name of a proto message", name)
		}
		schemas[name] = schema
	}
	schemas["Error"] = errorSchema()
	components["responses"] = errorResponses()
	components["securitySchemes"] = map[string]any{"bearer": map[string]any{"type": "http", "scheme": "bearer", "description": "An API key (co_live_...) sent as Authorization: Bearer <key>."}}
	doc["security"] = []any{map[string]any{"bearer": []any{}}}
	doc["servers"] = []any{map[string]any{"url": "/", "description": "The server that serves this document (GET /v1/openapi.json)."}}
	info := child(doc, "info")
	info["description"] = "The REST face of creativeops: creator accounts, the workflow engine, the IP registry, webhooks, usage analytics and the audit log. The same methods are served over gRPC, Connect and gRPC-Web on the same port. Errors follow Google AIP-193."
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
			o["summary"] = summary(o["description"], m.Name)
			if d, ok := o["description"].(string); ok {
				o["description"] = unwrap(d)
			}
			if err := describeParameters(o, m.Descriptor.Input()); err != nil {
				return nil, fmt.Errorf("operation %s %s: %w", method, path, err)
			}
			if body, ok := o["requestBody"].(map[string]any); ok {
				withoutPathFields(body, path, schemas)
				addExample(body, schemas)
			}
			responses := child(o, "responses")
			responses["default"] = errorResponse
			for _, code := range errorCodes(method, path) {
				responses[code] = map[string]any{"$ref": "#/components/responses/" + errorResponseNames[code]}
			}
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
			if m.Descriptor.Output().FullName() == "google.api.HttpBody" {
				// Raw bytes of the content type the server sets, which the
				// descriptors cannot tell.
				ct, ok := httpBodyTypes[m.Name]
				if !ok {
					return nil, fmt.Errorf("operation %s %s returns google.api.HttpBody: add its content type to httpBodyTypes", method, path)
				}
				ok200["content"] = map[string]any{ct: map[string]any{"schema": map[string]any{"type": "string", "format": "binary"}}}
			}
			if m.AcceptedStatus != 0 {
				responses[strconv.Itoa(m.AcceptedStatus)] = map[string]any{
					"description": statusDescriptions[m.AcceptedStatus],
					"content":     ok200["content"],
					"headers": map[string]any{"Location": map[string]any{
						"description": "Where to poll the queued work, e.g. /v1/engine/status/{id}.",
						"schema":      map[string]any{"type": "string"},
					}},
				}
			}
			if err := addResponseExample(o, schemas); err != nil {
				return nil, err
			}
		}
	}
	if seen != len(operations) {
		return nil, fmt.Errorf("the document has %d operations for %d RPCs", seen, len(operations))
	}
	// Routes served beside the gateway, which no RPC declares.
	paths[calendarPath] = calendarOperation()
	if err := dropUnused(doc, schemas); err != nil {
		return nil, err
	}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetIndent("", "  ")
	if err := enc.Encode(doc); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

// httpBodyTypes are the content types of the methods that return
// google.api.HttpBody, by method.
var httpBodyTypes = map[string]string{"GetCertificateToken": "application/timestamp-reply"}

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

// errorResponseNames names the shared error responses by status.
var errorResponseNames = map[string]string{
	"400": "BadRequest", "401": "Unauthorized", "403": "Forbidden", "404": "NotFound",
	"409": "Conflict", "429": "TooManyRequests", "500": "InternalError",
}

// errorCodes lists the error statuses an operation can answer.
func errorCodes(method, path string) []string {
	codes := []string{"400", "401", "403"}
	if strings.Contains(path, "{") {
		codes = append(codes, "404")
	}
	if method == "post" || method == "delete" {
		codes = append(codes, "409")
	}
	return append(codes, "429", "500")
}

func errorResponses() map[string]any {
	body := map[string]any{"application/json": map[string]any{"schema": map[string]any{"$ref": "#/components/schemas/Error"}}}
	out := map[string]any{}
	for code, name := range errorResponseNames {
		r := map[string]any{"description": map[string]string{
			"400": "The request is invalid; details name the fields at fault.",
			"401": "No API key, or one that is unknown, revoked or expired.",
			"403": "The API key lacks the scope the method needs.",
			"404": "No such resource in the caller's organization.",
			"409": "The request conflicts with the resource's state or an earlier request (a duplicate, an Idempotency-Key reused or in progress).",
			"429": "The API key exceeded its rate limit.",
			"500": "An internal error; the request id identifies it in the server's log.",
		}[code], "content": body}
		if code == "429" {
			r["headers"] = map[string]any{"Retry-After": map[string]any{"description": "Seconds to wait before retrying.", "schema": map[string]any{"type": "integer"}}}
		}
		out[name] = r
	}
	return out
}

// summary is the first sentence of an operation's description, or its
// method's name in words ("ListVerticals": "List verticals").
func summary(d any, method string) string {
	s, _ := d.(string)
	s = unwrap(s)
	if s == "" {
		var b strings.Builder
		for i, r := range method {
			if i > 0 && r >= 'A' && r <= 'Z' {
				b.WriteByte(' ')
				r += 'a' - 'A'
			}
			b.WriteRune(r)
		}
		return b.String()
	}
	if i := strings.Index(s, ". "); i >= 0 {
		s = s[:i]
	}
	return strings.TrimSuffix(s, ".")
}

// unwrap joins the lines of a proto comment.
func unwrap(s string) string { return strings.Join(strings.Fields(s), " ") }

// describeSchemas fills in what protoc-gen-openapi leaves out of the
// message schemas: free-form objects (google.protobuf.Struct) as free-form,
// fields the server sends as null as nullable, and required lists — every
// field of a message the API returns (it always sends them all), and the
// fields a request must set (buf.validate: required, min_len, min_items).
// A proto3 optional scalar (a secret shown once) is left out when unset.
func describeSchemas(schemas map[string]any) (err error) {
	messages := map[string]protoreflect.MessageDescriptor{}
	protoregistry.GlobalFiles.RangeFilesByPackage(rpcrule.Package, func(fd protoreflect.FileDescriptor) bool {
		ms := fd.Messages()
		for i := 0; i < ms.Len(); i++ {
			messages[string(ms.Get(i).Name())] = ms.Get(i)
		}
		return true
	})
	returned := map[protoreflect.FullName]bool{}
	var walk func(md protoreflect.MessageDescriptor)
	walk = func(md protoreflect.MessageDescriptor) {
		if returned[md.FullName()] || md.ParentFile().Package() != rpcrule.Package {
			return
		}
		returned[md.FullName()] = true
		fs := md.Fields()
		for i := 0; i < fs.Len(); i++ {
			if f := fs.Get(i); f.Message() != nil {
				walk(f.Message())
			}
		}
	}
	for _, m := range rpcrule.All() {
		walk(m.Descriptor.Output())
	}
	// The payloads of webhook events are sent as the API returns them.
	events, err := eventtypes.All()
	if err != nil {
		return err
	}
	for _, e := range events {
		walk(e.Payload)
	}
	for name, raw := range schemas {
		schema, ok := raw.(map[string]any)
		md, known := messages[name]
		if !ok || !known {
			continue
		}
		props, _ := schema["properties"].(map[string]any)
		var required []any
		fs := md.Fields()
		for i := 0; i < fs.Len(); i++ {
			f := fs.Get(i)
			key := string(f.Name())
			prop, ok := props[key].(map[string]any)
			if !ok {
				return fmt.Errorf("schema %s has no property %s", name, key)
			}
			if props[key], err = describeField(f, prop); err != nil {
				return err
			}
			optionalScalar := f.HasPresence() && f.Message() == nil
			if (returned[md.FullName()] && !optionalScalar) || mustSet(f) {
				required = append(required, key)
			}
		}
		if len(required) > 0 {
			schema["required"] = required
		}
	}
	return nil
}

func describeField(f protoreflect.FieldDescriptor, prop map[string]any) (map[string]any, error) {
	if err := describeScalar(f, prop); err != nil {
		return nil, err
	}
	if f.IsList() || f.IsMap() {
		return prop, nil
	}
	// Message fields are null only where the proto says so
	// (creativeops.v1.nullable); proto3 optional scalars are left out
	// when unset (see describeSchemas), never null.
	nullable := false
	if f.Message() != nil {
		nullable, _ = proto.GetExtension(f.Options(), creativeopsv1.E_Nullable).(bool)
	}
	if msg := f.Message(); msg != nil {
		switch msg.FullName() {
		case "google.protobuf.Struct":
			prop = withDescription(map[string]any{"type": "object", "additionalProperties": true}, prop)
		case "google.protobuf.Value":
			prop = withDescription(map[string]any{}, prop)
		}
	}
	if f.FullName() == "creativeops.v1.Job.result" {
		prop = withDescription(map[string]any{"$ref": "#/components/schemas/PlanResult"}, prop)
	}
	if !nullable {
		return prop, nil
	}
	ref, ok := prop["$ref"]
	if all, _ := prop["allOf"].([]any); len(all) == 1 {
		ref, ok = all[0].(map[string]any)["$ref"]
	}
	if ok {
		// OpenAPI 3.0 cannot make a $ref nullable: nullable beside it
		// is ignored, and beside an allOf of it null still fails the
		// referenced schema. Either the referenced schema or null says
		// it, and generated clients read it as that type or null.
		return withDescription(map[string]any{"oneOf": []any{
			map[string]any{"$ref": ref},
			map[string]any{"type": "object", "nullable": true, "enum": []any{nil}},
		}}, prop), nil
	}
	prop["nullable"] = true
	return prop, nil
}

// int64Note ends the description of every 64-bit integer: protobuf JSON
// writes them as strings, which a client must parse.
const int64Note = "A 64-bit integer, sent as a decimal string."

// describeScalar says what protoc-gen-openapi leaves unsaid about a scalar
// field (or a repeated field's items), in prop or a query parameter's
// schema: the closed set of a string (an enum), that an int64 travels as a
// decimal string, and that bytes are base64.
func describeScalar(f protoreflect.FieldDescriptor, prop map[string]any) error {
	target := prop
	if f.IsList() {
		items, _ := prop["items"].(map[string]any)
		if items == nil {
			return nil
		}
		target = items
	}
	set, err := valueset.Of(f)
	if err != nil {
		return err
	}
	if len(set) > 0 {
		enum := make([]any, len(set))
		for i, v := range set {
			enum[i] = v
		}
		target["enum"] = enum
	}
	switch f.Kind() {
	case protoreflect.Int64Kind, protoreflect.Sint64Kind, protoreflect.Sfixed64Kind:
		target["format"] = "int64"
		target["pattern"] = "^-?[0-9]+$"
	case protoreflect.BytesKind:
		target["format"] = "byte"
		if d, _ := prop["description"].(string); d == "" {
			prop["description"] = "Base64."
		}
		return nil
	default:
		return nil
	}
	d, _ := prop["description"].(string)
	if d != "" && !strings.HasSuffix(d, ".") {
		d += "."
	}
	prop["description"] = strings.TrimSpace(d + " " + int64Note)
	return nil
}

// describeParameters does for an operation's path and query parameters
// what describeScalar does for the fields of a body: each is a field of the
// request message, named by its path ("rate_limit.burst" for a nested one).
func describeParameters(op map[string]any, input protoreflect.MessageDescriptor) error {
	params, _ := op["parameters"].([]any)
	for _, raw := range params {
		p, _ := raw.(map[string]any)
		name, _ := p["name"].(string)
		md := input
		var f protoreflect.FieldDescriptor
		for part := range strings.SplitSeq(name, ".") {
			if md == nil {
				return fmt.Errorf("parameter %s is no field of %s", name, input.FullName())
			}
			if f = md.Fields().ByName(protoreflect.Name(part)); f == nil {
				return fmt.Errorf("parameter %s is no field of %s", name, input.FullName())
			}
			md = f.Message()
		}
		schema, _ := p["schema"].(map[string]any)
		if schema == nil {
			continue
		}
		// The description of a parameter is the parameter's, beside its
		// schema; describeScalar writes it on the schema's object.
		holder := map[string]any{}
		for k, v := range schema {
			holder[k] = v
		}
		if d, ok := p["description"].(string); ok {
			holder["description"] = unwrap(d)
		}
		if err := describeScalar(f, holder); err != nil {
			return err
		}
		if d, ok := holder["description"]; ok {
			p["description"] = d
		}
		delete(holder, "description")
		p["schema"] = holder
	}
	return nil
}

// withDescription copies from's description, if it has one, to to.
func withDescription(to, from map[string]any) map[string]any {
	if d, ok := from["description"].(string); ok && d != "" {
		to["description"] = d
	}
	return to
}

// dropUnused removes the schemas nothing refers to (protoc-gen-openapi's
// google.rpc.Status, replaced here by the AIP-193 Error), but for the
// webhook events' payloads, which the webhooks document refers to.
func dropUnused(doc map[string]any, schemas map[string]any) error {
	all, err := eventtypes.All()
	if err != nil {
		return err
	}
	keep := map[string]bool{}
	for _, e := range all {
		keep[string(e.Payload.Name())] = true
	}
	for {
		b, err := json.Marshal(doc)
		if err != nil {
			return err
		}
		dropped := false
		for name := range schemas {
			if !keep[name] && !bytes.Contains(b, []byte(`"#/components/schemas/`+name+`"`)) {
				delete(schemas, name)
				dropped = true
			}
		}
		if !dropped {
			return nil
		}
	}
}

// mustSet reports whether a request must set the field, by its
// buf.validate rules.
func mustSet(f protoreflect.FieldDescriptor) bool {
	rules, ok := proto.GetExtension(f.Options(), validate.E_Field).(*validate.FieldRules)
	if !ok || rules == nil {
		return false
	}
	if rules.GetRequired() {
		return true
	}
	if f.HasPresence() {
		// An optional field's rules apply only when it is set.
		return false
	}
	if s := rules.GetString(); s != nil && s.GetMinLen() > 0 {
		return true
	}
	if r := rules.GetRepeated(); r != nil && r.GetMinItems() > 0 {
		return true
	}
	return false
}

// withoutPathFields points a request body whose schema repeats the path's
// parameters (a custom method such as POST /v1/keys/{id}:rotate with
// body "*") at a schema of the method's own fields only, named
// <Method>Body: the gateway takes those fields from the path, so a client
// generated from the document must not be made to send them again. A
// method with no field of its own gets an empty, optional body.
func withoutPathFields(body map[string]any, path string, schemas map[string]any) {
	params := map[string]bool{}
	for rest := path; ; {
		i := strings.Index(rest, "{")
		j := strings.Index(rest, "}")
		if i < 0 || j < i {
			break
		}
		params[rest[i+1:j]] = true
		rest = rest[j+1:]
	}
	if len(params) == 0 {
		return
	}
	content, _ := body["content"].(map[string]any)
	media, _ := content["application/json"].(map[string]any)
	schema, _ := media["schema"].(map[string]any)
	ref, _ := schema["$ref"].(string)
	name := strings.TrimPrefix(ref, "#/components/schemas/")
	target, _ := schemas[name].(map[string]any)
	props, _ := target["properties"].(map[string]any)
	repeated := false
	for p := range params {
		if _, ok := props[p]; ok {
			repeated = true
		}
	}
	if !repeated {
		return
	}
	own := map[string]any{}
	for k, v := range props {
		if !params[k] {
			own[k] = v
		}
	}
	var required []any
	if rs, ok := target["required"].([]any); ok {
		for _, r := range rs {
			if !params[r.(string)] {
				required = append(required, r)
			}
		}
	}
	bodyName := strings.TrimSuffix(name, "Request") + "Body"
	out := map[string]any{"type": "object", "properties": own}
	if len(required) > 0 {
		out["required"] = required
	}
	if d, ok := target["description"]; ok {
		out["description"] = d
	}
	if len(own) == 0 {
		out["description"] = "No fields: the method takes what it needs from its path."
	}
	schemas[bodyName] = out
	media["schema"] = map[string]any{"$ref": "#/components/schemas/" + bodyName}
	body["required"] = len(required) > 0
}

// examples are the request fields' example values, by name; other fields
// of a request body get a value of their type.
var examples = map[string]any{
	"name":         "Nova Reyes",
	"email":        "nova@example.com",
	"vertical":     "music",
	"metadata":     map[string]any{"label": "Night Owl"},
	"workflow":     "release-strategy",
	"context":      map[string]any{"artist": "Nova Reyes", "genre": "indie pop", "releaseDate": "2027-03-03"},
	"async":        false,
	"creator_id":   "cr_01k3zq8m4d2v7h0b5x9y6t1c2e",
	"title":        "The Long Night",
	"type":         "song",
	"content_hash": "sha256:9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08",
	"description":  "Debut single, master v3.",
	"url":          "https://hooks.example.com/creativeops",
	"events":       []any{"engine.job.completed", "creator.created"},
	"scopes":       []any{"creators:read", "engine:run"},
	"rate_limit":   map[string]any{"requests_per_second": 5, "burst": 10},
	"grace_period": "3600s",
	"expires_at":   "2027-01-01T00:00:00Z",
	"secret":       "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw",
}

// requestFields are the example values of request fields, by schema and
// field, where the field's name alone does not say it.
var requestFields = map[string]any{
	"CreateKeyRequest.name":           "Release pipeline",
	"CreateOAuthClientRequest.name":   "Royalty reporting service",
	"CreateOAuthClientRequest.scopes": []any{"engine:read", "analytics:read"},
}

// addExample gives a request body an example built from its schema.
func addExample(body map[string]any, schemas map[string]any) {
	content, _ := body["content"].(map[string]any)
	media, _ := content["application/json"].(map[string]any)
	if media == nil {
		return
	}
	schema, _ := media["schema"].(map[string]any)
	ref, _ := schema["$ref"].(string)
	target, _ := schemas[strings.TrimPrefix(ref, "#/components/schemas/")].(map[string]any)
	if target == nil {
		return
	}
	props, _ := target["properties"].(map[string]any)
	required := map[string]bool{}
	if rs, ok := target["required"].([]any); ok {
		for _, r := range rs {
			required[r.(string)] = true
		}
	}
	example := map[string]any{}
	for key, raw := range props {
		if v, ok := requestFields[strings.TrimPrefix(ref, "#/components/schemas/")+"."+key]; ok {
			example[key] = v
			continue
		}
		if v, ok := examples[key]; ok {
			if key == "secret" && !required[key] {
				continue // generated when left out, which is the usual way
			}
			example[key] = v
			continue
		}
		if !required[key] {
			continue
		}
		p, _ := raw.(map[string]any)
		switch p["type"] {
		case "integer", "number":
			example[key] = 1
		case "boolean":
			example[key] = false
		case "array":
			example[key] = []any{}
		case "object":
			example[key] = map[string]any{}
		default:
			example[key] = "string"
		}
	}
	media["example"] = example
}

// calendarPath is a plan's calendar feed: a plain HTTP route beside the
// gateway (server/planfeed.go), whose body is iCalendar.
const calendarPath = "/v1/plans/{id}/calendar.ics"

func calendarOperation() map[string]any {
	ref := func(name string) map[string]any { return map[string]any{"$ref": "#/components/responses/" + name} }
	return map[string]any{"get": map[string]any{
		"operationId": "PlansService_GetPlanCalendar",
		"tags":        []any{"PlansService"},
		"summary":     "A plan's calendar feed",
		"description": "The plan's current milestones as an iCalendar document (RFC 5545): one all-day event per milestone, with a UID that is the same in every revision and a SEQUENCE raised when a re-plan moves it. Authenticated like the API (scope plans:read), or with no credentials at all through the plan's secret feed URL (POST /v1/plans/{id}:createFeed), which adds ?token=. Polled by calendar apps: answers If-None-Match with 304. See docs/plans.md.",
		"security":    []any{map[string]any{"bearer": []any{}}, map[string]any{}},
		"parameters": []any{
			map[string]any{"name": "id", "in": "path", "required": true, "schema": map[string]any{"type": "string"}, "description": "The plan (\"plan_…\")."},
			map[string]any{"name": "token", "in": "query", "schema": map[string]any{"type": "string"}, "description": "The feed token of the plan's feed URL (\"pft_…\"); when present it alone decides, and a token that is not this plan's current one answers 404."},
			map[string]any{"name": "If-None-Match", "in": "header", "schema": map[string]any{"type": "string"}, "description": "An ETag of an earlier response: 304 when the calendar is unchanged."},
		},
		"responses": map[string]any{
			"200": map[string]any{
				"description": "The calendar.",
				"headers": map[string]any{
					"ETag": map[string]any{"description": "The document's entity tag.", "schema": map[string]any{"type": "string"}},
				},
				"content": map[string]any{"text/calendar": map[string]any{"schema": map[string]any{"type": "string"}}},
			},
			"304":     map[string]any{"description": "Not modified: the calendar is the one the If-None-Match ETag names."},
			"401":     ref("Unauthorized"),
			"403":     ref("Forbidden"),
			"404":     ref("NotFound"),
			"429":     ref("TooManyRequests"),
			"500":     ref("InternalError"),
			"default": map[string]any{"description": "Error", "content": map[string]any{"application/json": map[string]any{"schema": map[string]any{"$ref": "#/components/schemas/Error"}}}},
		},
	}}
}
