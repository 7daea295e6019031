package server_test

import (
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	standardwebhooks "github.com/standard-webhooks/standard-webhooks/libraries/go"

	"github.com/creativeops/creativeops/internal/testdb"
	"github.com/creativeops/creativeops/internal/testserver"
	"github.com/creativeops/creativeops/server"
	"github.com/creativeops/creativeops/webhooks"
)

// PATCH /v1/webhooks/{id} changes the url, events and description; the
// mask chooses which; the deliveries that follow go to the new url.
func TestWebhookUpdate(t *testing.T) {
	s := testserver.Start(t, testserver.Options{})
	oldRc, newRc := newReceiver(t, nil), newReceiver(t, nil)
	wh := createWebhook(t, s, s.AdminKey, oldRc.URL, []string{"ip.registered"}, "")
	id := wh["id"].(string)

	r := s.Do(t, "PATCH", "/v1/webhooks/"+id, s.AdminKey, map[string]any{
		"url": newRc.URL + "/v2", "events": []string{"creator.created"}, "description": "CRM sync",
	})
	if r.Status != 200 || r.JSON["url"] != newRc.URL+"/v2" || r.JSON["description"] != "CRM sync" ||
		!slices.Equal(toStrings(r.JSON["events"]), []string{"creator.created"}) {
		t.Fatalf("update: %d %s", r.Status, r.Body)
	}
	createCreator(t, s, s.AdminKey)
	got := newRc.wait(t, 1, 10*time.Second)
	oldRc.quiet(t, 0, 200*time.Millisecond)
	if got[0].event(t)["type"] != "creator.created" {
		t.Fatalf("delivered %s", got[0].Body)
	}

	// A mask changes only what it names.
	r = s.Do(t, "PATCH", "/v1/webhooks/"+id, s.AdminKey, map[string]any{
		"url": oldRc.URL, "description": "", "update_mask": "description",
	})
	if r.Status != 200 || r.JSON["url"] != newRc.URL+"/v2" || r.JSON["description"] != "" {
		t.Fatalf("masked update: %d %s", r.Status, r.Body)
	}
	for _, c := range []struct {
		body  map[string]any
		field string
	}{
		{map[string]any{}, "update_mask"},
		{map[string]any{"update_mask": "secret"}, "update_mask"},
		{map[string]any{"events": []string{"nothing.happened"}}, "events[0]"},
		{map[string]any{"update_mask": "events"}, "events"},
		{map[string]any{"url": "ftp://example.com/hook"}, "url"},
	} {
		if r := s.Do(t, "PATCH", "/v1/webhooks/"+id, s.AdminKey, c.body); r.Status != 400 || !slices.Contains(r.ViolatedFields(), c.field) {
			t.Errorf("PATCH %v: %d %s, want 400 naming %s", c.body, r.Status, r.Body, c.field)
		}
	}
	// Nothing changed by the refused requests.
	if r := s.Do(t, "GET", "/v1/webhooks/"+id, s.AdminKey, nil); r.JSON["url"] != newRc.URL+"/v2" ||
		!slices.Equal(toStrings(r.JSON["events"]), []string{"creator.created"}) {
		t.Fatalf("after refused updates: %s", r.Body)
	}
	// The audit log says what changed, without the url's path.
	r = s.Do(t, "GET", "/v1/audit-events?action=webhook.updated", s.AdminKey, nil)
	if evs := r.JSON["audit_events"].([]any); len(evs) != 2 || evs[1].(map[string]any)["details"].(map[string]any)["changed"] != "url,events,description" {
		t.Fatalf("audit: %s", r.Body)
	}
}

// A new url is checked as a new webhook's is, SSRF rules included.
func TestWebhookUpdateSSRF(t *testing.T) {
	s := testserver.Start(t, testserver.Options{Configure: func(c *server.Config) { c.AllowInsecureWebhooks = false }})
	wh := createWebhook(t, s, s.AdminKey, "https://93.184.215.14/hook", []string{"*"}, "")
	id := wh["id"].(string)
	for _, u := range []string{"https://127.0.0.1/hook", "https://10.0.0.1/hook", "https://169.254.169.254/latest", "https://localhost/hook", "http://example.com/hook"} {
		if r := s.Do(t, "PATCH", "/v1/webhooks/"+id, s.AdminKey, map[string]any{"url": u}); r.Status != 400 || !slices.Contains(r.ViolatedFields(), "url") {
			t.Errorf("PATCH url %s: %d %s", u, r.Status, r.Body)
		}
	}
	if r := s.Do(t, "GET", "/v1/webhooks/"+id, s.AdminKey, nil); r.JSON["url"] != "https://93.184.215.14/hook" {
		t.Fatalf("url changed: %s", r.Body)
	}
}

// A disabled webhook keeps its history, fails its pending deliveries
// (they are not sent later) and receives nothing until enabled; then it
// receives what happens from then on.
func TestWebhookDisableEnable(t *testing.T) {
	for _, b := range testdb.Backends(t) {
		t.Run(b.Name, func(t *testing.T) {
			s := testserver.Start(t, testserver.Options{DatabaseURL: b.URL(t), Configure: withSchedule(webhooks.Schedule{0, 300 * time.Millisecond, 300 * time.Millisecond, 300 * time.Millisecond})})
			rc := newReceiver(t, answer(http.StatusInternalServerError))
			wh := createWebhook(t, s, s.AdminKey, rc.URL, []string{"creator.created"}, "")
			id := wh["id"].(string)
			createCreator(t, s, s.AdminKey)
			rc.wait(t, 1, 10*time.Second)

			r := s.Do(t, "POST", "/v1/webhooks/"+id+":disable", s.AdminKey, map[string]any{})
			if r.Status != 200 || r.JSON["status"] != "disabled" || r.JSON["disabled_reason"] != webhooks.DisabledByAPI || r.JSON["disabled_at"] == nil {
				t.Fatalf("disable: %d %s", r.Status, r.Body)
			}
			n := len(rc.received())
			createCreator(t, s, s.AdminKey)
			rc.quiet(t, n, time.Second)
			ds := deliveriesUntil(t, s, s.AdminKey, id, 5*time.Second, settled)
			if len(ds) != 1 || ds[0]["status"] != "failed" || !strings.Contains(ds[0]["last_error"].(string), "disabled") {
				t.Fatalf("history after disabling: %v", ds)
			}
			if r := s.Do(t, "POST", "/v1/webhooks/"+id+":test", s.AdminKey, map[string]any{}); r.Status != 409 || r.ErrorReason() != "WEBHOOK_DISABLED" {
				t.Fatalf("test a disabled webhook: %d %s", r.Status, r.Body)
			}
			// Disabling again changes nothing.
			if again := s.Do(t, "POST", "/v1/webhooks/"+id+":disable", s.AdminKey, map[string]any{}); again.Status != 200 || again.JSON["disabled_at"] != r.JSON["disabled_at"] {
				t.Fatalf("disable again: %s", again.Body)
			}

			rc.setRespond(nil)
			r = s.Do(t, "POST", "/v1/webhooks/"+id+":enable", s.AdminKey, map[string]any{})
			if r.Status != 200 || r.JSON["status"] != "active" || r.JSON["disabled_reason"] != "" || r.JSON["disabled_at"] != nil {
				t.Fatalf("enable: %d %s", r.Status, r.Body)
			}
			created := createCreator(t, s, s.AdminKey)
			got := rc.wait(t, n+1, 10*time.Second)
			rc.quiet(t, n+1, 300*time.Millisecond)
			if data := got[n].event(t)["data"].(map[string]any); data["id"] != created["id"] {
				t.Fatalf("after enabling delivered %s", got[n].Body)
			}
			// Both changes are in the audit log.
			for _, action := range []string{"webhook.disabled", "webhook.enabled"} {
				if r := s.Do(t, "GET", "/v1/audit-events?action="+action, s.AdminKey, nil); len(r.JSON["audit_events"].([]any)) != 1 {
					t.Errorf("audit %s: %s", action, r.Body)
				}
			}
		})
	}
}

// After :rotateSecret, every delivery of the grace period carries two
// signatures, and a receiver verifies with the old secret or the new one;
// after the grace period (here none), only the new one signs.
func TestWebhookRotateSecret(t *testing.T) {
	for _, grace := range []time.Duration{time.Hour, 0} {
		t.Run(grace.String(), func(t *testing.T) {
			s := testserver.Start(t, testserver.Options{Configure: func(c *server.Config) { c.WebhookSecretGrace = grace }})
			rc := newReceiver(t, nil)
			wh := createWebhook(t, s, s.AdminKey, rc.URL, []string{"creator.created"}, "")
			id, oldSecret := wh["id"].(string), wh["secret"].(string)

			r := s.Do(t, "POST", "/v1/webhooks/"+id+":rotateSecret", s.AdminKey, map[string]any{})
			newSecret, _ := r.JSON["secret"].(string)
			if r.Status != 200 || !strings.HasPrefix(newSecret, "whsec_") || newSecret == oldSecret {
				t.Fatalf("rotate: %d %s", r.Status, r.Body)
			}
			if (r.JSON["previous_secret_expires_at"] != nil) != (grace > 0) {
				t.Fatalf("previous_secret_expires_at with grace %v: %s", grace, r.Body)
			}
			if g := s.Do(t, "GET", "/v1/webhooks/"+id, s.AdminKey, nil); g.JSON["secret"] != nil {
				t.Fatalf("secret shown after rotation: %s", g.Body)
			}
			createCreator(t, s, s.AdminKey)
			got := rc.wait(t, 1, 10*time.Second)[0]
			sigs := strings.Fields(got.Header.Get("webhook-signature"))
			oldV, _ := standardwebhooks.NewWebhook(oldSecret)
			newV, _ := standardwebhooks.NewWebhook(newSecret)
			if err := newV.Verify(got.Body, got.Header); err != nil {
				t.Fatalf("new secret does not verify: %v", err)
			}
			oldErr := oldV.Verify(got.Body, got.Header)
			if grace > 0 && (len(sigs) != 2 || oldErr != nil) {
				t.Fatalf("in the grace period: signatures %v, old secret: %v", sigs, oldErr)
			}
			if grace == 0 && (len(sigs) != 1 || oldErr == nil) {
				t.Fatalf("without a grace period: signatures %v, old secret verifies", sigs)
			}

			// A secret of one's own; a bad one is refused, naming it.
			if r := s.Do(t, "POST", "/v1/webhooks/"+id+":rotateSecret", s.AdminKey, map[string]any{"secret": "short"}); r.Status != 400 || !slices.Contains(r.ViolatedFields(), "secret") {
				t.Fatalf("rotate to a short secret: %d %s", r.Status, r.Body)
			}
			if r := s.Do(t, "POST", "/v1/webhooks/"+id+":rotateSecret", s.AdminKey, map[string]any{"secret": "a secret of my very own"}); r.Status != 200 || r.JSON["secret"] != nil {
				t.Fatalf("rotate to an own secret: %d %s", r.Status, r.Body)
			}
		})
	}
}

// A webhook whose deliveries fail, each after every retry, WebhookDisableAfter
// times in a row is disabled; the organization's other endpoints get a
// webhook.disabled event, which GET /v1/events lists too. A success in
// between starts the count again.
func TestWebhookAutoDisable(t *testing.T) {
	for _, b := range testdb.Backends(t) {
		t.Run(b.Name, func(t *testing.T) {
			s := testserver.Start(t, testserver.Options{DatabaseURL: b.URL(t), Configure: func(c *server.Config) {
				c.WebhookSchedule = webhooks.Schedule{0, 50 * time.Millisecond}
				c.WebhookDisableAfter = 2
			}})
			// Fails, succeeds, then fails for good: 2 attempts per delivery.
			failing := newReceiver(t, func(n int) reply {
				if n == 3 {
					return reply{code: http.StatusNoContent}
				}
				return reply{code: http.StatusInternalServerError}
			})
			watcher := newReceiver(t, nil)
			bad := createWebhook(t, s, s.AdminKey, failing.URL, []string{"creator.created"}, "")["id"].(string)
			createWebhook(t, s, s.AdminKey, watcher.URL, []string{"webhook.disabled"}, "")

			step := func(wantAttempts int) map[string]any {
				t.Helper()
				createCreator(t, s, s.AdminKey)
				failing.wait(t, wantAttempts, 10*time.Second)
				deliveriesUntil(t, s, s.AdminKey, bad, 10*time.Second, settled)
				return s.Do(t, "GET", "/v1/webhooks/"+bad, s.AdminKey, nil).JSON
			}
			if wh := step(2); wh["consecutive_failures"] != 1.0 || wh["status"] != "active" {
				t.Fatalf("after one failed delivery: %v", wh)
			}
			if wh := step(3); wh["consecutive_failures"] != 0.0 || wh["status"] != "active" {
				t.Fatalf("after a success: %v", wh)
			}
			if wh := step(5); wh["consecutive_failures"] != 1.0 || wh["status"] != "active" {
				t.Fatalf("after one more failure: %v", wh)
			}
			wh := step(7)
			if wh["status"] != "disabled" || !strings.Contains(wh["disabled_reason"].(string), "2 deliveries in a row failed") {
				t.Fatalf("after two failures in a row: %v", wh)
			}
			got := watcher.wait(t, 1, 10*time.Second)
			ev := got[0].event(t)
			if ev["type"] != "webhook.disabled" || ev["data"].(map[string]any)["id"] != bad {
				t.Fatalf("watcher got %s", got[0].Body)
			}
			// Nothing more reaches the disabled endpoint.
			createCreator(t, s, s.AdminKey)
			failing.quiet(t, 7, 300*time.Millisecond)
			r := s.Do(t, "GET", "/v1/events?type=webhook.disabled", s.AdminKey, nil)
			if evs := r.JSON["events"].([]any); len(evs) != 1 || evs[0].(map[string]any)["id"] != ev["id"] || evs[0].(map[string]any)["object_id"] != bad {
				t.Fatalf("events: %s", r.Body)
			}
		})
	}
}

func toStrings(v any) []string {
	var out []string
	for _, x := range v.([]any) {
		out = append(out, x.(string))
	}
	return out
}
