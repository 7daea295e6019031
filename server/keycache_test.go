package server_test

import (
	"context"
	"net/http"
	"testing"

	"github.com/creativeops/creativeops/auth"
	"github.com/creativeops/creativeops/internal/testdb"
	"github.com/creativeops/creativeops/internal/testserver"
	"github.com/creativeops/creativeops/storage"
)

// Two replicas on one PostgreSQL database cache verified keys: a key
// revoked through one replica's API, or by the CLI straight in the
// database, is refused by the other once it has polled the key epoch.
func TestRevocationReachesOtherReplica(t *testing.T) {
	url := testdb.PostgresURL(t)
	a := testserver.Start(t, testserver.Options{DatabaseURL: url, NoWorkers: true})
	b := testserver.Start(t, testserver.Options{DatabaseURL: url, NoWorkers: true})
	ctx := context.Background()
	sync := func() {
		t.Helper()
		if err := b.SyncKeys(ctx); err != nil {
			t.Fatal(err)
		}
	}
	newKey := func() (id, secret string) {
		t.Helper()
		r := a.Do(t, "POST", "/v1/keys", a.AdminKey, map[string]any{"name": "app", "scopes": []string{"creators:read"}})
		if r.Status != http.StatusCreated {
			t.Fatalf("create key: %d %s", r.Status, r.Body)
		}
		return r.JSON["id"].(string), r.JSON["secret"].(string)
	}
	list := func(s *testserver.Server, key string) int {
		t.Helper()
		return s.Do(t, "GET", "/v1/creators", key, nil).Status
	}

	id, secret := newKey()
	sync()
	if st := list(b, secret); st != http.StatusOK {
		t.Fatalf("replica b, new key: %d", st)
	}
	if r := a.Do(t, "DELETE", "/v1/keys/"+id, a.AdminKey, nil); r.Status != http.StatusOK && r.Status != http.StatusNoContent {
		t.Fatalf("revoke: %d %s", r.Status, r.Body)
	}
	if st := list(a, secret); st != http.StatusUnauthorized {
		t.Fatalf("replica a, right after revoking: %d, want 401", st)
	}
	sync()
	if st := list(b, secret); st != http.StatusUnauthorized {
		t.Fatalf("replica b after its poll: %d, want 401", st)
	}

	// The CLI: a Store on its own connection, as `creativeops keys revoke`.
	id, secret = newKey()
	sync()
	for _, s := range []*testserver.Server{a, b} {
		if st := list(s, secret); st != http.StatusOK {
			t.Fatalf("new key: %d", st)
		}
	}
	cli, err := storage.Open(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	defer cli.Close()
	if err := (&auth.Store{Ent: cli.Ent}).RevokeKey(ctx, nil, a.OrgID, id); err != nil {
		t.Fatal(err)
	}
	sync()
	if err := a.SyncKeys(ctx); err != nil {
		t.Fatal(err)
	}
	for _, s := range []*testserver.Server{a, b} {
		if st := list(s, secret); st != http.StatusUnauthorized {
			t.Fatalf("key revoked by the CLI: %d, want 401", st)
		}
	}
}
