package server_test

import (
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/creativeops/creativeops/internal/clock"
	"github.com/creativeops/creativeops/internal/testdb"
	"github.com/creativeops/creativeops/internal/testserver"
)

// Only a completed job's plan can be tracked: a queued one (no worker
// runs it here) is FAILED_PRECONDITION, saying why.
func TestPlanFromAnUnfinishedJob(t *testing.T) {
	s := testserver.Start(t, testserver.Options{NoWorkers: true})
	job := mustStatus(t, s.Do(t, "POST", "/v1/engine/run", s.AdminKey, map[string]any{"vertical": "music", "workflow": "release-strategy",
		"context": planContext(), "async": true}), http.StatusAccepted)
	r := s.Do(t, "POST", "/v1/plans", s.AdminKey, map[string]any{"job_id": job["id"]})
	if r.Status != http.StatusBadRequest || !strings.Contains(string(r.Body), "FAILED_PRECONDITION") ||
		!strings.Contains(string(r.Body), "JOB_NOT_COMPLETED") || !strings.Contains(string(r.Body), "is queued") {
		t.Errorf("plan of a queued job: %d %s", r.Status, r.Body)
	}
	r = s.Do(t, "POST", "/v1/plans", s.AdminKey, map[string]any{"job_id": "job_01k3zr2b6c8d0e2f4g6h8j0k2m"})
	if r.Status != http.StatusNotFound || !strings.Contains(string(r.Body), "job_01k3zr2b6c8d0e2f4g6h8j0k2m") {
		t.Errorf("plan of an unknown job: %d %s", r.Status, r.Body)
	}
}

// An asynchronous tracked run makes its plan when the worker completes
// it, in the same transaction: the job's plan_id appears with completion.
func TestTrackAnAsynchronousRun(t *testing.T) {
	for _, b := range testdb.Backends(t) {
		t.Run(b.Name, func(t *testing.T) {
			s := startPlansServer(t, b.URL(t), clock.NewTest(planStart), 0)
			job := mustStatus(t, s.Do(t, "POST", "/v1/engine/run", s.AdminKey, map[string]any{"vertical": "music", "workflow": "release-strategy",
				"context": planContext(), "async": true, "track": true}), http.StatusAccepted)
			if job["plan_id"] != "" {
				t.Errorf("a queued job already names a plan: %v", job)
			}
			deadline := time.Now().Add(20 * time.Second)
			for job["status"] != "completed" {
				if time.Now().After(deadline) {
					t.Fatalf("job did not complete: %v", job)
				}
				time.Sleep(20 * time.Millisecond)
				job = mustStatus(t, s.Do(t, "GET", "/v1/engine/status/"+job["id"].(string), s.AdminKey, nil), http.StatusOK)
			}
			planID, _ := job["plan_id"].(string)
			if !strings.HasPrefix(planID, "plan_") {
				t.Fatalf("completed tracked job has no plan_id: %v", job)
			}
			p := mustStatus(t, s.Do(t, "GET", "/v1/plans/"+planID, s.AdminKey, nil), http.StatusOK)
			// Dated by the service's clock when the run was asked for,
			// not when the worker ran it.
			if p["job_id"] != job["id"] || p["as_of"] != "2026-11-23" {
				t.Errorf("plan of the async run: %v", p)
			}
		})
	}
}

// creator_id belongs to a tracked plan, and must be a creator of the
// caller's organization.
func TestTrackedRunCreator(t *testing.T) {
	s := testserver.Start(t, testserver.Options{})
	other := s.NewKey(t, "globex", "*")
	theirs := mustStatus(t, s.Do(t, "POST", "/v1/creators", other, map[string]any{"name": "G", "email": "g@example.com", "vertical": "music"}), http.StatusCreated)["id"]
	run := func(body map[string]any) testserver.Response {
		body["vertical"], body["workflow"], body["context"] = "music", "release-strategy", planContext()
		return s.Do(t, "POST", "/v1/engine/run", s.AdminKey, body)
	}
	if r := run(map[string]any{"creator_id": theirs}); r.Status != http.StatusBadRequest || !strings.Contains(string(r.Body), `"creator_id"`) {
		t.Errorf("creator_id without track: %d %s", r.Status, r.Body)
	}
	if r := run(map[string]any{"creator_id": theirs, "track": true}); r.Status != http.StatusNotFound || !strings.Contains(string(r.Body), theirs.(string)) {
		t.Errorf("another organization's creator: %d %s", r.Status, r.Body)
	}
	if r := s.Do(t, "GET", "/v1/plans", s.AdminKey, nil); len(r.JSON["plans"].([]any)) != 0 {
		t.Errorf("a refused run made a plan: %s", r.Body)
	}
}

// A tracked run creates a plan: its key needs plans:write beside
// engine:run.
func TestTrackNeedsPlansWrite(t *testing.T) {
	s := testserver.Start(t, testserver.Options{})
	runner := s.NewKey(t, "acme", "engine:run")
	body := map[string]any{"vertical": "music", "workflow": "release-strategy", "context": planContext(), "track": true}
	if r := s.Do(t, "POST", "/v1/engine/run", runner, body); r.Status != http.StatusForbidden || !strings.Contains(string(r.Body), "plans:write") {
		t.Errorf("tracked run without plans:write: %d %s", r.Status, r.Body)
	}
	both := s.NewKey(t, "acme", "engine:run", "plans:write")
	if r := s.Do(t, "POST", "/v1/engine/run", both, body); r.Status != http.StatusOK || r.JSON["plan_id"] == "" {
		t.Errorf("tracked run with plans:write: %d %s", r.Status, r.Body)
	}
}

// A plan is completed once no milestone is pending, active again when
// one is reopened.
func TestPlanStateFollowsMilestones(t *testing.T) {
	s := testserver.Start(t, testserver.Options{})
	run := mustStatus(t, s.Do(t, "POST", "/v1/engine/run", s.AdminKey, map[string]any{"vertical": "music", "workflow": "release-strategy",
		"context": planContext(), "track": true}), http.StatusOK)
	id := run["plan_id"].(string)
	p := mustStatus(t, s.Do(t, "GET", "/v1/plans/"+id, s.AdminKey, nil), http.StatusOK)
	for i, m := range p["milestones"].([]any) {
		action := ":complete"
		if i%2 == 1 {
			action = ":skip"
		}
		p = mustStatus(t, s.Do(t, "POST", "/v1/plans/"+id+"/milestones/"+m.(map[string]any)["key"].(string)+action, s.AdminKey, map[string]any{}), http.StatusOK)
	}
	if p["state"] != "completed" {
		t.Fatalf("every milestone done or skipped, plan %v", p["state"])
	}
	if l := mustStatus(t, s.Do(t, "GET", "/v1/plans?state=completed", s.AdminKey, nil), http.StatusOK); len(l["plans"].([]any)) != 1 {
		t.Errorf("state filter: %v", l)
	}
	p = mustStatus(t, s.Do(t, "POST", "/v1/plans/"+id+"/milestones/announce:reopen", s.AdminKey, map[string]any{}), http.StatusOK)
	if p["state"] != "active" {
		t.Errorf("reopened milestone, plan %v", p["state"])
	}
}

// POSTs of plans honour Idempotency-Key like every POST: a retry replays
// the first plan instead of tracking the job twice.
func TestCreatePlanIsIdempotent(t *testing.T) {
	s := testserver.Start(t, testserver.Options{})
	job := mustStatus(t, s.Do(t, "POST", "/v1/engine/run", s.AdminKey, map[string]any{"vertical": "music", "workflow": "release-strategy",
		"context": planContext()}), http.StatusOK)
	body := map[string]any{"job_id": job["id"]}
	first := s.Do(t, "POST", "/v1/plans", s.AdminKey, body, "Idempotency-Key", "plan-once")
	again := s.Do(t, "POST", "/v1/plans", s.AdminKey, body, "Idempotency-Key", "plan-once")
	if first.Status != http.StatusCreated || again.Status != http.StatusCreated || again.Header.Get("Idempotent-Replayed") != "true" ||
		again.JSON["id"] != first.JSON["id"] {
		t.Errorf("retry: %d %s / %d %v %s", first.Status, first.Body, again.Status, again.Header, again.Body)
	}
}
