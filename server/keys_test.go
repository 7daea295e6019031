package server_test

import (
	"fmt"
	"net/http"
	"regexp"
	"strings"
	"testing"

	"github.com/creativeops/creativeops/auth"
	"github.com/creativeops/creativeops/internal/testserver"
)

func TestKeysLifecycle(t *testing.T) {
	s := testserver.Start(t, testserver.Options{})
	r := s.Do(t, "POST", "/v1/keys", s.AdminKey, map[string]any{"name": "ci", "scopes": []string{"creators:read"}, "rate_limit": map[string]any{"requests_per_second": 5, "burst": 10}})
	if r.Status != http.StatusCreated {
		t.Fatalf("create key: %d %s", r.Status, r.Body)
	}
	secret, _ := r.JSON["secret"].(string)
	id, _ := r.JSON["id"].(string)
	if !auth.WellFormed(secret) || !strings.HasPrefix(id, "key_") {
		t.Fatalf("bad key %q / id %q", secret, id)
	}
	if rl := r.JSON["rate_limit"].(map[string]any); rl["burst"] != 10.0 {
		t.Errorf("rate limit not stored: %v", rl)
	}
	// The new key reads but cannot write, and cannot manage keys.
	if r := s.Do(t, "GET", "/v1/creators", secret, nil); r.Status != 200 {
		t.Fatalf("read with new key: %d", r.Status)
	}
	if r := s.Do(t, "GET", "/v1/keys", secret, nil); r.Status != 403 || !strings.Contains(string(r.Body), "keys:admin") {
		t.Fatalf("list keys without keys:admin: %d %s", r.Status, r.Body)
	}
	// Listing never shows secrets.
	r = s.Do(t, "GET", "/v1/keys", s.AdminKey, nil)
	if strings.Contains(string(r.Body), secret) || strings.Contains(string(r.Body), `"secret"`) {
		t.Fatalf("list shows a secret: %s", r.Body)
	}
	if n := len(r.JSON["keys"].([]any)); n != 2 {
		t.Fatalf("%d keys listed, want 2", n)
	}

	// Rotation with a grace period: both secrets work.
	r = s.Do(t, "POST", "/v1/keys/"+id+":rotate", s.AdminKey, map[string]any{"grace_period": "3600.000000789s"})
	if r.Status != 200 {
		t.Fatalf("rotate: %d %s", r.Status, r.Body)
	}
	rotated, _ := r.JSON["secret"].(string)
	if rotated == secret || !auth.WellFormed(rotated) || r.JSON["previous_secret_expires_at"] == nil {
		t.Fatalf("rotate returned %v", r.JSON)
	}
	// API timestamps have microsecond precision, like every stored one.
	if at, _ := r.JSON["previous_secret_expires_at"].(string); !microseconds.MatchString(at) {
		t.Errorf("previous_secret_expires_at %q has more than microsecond precision", at)
	}
	for _, k := range []string{secret, rotated} {
		if r := s.Do(t, "GET", "/v1/creators", k, nil); r.Status != 200 {
			t.Fatalf("secret within grace period refused: %d", r.Status)
		}
	}
	// Rotation without grace ends the old secret at once.
	r = s.Do(t, "POST", "/v1/keys/"+id+":rotate", s.AdminKey, map[string]any{"grace_period": "0s"})
	third, _ := r.JSON["secret"].(string)
	if r := s.Do(t, "GET", "/v1/creators", rotated, nil); r.Status != 401 {
		t.Fatalf("rotated-out secret still works: %d", r.Status)
	}
	if r := s.Do(t, "GET", "/v1/creators", secret, nil); r.Status != 401 {
		t.Fatalf("first secret still works after second rotation: %d", r.Status)
	}

	// Revocation is immediate; the literal DEL method is accepted.
	if r := s.Do(t, "DEL", "/v1/keys/"+id, s.AdminKey, nil); r.Status != http.StatusNoContent || len(r.Body) != 0 {
		t.Fatalf("revoke: %d %q", r.Status, r.Body)
	}
	if r := s.Do(t, "GET", "/v1/creators", third, nil); r.Status != 401 {
		t.Fatalf("revoked key works: %d", r.Status)
	}
	if r := s.Do(t, "DELETE", "/v1/keys/"+id, s.AdminKey, nil); r.Status != 404 {
		t.Fatalf("revoking twice: %d", r.Status)
	}
	// Keys of another organization are invisible.
	other := s.NewKey(t, "globex", auth.ScopeAll)
	if r := s.Do(t, "POST", "/v1/keys/"+id+":rotate", other, map[string]any{}); r.Status != 404 {
		t.Fatalf("rotating another organization's key: %d", r.Status)
	}
	// Invalid scopes are named.
	r = s.Do(t, "POST", "/v1/keys", s.AdminKey, map[string]any{"name": "x", "scopes": []string{"creators:delete"}})
	if r.Status != 400 || len(r.ViolatedFields()) == 0 || !strings.HasPrefix(r.ViolatedFields()[0], "scopes") {
		t.Fatalf("bad scope: %d %s", r.Status, r.Body)
	}
}

func TestPagination(t *testing.T) {
	s := testserver.Start(t, testserver.Options{})
	for i := 0; i < 7; i++ {
		if r := s.Do(t, "POST", "/v1/creators", s.AdminKey, map[string]any{"name": "C", "email": fmt.Sprintf("c%d@example.com", i), "vertical": "music"}); r.Status != 201 {
			t.Fatal(r.Status)
		}
	}
	seen := map[string]bool{}
	var last string
	token := ""
	pages := 0
	for {
		r := s.Do(t, "GET", "/v1/creators?page_size=3&page_token="+token, s.AdminKey, nil)
		if r.Status != 200 {
			t.Fatalf("page: %d %s", r.Status, r.Body)
		}
		pages++
		for _, c := range r.JSON["creators"].([]any) {
			id := c.(map[string]any)["id"].(string)
			if seen[id] {
				t.Fatalf("%s returned twice", id)
			}
			if last != "" && id > last {
				t.Fatalf("not newest first: %s after %s", id, last)
			}
			seen[id], last = true, id
		}
		token = r.JSON["next_page_token"].(string)
		if token == "" {
			break
		}
	}
	if len(seen) != 7 || pages != 3 {
		t.Fatalf("saw %d creators in %d pages, want 7 in 3", len(seen), pages)
	}
	if r := s.Do(t, "GET", "/v1/creators?page_size=500", s.AdminKey, nil); r.Status != 400 {
		t.Fatalf("page_size over 200 accepted: %d", r.Status)
	}
}

// microseconds matches an RFC 3339 timestamp with at most six fractional
// digits.
var microseconds = regexp.MustCompile(`^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d{1,6})?Z$`)
