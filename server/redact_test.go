package server_test

import (
	"bytes"
	"testing"

	"github.com/creativeops/creativeops/ent/idempotencykey"
	"github.com/creativeops/creativeops/internal/testserver"
)

// No secret reaches an idempotency record, and a replay says what it left
// out: webhook secrets (generated and supplied) and API key secrets alike.
func TestIdempotencyRecordsHoldNoSecrets(t *testing.T) {
	s := testserver.Start(t, testserver.Options{})
	ctx := t.Context()
	cases := []struct {
		name, path, idemKey string
		body                map[string]any
	}{
		{"generated webhook secret", "/v1/webhooks", "wh-1", map[string]any{"url": "http://127.0.0.1:9/hook", "events": []string{"*"}}},
		{"api key", "/v1/keys", "key-1", map[string]any{"name": "ci", "scopes": []string{"engine:run"}}},
		{"rotation", "", "rot-1", map[string]any{"grace_period": "60s"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			path := c.path
			if path == "" {
				r := s.Do(t, "POST", "/v1/keys", s.AdminKey, map[string]any{"name": "r", "scopes": []string{"ip:read"}})
				path = "/v1/keys/" + r.JSON["id"].(string) + ":rotate"
			}
			first := s.Do(t, "POST", path, s.AdminKey, c.body, "Idempotency-Key", c.idemKey)
			secret, _ := first.JSON["secret"].(string)
			if first.Status >= 300 || secret == "" {
				t.Fatalf("first: %d %s", first.Status, first.Body)
			}
			if first.Header.Get("Idempotent-Redacted") != "" {
				t.Errorf("the original response says it was redacted")
			}
			row, err := s.Store.Ent.IdempotencyKey.Query().Where(idempotencykey.Key(c.idemKey)).Only(ctx)
			if err != nil {
				t.Fatal(err)
			}
			if row.Response == nil || bytes.Contains(*row.Response, []byte(secret)) {
				t.Fatalf("the idempotency record holds the secret")
			}
			replay := s.Do(t, "POST", path, s.AdminKey, c.body, "Idempotency-Key", c.idemKey)
			if replay.Status != first.Status || replay.Header.Get("Idempotent-Replayed") != "true" || replay.JSON["id"] != first.JSON["id"] {
				t.Fatalf("replay: %d %s", replay.Status, replay.Body)
			}
			if bytes.Contains(replay.Body, []byte(secret)) || replay.JSON["secret"] != nil {
				t.Fatalf("the replay returns the secret: %s", replay.Body)
			}
			if h := replay.Header.Get("Idempotent-Redacted"); h != "secret" {
				t.Errorf("Idempotent-Redacted = %q, want secret", h)
			}
		})
	}
	// A supplied webhook secret is not in the record either (the request's
	// fingerprint is a digest).
	supplied := "a-supplied-secret-of-some-length"
	body := map[string]any{"url": "http://127.0.0.1:9/hook", "events": []string{"*"}, "secret": supplied}
	if r := s.Do(t, "POST", "/v1/webhooks", s.AdminKey, body, "Idempotency-Key", "wh-2"); r.Status != 201 {
		t.Fatalf("create: %d %s", r.Status, r.Body)
	}
	row := s.Store.Ent.IdempotencyKey.Query().Where(idempotencykey.Key("wh-2")).OnlyX(ctx)
	if bytes.Contains(*row.Response, []byte(supplied)) || row.Fingerprint == supplied {
		t.Fatal("the record holds the supplied secret")
	}
}
