package server_test

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"testing"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"

	"github.com/creativeops/creativeops/auth"
	creativeopsv1 "github.com/creativeops/creativeops/gen/creativeops/v1"
	"github.com/creativeops/creativeops/internal/clock"
	"github.com/creativeops/creativeops/internal/testdb"
	"github.com/creativeops/creativeops/internal/testserver"
	"github.com/creativeops/creativeops/server"
)

// Lists of jobs and plans return summaries unless asked for whole items:
// the basic view (the default) leaves out context and result, the full
// view has them, over REST and gRPC, on both databases.
func TestListViews(t *testing.T) {
	for _, b := range testdb.Backends(t) {
		t.Run(b.Name, func(t *testing.T) {
			s := startPlansServer(t, b.URL(t), clock.NewTest(planStart), 0)
			run := mustStatus(t, s.Do(t, "POST", "/v1/engine/run", s.AdminKey, map[string]any{"vertical": "music", "workflow": "release-strategy",
				"context": planContext(), "track": true}), http.StatusOK)
			planID := run["plan_id"].(string)
			plan := mustStatus(t, s.Do(t, "GET", "/v1/plans/"+planID, s.AdminKey, nil), http.StatusOK)

			for _, c := range []struct{ path, items string }{{"/v1/engine/jobs", "jobs"}, {"/v1/plans", "plans"}} {
				for _, query := range []string{"", "?view=basic"} {
					item := onlyItem(t, mustStatus(t, s.Do(t, "GET", c.path+query, s.AdminKey, nil), http.StatusOK), c.items)
					if item["context"] != nil || item["result"] != nil {
						t.Errorf("GET %s%s: context %v, result %v; want both null", c.path, query, item["context"], item["result"])
					}
					if c.items == "plans" && fmt.Sprint(item["milestones"]) != fmt.Sprint(plan["milestones"]) {
						t.Errorf("GET %s%s: milestones %v, want the plan's %v", c.path, query, item["milestones"], plan["milestones"])
					}
				}
				item := onlyItem(t, mustStatus(t, s.Do(t, "GET", c.path+"?view=full", s.AdminKey, nil), http.StatusOK), c.items)
				if item["context"] == nil || item["result"] == nil {
					t.Errorf("GET %s?view=full: context %v, result %v; want both", c.path, item["context"], item["result"])
				}
				if r := s.Do(t, "GET", c.path+"?view=FULLEST", s.AdminKey, nil); r.Status != http.StatusBadRequest || fmt.Sprint(r.ViolatedFields()) != "[view]" {
					t.Errorf("GET %s?view=FULLEST: %d %v, want 400 naming view", c.path, r.Status, r.ViolatedFields())
				}
			}

			ctx := metadata.AppendToOutgoingContext(context.Background(), "authorization", "Bearer "+s.AdminKey)
			engine := creativeopsv1.NewEngineServiceClient(s.Conn(t))
			plans := creativeopsv1.NewPlansServiceClient(s.Conn(t))
			for _, view := range []string{"", "basic", "full"} {
				jobs, err := engine.ListJobs(ctx, &creativeopsv1.ListJobsRequest{View: view})
				if err != nil || len(jobs.GetJobs()) != 1 {
					t.Fatalf("ListJobs view %q: %v, %v", view, jobs, err)
				}
				ps, err := plans.ListPlans(ctx, &creativeopsv1.ListPlansRequest{View: view})
				if err != nil || len(ps.GetPlans()) != 1 {
					t.Fatalf("ListPlans view %q: %v, %v", view, ps, err)
				}
				j, p := jobs.GetJobs()[0], ps.GetPlans()[0]
				full := view == "full"
				if (j.Context != nil) != full || (j.Result != nil) != full || (p.Context != nil) != full || (p.Result != nil) != full {
					t.Errorf("gRPC view %q: job context %t result %t, plan context %t result %t; want all %t",
						view, j.Context != nil, j.Result != nil, p.Context != nil, p.Result != nil, full)
				}
				if len(p.GetMilestones()) == 0 {
					t.Errorf("gRPC view %q: a plan without milestones", view)
				}
			}
		})
	}
}

func onlyItem(t *testing.T, page map[string]any, items string) map[string]any {
	t.Helper()
	list, _ := page[items].([]any)
	if len(list) != 1 {
		t.Fatalf("%s: %d items, want 1: %v", items, len(list), page)
	}
	return list[0].(map[string]any)
}

// A page stops early once its bytes pass the bound, and its token goes on
// after the last item it holds: every item is listed once, in order.
func TestListPagesBoundedInBytes(t *testing.T) {
	s := testserver.Start(t, testserver.Options{})
	const n = 90
	// 90 creators of about 15 KiB each: 1.3 MiB, past the page bound.
	note := strings.Repeat("liner notes ", 1250)
	created := make([]string, n)
	for i := range n {
		created[n-1-i] = mustStatus(t, s.Do(t, "POST", "/v1/creators", s.AdminKey, map[string]any{
			"name": "Nova", "email": fmt.Sprintf("nova%d@example.com", i), "vertical": "music", "metadata": map[string]any{"notes": note},
		}), http.StatusCreated)["id"].(string)
	}
	var listed []string
	pages := 0
	for token := ""; ; pages++ {
		r := mustStatus(t, s.Do(t, "GET", "/v1/creators?page_size=200&page_token="+token, s.AdminKey, nil), http.StatusOK)
		items, _ := r["creators"].([]any)
		if len(items) == 0 || len(items) == n {
			t.Fatalf("page %d: %d items; want a page cut short by its bytes", pages, len(items))
		}
		for _, it := range items {
			listed = append(listed, it.(map[string]any)["id"].(string))
		}
		if token, _ = r["next_page_token"].(string); token == "" {
			break
		}
	}
	if pages < 1 || fmt.Sprint(listed) != fmt.Sprint(created) {
		t.Fatalf("listed %d creators in %d pages; want the %d created, newest first, each once", len(listed), pages+1, n)
	}
}

// A list costs the rate limit by what it asks for: a full page of 200
// jobs spends 20 tokens, a basic one 4, a read 1; a key that has fewer
// tokens than a call costs is refused it, over REST and gRPC.
func TestListsChargedByCost(t *testing.T) {
	s := testserver.Start(t, testserver.Options{Configure: func(c *server.Config) {
		// Next to no refill during the test: each call's charge is exact.
		c.RateLimit = auth.RateLimit{RequestsPerSecond: 0.001, Burst: 30}
	}})
	remaining := func(r testserver.Response) string {
		_, v, _ := strings.Cut(r.Header.Get("RateLimit"), "remaining=")
		v, _, _ = strings.Cut(v, ",")
		return v
	}
	steps := []struct {
		path      string
		status    int
		remaining string
	}{
		{"/v1/engine/jobs?page_size=200&view=full", http.StatusOK, "10"},
		{"/v1/engine/jobs?page_size=200&view=full", http.StatusTooManyRequests, "10"},
		{"/v1/engine/jobs?pageSize=200", http.StatusOK, "6"},
		{"/v1/engine/jobs", http.StatusOK, "5"},
		{"/v1/plans?view=full", http.StatusOK, "0"},
		{"/v1/engine/status/job_00000000000000000000000000", http.StatusTooManyRequests, "0"},
	}
	key := s.NewKey(t, "acme", auth.ScopeAll)
	for i, st := range steps {
		r := s.Do(t, "GET", st.path, key, nil)
		if r.Status != st.status || remaining(r) != st.remaining {
			t.Fatalf("step %d, GET %s: %d with %q remaining, want %d with %s: %s", i, st.path, r.Status, remaining(r), st.status, st.remaining, r.Body)
		}
	}

	// gRPC charges in the interceptor, from the decoded request.
	key = s.NewKey(t, "acme", auth.ScopeAll)
	ctx := metadata.AppendToOutgoingContext(context.Background(), "authorization", "Bearer "+key)
	engine := creativeopsv1.NewEngineServiceClient(s.Conn(t))
	var header metadata.MD
	if _, err := engine.ListJobs(ctx, &creativeopsv1.ListJobsRequest{PageSize: 200, View: "full"}, grpc.Header(&header)); err != nil {
		t.Fatal(err)
	}
	if got := header.Get("ratelimit"); len(got) != 1 || !strings.Contains(got[0], "remaining=10,") {
		t.Fatalf("gRPC full list of 200: ratelimit %v, want 10 remaining", got)
	}
	_, err := engine.ListJobs(ctx, &creativeopsv1.ListJobsRequest{PageSize: 200, View: "full"})
	if status.Code(err) != codes.ResourceExhausted || !strings.Contains(err.Error(), "costs 20") {
		t.Fatalf("second gRPC full list of 200: %v, want ResourceExhausted saying it costs 20", err)
	}
	if _, err := engine.ListJobs(ctx, &creativeopsv1.ListJobsRequest{PageSize: 200}); err != nil {
		t.Fatalf("a basic list of 200 within the 10 left: %v", err)
	}

	// Connect: admitted at one token before the body is read, the rest
	// charged once it is decoded.
	key = s.NewKey(t, "acme", auth.ScopeAll)
	connect := func() testserver.Response {
		return s.Do(t, "POST", "/creativeops.v1.EngineService/ListJobs", key, `{"pageSize":200,"view":"full"}`, "Connect-Protocol-Version", "1")
	}
	if r := connect(); r.Status != http.StatusOK {
		t.Fatalf("Connect full list of 200: %d %s", r.Status, r.Body)
	}
	if r := connect(); r.Status != http.StatusTooManyRequests || !strings.Contains(string(r.Body), "costs 20") {
		t.Fatalf("second Connect full list of 200 (10 tokens left): %d %s, want 429 saying it costs 20", r.Status, r.Body)
	}
}

// A run whose context has thousands of invalid keys is refused with the
// first problems listed and the number of the others, not with an error
// many times the request's size.
func TestRunErrorListsBoundedViolations(t *testing.T) {
	s := testserver.Start(t, testserver.Options{})
	ctx := planContext()
	for i := range 3000 {
		ctx[fmt.Sprintf("unknown_%04d", i)] = i
	}
	r := s.Do(t, "POST", "/v1/engine/run", s.AdminKey, map[string]any{"vertical": "music", "workflow": "release-strategy", "context": ctx})
	if r.Status != http.StatusBadRequest || len(r.ViolatedFields()) != 20 || len(r.Body) > 8<<10 {
		t.Fatalf("%d with %d violations in %d bytes, want 400 with 20 in a small body", r.Status, len(r.ViolatedFields()), len(r.Body))
	}
	if !strings.Contains(string(r.Body), `"violations_omitted":"2980"`) || !strings.Contains(string(r.Body), "and 2980 more problems not listed") {
		t.Fatalf("the error does not say how many problems it left out: %s", r.Body[:min(len(r.Body), 600)])
	}
}
