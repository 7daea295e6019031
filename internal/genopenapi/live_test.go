package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"net/http"
	"net/url"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/creativeops/creativeops/internal/testserver"
	"github.com/creativeops/creativeops/oauth"
)

// exampleID is an id of the document's examples (and of the server):
// a prefix and a ULID.
var exampleID = regexp.MustCompile(`^([a-z]+)_[0-9a-z]{26}$`)

// pathIDs are the kinds of value a path parameter takes, by the path
// segment before it: the prefix of the id ("/v1/plans/{id}" takes a plan_
// id), or "milestone" for a milestone's key.
var pathIDs = map[string]string{
	"creators": "cr", "jobs": "job", "keys": "key", "clients": "oc", "plans": "plan",
	"webhooks": "wh", "deliveries": "whd", "milestones": "milestone", "records": "ip",
	"certificates": "cert", "status": "job", "workflows": "workflow",
}

// Every request example in the document is one the server accepts: each
// is sent, as it is, to a live server — its ids and secrets replaced by
// those of resources the other examples created, which is what a reader
// of the document does — and must succeed, with a response that matches
// the schema the document declares for its status. A new operation with
// a body is covered as soon as it is in the document.
func TestRequestExamplesAccepted(t *testing.T) {
	doc := finished(t)
	// No workers: an asynchronous run stays queued, for the example of a
	// cancel.
	srv := testserver.Start(t, testserver.Options{NoWorkers: true})

	type op struct {
		method, path, contentType string
		example                   any
		security                  []any
	}
	var pending []op
	for path, item := range doc["paths"].(map[string]any) {
		for method, raw := range item.(map[string]any) {
			o := raw.(map[string]any)
			body, ok := o["requestBody"].(map[string]any)
			if !ok {
				continue
			}
			for ct, media := range body["content"].(map[string]any) {
				example, ok := media.(map[string]any)["example"]
				if !ok {
					t.Errorf("%s %s: no example of its %s body", method, path, ct)
					continue
				}
				sec, _ := o["security"].([]any)
				pending = append(pending, op{method: method, path: path, contentType: ct, example: example, security: sec})
			}
		}
	}
	slices.SortFunc(pending, func(a, b op) int { return strings.Compare(a.path+a.method, b.path+b.method) })
	if len(pending) < 20 {
		t.Fatalf("only %d request examples", len(pending))
	}

	// real holds what the server gave, by kind: an id by its prefix, an
	// OAuth client's secret, an access token ("jwt"), a
	// milestone's key.
	real := map[string]string{}
	var collect func(key string, v any)
	collect = func(key string, v any) {
		switch x := v.(type) {
		case map[string]any:
			for k, e := range x {
				collect(k, e)
			}
			if ms, ok := x["milestones"].([]any); ok && len(ms) > 0 {
				if m, ok := ms[0].(map[string]any); ok {
					if k, ok := m["key"].(string); ok {
						real["milestone"] = k
					}
				}
			}
		case []any:
			for _, e := range x {
				collect(key, e)
			}
		case string:
			if m := exampleID.FindStringSubmatch(x); m != nil && key == "id" {
				real[m[1]] = x
			}
			if kind := secretKind(x); kind != "" && (key == "secret" || key == "access_token") {
				real[kind] = x
			}
		}
	}
	// substitute replaces the example's ids and secrets by real ones; ok
	// is false while one has no real counterpart yet.
	var substitute func(v any) (any, bool)
	substitute = func(v any) (any, bool) {
		switch x := v.(type) {
		case map[string]any:
			out := map[string]any{}
			for k, e := range x {
				s, ok := substitute(e)
				if !ok {
					return nil, false
				}
				out[k] = s
			}
			return out, true
		case []any:
			out := make([]any, len(x))
			for i, e := range x {
				s, ok := substitute(e)
				if !ok {
					return nil, false
				}
				out[i] = s
			}
			return out, true
		case string:
			kind := secretKind(x)
			if m := exampleID.FindStringSubmatch(x); m != nil {
				kind = m[1]
			}
			if kind == "" {
				return x, true
			}
			r, ok := real[kind]
			return r, ok
		}
		return v, true
	}
	fillPath := func(path string) (string, bool) {
		segs := strings.Split(path, "/")
		for i, seg := range segs {
			open := strings.IndexByte(seg, '{')
			if open < 0 {
				continue
			}
			end := strings.IndexByte(seg, '}')
			kind, known := pathIDs[segs[i-1]]
			if !known {
				t.Fatalf("%s: no kind of value for the parameter after %q: add it to pathIDs", path, segs[i-1])
			}
			r, ok := real[kind]
			if !ok {
				return "", false
			}
			segs[i] = seg[:open] + r + seg[end+1:]
		}
		return strings.Join(segs, "/"), true
	}

	sent := 0
	for round := 0; len(pending) > 0; round++ {
		var later []op
		for _, o := range pending {
			if strings.HasSuffix(o.path, ":cancel") && real["queued-job"] == "" {
				// A cancel takes a job still queued: the run example
				// again, asynchronously.
				if real["job"] == "" {
					later = append(later, o)
					continue
				}
				real["queued-job"] = runQueued(t, srv, doc)
			}
			path, ok := fillPath(o.path)
			example, ok2 := substitute(o.example)
			if !ok || !ok2 {
				later = append(later, o)
				continue
			}
			if strings.HasSuffix(o.path, ":cancel") {
				path = strings.Replace(path, real["job"], real["queued-job"], 1)
			}
			status, body := send(t, srv, o.method, path, o.contentType, example, o.security)
			where := fmt.Sprintf("%s %s (example %v)", strings.ToUpper(o.method), path, example)
			if status < 200 || status > 299 {
				t.Errorf("%s: HTTP %d: %s", where, status, body)
				continue
			}
			sent++
			var decoded any
			if len(body) > 0 {
				if err := json.Unmarshal(body, &decoded); err != nil {
					t.Errorf("%s: HTTP %d: not JSON: %s", where, status, body)
					continue
				}
				collect("", decoded)
				checkResponse(t, doc, o.method, o.path, status, decoded, where)
			}
		}
		if len(later) == len(pending) {
			var left []string
			for _, o := range later {
				left = append(left, o.method+" "+o.path)
			}
			t.Fatalf("no example could be sent, for want of an id no other example created: %v (have %v)", left, slices.Sorted(maps.Keys(real)))
		}
		pending = later
	}
	t.Logf("%d request examples accepted", sent)
}

// secretKind is the kind of a secret of the examples: an OAuth client's
// secret, or an access token (a JWT).
func secretKind(s string) string {
	switch {
	case strings.HasPrefix(s, oauth.SecretPrefix):
		return "oauth-secret"
	case strings.HasPrefix(s, "eyJ") && strings.Count(s, ".") == 2:
		return "jwt"
	}
	return ""
}

// runQueued runs the document's run example asynchronously and returns
// the queued job's id.
func runQueued(t *testing.T, srv *testserver.Server, doc map[string]any) string {
	t.Helper()
	run := doc["paths"].(map[string]any)["/v1/engine/run"].(map[string]any)["post"].(map[string]any)
	example := maps.Clone(run["requestBody"].(map[string]any)["content"].(map[string]any)["application/json"].(map[string]any)["example"].(map[string]any))
	example["async"] = true
	status, body := send(t, srv, "post", "/v1/engine/run", "application/json", example, nil)
	var job struct{ ID, Status string }
	if err := json.Unmarshal(body, &job); err != nil || status != http.StatusAccepted || job.Status != "queued" {
		t.Fatalf("async run: HTTP %d: %s", status, body)
	}
	return job.ID
}

// send sends one request with the admin key, or with the client's own
// credentials (in the form) where the operation takes no API key.
func send(t *testing.T, srv *testserver.Server, method, path, contentType string, example any, security []any) (int, []byte) {
	t.Helper()
	var body []byte
	switch contentType {
	case "application/json":
		body, _ = json.Marshal(example)
	case "application/x-www-form-urlencoded":
		form := url.Values{}
		for k, v := range example.(map[string]any) {
			form.Set(k, fmt.Sprint(v))
		}
		body = []byte(form.Encode())
	default:
		t.Fatalf("%s %s: no way to send a %s example", method, path, contentType)
	}
	req, err := http.NewRequest(strings.ToUpper(method), srv.URL+path, bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", contentType)
	if security == nil {
		req.Header.Set("Authorization", "Bearer "+srv.AdminKey)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, b
}

// checkResponse validates a response against the schema the document
// declares for the operation and status.
func checkResponse(t *testing.T, doc map[string]any, method, path string, status int, v any, where string) {
	t.Helper()
	r, ok := doc["paths"].(map[string]any)[path].(map[string]any)[method].(map[string]any)["responses"].(map[string]any)[fmt.Sprint(status)].(map[string]any)
	if !ok {
		t.Errorf("%s: HTTP %d, which the document does not list", where, status)
		return
	}
	content, _ := r["content"].(map[string]any)
	if _, ok := content["application/json"]; !ok {
		t.Errorf("%s: a JSON body where the document declares %v", where, slices.Collect(maps.Keys(content)))
		return
	}
	b, _ := json.Marshal(doc)
	var copied any
	_ = json.Unmarshal(b, &copied)
	c := jsonschema.NewCompiler()
	c.DefaultDraft(jsonschema.Draft2020)
	c.AssertFormat()
	if err := c.AddResource("openapi.json", copied); err != nil {
		t.Fatal(err)
	}
	ptr := "openapi.json#/paths/" + jsonPointer(path) + "/" + method + "/responses/" + fmt.Sprint(status) + "/content/application~1json/schema"
	s, err := c.Compile(ptr)
	if err != nil {
		t.Fatal(err)
	}
	inst, _ := jsonschema.UnmarshalJSON(bytes.NewReader(mustJSON(v)))
	if err := s.Validate(inst); err != nil {
		t.Errorf("%s: the response does not match its schema: %v", where, err)
	}
}

func jsonPointer(s string) string {
	return strings.ReplaceAll(strings.ReplaceAll(s, "~", "~0"), "/", "~1")
}

func mustJSON(v any) []byte {
	b, _ := json.Marshal(v)
	return b
}
