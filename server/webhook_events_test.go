package server_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"maps"
	"os"
	"slices"
	"testing"
	"time"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/creativeops/creativeops/engine"
	"github.com/creativeops/creativeops/internal/eventtypes"
	"github.com/creativeops/creativeops/internal/testserver"
)

// failingWorkflow is registered in this test binary only: its run fails,
// which is what sends engine.job.failed.
const failingWorkflow = "music-test-failing"

func init() {
	engine.Register(&engine.Workflow{
		ID: failingWorkflow, Name: "Test: failing", Vertical: "music",
		Description:    "Test-only workflow whose second step fails.",
		Fields:         []engine.Field{{Name: "label", Kind: engine.String, Required: true}},
		ExampleContext: map[string]any{"label": "x"},
		Steps: []engine.Step{
			{Name: "before", Run: func(in *engine.Input, p *engine.Plan) error { return nil }},
			{Name: "break", Run: func(in *engine.Input, p *engine.Plan) error { return errors.New("the step broke on purpose") }},
		},
	})
}

// Every declared event type, sent by a live server, arrives with a body
// the published webhooks document (gen/openapi/webhooks.json) accepts, and
// with data that is its payload as the API's document describes it: no
// field missing or unknown, null only where nullable, values in their
// enums. A declared type this test cannot make the server send fails it.
func TestWebhookEventsMatchTheirSchemas(t *testing.T) {
	s := testserver.Start(t, testserver.Options{})
	rc := newReceiver(t, nil)
	wh := createWebhook(t, s, s.AdminKey, rc.URL, []string{"*"}, "")

	if r := s.Do(t, "POST", "/v1/engine/run", s.AdminKey, map[string]any{"vertical": "music", "workflow": "release-strategy", "context": releaseContext}); r.Status != 200 || r.JSON["status"] != "completed" {
		t.Fatalf("run: %d %s", r.Status, r.Body)
	}
	if r := s.Do(t, "POST", "/v1/engine/run", s.AdminKey, map[string]any{"vertical": "music", "workflow": failingWorkflow, "context": map[string]any{"label": "x"}}); r.Status != 200 || r.JSON["status"] != "failed" {
		t.Fatalf("failing run: %d %s", r.Status, r.Body)
	}
	creator := createCreator(t, s, s.AdminKey)
	if r := register(t, s, s.AdminKey, map[string]any{"creator_id": creator["id"], "title": "Night Drive", "type": "song", "content_hash": digestOf("night drive")}); r.Status != 201 {
		t.Fatalf("register: %d %s", r.Status, r.Body)
	}
	if r := s.Do(t, "POST", "/v1/webhooks/"+wh["id"].(string)+":test", s.AdminKey, map[string]any{}); r.Status != 202 {
		t.Fatalf("test: %d %s", r.Status, r.Body)
	}

	declared, err := eventtypes.All()
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]received{}
	for _, r := range rc.wait(t, len(declared), 20*time.Second) {
		got[r.event(t)["type"].(string)] = r
	}
	hooks := webhooksDocument(t)
	api, err := openAPIDoc()
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range declared {
		r, ok := got[e.Type]
		if !ok {
			t.Errorf("%s: the server sent none (sent %v): make this test cause one", e.Type, slices.Collect(maps.Keys(got)))
			continue
		}
		if err := hooks(e, r.Body); err != nil {
			t.Errorf("%s: the delivery breaks the webhooks document: %v\n%s", e.Type, err, r.Body)
		}
		data := r.event(t)["data"]
		payload := map[string]any{"$ref": "#/components/schemas/" + string(e.Payload.Name())}
		for _, problem := range conform(api, payload, data, "data") {
			t.Errorf("%s: %s", e.Type, problem)
		}
	}
}

// webhooksDocument returns a check of a delivery's body against the
// request body the committed webhooks document declares for its event.
func webhooksDocument(t *testing.T) func(e eventtypes.Event, body []byte) error {
	t.Helper()
	b, err := os.ReadFile("../gen/openapi/webhooks.json")
	if err != nil {
		t.Fatal(err)
	}
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	c := jsonschema.NewCompiler()
	c.DefaultDraft(jsonschema.Draft2020)
	c.AssertFormat()
	if err := c.AddResource("webhooks.json", doc); err != nil {
		t.Fatal(err)
	}
	var parsed struct {
		Webhooks map[string]struct {
			Post struct {
				RequestBody struct {
					Content map[string]struct {
						Schema struct {
							Ref string `json:"$ref"`
						} `json:"schema"`
					} `json:"content"`
				} `json:"requestBody"`
			} `json:"post"`
		} `json:"webhooks"`
	}
	if err := json.Unmarshal(b, &parsed); err != nil {
		t.Fatal(err)
	}
	return func(e eventtypes.Event, body []byte) error {
		hook, ok := parsed.Webhooks[e.Type]
		if !ok {
			return errors.New("the document has no webhook " + e.Type)
		}
		s, err := c.Compile("webhooks.json" + hook.Post.RequestBody.Content["application/json"].Schema.Ref)
		if err != nil {
			return err
		}
		inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(body))
		if err != nil {
			return err
		}
		return s.Validate(inst)
	}
}
