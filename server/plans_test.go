package server_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/creativeops/creativeops/auth"
	"github.com/creativeops/creativeops/internal/clock"
	"github.com/creativeops/creativeops/internal/testdb"
	"github.com/creativeops/creativeops/internal/testserver"
	"github.com/creativeops/creativeops/server"
	"github.com/creativeops/creativeops/webhooks"
)

// planStart is the test clock's first day: the release-strategy plan of
// planContext is made as of it.
var planStart = time.Date(2026, 11, 23, 10, 0, 0, 0, time.UTC)

func planContext() map[string]any {
	return map[string]any{"artist": "Nova", "genre": "indie pop", "releaseDate": "2027-03-03"}
}

// startPlansServer starts a server on url whose plans read clk; its
// periodic scan is left at the default (a minute), so tests scan when they
// choose (ScanPlans), unless interval is set.
func startPlansServer(t *testing.T, url string, clk clock.Clock, interval time.Duration) *testserver.Server {
	t.Helper()
	return testserver.Start(t, testserver.Options{DatabaseURL: url, Configure: func(c *server.Config) {
		c.Clock = clk
		c.PlanScanInterval = interval
		c.WebhookSchedule = webhooks.Schedule{0, 50 * time.Millisecond, 100 * time.Millisecond}
	}})
}

// milestoneOf finds a milestone of a rendered plan by key.
func milestoneOf(t *testing.T, plan map[string]any, key string) map[string]any {
	t.Helper()
	ms, _ := plan["milestones"].([]any)
	for _, m := range ms {
		if mm := m.(map[string]any); mm["key"] == key {
			return mm
		}
	}
	t.Fatalf("plan has no milestone %q: %v", key, plan["milestones"])
	return nil
}

func mustStatus(t *testing.T, r testserver.Response, want int) map[string]any {
	t.Helper()
	if r.Status != want {
		t.Fatalf("status %d, want %d: %s", r.Status, want, r.Body)
	}
	return r.JSON
}

// A plan from a run (track) and from a job id; milestones checked off,
// skipped and reopened; a manual re-plan that keeps what is done and says
// what moved; an automatic re-plan once the clock passes a deliverable.
func TestPlansEndToEnd(t *testing.T) {
	for _, b := range testdb.Backends(t) {
		t.Run(b.Name, func(t *testing.T) {
			clk := clock.NewTest(planStart)
			s := startPlansServer(t, b.URL(t), clk, 0)
			receiver := newEventReceiver(t, "whsec_"+strings.Repeat("QUJD", 8))
			mustStatus(t, s.Do(t, "POST", "/v1/webhooks", s.AdminKey, map[string]any{"url": receiver.URL(), "events": []string{"plan.replanned"}, "secret": receiver.secret}), http.StatusCreated)
			creator := mustStatus(t, s.Do(t, "POST", "/v1/creators", s.AdminKey, map[string]any{"name": "Nova", "email": "nova@example.com", "vertical": "music"}), http.StatusCreated)["id"].(string)

			// track: true keeps the run's plan, dated by the clock.
			run := mustStatus(t, s.Do(t, "POST", "/v1/engine/run", s.AdminKey, map[string]any{"vertical": "music", "workflow": "release-strategy",
				"context": planContext(), "track": true, "creator_id": creator}), http.StatusOK)
			planID, _ := run["plan_id"].(string)
			if !strings.HasPrefix(planID, "plan_") {
				t.Fatalf("tracked run has no plan_id: %v", run)
			}
			job := mustStatus(t, s.Do(t, "GET", "/v1/engine/status/"+run["id"].(string), s.AdminKey, nil), http.StatusOK)
			if job["plan_id"] != planID {
				t.Errorf("stored job's plan_id %v, want %s", job["plan_id"], planID)
			}
			p := mustStatus(t, s.Do(t, "GET", "/v1/plans/"+planID, s.AdminKey, nil), http.StatusOK)
			if p["revision"] != 1.0 || p["as_of"] != "2026-11-23" || p["creator_id"] != creator || p["job_id"] != run["id"] ||
				p["state"] != "active" || p["remind_days_before"] != 3.0 || p["auto_replan"] != true || p["time_zone"] != "UTC" {
				t.Fatalf("tracked plan: %v", p)
			}
			if ctx, _ := p["context"].(map[string]any); ctx["as_of"] != nil || ctx["release_date"] != "2027-03-03" {
				t.Errorf("the plan's context is the run's, without as_of: %v", ctx)
			}
			if m := milestoneOf(t, p, "distributor-delivery"); m["date"] != "2027-02-05" || m["deliverable"] != true || m["state"] != "pending" || m["revision"] != 1.0 {
				t.Errorf("milestone: %v", m)
			}

			// A plan from a job id.
			untracked := mustStatus(t, s.Do(t, "POST", "/v1/engine/run", s.AdminKey, map[string]any{"vertical": "music", "workflow": "release-strategy",
				"context": planContext()}), http.StatusOK)
			if untracked["plan_id"] != "" {
				t.Errorf("an untracked run has plan_id %v", untracked["plan_id"])
			}
			fromJob := mustStatus(t, s.Do(t, "POST", "/v1/plans", s.AdminKey, map[string]any{"job_id": untracked["id"], "remind_days_before": 5, "auto_replan": false}), http.StatusCreated)
			if fromJob["remind_days_before"] != 5.0 || fromJob["auto_replan"] != false || fromJob["job_id"] != untracked["id"] || len(fromJob["milestones"].([]any)) != 9 {
				t.Errorf("plan from a job: %v", fromJob)
			}
			again := s.Do(t, "POST", "/v1/plans", s.AdminKey, map[string]any{"job_id": untracked["id"]})
			if again.Status != http.StatusConflict || !strings.Contains(string(again.Body), "PLAN_EXISTS") {
				t.Errorf("a job's plan tracked twice: %d %s", again.Status, again.Body)
			}

			// Check-offs.
			path := "/v1/plans/" + planID + "/milestones/"
			p = mustStatus(t, s.Do(t, "POST", path+"artwork-metadata:complete", s.AdminKey, map[string]any{}), http.StatusOK)
			if m := milestoneOf(t, p, "artwork-metadata"); m["state"] != "done" || m["done_at"] == nil {
				t.Errorf("completed: %v", m)
			}
			p = mustStatus(t, s.Do(t, "POST", path+"announce:skip", s.AdminKey, map[string]any{}), http.StatusOK)
			if m := milestoneOf(t, p, "announce"); m["state"] != "skipped" || m["done_at"] == nil {
				t.Errorf("skipped: %v", m)
			}
			p = mustStatus(t, s.Do(t, "POST", path+"announce:reopen", s.AdminKey, map[string]any{}), http.StatusOK)
			if m := milestoneOf(t, p, "announce"); m["state"] != "pending" || m["done_at"] != nil {
				t.Errorf("reopened: %v", m)
			}
			r := s.Do(t, "POST", path+"no-such-step:complete", s.AdminKey, map[string]any{})
			if r.Status != http.StatusNotFound || !strings.Contains(string(r.Body), "no-such-step") {
				t.Errorf("unknown milestone: %d %s", r.Status, r.Body)
			}

			// A manual re-plan: the release moves four weeks; the done
			// milestone stays where it was, the pending ones move.
			rp := mustStatus(t, s.Do(t, "POST", "/v1/plans/"+planID+":replan", s.AdminKey, map[string]any{"context": map[string]any{"releaseDate": "2027-03-31"}}), http.StatusOK)
			p = rp["plan"].(map[string]any)
			if p["revision"] != 2.0 || p["as_of"] != "2026-11-23" || p["job_id"] == run["id"] {
				t.Fatalf("re-planned plan: %v", p)
			}
			if ctx := p["context"].(map[string]any); ctx["release_date"] != "2027-03-31" || ctx["artist"] != "Nova" {
				t.Errorf("context not merged: %v", ctx)
			}
			if m := milestoneOf(t, p, "artwork-metadata"); m["state"] != "done" || m["date"] != "2027-01-29" || m["revision"] != 1.0 {
				t.Errorf("a done milestone changed in a re-plan: %v", m)
			}
			moved := milestoneOf(t, p, "distributor-delivery")
			if moved["date"] == "2027-02-05" || moved["revision"] != 2.0 || moved["state"] != "pending" {
				t.Errorf("a pending milestone did not move: %v", moved)
			}
			changes := map[string]map[string]any{}
			for _, c := range rp["changes"].([]any) {
				c := c.(map[string]any)
				changes[c["key"].(string)] = c
			}
			if c := changes["distributor-delivery"]; c["change"] != "moved" || c["from_date"] != "2027-02-05" || c["to_date"] != moved["date"] {
				t.Errorf("change of distributor-delivery: %v", c)
			}
			if c := changes["artwork-metadata"]; c["change"] != "kept" || c["from_date"] != "2027-01-29" {
				t.Errorf("change of the done milestone: %v", c)
			}
			replanJob := mustStatus(t, s.Do(t, "GET", "/v1/engine/status/"+p["job_id"].(string), s.AdminKey, nil), http.StatusOK)
			if replanJob["status"] != "completed" || replanJob["plan_id"] != planID {
				t.Errorf("the re-plan's job: %v", replanJob)
			}

			// An invalid context names its field, as a run does.
			r = s.Do(t, "POST", "/v1/plans/"+planID+":replan", s.AdminKey, map[string]any{"context": map[string]any{"releaseDate": "someday"}})
			if r.Status != http.StatusBadRequest || !strings.Contains(string(r.Body), `"context.release_date"`) {
				t.Errorf("invalid re-plan context: %d %s", r.Status, r.Body)
			}
			r = s.Do(t, "POST", "/v1/plans/"+planID+":replan", s.AdminKey, map[string]any{"as_of": "tomorrow"})
			if r.Status != http.StatusBadRequest || !strings.Contains(string(r.Body), `"as_of"`) {
				t.Errorf("invalid as_of: %d %s", r.Status, r.Body)
			}

			// The clock passes a pending deliverable: the scan re-plans
			// the plan as of today, once.
			clk.Set(time.Date(2027, 3, 10, 9, 0, 0, 0, time.UTC))
			for range 2 {
				if err := s.ScanPlans(context.Background()); err != nil {
					t.Fatal(err)
				}
			}
			p = mustStatus(t, s.Do(t, "GET", "/v1/plans/"+planID, s.AdminKey, nil), http.StatusOK)
			if p["revision"] != 3.0 || p["as_of"] != "2027-03-10" {
				t.Fatalf("automatic re-plan: revision %v as of %v", p["revision"], p["as_of"])
			}
			if m := milestoneOf(t, p, "distributor-delivery"); m["date"].(string) < "2027-03-10" {
				t.Errorf("the slipped deliverable is still in the past: %v", m)
			}
			if m := milestoneOf(t, p, "artwork-metadata"); m["state"] != "done" || m["date"] != "2027-01-29" {
				t.Errorf("done milestone after the automatic re-plan: %v", m)
			}
			// The plan made from a job has auto_replan off: untouched.
			if q := mustStatus(t, s.Do(t, "GET", "/v1/plans/"+fromJob["id"].(string), s.AdminKey, nil), http.StatusOK); q["revision"] != 1.0 {
				t.Errorf("a plan without auto_replan was re-planned: %v", q["revision"])
			}

			// plan.replanned: one manual, one automatic.
			evs := receiver.wait(t, func(evs []receivedEvent) bool { return len(evs) >= 2 })
			triggers := map[string]int{}
			for _, ev := range evs {
				if ev.Type != "plan.replanned" {
					t.Errorf("unexpected event %s", ev.Type)
					continue
				}
				triggers[ev.Data["trigger"].(string)]++
				if pl, _ := ev.Data["plan"].(map[string]any); pl["id"] != planID {
					t.Errorf("replanned event of another plan: %v", ev.Data)
				}
			}
			time.Sleep(200 * time.Millisecond)
			if triggers["manual"] != 1 || triggers["automatic"] != 1 || len(receiver.events()) != 2 {
				t.Errorf("plan.replanned events by trigger: %v (%d events)", triggers, len(receiver.events()))
			}
		})
	}
}

// receivedEvent is a verified delivery.
type receivedEvent struct {
	ID, Type string
	Data     map[string]any
}

// eventReceiver is a webhook endpoint that verifies each delivery's
// signature and keeps the events, once per delivery.
type eventReceiver struct {
	srv    *httptest.Server
	secret string
	mu     sync.Mutex
	got    []receivedEvent
	bad    int
}

func newEventReceiver(t *testing.T, secret string) *eventReceiver {
	rc := &eventReceiver{secret: secret}
	rc.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		ts, _ := strconv.ParseInt(r.Header.Get(webhooks.HeaderTimestamp), 10, 64)
		want, err := webhooks.Sign(secret, r.Header.Get(webhooks.HeaderID), time.Unix(ts, 0), body)
		var ev struct {
			ID   string          `json:"id"`
			Type string          `json:"type"`
			Data json.RawMessage `json:"data"`
		}
		rc.mu.Lock()
		defer rc.mu.Unlock()
		if err != nil || r.Header.Get(webhooks.HeaderSignature) != want || json.Unmarshal(body, &ev) != nil {
			rc.bad++
			w.WriteHeader(http.StatusUnauthorized)
			return
		}
		var data map[string]any
		_ = json.Unmarshal(ev.Data, &data)
		rc.got = append(rc.got, receivedEvent{ID: ev.ID, Type: ev.Type, Data: data})
		w.WriteHeader(http.StatusNoContent)
	}))
	t.Cleanup(rc.srv.Close)
	return rc
}

func (rc *eventReceiver) URL() string { return rc.srv.URL }

func (rc *eventReceiver) events() []receivedEvent {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	return append([]receivedEvent(nil), rc.got...)
}

// wait returns the events once done holds for them (within 20 s).
func (rc *eventReceiver) wait(t *testing.T, done func([]receivedEvent) bool) []receivedEvent {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for {
		evs := rc.events()
		rc.mu.Lock()
		bad := rc.bad
		rc.mu.Unlock()
		if bad > 0 {
			t.Fatalf("%d deliveries failed signature verification", bad)
		}
		if done(evs) {
			return evs
		}
		if time.Now().After(deadline) {
			t.Fatalf("timed out; received %d events: %v", len(evs), evs)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

var _ = fmt.Sprint
var _ = auth.ScopeAll

// Reminders and automatic re-plans happen once per milestone (or plan)
// and revision, whatever the number of replicas scanning at once and
// across a restart: two servers share one PostgreSQL database (one server
// on SQLite), all scan on every day the test's clock is moved to, on top
// of their periodic scans, and one of them is restarted halfway. A real
// receiver verifies each delivery's signature and counts them.
func TestPlanRemindersExactlyOnce(t *testing.T) {
	for _, b := range testdb.Backends(t) {
		t.Run(b.Name, func(t *testing.T) {
			replicas := 1
			if b.Name == "postgres" {
				replicas = 2
			}
			url := b.URL(t)
			clk := clock.NewTest(time.Date(2027, 1, 20, 9, 0, 0, 0, time.UTC))
			servers := make([]*testserver.Server, replicas)
			for i := range servers {
				servers[i] = startPlansServer(t, url, clk, 100*time.Millisecond)
			}
			s := servers[0]
			receiver := newEventReceiver(t, "whsec_"+strings.Repeat("WFla", 8))
			mustStatus(t, s.Do(t, "POST", "/v1/webhooks", s.AdminKey, map[string]any{"url": receiver.URL(),
				"events": []string{"plan.milestone.due", "plan.milestone.overdue", "plan.replanned"}, "secret": receiver.secret}), http.StatusCreated)
			track := func(auto bool) string {
				run := mustStatus(t, s.Do(t, "POST", "/v1/engine/run", s.AdminKey, map[string]any{"vertical": "music", "workflow": "release-strategy",
					"context": planContext(), "track": true}), http.StatusOK)
				id := run["plan_id"].(string)
				mustStatus(t, s.Do(t, "PATCH", "/v1/plans/"+id, s.AdminKey, map[string]any{"auto_replan": auto}), http.StatusOK)
				return id
			}
			// fixed keeps its dates (no automatic re-plan): its reminders
			// are known in advance. slipping is re-planned when its first
			// deliverable passes.
			fixed, slipping := track(false), track(true)

			scanAll := func() {
				var wg sync.WaitGroup
				for _, srv := range servers {
					for range 3 {
						wg.Go(func() {
							if err := srv.ScanPlans(context.Background()); err != nil {
								t.Errorf("scan: %v", err)
							}
						})
					}
				}
				wg.Wait()
			}
			days := []string{"2027-01-21", "2027-01-26", "2027-01-27", "2027-01-29", "2027-01-30", "2027-02-02", "2027-02-05", "2027-02-09"}
			for i, day := range days {
				d, _ := time.Parse(time.DateOnly, day)
				clk.Set(d.Add(8 * time.Hour))
				if i == len(days)/2 {
					// A restart between two days: the new instance scans
					// on start and must not send again what was sent.
					if err := servers[0].Shutdown(context.Background()); err != nil {
						t.Fatal(err)
					}
					servers[0] = startPlansServer(t, url, clk, 100*time.Millisecond)
				}
				scanAll()
				time.Sleep(250 * time.Millisecond) // the periodic scans too
				scanAll()
			}

			// Deliveries settle: the count stops changing.
			var evs []receivedEvent
			for n := -1; ; {
				time.Sleep(time.Second)
				evs = receiver.events()
				if len(evs) == n {
					break
				}
				n = len(evs)
			}
			type reminderKey struct {
				plan, key, kind string
				revision        float64
			}
			reminders := map[reminderKey]int{}
			replans := map[string]int{}
			for _, ev := range evs {
				switch ev.Type {
				case "plan.milestone.due", "plan.milestone.overdue":
					m := ev.Data["milestone"].(map[string]any)
					kind := ev.Type
					if days := ev.Data["days_until"].(float64); ev.Type == "plan.milestone.due" && days == 0 {
						kind += "/today"
					} else if ev.Type == "plan.milestone.due" {
						kind += fmt.Sprintf("/%v days before", days)
					}
					reminders[reminderKey{ev.Data["plan_id"].(string), m["key"].(string), kind, m["revision"].(float64)}]++
				case "plan.replanned":
					p := ev.Data["plan"].(map[string]any)
					replans[fmt.Sprintf("%s r%v", p["id"], p["revision"])]++
				}
			}
			for k, n := range reminders {
				if n != 1 {
					t.Errorf("reminder %+v delivered %d times", k, n)
				}
			}
			for k, n := range replans {
				if n != 1 {
					t.Errorf("re-plan %s delivered %d times", k, n)
				}
			}
			// fixed's first deliverable (2027-01-29, remind 3 days before):
			// 3 days before, on the day, and overdue, once each.
			for _, kind := range []string{"plan.milestone.due/3 days before", "plan.milestone.due/today", "plan.milestone.overdue"} {
				if reminders[reminderKey{fixed, "artwork-metadata", kind, 1}] != 1 {
					t.Errorf("%s of artwork-metadata missing; reminders: %v", kind, reminders)
				}
			}
			// slipping was re-planned automatically, once per revision.
			if len(replans) == 0 {
				t.Errorf("the slipping plan was never re-planned: %v", evs)
			}
			for k := range replans {
				if !strings.HasPrefix(k, slipping) {
					t.Errorf("a plan without auto_replan was re-planned: %s", k)
				}
			}
			if t.Failed() {
				t.Logf("%d events; reminders %v; re-plans %v", len(evs), reminders, replans)
			}
		})
	}
}

// syncBuffer is a log sink tests read while the server writes.
type syncBuffer struct {
	mu sync.Mutex
	b  strings.Builder
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// Reminders through the queue alone, as in production: the leader's
// periodic scan hands the due plans out as plans.remind batches and a
// worker sends them; nothing here scans by hand. A plan that cannot be
// worked (here its reminders' table is gone) is logged at ERROR and
// counted in creativeops_plan_scan_failures_total, and once the cause is
// gone its reminder goes out when its claim lapses.
func TestPlanRemindersThroughTheQueue(t *testing.T) {
	for _, b := range testdb.Backends(t) {
		t.Run(b.Name, func(t *testing.T) {
			clk := clock.NewTest(time.Date(2027, 1, 26, 8, 0, 0, 0, time.UTC))
			logs := &syncBuffer{}
			s := testserver.Start(t, testserver.Options{DatabaseURL: b.URL(t), Configure: func(c *server.Config) {
				c.Clock = clk
				c.PlanScanInterval = 100 * time.Millisecond
				c.WebhookSchedule = webhooks.Schedule{0, 50 * time.Millisecond, 100 * time.Millisecond}
				c.Logger = slog.New(slog.NewTextHandler(logs, nil))
			}})
			receiver := newEventReceiver(t, "whsec_"+strings.Repeat("UVVl", 8))
			mustStatus(t, s.Do(t, "POST", "/v1/webhooks", s.AdminKey, map[string]any{"url": receiver.URL(),
				"events": []string{"plan.milestone.due"}, "secret": receiver.secret}), http.StatusCreated)
			db := s.Store.DB
			if _, err := db.Exec("ALTER TABLE plan_reminders RENAME TO plan_reminders_away"); err != nil {
				t.Fatal(err)
			}
			run := mustStatus(t, s.Do(t, "POST", "/v1/engine/run", s.AdminKey, map[string]any{"vertical": "music", "workflow": "release-strategy",
				"context": planContext(), "track": true}), http.StatusOK)
			planID := run["plan_id"].(string)

			failures := regexp.MustCompile(`creativeops_plan_scan_failures_total\{stage="plan"\} ([1-9]\d*)`)
			for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(50 * time.Millisecond) {
				r := s.Do(t, "GET", "/metrics", "", nil)
				if failures.Match(r.Body) && strings.Contains(logs.String(), `level=ERROR msg="plan reminders failed" plan_id=`+planID) {
					break
				}
				if time.Now().After(deadline) {
					t.Fatalf("no failure counted and logged; log:\n%s", logs.String())
				}
			}
			if _, err := db.Exec("ALTER TABLE plan_reminders_away RENAME TO plan_reminders"); err != nil {
				t.Fatal(err)
			}
			clk.Advance(11 * time.Minute) // the failed batch's claim lapses
			evs := receiver.wait(t, func(evs []receivedEvent) bool { return len(evs) > 0 })
			if m := evs[0].Data["milestone"].(map[string]any); evs[0].Data["plan_id"] != planID || m["key"] != "artwork-metadata" || evs[0].Data["days_until"] != 3.0 {
				t.Errorf("reminder: %v", evs[0].Data)
			}
			// The batch's reminder is sent before River records the job
			// completed: wait for that record.
			for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(50 * time.Millisecond) {
				var batches int
				if err := db.QueryRow("SELECT count(*) FROM river_job WHERE kind = 'plans.remind' AND state = 'completed'").Scan(&batches); err != nil {
					t.Fatal(err)
				}
				if batches > 0 {
					break
				}
				if time.Now().After(deadline) {
					t.Fatal("no plans.remind batch was worked")
				}
			}
		})
	}
}
