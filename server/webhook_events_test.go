package server_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"maps"
	"os"
	"slices"
	"testing"
	"time"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/creativeops/creativeops/engine"
	"github.com/creativeops/creativeops/internal/clock"
	"github.com/creativeops/creativeops/internal/eventtypes"
	"github.com/creativeops/creativeops/internal/testserver"
	"github.com/creativeops/creativeops/internal/testtsa"
	"github.com/creativeops/creativeops/server"
	"github.com/creativeops/creativeops/webhooks"
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
	clk := clock.NewTest(planStart)
	tsa := testtsa.Start(t, testtsa.Options{Name: "Webhook TSA"})
	s := testserver.Start(t, testserver.Options{Configure: func(c *server.Config) {
		c.Clock = clk
		// A delivery that fails under a loaded test run is retried at once,
		// not minutes later.
		c.WebhookSchedule = webhooks.Schedule{0, 50 * time.Millisecond, 100 * time.Millisecond, 200 * time.Millisecond}
		// An independent timestamp authority: its token's arrival is
		// ip.certificate.updated.
		c.TimestampAuthorities = []string{tsa.URL}
	}})
	rc := newReceiver(t, nil)
	wh := createWebhook(t, s, s.AdminKey, rc.URL, []string{"*"}, "")
	// An endpoint that answers 410 Gone to the creator below is disabled:
	// webhook.disabled.
	createWebhook(t, s, s.AdminKey, newReceiver(t, answer(410)).URL, []string{"creator.created"}, "")

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
	if r := s.Do(t, "PATCH", "/v1/creators/"+creator["id"].(string), s.AdminKey, map[string]any{"metadata": map[string]any{"label": "Day Owl"}}); r.Status != 200 {
		t.Fatalf("update: %d %s", r.Status, r.Body)
	}
	gone := createCreator(t, s, s.AdminKey)
	if r := s.Do(t, "DELETE", "/v1/creators/"+gone["id"].(string), s.AdminKey, nil); r.Status != 204 {
		t.Fatalf("erase: %d %s", r.Status, r.Body)
	}
	if r := s.Do(t, "POST", "/v1/webhooks/"+wh["id"].(string)+":test", s.AdminKey, map[string]any{}); r.Status != 202 {
		t.Fatalf("test: %d %s", r.Status, r.Body)
	}

	// A tracked plan (without automatic re-plans, so the clock's jump
	// reminds rather than re-plans): re-planned by hand, then reminded on
	// its distributor delivery's day, when its artwork is overdue.
	run := s.Do(t, "POST", "/v1/engine/run", s.AdminKey, map[string]any{"vertical": "music", "workflow": "release-strategy", "context": planContext()})
	if run.Status != 200 {
		t.Fatalf("run: %d %s", run.Status, run.Body)
	}
	plan := s.Do(t, "POST", "/v1/plans", s.AdminKey, map[string]any{"job_id": run.JSON["id"], "auto_replan": false})
	if plan.Status != 201 {
		t.Fatalf("plan: %d %s", plan.Status, plan.Body)
	}
	if r := s.Do(t, "POST", "/v1/plans/"+plan.JSON["id"].(string)+":replan", s.AdminKey, map[string]any{"context": map[string]any{"artist": "Nova Reyes"}}); r.Status != 200 {
		t.Fatalf("replan: %d %s", r.Status, r.Body)
	}
	clk.Set(time.Date(2027, 2, 5, 10, 0, 0, 0, time.UTC))
	if err := s.ScanPlans(context.Background()); err != nil {
		t.Fatal(err)
	}

	declared, err := eventtypes.All()
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]received{}
	deadline := time.Now().Add(30 * time.Second)
	for {
		for _, r := range rc.received() {
			ev := r.event(t)
			// An erased creator's events are sent reduced to their ids
			// (docs/privacy.md), outside their type's schema.
			if data, _ := ev["data"].(map[string]any); data["redacted"] != nil {
				continue
			}
			got[ev["type"].(string)] = r
		}
		if len(got) >= len(declared) || time.Now().After(deadline) {
			break
		}
		time.Sleep(20 * time.Millisecond)
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
