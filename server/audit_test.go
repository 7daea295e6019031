package server_test

import (
	"context"
	"database/sql"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"buf.build/gen/go/bufbuild/protovalidate/protocolbuffers/go/buf/validate"
	"google.golang.org/grpc/metadata"
	"google.golang.org/protobuf/proto"

	"github.com/creativeops/creativeops/audit"
	"github.com/creativeops/creativeops/auth"
	creativeopsv1 "github.com/creativeops/creativeops/gen/creativeops/v1"
	"github.com/creativeops/creativeops/ids"
	"github.com/creativeops/creativeops/internal/testdb"
	"github.com/creativeops/creativeops/internal/testserver"
	"github.com/creativeops/creativeops/server"
)

// Every audited change made through the API is listed with the key that
// made it, its target, and where it came from (transport, client address,
// user agent, request id), whichever transport carried it.
func TestAuditRecordsEachChangeWithItsOrigin(t *testing.T) {
	for _, b := range testdb.Backends(t) {
		t.Run(b.Name, func(t *testing.T) {
			s := testserver.Start(t, testserver.Options{DatabaseURL: b.URL(t)})
			ctx := context.Background()
			admin, err := s.Keys.Authenticate(ctx, s.AdminKey)
			if err != nil {
				t.Fatal(err)
			}
			grpcCtx := metadata.AppendToOutgoingContext(ctx, "authorization", "Bearer "+s.AdminKey, "x-request-id", "req-grpc-audit")
			must := func(r testserver.Response, want int) testserver.Response {
				t.Helper()
				if r.Status != want {
					t.Fatalf("HTTP %d, want %d: %s", r.Status, want, r.Body)
				}
				return r
			}
			ua := []string{"User-Agent", "audit-test/1.0"}

			// key.created over REST
			created := must(s.Do(t, "POST", "/v1/keys", s.AdminKey, map[string]any{"name": "ci", "scopes": []string{"ip:read"}}, ua...), http.StatusCreated)
			keyID, keySecret := created.JSON["id"].(string), created.JSON["secret"].(string)
			restRequestID := created.Header.Get("X-Request-Id")
			// key.rotated over gRPC
			rotated, err := creativeopsv1.NewKeysServiceClient(s.Conn(t)).RotateKey(grpcCtx, &creativeopsv1.RotateKeyRequest{Id: keyID})
			if err != nil {
				t.Fatal(err)
			}
			// key.revoked over Connect
			revoke := must(s.Do(t, "POST", "/creativeops.v1.KeysService/RevokeKey", s.AdminKey, map[string]any{"id": keyID}, ua...), http.StatusOK)
			connectRequestID := revoke.Header.Get("X-Request-Id")
			// webhook.created over REST, webhook.deleted over gRPC
			wh := must(s.Do(t, "POST", "/v1/webhooks", s.AdminKey, map[string]any{
				"url": "http://127.0.0.1:9/hooks/T0001/B0002/credential-in-path?token=abc", "events": []string{"creator.created"}}, ua...), http.StatusCreated)
			whID, whSecret := wh.JSON["id"].(string), wh.JSON["secret"].(string)
			if _, err := creativeopsv1.NewWebhooksServiceClient(s.Conn(t)).DeleteWebhook(grpcCtx, &creativeopsv1.DeleteWebhookRequest{Id: whID}); err != nil {
				t.Fatal(err)
			}

			list := must(s.Do(t, "GET", "/v1/audit-events?page_size=10&actor="+admin.KeyID, s.AdminKey, nil), http.StatusOK)
			evs, _ := list.JSON["audit_events"].([]any)
			type want struct{ action, target, transport, requestID, userAgent string }
			wants := []want{ // newest first
				{"webhook.deleted", whID, "grpc", "req-grpc-audit", "grpc-go/"},
				{"webhook.created", whID, "rest", "", "audit-test/1.0"},
				{"key.revoked", keyID, "connect", connectRequestID, "audit-test/1.0"},
				{"key.rotated", keyID, "grpc", "req-grpc-audit", "grpc-go/"},
				{"key.created", keyID, "rest", restRequestID, "audit-test/1.0"},
			}
			if len(evs) != len(wants) {
				t.Fatalf("want %d events, got %d: %s", len(wants), len(evs), list.Body)
			}
			for i, w := range wants {
				ev := evs[i].(map[string]any)
				o := ev["origin"].(map[string]any)
				if ev["action"] != w.action || ev["target_id"] != w.target || ev["actor"] != admin.KeyID || ev["organization_id"] != s.OrgID ||
					o["transport"] != w.transport || o["client_ip"] != "127.0.0.1" || o["request_id"] == "" ||
					(w.requestID != "" && o["request_id"] != w.requestID) || !strings.Contains(o["user_agent"].(string), w.userAgent) {
					t.Errorf("event %d: want %+v, got %v", i, w, ev)
				}
			}
			created0 := evs[4].(map[string]any)["details"].(map[string]any)
			if created0["name"] != "ci" || created0["scopes"] != "ip:read" {
				t.Errorf("key.created details: %v", created0)
			}
			if d := evs[1].(map[string]any)["details"].(map[string]any); d["endpoint"] != "http://127.0.0.1:9" || d["events"] != "creator.created" {
				t.Errorf("webhook.created details: %v", d)
			}

			// No secret, hash of one or credential-bearing URL part in any
			// column of any row.
			forbidden := []string{keySecret, rotated.GetSecret(), auth.Hash(keySecret), auth.Hash(rotated.GetSecret()), s.AdminKey,
				whSecret, "whsec_", "co_live_", "credential-in-path", "token=abc"}
			for _, row := range rawAuditRows(t, s.Store.DB) {
				for _, f := range forbidden {
					if strings.Contains(row, f) {
						t.Errorf("audit row holds %q: %s", f, row)
					}
				}
			}
		})
	}
}

// rawAuditRows returns every audit_events row, all columns as text.
func rawAuditRows(t *testing.T, db *sql.DB) []string {
	t.Helper()
	rows, err := db.Query("SELECT * FROM audit_events")
	if err != nil {
		t.Fatal(err)
	}
	cols, vals := testdb.Values(t, rows)
	var out []string
	for _, row := range vals {
		var b strings.Builder
		for i, v := range row {
			fmt.Fprintf(&b, "%s=%v ", cols[i], v)
		}
		out = append(out, b.String())
	}
	if len(out) == 0 {
		t.Fatal("no audit rows: the secret check would pass vacuously")
	}
	return out
}

// A change that fails leaves no entry: a key the caller may not manage, a
// key of another organization, an unknown scope, a refused webhook URL, a
// webhook that does not exist. And an organization's log pages like every list, each page
// continuing where the last stopped, and is its own: another
// organization's admin sees none of it.
func TestAuditFailedChangesAndIsolation(t *testing.T) {
	for _, b := range testdb.Backends(t) {
		t.Run(b.Name, func(t *testing.T) {
			s := testserver.Start(t, testserver.Options{DatabaseURL: b.URL(t)})
			other := s.NewKey(t, "globex", auth.ScopeAll)
			limited := s.NewKey(t, "acme", auth.ScopeKeysAdmin)
			before := auditCount(t, s, s.AdminKey)
			k := s.Do(t, "POST", "/v1/keys", s.AdminKey, map[string]any{"name": "ci", "scopes": []string{"ip:read"}})
			keyID := k.JSON["id"].(string)
			for _, c := range []struct {
				key, method, path string
				body              any
				want              int
			}{
				{limited, "POST", "/v1/keys/" + keyID + ":rotate", map[string]any{}, http.StatusForbidden}, // lacks ip:read
				{other, "DELETE", "/v1/keys/" + keyID, nil, http.StatusNotFound},
				{s.AdminKey, "POST", "/v1/keys", map[string]any{"name": "x", "scopes": []string{"nope"}}, http.StatusBadRequest},
				{s.AdminKey, "POST", "/v1/webhooks", map[string]any{"url": "ftp://x", "events": []string{"creator.created"}}, http.StatusBadRequest},
				{s.AdminKey, "DELETE", "/v1/webhooks/wh_01kaaaaaaaaaaaaaaaaaaaaaaa", nil, http.StatusNotFound},
			} {
				if r := s.Do(t, c.method, c.path, c.key, c.body); r.Status != c.want {
					t.Errorf("%s %s: %d, want %d: %s", c.method, c.path, r.Status, c.want, r.Body)
				}
			}
			if n := auditCount(t, s, s.AdminKey); n != before+1 {
				t.Errorf("failed changes were audited: %d events, want %d", n, before+1)
			}

			for range 4 {
				if r := s.Do(t, "POST", "/v1/keys/"+keyID+":rotate", s.AdminKey, map[string]any{"grace_period": "0s"}); r.Status != http.StatusOK {
					t.Fatalf("rotate: %d %s", r.Status, r.Body)
				}
			}
			var seen []string
			token := ""
			for page := 0; ; page++ {
				r := s.Do(t, "GET", "/v1/audit-events?page_size=2&target_id="+keyID+"&page_token="+token, s.AdminKey, nil)
				if r.Status != http.StatusOK || page > 5 {
					t.Fatalf("page %d: %d %s", page, r.Status, r.Body)
				}
				for _, ev := range r.JSON["audit_events"].([]any) {
					seen = append(seen, ev.(map[string]any)["action"].(string))
				}
				if token, _ = r.JSON["next_page_token"].(string); token == "" {
					break
				}
			}
			if got := strings.Join(seen, ","); got != "key.rotated,key.rotated,key.rotated,key.rotated,key.created" {
				t.Errorf("pages: %s", got)
			}
			// A token from one filter does not continue another list.
			r := s.Do(t, "GET", "/v1/audit-events?page_size=2&target_id="+keyID, s.AdminKey, nil)
			tok := r.JSON["next_page_token"].(string)
			if r := s.Do(t, "GET", "/v1/audit-events?page_size=2&action=key.created&page_token="+tok, s.AdminKey, nil); r.Status != http.StatusBadRequest {
				t.Errorf("token reused with another filter: %d %s", r.Status, r.Body)
			}

			// globex's own log holds its key's creation only.
			r = s.Do(t, "GET", "/v1/audit-events", other, nil)
			for _, ev := range r.JSON["audit_events"].([]any) {
				if ev.(map[string]any)["target_id"] == keyID {
					t.Errorf("globex sees acme's event %v", ev)
				}
			}
		})
	}
}

func auditCount(t *testing.T, s *testserver.Server, key string) int {
	t.Helper()
	r := s.Do(t, "GET", "/v1/audit-events?page_size=200", key, nil)
	if r.Status != http.StatusOK {
		t.Fatalf("list: %d %s", r.Status, r.Body)
	}
	return len(r.JSON["audit_events"].([]any))
}

// The clean-up deletes audit events older than the audit retention and
// keeps the others.
func TestAuditRetention(t *testing.T) {
	s := testserver.Start(t, testserver.Options{Configure: func(c *server.Config) { c.AuditRetention = time.Hour }})
	ctx := context.Background()
	old := s.Store.Ent.AuditEvent.Create().SetID(ids.New(ids.AuditEvent)).SetOrganizationID(s.OrgID).SetActor("system").
		SetAction("key.created").SetTargetType("api_key").SetTargetID("key_old").SetTransport("system").
		SetCreatedAt(time.Now().Add(-2 * time.Hour)).SaveX(ctx)
	before := auditCount(t, s, s.AdminKey)
	if err := s.CleanUp(ctx); err != nil {
		t.Fatal(err)
	}
	if n := auditCount(t, s, s.AdminKey); n != before-1 {
		t.Errorf("%d events after clean-up, want %d", n, before-1)
	}
	if _, err := s.Store.Ent.AuditEvent.Get(ctx, old.ID); err == nil {
		t.Error("the event past the retention is still there")
	}
}

// The action filter accepts exactly the actions an organization's log can
// hold: every audit action but the installation-wide ones.
func TestAuditActionFilterMatchesTheActions(t *testing.T) {
	fd := (&creativeopsv1.ListAuditEventsRequest{}).ProtoReflect().Descriptor().Fields().ByName("action")
	rules, _ := proto.GetExtension(fd.Options(), validate.E_Field).(*validate.FieldRules)
	accepted := map[string]bool{}
	for _, a := range rules.GetString().GetIn() {
		accepted[a] = true
	}
	if !accepted[""] {
		t.Error("an empty action (no filter) is refused")
	}
	installation := map[audit.Action]bool{audit.SecretsResealed: true, audit.IPKeysRotated: true}
	for _, a := range audit.Actions {
		if accepted[string(a)] == installation[a] {
			t.Errorf("%s: accepted by the filter is %v, want %v", a, accepted[string(a)], !installation[a])
		}
	}
	if len(accepted) != 1+len(audit.Actions)-len(installation) {
		t.Errorf("the filter accepts %d values, want %d", len(accepted), 1+len(audit.Actions)-len(installation))
	}
}
