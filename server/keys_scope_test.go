package server_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/creativeops/creativeops/auth"
	"github.com/creativeops/creativeops/internal/testserver"
)

// A key may only create, rotate or revoke keys whose scopes it holds all of:
// keys:admin alone does not reach further than keys:admin.
func TestKeysAdminCannotWidenItsReach(t *testing.T) {
	s := testserver.Start(t, testserver.Options{})
	admin := s.NewKey(t, "acme", auth.ScopeKeysAdmin)

	for _, scopes := range [][]string{{"*"}, {"creators:read"}, {"keys:admin", "webhooks:write"}} {
		r := s.Do(t, "POST", "/v1/keys", admin, map[string]any{"name": "wider", "scopes": scopes})
		if r.Status != http.StatusForbidden || r.ErrorReason() != "SCOPE_NOT_HELD" {
			t.Fatalf("keys:admin created a key with %v: %d %s", scopes, r.Status, r.Body)
		}
		missing := scopes[len(scopes)-1]
		if !strings.Contains(string(r.Body), missing) {
			t.Errorf("error does not name the missing scope %s: %s", missing, r.Body)
		}
	}
	// Its own scopes, or fewer, are fine.
	r := s.Do(t, "POST", "/v1/keys", admin, map[string]any{"name": "peer", "scopes": []string{"keys:admin"}})
	if r.Status != http.StatusCreated {
		t.Fatalf("keys:admin creating a keys:admin key: %d %s", r.Status, r.Body)
	}
	peer := r.JSON["id"].(string)

	// A broader key can be neither rotated (which would hand over its
	// secret) nor revoked.
	r = s.Do(t, "POST", "/v1/keys", s.AdminKey, map[string]any{"name": "broad", "scopes": []string{"creators:write", "keys:admin"}})
	broad := r.JSON["id"].(string)
	if r := s.Do(t, "POST", "/v1/keys/"+broad+":rotate", admin, map[string]any{}); r.Status != http.StatusForbidden ||
		!strings.Contains(string(r.Body), "creators:write") || strings.Contains(string(r.Body), "co_live_") {
		t.Fatalf("rotating a broader key: %d %s", r.Status, r.Body)
	}
	if r := s.Do(t, "DELETE", "/v1/keys/"+broad, admin, nil); r.Status != http.StatusForbidden {
		t.Fatalf("revoking a broader key: %d %s", r.Status, r.Body)
	}
	if r := s.Do(t, "POST", "/v1/keys/"+peer+":rotate", admin, map[string]any{}); r.Status != http.StatusOK {
		t.Fatalf("rotating a peer key: %d %s", r.Status, r.Body)
	}
	if r := s.Do(t, "DELETE", "/v1/keys/"+peer, admin, nil); r.Status != http.StatusNoContent {
		t.Fatalf("revoking a peer key: %d %s", r.Status, r.Body)
	}
	// "*" manages everything.
	if r := s.Do(t, "DELETE", "/v1/keys/"+broad, s.AdminKey, nil); r.Status != http.StatusNoContent {
		t.Fatalf("* revoking: %d %s", r.Status, r.Body)
	}
}

func TestMissingScopes(t *testing.T) {
	p := &auth.Principal{Scopes: []string{"keys:admin", "creators:read"}}
	if m := p.MissingScopes([]string{"creators:read", "keys:admin"}); len(m) != 0 {
		t.Errorf("subset reported missing %v", m)
	}
	if m := p.MissingScopes([]string{"*", "ip:read", "ip:read"}); strings.Join(m, ",") != "*,ip:read" {
		t.Errorf("missing = %v", m)
	}
	all := &auth.Principal{Scopes: []string{"*"}}
	if m := all.MissingScopes([]string{"*", "ip:read"}); len(m) != 0 {
		t.Errorf("* lacks %v", m)
	}
}

// A key's rate limit has a documented range: 0.01–100000 requests per
// second, bursts of 1–1000000.
func TestKeyRateLimitRange(t *testing.T) {
	s := testserver.Start(t, testserver.Options{})
	for _, c := range []struct {
		rps   float64
		burst int
		field string
	}{
		{1e-300, 10, "rate_limit.requests_per_second"},
		{0.001, 10, "rate_limit.requests_per_second"},
		{100001, 10, "rate_limit.requests_per_second"},
		{1, 0, "rate_limit.burst"},
		{1, 1000001, "rate_limit.burst"},
		{0.01, 1, ""},
		{100000, 1000000, ""},
	} {
		r := s.Do(t, "POST", "/v1/keys", s.AdminKey, map[string]any{"name": "rl", "scopes": []string{"ip:read"},
			"rate_limit": map[string]any{"requests_per_second": c.rps, "burst": c.burst}})
		if c.field == "" {
			if r.Status != http.StatusCreated {
				t.Errorf("%g/s burst %d refused: %d %s", c.rps, c.burst, r.Status, r.Body)
			}
			continue
		}
		if r.Status != http.StatusBadRequest || len(r.ViolatedFields()) != 1 || r.ViolatedFields()[0] != c.field {
			t.Errorf("%g/s burst %d: %d %v", c.rps, c.burst, r.Status, r.ViolatedFields())
		}
	}
}
