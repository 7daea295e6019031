package server_test

import (
	"net/http"
	"slices"
	"testing"

	"github.com/creativeops/creativeops/engine"
	"github.com/creativeops/creativeops/engine/enginetest"
	"github.com/creativeops/creativeops/internal/clock"
	"github.com/creativeops/creativeops/internal/testdb"
)

// A re-plan through plans/ is settled on the working-day calendar like a
// first run: a sample of plans, tracked in the US and re-planned into the
// year-end closure in another country, keep every invariant (no hand-over
// on a closed day of that country unless deliberate, every precedence
// with its gap).
func TestReplanKeepsTheWorkingDayCalendar(t *testing.T) {
	sample := []string{"television-episode-delivery", "comedy-club-tour", "photography-print-editions", "comics-webcomic-launch",
		"illustration-picture-book", "video-sponsored-integration", "podcasting-sponsorship-rates", "live-events-production-timeline"}
	b := testdb.Backends(t)[0]
	s := startPlansServer(t, b.URL(t), clock.NewTest(planStart), 0)
	for _, id := range sample {
		w, ok := engine.LookupWorkflow(id)
		if !ok || !slices.ContainsFunc(w.Fields, func(f engine.Field) bool { return f.Name == engine.RegionFieldName }) {
			t.Fatalf("%s: not a workflow with a country", id)
		}
		ctx := enginetest.Clone(w.ExampleContext)
		delete(ctx, engine.AsOfField)
		run := mustStatus(t, s.Do(t, "POST", "/v1/engine/run", s.AdminKey, map[string]any{"vertical": w.Vertical, "workflow": id, "context": ctx, "track": true}), http.StatusOK)
		planID, _ := run["plan_id"].(string)
		for _, country := range []string{"JP", "GB", "DE"} {
			rp := mustStatus(t, s.Do(t, "POST", "/v1/plans/"+planID+":replan", s.AdminKey,
				map[string]any{"context": map[string]any{"country": country}, "as_of": "2026-12-28"}), http.StatusOK)
			p := rp["plan"].(map[string]any)
			job := mustStatus(t, s.Do(t, "GET", "/v1/engine/status/"+p["job_id"].(string), s.AdminKey, nil), http.StatusOK)
			result, _ := job["result"].(map[string]any)
			jobCtx, _ := job["context"].(map[string]any)
			for _, v := range enginetest.Violations(w, jobCtx, result) {
				t.Errorf("%s re-planned in %s: %s: %s", id, country, v.Rule, v.Detail)
			}
			if tl, _ := result["timeline"].(map[string]any); tl["region"] != country {
				t.Errorf("%s re-planned in %s: timeline.region %v", id, country, tl["region"])
			}
		}
	}
}
