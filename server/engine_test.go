package server_test

import (
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/creativeops/creativeops/auth"
	"github.com/creativeops/creativeops/internal/testdb"
	"github.com/creativeops/creativeops/internal/testserver"
)

var releaseContext = map[string]any{"artist": "Nova Reyes", "genre": "indie pop", "releaseDate": "2027-03-03", "as_of": "2026-11-20"}

func TestEngineCatalog(t *testing.T) {
	s := testserver.Start(t, testserver.Options{})
	r := s.Do(t, "GET", "/v1/engine/verticals", s.AdminKey, nil)
	vs, _ := r.JSON["verticals"].([]any)
	if r.Status != 200 || len(vs) < 24 || r.JSON["total"] != float64(len(vs)) {
		t.Fatalf("verticals: %d %v", r.Status, r.JSON["total"])
	}
	r = s.Do(t, "GET", "/v1/engine/workflows?vertical=music", s.AdminKey, nil)
	ws, _ := r.JSON["workflows"].([]any)
	if r.Status != 200 || len(ws) < 2 || r.JSON["total"] != float64(len(ws)) {
		t.Fatalf("music workflows: %d %s", r.Status, r.Body)
	}
	var ids []string
	for _, w := range ws {
		wm := w.(map[string]any)
		if wm["vertical"] != "music" {
			t.Errorf("workflow of another vertical in the filter: %v", wm["id"])
		}
		ids = append(ids, wm["id"].(string))
	}
	if !slices.Contains(ids, "release-strategy") {
		t.Fatalf("release-strategy missing from %v", ids)
	}
	r = s.Do(t, "GET", "/v1/engine/workflows/release-strategy", s.AdminKey, nil)
	schema, _ := r.JSON["input_schema"].(map[string]any)
	if req, _ := schema["required"].([]any); !slices.Contains(req, any("release_date")) {
		t.Fatalf("input_schema without required release_date: %v", schema)
	}
	if ex, _ := r.JSON["example_context"].(map[string]any); ex["artist"] == nil {
		t.Fatalf("no example_context: %s", r.Body)
	}
	if r := s.Do(t, "GET", "/v1/engine/workflows?vertical=opera", s.AdminKey, nil); r.Status != 400 || r.ErrorReason() != "UNKNOWN_VERTICAL" {
		t.Fatalf("unknown vertical filter: %d %s", r.Status, r.Body)
	}
	if r := s.Do(t, "GET", "/v1/engine/workflows/nope", s.AdminKey, nil); r.Status != 404 {
		t.Fatalf("unknown workflow: %d", r.Status)
	}
}

// The countries, currencies and closures plans use are discoverable, and a
// run reads a country in any case, UK as GB, and refuses an unknown code
// with a 400 naming the field and the supported codes.
func TestEngineCalendars(t *testing.T) {
	s := testserver.Start(t, testserver.Options{})
	r := s.Do(t, "GET", "/v1/engine/calendars", s.AdminKey, nil)
	if r.Status != 200 {
		t.Fatalf("calendars: %d %s", r.Status, r.Body)
	}
	codes := map[string]map[string]any{}
	for _, c := range r.JSON["countries"].([]any) {
		cm := c.(map[string]any)
		codes[cm["code"].(string)] = cm
	}
	for _, code := range []string{"US", "GB", "DE", "FR", "JP", "CA", "AU", "BR"} {
		if codes[code] == nil {
			t.Errorf("country %s missing from %s", code, r.Body)
		}
	}
	if codes["DE"]["name"] != "Germany" || !slices.Contains(codes["GB"]["aliases"].([]any), any("UK")) {
		t.Errorf("DE %v, GB %v", codes["DE"], codes["GB"])
	}
	if cur, _ := r.JSON["currencies"].([]any); !slices.Contains(cur, any("EUR")) || !slices.Contains(cur, any("JPY")) {
		t.Errorf("currencies %v", cur)
	}
	keys := map[string]bool{}
	for _, c := range r.JSON["closures"].([]any) {
		cm := c.(map[string]any)
		keys[cm["key"].(string)] = cm["source"].(map[string]any)["url"] != ""
	}
	for _, k := range []string{"dead-week", "factory-new-year", "steam-seasonal-sales", "fashion-market-weeks"} {
		if !keys[k] {
			t.Errorf("closure %s missing or without a source: %s", k, r.Body)
		}
	}

	run := func(country string) testserver.Response {
		ctx := map[string]any{"artist": "Nova Reyes", "genre": "indie pop", "releaseDate": "2027-03-03", "as_of": "2026-11-20", "country": country}
		return s.Do(t, "POST", "/v1/engine/run", s.AdminKey, map[string]any{"vertical": "music", "workflow": "release-strategy", "context": ctx})
	}
	for _, c := range []string{"uk", "GB", "de", "Jp"} {
		if r := run(c); r.Status != 200 {
			t.Errorf("country %q: %d %s", c, r.Status, r.Body)
		}
	}
	r = run("XX")
	if r.Status != 400 || !strings.Contains(string(r.Body), "context.country") || !strings.Contains(string(r.Body), "'DE'") {
		t.Fatalf("country XX: %d %s; want a 400 naming context.country and the supported codes", r.Status, r.Body)
	}
}

func TestEngineSyncRun(t *testing.T) {
	s := testserver.Start(t, testserver.Options{})
	r := s.Do(t, "POST", "/v1/engine/run", s.AdminKey, map[string]any{"vertical": "music", "workflow": "release-strategy", "context": releaseContext})
	if r.Status != 200 {
		t.Fatalf("sync run: %d %s", r.Status, r.Body)
	}
	j := r.JSON
	if id, _ := j["id"].(string); !strings.HasPrefix(id, "job_") || j["status"] != "completed" || j["progress"] != 100.0 ||
		j["vertical"] != "music" || j["workflow"] != "release-strategy" || j["completed_at"] == nil || j["attempts"] != 1.0 {
		t.Fatalf("unexpected job %s", r.Body)
	}
	res := j["result"].(map[string]any)
	if _, ok := res["strategy"].(string); !ok {
		t.Fatal("result.strategy missing")
	}
	if _, ok := res["recommendations"].([]any); !ok {
		t.Fatal("result.recommendations missing")
	}
	if _, ok := res["timeline"].(map[string]any); !ok {
		t.Fatal("result.timeline missing")
	}
	if res["release_date"] != "2027-03-05" {
		t.Fatalf("Wednesday release not moved to Friday: %v", res["release_date"])
	}
	// The run is persisted like any job, and wrote its event.
	got := s.Do(t, "GET", "/v1/engine/status/"+j["id"].(string), s.AdminKey, nil)
	if got.Status != 200 || got.JSON["status"] != "completed" {
		t.Fatalf("status of sync job: %d %s", got.Status, got.Body)
	}
	evs, err := s.Store.Ent.Event.Query().All(t.Context())
	if err != nil || len(evs) != 1 || evs[0].Type != "engine.job.completed" || !strings.Contains(evs[0].Data, j["id"].(string)) {
		t.Fatalf("events after sync run: %v %v", evs, err)
	}
}

func TestEngineRunErrors(t *testing.T) {
	s := testserver.Start(t, testserver.Options{})
	readOnly := s.NewKey(t, "acme", auth.ScopeEngineRead)
	runOnly := s.NewKey(t, "acme", auth.ScopeEngineRun)
	cases := []struct {
		name       string
		key        string
		body       map[string]any
		wantStatus int
		wantReason string
		wantFields []string
	}{
		{"unknown vertical", s.AdminKey, map[string]any{"vertical": "opera", "workflow": "release-strategy", "context": releaseContext}, 400, "UNKNOWN_VERTICAL", []string{"vertical"}},
		{"workflow of another vertical", s.AdminKey, map[string]any{"vertical": "film", "workflow": "release-strategy", "context": releaseContext}, 404, "UNKNOWN_WORKFLOW", nil},
		{"unknown workflow", s.AdminKey, map[string]any{"vertical": "music", "workflow": "world-domination", "context": releaseContext}, 404, "UNKNOWN_WORKFLOW", nil},
		{"schema violations", s.AdminKey, map[string]any{"vertical": "music", "workflow": "release-strategy", "context": map[string]any{"artist": "A", "release_date": "next friday", "formats": []any{"8-track"}}}, 400, "INVALID_ARGUMENT", []string{"context.genre", "context.release_date", "context.formats[0]"}},
		{"missing context", s.AdminKey, map[string]any{"vertical": "music", "workflow": "release-strategy"}, 400, "", []string{"context"}},
		{"read-only key cannot run", readOnly, map[string]any{"vertical": "music", "workflow": "release-strategy", "context": releaseContext}, 403, "MISSING_SCOPE", nil},
		{"run-only key runs", runOnly, map[string]any{"vertical": "music", "workflow": "release-strategy", "context": releaseContext}, 200, "", nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := s.Do(t, "POST", "/v1/engine/run", c.key, c.body)
			if r.Status != c.wantStatus {
				t.Fatalf("status %d, want %d: %s", r.Status, c.wantStatus, r.Body)
			}
			if c.wantReason != "" && r.ErrorReason() != c.wantReason {
				t.Errorf("reason %q, want %q", r.ErrorReason(), c.wantReason)
			}
			for _, f := range c.wantFields {
				if !slices.Contains(r.ViolatedFields(), f) {
					t.Errorf("no violation for %s in %v", f, r.ViolatedFields())
				}
			}
		})
	}
	// A run-only key cannot read job status.
	r := s.Do(t, "POST", "/v1/engine/run", runOnly, map[string]any{"vertical": "music", "workflow": "release-strategy", "context": releaseContext})
	if g := s.Do(t, "GET", "/v1/engine/status/"+r.JSON["id"].(string), runOnly, nil); g.Status != 403 {
		t.Fatalf("run-only key read a job: %d", g.Status)
	}
	// Another organization cannot see the job.
	other := s.NewKey(t, "globex", auth.ScopeAll)
	if g := s.Do(t, "GET", "/v1/engine/status/"+r.JSON["id"].(string), other, nil); g.Status != 404 {
		t.Fatalf("other organization read a job: %d", g.Status)
	}
	if g := s.Do(t, "POST", "/v1/engine/jobs/"+r.JSON["id"].(string)+":cancel", other, map[string]any{}); g.Status != 404 {
		t.Fatalf("other organization canceled a job: %d", g.Status)
	}
}

func TestEngineAsyncLifecycle(t *testing.T) {
	for _, b := range testdb.Backends(t) {
		t.Run(b.Name, func(t *testing.T) {
			s := testserver.Start(t, testserver.Options{DatabaseURL: b.URL(t)})
			r := s.Do(t, "POST", "/v1/engine/run", s.AdminKey, map[string]any{"vertical": "music", "workflow": "release-strategy", "context": releaseContext, "async": true})
			if r.Status != http.StatusAccepted {
				t.Fatalf("async run: %d %s", r.Status, r.Body)
			}
			id := r.JSON["id"].(string)
			if r.JSON["status"] != "queued" || r.JSON["progress"] != 0.0 || r.JSON["result"] != nil {
				t.Fatalf("async run should answer with the queued job: %s", r.Body)
			}
			if loc := r.Header.Get("Location"); loc != "/v1/engine/status/"+id {
				t.Fatalf("Location %q", loc)
			}
			seen := map[string]bool{}
			var job map[string]any
			for deadline := time.Now().Add(15 * time.Second); time.Now().Before(deadline); time.Sleep(5 * time.Millisecond) {
				job = s.Do(t, "GET", "/v1/engine/status/"+id, s.AdminKey, nil).JSON
				seen[job["status"].(string)] = true
				if job["status"] == "completed" || job["status"] == "failed" {
					break
				}
			}
			if job["status"] != "completed" || job["progress"] != 100.0 || job["started_at"] == nil || job["completed_at"] == nil || job["attempts"] != 1.0 {
				t.Fatalf("async job did not complete properly: %v", job)
			}
			if res := job["result"].(map[string]any); res["release_date"] != "2027-03-05" {
				t.Fatalf("async result differs from sync: %v", res["release_date"])
			}
			list := s.Do(t, "GET", "/v1/engine/jobs?status=completed&workflow=release-strategy", s.AdminKey, nil)
			if js, _ := list.JSON["jobs"].([]any); len(js) != 1 {
				t.Fatalf("list jobs: %s", list.Body)
			}
			if c := s.Do(t, "POST", "/v1/engine/jobs/"+id+":cancel", s.AdminKey, map[string]any{}); c.Status != 409 || c.ErrorReason() != "JOB_ALREADY_FINISHED" {
				t.Fatalf("cancel of a completed job: %d %s", c.Status, c.Body)
			}
			t.Logf("statuses observed while polling: %v", seen)
			waitMetrics(t, s, `creativeops_jobs_finished_total{async="true",status="completed"} 1`)
		})
	}
}

func TestEngineCancelQueuedJob(t *testing.T) {
	// No workers run here, so the job stays queued until canceled.
	s := testserver.Start(t, testserver.Options{NoWorkers: true})
	r := s.Do(t, "POST", "/v1/engine/run", s.AdminKey, map[string]any{"vertical": "music", "workflow": "release-strategy", "context": releaseContext, "async": true})
	id := r.JSON["id"].(string)
	c := s.Do(t, "POST", "/v1/engine/jobs/"+id+":cancel", s.AdminKey, nil)
	if c.Status != 200 || c.JSON["status"] != "canceled" || c.JSON["completed_at"] == nil {
		t.Fatalf("cancel: %d %s", c.Status, c.Body)
	}
	if l := s.Do(t, "GET", "/v1/engine/jobs?status=canceled", s.AdminKey, nil); len(l.JSON["jobs"].([]any)) != 1 {
		t.Fatalf("canceled job not listed: %s", l.Body)
	}
}

// The job moves queued → processing (with progress advancing per step) →
// completed, observed by polling while a step is held.
func TestEngineAsyncProgress(t *testing.T) {
	for _, b := range testdb.Backends(t) {
		t.Run(b.Name, func(t *testing.T) {
			release := testserver.HoldRuns()
			defer release()
			s := testserver.Start(t, testserver.Options{DatabaseURL: b.URL(t)})
			r := s.Do(t, "POST", "/v1/engine/run", s.AdminKey, map[string]any{"vertical": "music", "workflow": testserver.GatedWorkflow, "context": map[string]any{"label": "p"}, "async": true})
			id := r.JSON["id"].(string)
			waitFor := func(cond func(map[string]any) bool) map[string]any {
				t.Helper()
				var j map[string]any
				for deadline := time.Now().Add(15 * time.Second); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
					if j = s.Do(t, "GET", "/v1/engine/status/"+id, s.AdminKey, nil).JSON; cond(j) {
						return j
					}
				}
				t.Fatalf("condition not reached; last job %v", j)
				return nil
			}
			j := waitFor(func(j map[string]any) bool { return j["status"] == "processing" && j["progress"] == 25.0 })
			if j["started_at"] == nil || j["completed_at"] != nil || j["result"] != nil {
				t.Fatalf("processing job fields: %v", j)
			}
			release()
			j = waitFor(func(j map[string]any) bool { return j["status"] == "completed" })
			if j["progress"] != 100.0 || j["result"].(map[string]any)["strategy"] != "gated run for p" {
				t.Fatalf("completed job: %v", j)
			}
		})
	}
}

// Canceling a running job stops it at its next step; it never completes
// and emits no completion event.
func TestEngineCancelRunningJob(t *testing.T) {
	release := testserver.HoldRuns()
	defer release()
	s := testserver.Start(t, testserver.Options{})
	r := s.Do(t, "POST", "/v1/engine/run", s.AdminKey, map[string]any{"vertical": "music", "workflow": testserver.GatedWorkflow, "context": map[string]any{"label": "c"}, "async": true})
	id := r.JSON["id"].(string)
	for deadline := time.Now().Add(15 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		if s.Do(t, "GET", "/v1/engine/status/"+id, s.AdminKey, nil).JSON["status"] == "processing" {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("job never started")
		}
	}
	if c := s.Do(t, "POST", "/v1/engine/jobs/"+id+":cancel", s.AdminKey, nil); c.Status != 200 || c.JSON["status"] != "canceled" {
		t.Fatalf("cancel: %d %s", c.Status, c.Body)
	}
	release()
	time.Sleep(300 * time.Millisecond)
	j := s.Do(t, "GET", "/v1/engine/status/"+id, s.AdminKey, nil).JSON
	if j["status"] != "canceled" || j["result"] != nil {
		t.Fatalf("canceled job was finished anyway: %v", j)
	}
	if n, _ := s.Store.Ent.Event.Query().Count(t.Context()); n != 0 {
		t.Fatalf("%d events for a canceled job", n)
	}
}
