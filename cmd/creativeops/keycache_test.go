package main

import (
	"bytes"
	"context"
	"net/http"
	"strings"
	"testing"

	"github.com/creativeops/creativeops/internal/testdb"
	"github.com/creativeops/creativeops/internal/testserver"
)

// `creativeops keys revoke` writes to the database directly; a running
// server that has the key cached refuses it once it has polled the key
// epoch (every 250 ms; the test asks for the poll instead of waiting).
func TestKeysRevokeReachesARunningServer(t *testing.T) {
	for _, be := range testdb.Backends(t) {
		t.Run(be.Name, func(t *testing.T) {
			url := be.URL(t)
			s := testserver.Start(t, testserver.Options{DatabaseURL: url, NoWorkers: true})
			r := s.Do(t, "POST", "/v1/keys", s.AdminKey, map[string]any{"name": "app", "scopes": []string{"creators:read"}})
			if r.Status != http.StatusCreated {
				t.Fatalf("create key: %d %s", r.Status, r.Body)
			}
			id, secret := r.JSON["id"].(string), r.JSON["secret"].(string)
			if r := s.Do(t, "GET", "/v1/creators", secret, nil); r.Status != http.StatusOK {
				t.Fatalf("new key: %d", r.Status)
			}
			var out, errOut bytes.Buffer
			if err := run(context.Background(), []string{"keys", "revoke", "--org", "acme", "--id", id, "--database-url", url}, &out, &errOut); err != nil {
				t.Fatalf("keys revoke: %v: %s", err, errOut.String())
			}
			if err := s.SyncKeys(context.Background()); err != nil {
				t.Fatal(err)
			}
			if r := s.Do(t, "GET", "/v1/creators", secret, nil); r.Status != http.StatusUnauthorized {
				t.Fatalf("key revoked by the CLI: %d, want 401", r.Status)
			}
		})
	}
}

func TestServeRejectsBadRequestLogFlags(t *testing.T) {
	for _, tc := range []struct{ args, want string }{
		{"--log-requests verbose", "log-requests"},
		{"--log-slow 0s", "log-slow"},
	} {
		args := append([]string{"serve", "--database-url", testdb.SQLiteURL(t), "--data-dir", t.TempDir()}, strings.Fields(tc.args)...)
		err := run(context.Background(), args, &bytes.Buffer{}, &bytes.Buffer{})
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("serve %s: got %v, want an error naming %s", tc.args, err, tc.want)
		}
	}
}
