package server_test

import (
	"bytes"
	"context"
	"net/http"
	"net/url"
	"strings"
	"testing"

	ics "github.com/arran4/golang-ical"

	"github.com/creativeops/creativeops/auth"
	"github.com/creativeops/creativeops/ids"
	"github.com/creativeops/creativeops/internal/testdb"
	"github.com/creativeops/creativeops/internal/testserver"
	"github.com/creativeops/creativeops/server"
)

// newPlanRow stores a tracked plan with three milestones directly, as the
// plans service would after a run, and returns its id.
func newPlanRow(t *testing.T, s *testserver.Server, orgID string) string {
	t.Helper()
	ctx := context.Background()
	id := ids.New("plan")
	err := s.Store.Ent.Plan.Create().SetID(id).SetOrganizationID(orgID).
		SetVertical("music").SetWorkflow("release-strategy").
		// With its own copy of its documents, as plans stored before
		// they were read from the job (which this plan does not have).
		SetContext(map[string]any{"release_date": "2026-05-01"}).SetResult(map[string]any{"release_date": "2026-05-01"}).
		SetJobID(ids.New(ids.Job)).SetAsOf("2026-03-01").Exec(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for i, m := range []struct{ key, title, date string }{
		{"master", "Masters delivered", "2026-04-03"},
		{"pitch", "Spotify editorial pitch", "2026-04-17"},
		{"release", "Release day", "2026-05-01"},
	} {
		err := s.Store.Ent.PlanMilestone.Create().SetPlanID(id).SetOrganizationID(orgID).
			SetKey(m.key).SetTitle(m.title).SetDate(m.date).SetPosition(i).Exec(ctx)
		if err != nil {
			t.Fatal(err)
		}
	}
	return id
}

// get fetches a path of the server with optional headers (name, value...),
// sending no credentials unless they are among them.
func get(t *testing.T, s *testserver.Server, path string, headers ...string) testserver.Response {
	t.Helper()
	return s.Do(t, "GET", path, "", nil, headers...)
}

func parseCalendar(t *testing.T, body []byte) *ics.Calendar {
	t.Helper()
	cal, err := ics.ParseCalendar(bytes.NewReader(body))
	if err != nil {
		t.Fatalf("the feed is not iCalendar: %v\n%s", err, body)
	}
	return cal
}

// createFeed makes the plan's feed URL and returns its path and query,
// for this test server.
func createFeed(t *testing.T, s *testserver.Server, key, planID string) string {
	t.Helper()
	r := s.Do(t, "POST", "/v1/plans/"+planID+":createFeed", key, map[string]any{})
	if r.Status != http.StatusCreated {
		t.Fatalf("createFeed: %d %s", r.Status, r.Body)
	}
	raw, _ := r.JSON["url"].(string)
	if !strings.HasPrefix(raw, "http://localhost:8080/v1/plans/"+planID+"/calendar.ics?token=pft_") {
		t.Fatalf("feed URL %q does not start with the public URL and the calendar route", raw)
	}
	if ts, _ := r.JSON["created_at"].(string); !strings.HasSuffix(ts, "Z") {
		t.Errorf("created_at %q", r.JSON["created_at"])
	}
	u, err := url.Parse(raw)
	if err != nil {
		t.Fatal(err)
	}
	return u.RequestURI()
}

func TestPlanCalendarWithAPICredentials(t *testing.T) {
	for _, b := range testdb.Backends(t) {
		t.Run(b.Name, func(t *testing.T) {
			s := testserver.Start(t, testserver.Options{DatabaseURL: b.URL(t)})
			id := newPlanRow(t, s, s.OrgID)
			path := "/v1/plans/" + id + "/calendar.ics"

			r := s.Do(t, "GET", path, s.AdminKey, nil)
			if r.Status != http.StatusOK {
				t.Fatalf("GET %s: %d %s", path, r.Status, r.Body)
			}
			for name, want := range map[string]string{
				"Content-Type":        "text/calendar; charset=utf-8",
				"Content-Disposition": `inline; filename="` + id + `.ics"`,
				"Cache-Control":       "private, no-cache",
			} {
				if got := r.Header.Get(name); got != want {
					t.Errorf("%s: %q, want %q", name, got, want)
				}
			}
			if r.Header.Get("RateLimit") == "" || r.Header.Get("X-Request-Id") == "" {
				t.Errorf("the feed lacks the API's headers: %v", r.Header)
			}
			cal := parseCalendar(t, r.Body)
			if n := len(cal.Events()); n != 3 {
				t.Errorf("%d events, want 3", n)
			}

			// Calendar apps poll: an unchanged plan is a 304.
			etag := r.Header.Get("ETag")
			if etag == "" {
				t.Fatal("no ETag")
			}
			if r := s.Do(t, "GET", path, s.AdminKey, nil, "If-None-Match", etag); r.Status != http.StatusNotModified || len(r.Body) != 0 {
				t.Errorf("If-None-Match with the current ETag: %d %q, want 304", r.Status, r.Body)
			}
			// A change to the plan changes the document and its ETag.
			if err := s.Store.Ent.PlanMilestone.Update().SetState("done").Exec(context.Background()); err != nil {
				t.Fatal(err)
			}
			r2 := s.Do(t, "GET", path, s.AdminKey, nil, "If-None-Match", etag)
			if r2.Status != http.StatusOK || r2.Header.Get("ETag") == etag {
				t.Errorf("after a change: %d, ETag %q (was %q), want 200 and a new ETag", r2.Status, r2.Header.Get("ETag"), etag)
			}

			if r := get(t, s, path); r.Status != http.StatusUnauthorized || r.Header.Get("WWW-Authenticate") == "" {
				t.Errorf("no credentials: %d %s, want 401 with WWW-Authenticate", r.Status, r.Body)
			}
			noScope := s.NewKey(t, "acme", auth.ScopeCreatorsRead)
			if r := s.Do(t, "GET", path, noScope, nil); r.Status != http.StatusForbidden || r.ErrorReason() != "MISSING_SCOPE" {
				t.Errorf("a key without plans:read: %d %s, want 403 MISSING_SCOPE", r.Status, r.Body)
			}
			otherOrg := s.NewKey(t, "globex", auth.ScopeAll)
			if r := s.Do(t, "GET", path, otherOrg, nil); r.Status != http.StatusNotFound {
				t.Errorf("another organization's plan: %d %s, want 404", r.Status, r.Body)
			}
			if r := s.Do(t, "GET", "/v1/plans/"+ids.New("plan")+"/calendar.ics", s.AdminKey, nil); r.Status != http.StatusNotFound {
				t.Errorf("an unknown plan: %d, want 404", r.Status)
			}

			// The request is counted under its route template, never its id.
			m := get(t, s, "/metrics")
			if !strings.Contains(string(m.Body), `route="/v1/plans/{id}/calendar.ics"`) || strings.Contains(string(m.Body), id) {
				t.Error("the metrics do not name the feed by its route template")
			}
		})
	}
}

func TestPlanFeedToken(t *testing.T) {
	for _, b := range testdb.Backends(t) {
		t.Run(b.Name, func(t *testing.T) {
			s := testserver.Start(t, testserver.Options{DatabaseURL: b.URL(t)})
			id, other := newPlanRow(t, s, s.OrgID), newPlanRow(t, s, s.OrgID)

			feed := createFeed(t, s, s.AdminKey, id)
			token := feed[strings.Index(feed, "token=")+len("token="):]
			r := get(t, s, feed)
			if r.Status != http.StatusOK {
				t.Fatalf("the feed URL without a key: %d %s", r.Status, r.Body)
			}
			if n := len(parseCalendar(t, r.Body).Events()); n != 3 {
				t.Errorf("%d events, want 3", n)
			}
			if p := s.Do(t, "GET", "/v1/plans/"+id, s.AdminKey, nil); p.JSON["feed_active"] != true {
				t.Errorf("feed_active after createFeed: %v", p.JSON["feed_active"])
			}

			// The token opens its own plan's calendar and nothing else.
			for name, req := range map[string]struct{ path, key string }{
				"as a bearer on the plan":       {"/v1/plans/" + id, token},
				"as a bearer on its calendar":   {"/v1/plans/" + id + "/calendar.ics", token},
				"as a query on the plan":        {"/v1/plans/" + id + "?token=" + token, ""},
				"as a query on the plans list":  {"/v1/plans?token=" + token, ""},
				"as a bearer on another method": {"/v1/creators", token},
			} {
				if r := s.Do(t, "GET", req.path, req.key, nil); r.Status != http.StatusUnauthorized {
					t.Errorf("the token %s: %d %s, want 401", name, r.Status, r.Body)
				}
			}
			if r := get(t, s, "/v1/plans/"+other+"/calendar.ics?token="+token); r.Status != http.StatusNotFound {
				t.Errorf("the token on another plan's path: %d, want 404", r.Status)
			}
			if r := get(t, s, "/v1/plans/"+id+"/calendar.ics?token=pft_guess"); r.Status != http.StatusNotFound {
				t.Errorf("a malformed token: %d, want 404", r.Status)
			}
			// The token wins over a key sent beside it: a wrong token is
			// not rescued by the key.
			if r := s.Do(t, "GET", "/v1/plans/"+id+"/calendar.ics?token=", s.AdminKey, nil); r.Status != http.StatusNotFound {
				t.Errorf("an empty token with a key: %d, want 404", r.Status)
			}

			// Making the feed again replaces the URL: the old one is gone.
			again := createFeed(t, s, s.AdminKey, id)
			if r := get(t, s, feed); r.Status != http.StatusNotFound {
				t.Errorf("the replaced feed URL: %d, want 404", r.Status)
			}
			if r := get(t, s, again); r.Status != http.StatusOK {
				t.Errorf("the new feed URL: %d, want 200", r.Status)
			}

			// Revoked: 404, and the plan says it has no feed.
			rv := s.Do(t, "POST", "/v1/plans/"+id+":revokeFeed", s.AdminKey, map[string]any{})
			if rv.Status != http.StatusOK || rv.JSON["feed_active"] != false {
				t.Fatalf("revokeFeed: %d %s", rv.Status, rv.Body)
			}
			if r := get(t, s, again); r.Status != http.StatusNotFound {
				t.Errorf("the revoked feed URL: %d, want 404", r.Status)
			}
			if rv := s.Do(t, "POST", "/v1/plans/"+id+":revokeFeed", s.AdminKey, map[string]any{}); rv.Status != http.StatusOK {
				t.Errorf("revoking a plan without a feed: %d %s, want 200", rv.Status, rv.Body)
			}

			// Another organization can neither make nor revoke the feed.
			last := createFeed(t, s, s.AdminKey, other)
			globex := s.NewKey(t, "globex", auth.ScopeAll)
			if r := s.Do(t, "POST", "/v1/plans/"+other+":createFeed", globex, map[string]any{}); r.Status != http.StatusNotFound {
				t.Errorf("createFeed on another organization's plan: %d, want 404", r.Status)
			}
			if r := s.Do(t, "POST", "/v1/plans/"+other+":revokeFeed", globex, map[string]any{}); r.Status != http.StatusNotFound {
				t.Errorf("revokeFeed on another organization's plan: %d, want 404", r.Status)
			}
			if r := get(t, s, last); r.Status != http.StatusOK {
				t.Errorf("the feed after another organization tried to revoke it: %d, want 200", r.Status)
			}

			// A deleted plan's feed is gone with it.
			if err := s.Store.Ent.Plan.DeleteOneID(other).Exec(context.Background()); err != nil {
				t.Fatal(err)
			}
			if r := get(t, s, last); r.Status != http.StatusNotFound {
				t.Errorf("a deleted plan's feed: %d, want 404", r.Status)
			}

			// Each change is in the audit log, without the token.
			for action, want := range map[string]int{"plan_feed.created": 3, "plan_feed.revoked": 1} {
				r := s.Do(t, "GET", "/v1/audit-events?action="+action, s.AdminKey, nil)
				events, _ := r.JSON["audit_events"].([]any)
				if r.Status != http.StatusOK || len(events) != want {
					t.Errorf("audit events %s: %d, %d events, want %d: %s", action, r.Status, len(events), want, r.Body)
				}
				if strings.Contains(string(r.Body), "pft_") {
					t.Errorf("the audit log holds a feed token: %s", r.Body)
				}
				if action == "plan_feed.created" {
					// Newest first: the second feed of the first plan
					// replaced its first.
					details, _ := events[1].(map[string]any)["details"].(map[string]any)
					if details["replaced"] != "true" {
						t.Errorf("the entry of a replaced feed does not say so: %v", events[1])
					}
				}
			}
		})
	}
}

// Each feed URL has its own budget: polling one past it is refused, and
// another plan's URL still answers.
func TestPlanFeedRateLimitPerToken(t *testing.T) {
	s := testserver.Start(t, testserver.Options{})
	busy := createFeed(t, s, s.AdminKey, newPlanRow(t, s, s.OrgID))
	quiet := createFeed(t, s, s.AdminKey, newPlanRow(t, s, s.OrgID))
	// The burst (10) passes; within a few more requests, well under the
	// second that refills one token, one is refused.
	for i := range 10 {
		if r := get(t, s, busy); r.Status != http.StatusOK {
			t.Fatalf("request %d of the burst: %d %s", i+1, r.Status, r.Body)
		}
	}
	limited := false
	for range 5 {
		r := get(t, s, busy)
		if r.Status == http.StatusTooManyRequests {
			limited = true
			if r.Header.Get("Retry-After") == "" || r.ErrorReason() != "RATE_LIMITED" {
				t.Errorf("429 without Retry-After or reason: %v %s", r.Header, r.Body)
			}
			break
		}
	}
	if !limited {
		t.Error("a feed URL polled past its burst was never refused")
	}
	if r := get(t, s, quiet); r.Status != http.StatusOK {
		t.Errorf("another feed URL: %d, want 200 (limits are per token)", r.Status)
	}
}

// With API credentials the feed spends the key's budget, like any call.
func TestPlanCalendarSpendsTheKeysRateLimit(t *testing.T) {
	s := testserver.Start(t, testserver.Options{Configure: func(c *server.Config) {
		c.RateLimit = auth.RateLimit{RequestsPerSecond: 0.01, Burst: 2}
	}})
	path := "/v1/plans/" + newPlanRow(t, s, s.OrgID) + "/calendar.ics"
	for i := range 2 {
		if r := s.Do(t, "GET", path, s.AdminKey, nil); r.Status != http.StatusOK {
			t.Fatalf("request %d: %d %s", i+1, r.Status, r.Body)
		}
	}
	if r := s.Do(t, "GET", path, s.AdminKey, nil); r.Status != http.StatusTooManyRequests || r.Header.Get("Retry-After") == "" {
		t.Errorf("past the key's burst: %d, Retry-After %q, want 429 with Retry-After", r.Status, r.Header.Get("Retry-After"))
	}
}
