package server_test

import (
	"context"
	"fmt"
	"net/http"
	"regexp"
	"strings"
	"testing"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/types/dynamicpb"

	"github.com/creativeops/creativeops/auth"
	"github.com/creativeops/creativeops/internal/clock"
	"github.com/creativeops/creativeops/internal/rpcrule"
	"github.com/creativeops/creativeops/internal/testdb"
	"github.com/creativeops/creativeops/internal/testserver"
)

// trackedPlan runs release-strategy with track and returns the run's job
// and its plan.
func trackedPlan(t *testing.T, s *testserver.Server) (job, plan map[string]any) {
	t.Helper()
	job = mustStatus(t, s.Do(t, "POST", "/v1/engine/run", s.AdminKey, map[string]any{"vertical": "music", "workflow": "release-strategy",
		"context": planContext(), "track": true}), http.StatusOK)
	plan = mustStatus(t, s.Do(t, "GET", "/v1/plans/"+job["plan_id"].(string), s.AdminKey, nil), http.StatusOK)
	return job, plan
}

// Another organization's plan is not found by complete, skip or reopen,
// even with a milestone key the plan has: the answer is the plan's
// NotFound ("plan … not found"), never the milestone's ("plan … has no
// milestone"), which would tell the caller the plan exists. The plan is
// left as it was.
func TestMilestoneWritesOfAnotherOrganization(t *testing.T) {
	for _, b := range testdb.Backends(t) {
		t.Run(b.Name, func(t *testing.T) {
			s := startPlansServer(t, b.URL(t), clock.NewTest(planStart), 0)
			_, plan := trackedPlan(t, s)
			id := plan["id"].(string)
			key := plan["milestones"].([]any)[0].(map[string]any)["key"].(string)
			other := s.NewKey(t, "globex", auth.ScopeAll)
			for _, verb := range []string{"complete", "skip", "reopen"} {
				r := s.Do(t, "POST", "/v1/plans/"+id+"/milestones/"+key+":"+verb, other, map[string]any{})
				e, _ := r.JSON["error"].(map[string]any)
				if r.Status != http.StatusNotFound || e["message"] != "plan "+id+" not found" || !strings.Contains(string(r.Body), `"resource":"plan"`) {
					t.Errorf("%s by another organization: %d %s; want the plan's 404", verb, r.Status, r.Body)
				}
			}
			after := mustStatus(t, s.Do(t, "GET", "/v1/plans/"+id, s.AdminKey, nil), http.StatusOK)
			if after["updated_at"] != plan["updated_at"] || fmt.Sprint(after["milestones"]) != fmt.Sprint(plan["milestones"]) {
				t.Errorf("another organization's calls changed the plan: %v, was %v", after, plan)
			}
		})
	}
}

// A re-plan naming a field twice, in snake_case and as its camelCase
// alias, is refused as a run with that context is, naming the field; the
// plan stays at its revision.
func TestReplanRefusesAFieldNamedTwice(t *testing.T) {
	s := startPlansServer(t, "", clock.NewTest(planStart), 0)
	_, plan := trackedPlan(t, s)
	id := plan["id"].(string)
	twice := map[string]any{"release_date": "2027-04-02", "releaseDate": "2027-05-07"}

	run := planContext()
	delete(run, "releaseDate")
	for k, v := range twice {
		run[k] = v
	}
	r := s.Do(t, "POST", "/v1/engine/run", s.AdminKey, map[string]any{"vertical": "music", "workflow": "release-strategy", "context": run})
	if r.Status != http.StatusBadRequest || fmt.Sprint(r.ViolatedFields()) != "[context.release_date]" {
		t.Fatalf("run naming release_date twice: %d %v", r.Status, r.ViolatedFields())
	}
	for range 5 { // which value a merge kept was left to map order
		r := s.Do(t, "POST", "/v1/plans/"+id+":replan", s.AdminKey, map[string]any{"context": twice})
		if r.Status != http.StatusBadRequest || fmt.Sprint(r.ViolatedFields()) != "[context.release_date]" {
			t.Fatalf("re-plan naming release_date twice: %d %s", r.Status, r.Body)
		}
	}
	if after := mustStatus(t, s.Do(t, "GET", "/v1/plans/"+id, s.AdminKey, nil), http.StatusOK); after["revision"] != float64(1) {
		t.Fatalf("a refused re-plan made revision %v", after["revision"])
	}
}

// Deleting a plan clears the link of the jobs that made it (its run and
// its re-plans): they no longer point at a 404, and the run's job can be
// tracked again.
func TestDeletedPlanLeavesItsJobsTrackable(t *testing.T) {
	for _, b := range testdb.Backends(t) {
		t.Run(b.Name, func(t *testing.T) {
			s := startPlansServer(t, b.URL(t), clock.NewTest(planStart), 0)
			job, plan := trackedPlan(t, s)
			id := plan["id"].(string)
			replan := mustStatus(t, s.Do(t, "POST", "/v1/plans/"+id+":replan", s.AdminKey, map[string]any{"context": map[string]any{"release_date": "2027-04-02"}}), http.StatusOK)
			replanJob := replan["plan"].(map[string]any)["job_id"].(string)
			for _, j := range []string{job["id"].(string), replanJob} {
				if got := mustStatus(t, s.Do(t, "GET", "/v1/engine/status/"+j, s.AdminKey, nil), http.StatusOK)["plan_id"]; got != id {
					t.Fatalf("job %s names plan %v before the deletion, want %s", j, got, id)
				}
			}

			mustStatus(t, s.Do(t, "DELETE", "/v1/plans/"+id, s.AdminKey, nil), http.StatusNoContent)
			for _, j := range []string{job["id"].(string), replanJob} {
				if got := mustStatus(t, s.Do(t, "GET", "/v1/engine/status/"+j, s.AdminKey, nil), http.StatusOK)["plan_id"]; got != "" {
					t.Errorf("job %s still names the deleted plan: %v", j, got)
				}
			}
			again := mustStatus(t, s.Do(t, "POST", "/v1/plans", s.AdminKey, map[string]any{"job_id": job["id"]}), http.StatusCreated)
			if again["id"] == id {
				t.Fatalf("tracked again as the deleted plan's id %s", id)
			}
			if got := mustStatus(t, s.Do(t, "GET", "/v1/engine/status/"+job["id"].(string), s.AdminKey, nil), http.StatusOK)["plan_id"]; got != again["id"] {
				t.Fatalf("job names %v after tracking again, want %v", got, again["id"])
			}
		})
	}
}

// readOnlyScopes are every read scope: a key with them may read anything
// and change nothing.
func readOnlyScopes() []string {
	var out []string
	for _, sc := range auth.AllScopes {
		if strings.HasSuffix(sc, ":read") {
			out = append(out, sc)
		}
	}
	return out
}

// writeMethods are the API's methods that change something: every method
// whose REST route is not a GET. The list is read from the protos, so a
// new write method is in it the day it is declared, whatever scope it
// declares (a write declared with a read scope is what this catches).
func writeMethods(t *testing.T) []rpcrule.Method {
	var out []rpcrule.Method
	for _, m := range rpcrule.All() {
		if m.HTTPMethod != http.MethodGet {
			out = append(out, m)
		}
	}
	if len(out) < 20 {
		t.Fatalf("%d write methods found; the protos declare more", len(out))
	}
	return out
}

var pathVariable = regexp.MustCompile(`\{[^}]+\}`)

// A key holding every read scope and nothing else is refused every write
// method of every service, over gRPC (PermissionDenied) and REST (403),
// before the method looks at its request.
func TestReadOnlyKeyIsRefusedEveryWriteMethod(t *testing.T) {
	s := testserver.Start(t, testserver.Options{})
	key := s.NewKey(t, "acme", readOnlyScopes()...)
	ctx := metadata.AppendToOutgoingContext(context.Background(), "authorization", "Bearer "+key)
	for _, m := range writeMethods(t) {
		t.Run(m.Service+"."+m.Name, func(t *testing.T) {
			req := dynamicpb.NewMessage(m.Descriptor.Input())
			resp := dynamicpb.NewMessage(m.Descriptor.Output())
			err := s.Conn(t).Invoke(ctx, m.FullMethod, req, resp)
			if status.Code(err) != codes.PermissionDenied {
				t.Errorf("gRPC %s with a read-only key: %v, want PermissionDenied", m.FullMethod, err)
			}
			if m.Template == "" {
				return
			}
			var body any
			if m.HTTPMethod != http.MethodDelete {
				body = map[string]any{}
			}
			path := pathVariable.ReplaceAllString(m.Template, "x")
			if r := s.Do(t, m.HTTPMethod, path, key, body); r.Status != http.StatusForbidden {
				t.Errorf("%s %s with a read-only key: %d %s, want 403", m.HTTPMethod, path, r.Status, r.Body)
			}
		})
	}
}

// CreatePlanFeed replaces the team's feed URL and mints a public one: a
// key that may only read plans is refused it, and the current URL keeps
// working.
func TestCreatePlanFeedNeedsPlansWrite(t *testing.T) {
	s := startPlansServer(t, "", clock.NewTest(planStart), 0)
	_, plan := trackedPlan(t, s)
	id := plan["id"].(string)
	feed := mustStatus(t, s.Do(t, "POST", "/v1/plans/"+id+":createFeed", s.AdminKey, map[string]any{}), http.StatusCreated)
	reader := s.NewKey(t, "acme", auth.ScopePlansRead)
	r := s.Do(t, "POST", "/v1/plans/"+id+":createFeed", reader, map[string]any{})
	if r.Status != http.StatusForbidden || !strings.Contains(string(r.Body), "plans:write") {
		t.Fatalf("createFeed with plans:read: %d %s, want 403 naming plans:write", r.Status, r.Body)
	}
	url := strings.TrimPrefix(feed["url"].(string), s.URL)
	if !strings.HasPrefix(url, "/") {
		url = url[strings.Index(url, "/v1/"):]
	}
	if r := s.Do(t, "GET", url, "", nil); r.Status != http.StatusOK {
		t.Fatalf("the team's feed URL after a refused createFeed: %d", r.Status)
	}
}
