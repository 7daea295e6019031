package main

import (
	"bytes"
	"context"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/creativeops/creativeops/internal/testdb"
	"github.com/creativeops/creativeops/internal/testserver"
	"github.com/creativeops/creativeops/secrets"
	"github.com/creativeops/creativeops/server"
)

// Rotating the master key: a new key file, `secrets rotate` with the new
// key first and the old one second, then the new key alone opens
// everything and the old one nothing.
func TestSecretsRotate(t *testing.T) {
	url := testdb.SQLiteURL(t)
	s := testserver.Start(t, testserver.Options{DatabaseURL: url})
	if r := s.Do(t, "POST", "/v1/webhooks", s.AdminKey, map[string]any{"url": "https://hooks.example.com/x", "events": []string{"*"}}); r.Status != 201 {
		t.Fatalf("create webhook: %d %s", r.Status, r.Body)
	}
	if err := s.Shutdown(t.Context()); err != nil {
		t.Fatal(err)
	}
	oldFile := testserver.MasterKeyFile(t)
	newFile := filepath.Join(t.TempDir(), "new.key")

	var out bytes.Buffer
	if err := run(t.Context(), []string{"secrets", "new-key", "--out", newFile}, &out, &bytes.Buffer{}); err != nil {
		t.Fatal(err)
	}
	newKey, err := secrets.ReadKeyFile(newFile)
	if err != nil {
		t.Fatal(err)
	}
	if fi, _ := os.Stat(newFile); fi.Mode().Perm() != 0o600 || !strings.Contains(out.String(), secrets.KeyID(newKey)) {
		t.Fatalf("new-key: mode %v, printed %q", fi.Mode().Perm(), out.String())
	}
	if err := run(t.Context(), []string{"secrets", "new-key", "--out", newFile}, &bytes.Buffer{}, &bytes.Buffer{}); err == nil {
		t.Fatal("new-key overwrote an existing key file")
	}

	// Without the old key the database cannot be opened: nothing changes.
	if err := run(t.Context(), []string{"secrets", "rotate", "--database-url", url, "--master-key-file", newFile}, &bytes.Buffer{}, &bytes.Buffer{}); err == nil || !strings.Contains(err.Error(), newFile) {
		t.Fatalf("rotate without the old key: %v", err)
	}

	out.Reset()
	if err := run(t.Context(), []string{"secrets", "rotate", "--database-url", url, "--master-key-file", newFile + "," + oldFile}, &out, &bytes.Buffer{}); err != nil {
		t.Fatal(err)
	}
	// The webhook's secret, the IP registry's keys and the OAuth signing key.
	if !strings.Contains(out.String(), "sealed 3 secrets") {
		t.Fatalf("rotate printed %q", out.String())
	}
	// Both reseals and an IP registry key rotation are in the
	// installation's audit log, by the operator, under the new key's id.
	if err := run(t.Context(), []string{"ip", "rotate-keys", "--database-url", url, "--master-key-file", newFile}, &bytes.Buffer{}, &bytes.Buffer{}); err != nil {
		t.Fatal(err)
	}
	code, log, errOut := cli(t, "audit", "list", "--installation", "--database-url", url)
	lines := strings.Split(strings.TrimSpace(log), "\n")
	if code != 0 || len(lines) != 4 {
		t.Fatalf("audit list --installation: exit %d, %q\n%s", code, errOut, log)
	}
	if f := strings.Fields(lines[1]); f[1] != "ip.keys_rotated" || !strings.HasPrefix(f[2], "cli:") || f[3] != "ip_log" || f[5] != "cli" {
		t.Errorf("IP key rotation: %q", lines[1])
	}
	for _, l := range lines[2:] {
		if f := strings.Fields(l); f[1] != "secrets.resealed" || !strings.HasPrefix(f[2], "cli:") || f[3] != "master_key" || f[4] != secrets.KeyID(newKey) {
			t.Errorf("reseal: %q", l)
		}
	}
	if !strings.Contains(log, "kind=webhook signing secrets") || !strings.Contains(log, "kind=IP registry keys") {
		t.Errorf("reseals do not say what they sealed:\n%s", log)
	}

	s2 := testserver.Start(t, testserver.Options{DatabaseURL: url, Configure: func(c *server.Config) { c.MasterKeyFiles = []string{newFile} }})
	if err := s2.Shutdown(t.Context()); err != nil {
		t.Fatal(err)
	}
	_, err = server.New(context.Background(), server.Config{DatabaseURL: url, DataDir: t.TempDir(), MasterKeyFiles: []string{oldFile}, Logger: slog.New(slog.DiscardHandler)})
	if err == nil || !strings.Contains(err.Error(), oldFile) {
		t.Fatalf("start with the retired key: %v", err)
	}
}
