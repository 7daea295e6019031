package server_test

import (
	"context"
	"net/http"
	"testing"
	"time"

	"github.com/creativeops/creativeops/auth"
	"github.com/creativeops/creativeops/internal/testdb"
	"github.com/creativeops/creativeops/internal/testserver"
	"github.com/creativeops/creativeops/oauth"
)

// signInClient opens a session with an OAuth client's credentials.
func signInClient(t *testing.T, srv *testserver.Server, id, secret string) (*browser, sessionReply) {
	t.Helper()
	b := &browser{t: t, srv: srv}
	r := b.send(srv, "POST", "/dashboard/api/session", map[string]string{"client_id": id, "client_secret": secret}, false)
	if r.status != http.StatusOK {
		t.Fatalf("sign in with a client: %d %s", r.status, r.body)
	}
	for _, c := range (&http.Response{Header: r.header}).Cookies() {
		if (c.Name == "creativeops_session" || c.Name == "__Host-creativeops_session") && c.MaxAge >= 0 {
			b.cookie = &http.Cookie{Name: c.Name, Value: c.Value}
		}
	}
	if b.cookie == nil {
		t.Fatalf("client sign-in set no session cookie: %v", r.header)
	}
	b.csrf, _ = r.json["csrf_token"].(string)
	return b, r
}

// A session opened with OAuth client credentials acts as the client: its
// organization and allowed scopes, usage counted under its id; it ends
// when the client is revoked and, when the client is rotated, with the
// grace period of the secret it was opened with.
func TestSessionWithOAuthClient(t *testing.T) {
	for _, be := range testdb.Backends(t) {
		t.Run(be.Name, func(t *testing.T) {
			srv := testserver.Start(t, testserver.Options{DatabaseURL: be.URL(t), NoWorkers: true})
			ctx := context.Background()
			c, secret, err := srv.OAuth().CreateClient(ctx, oauth.NewClientParams{OrganizationID: srv.OrgID, Name: "erp",
				Scopes: []string{auth.ScopeCreatorsRead}})
			if err != nil {
				t.Fatal(err)
			}
			b, r := signInClient(t, srv, c.ID, secret)
			if r.json["key_id"] != c.ID || r.json["client_id"] != c.ID || r.json["organization_id"] != srv.OrgID {
				t.Errorf("sign-in answer: %s", r.body)
			}
			if scopes, _ := r.json["scopes"].([]any); len(scopes) != 1 || scopes[0] != auth.ScopeCreatorsRead {
				t.Errorf("scopes %v, want [creators:read]", r.json["scopes"])
			}

			// Within its scopes, by REST and Connect; outside them 403.
			if r := b.rest("GET", "/v1/creators", nil); r.status != http.StatusOK {
				t.Fatalf("REST read: %d %s", r.status, r.body)
			}
			if r := b.connect("CreatorsService/ListCreators", map[string]any{}); r.status != http.StatusOK {
				t.Fatalf("Connect read: %d %s", r.status, r.body)
			}
			w := b.rest("POST", "/v1/creators", map[string]any{"name": "Nova", "email": "nova@example.com", "vertical": "music"})
			if w.status != http.StatusForbidden || w.reason() != "MISSING_SCOPE" {
				t.Errorf("REST write: %d %s, want 403 MISSING_SCOPE", w.status, w.body)
			}
			if w := b.connect("KeysService/ListKeys", map[string]any{}); w.status != http.StatusForbidden {
				t.Errorf("Connect outside its scopes: %d %s, want 403", w.status, w.body)
			}
			// Usage (the four calls, refused ones too) is the client's, as
			// with its bearer tokens.
			if err := srv.FlushAnalytics(ctx); err != nil {
				t.Fatal(err)
			}
			u := srv.Do(t, "GET", "/v1/analytics/usage?key_id="+c.ID, srv.AdminKey, nil)
			if totals, _ := u.JSON["totals"].(map[string]any); u.Status != 200 || totals["requests"] != "4" {
				t.Errorf("usage of the client's session: %d %s", u.Status, u.Body)
			}

			// Rotation: the session ends with the old secret's grace.
			rot := srv.Do(t, "POST", "/v1/oauth/clients/"+c.ID+":rotate", srv.AdminKey, map[string]any{"grace_period": "3600s"})
			if rot.Status != 200 {
				t.Fatalf("rotate: %d %s", rot.Status, rot.Body)
			}
			if err := srv.SyncKeys(ctx); err != nil {
				t.Fatal(err)
			}
			row, err := srv.Store.Ent.OAuthClient.Get(ctx, c.ID)
			if err != nil || row.PreviousSecretExpiresAt == nil {
				t.Fatalf("rotated client: %v %v", row, err)
			}
			g := b.send(srv, "GET", "/dashboard/api/session", nil, false)
			exp, _ := time.Parse(time.RFC3339Nano, stringOf(g.json["expires_at"]))
			if g.status != 200 || !exp.Truncate(time.Microsecond).Equal(row.PreviousSecretExpiresAt.UTC().Truncate(time.Microsecond)) {
				t.Errorf("session after rotation: %d expires %v, want the grace end %v", g.status, exp, *row.PreviousSecretExpiresAt)
			}
			// The old secret still signs in during its grace, until then.
			old, r2 := signInClient(t, srv, c.ID, secret)
			if e, _ := time.Parse(time.RFC3339Nano, stringOf(r2.json["expires_at"])); !e.Truncate(time.Microsecond).Equal(exp.Truncate(time.Microsecond)) {
				t.Errorf("sign-in with the secret in grace ends %v, want %v", e, exp)
			}
			// A rotation without grace ends the sessions at once.
			rot = srv.Do(t, "POST", "/v1/oauth/clients/"+c.ID+":rotate", srv.AdminKey, map[string]any{"grace_period": "0s"})
			if rot.Status != 200 {
				t.Fatalf("rotate without grace: %d %s", rot.Status, rot.Body)
			}
			if err := srv.SyncKeys(ctx); err != nil {
				t.Fatal(err)
			}
			for _, br := range []*browser{b, old} {
				if r := br.rest("GET", "/v1/creators", nil); r.status != http.StatusUnauthorized {
					t.Errorf("session after a rotation without grace: %d, want 401", r.status)
				}
			}
			newSecret := stringOf(rot.JSON["secret"])

			// Revocation ends the session.
			s3, _ := signInClient(t, srv, c.ID, newSecret)
			if r := s3.rest("GET", "/v1/creators", nil); r.status != http.StatusOK {
				t.Fatalf("before revocation: %d", r.status)
			}
			if d := srv.Do(t, "DELETE", "/v1/oauth/clients/"+c.ID, srv.AdminKey, nil); d.Status >= 300 {
				t.Fatalf("revoke: %d %s", d.Status, d.Body)
			}
			if err := srv.SyncKeys(ctx); err != nil {
				t.Fatal(err)
			}
			if r := s3.rest("GET", "/v1/creators", nil); r.status != http.StatusUnauthorized {
				t.Errorf("REST after revocation: %d, want 401", r.status)
			}
			if r := s3.send(srv, "GET", "/dashboard/api/session", nil, false); r.status != http.StatusUnauthorized {
				t.Errorf("session after revocation: %d, want 401", r.status)
			}
			nb := &browser{t: t, srv: srv}
			if r := nb.send(srv, "POST", "/dashboard/api/session", map[string]string{"client_id": c.ID, "client_secret": newSecret}, false); r.status != http.StatusUnauthorized {
				t.Errorf("sign-in with a revoked client: %d, want 401", r.status)
			}
		})
	}
}

func stringOf(v any) string { s, _ := v.(string); return s }

// A wrong secret is 401; the body must hold exactly one of api_key and
// the pair client_id, client_secret, or 400 names the field.
func TestSessionClientSignInErrors(t *testing.T) {
	srv := testserver.Start(t, testserver.Options{NoWorkers: true})
	c, secret, err := srv.OAuth().CreateClient(context.Background(), oauth.NewClientParams{OrganizationID: srv.OrgID, Name: "erp",
		Scopes: []string{auth.ScopeCreatorsRead}})
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name   string
		body   map[string]string
		status int
		field  string
	}{
		{"wrong secret", map[string]string{"client_id": c.ID, "client_secret": oauth.SecretPrefix + "wrong"}, 401, ""},
		{"unknown client", map[string]string{"client_id": "oc_01jxxxxxxxxxxxxxxxxxxxxxxx", "client_secret": secret}, 401, ""},
		{"both", map[string]string{"api_key": srv.AdminKey, "client_id": c.ID, "client_secret": secret}, 400, "api_key"},
		{"neither", map[string]string{}, 400, "api_key"},
		{"no secret", map[string]string{"client_id": c.ID}, 400, "client_secret"},
		{"no id", map[string]string{"client_secret": secret}, 400, "client_id"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b := &browser{t: t, srv: srv}
			r := b.send(srv, "POST", "/dashboard/api/session", tc.body, false)
			if r.status != tc.status {
				t.Fatalf("%d %s, want %d", r.status, r.body, tc.status)
			}
			if tc.field != "" {
				if f := (testserver.Response{JSON: r.json}).ViolatedFields(); len(f) != 1 || f[0] != tc.field {
					t.Errorf("fields %v, want [%s]: %s", f, tc.field, r.body)
				}
			}
			if len(r.header.Values("Set-Cookie")) != 0 {
				t.Errorf("a refused sign-in set a cookie")
			}
		})
	}
}
