package server_test

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

// A start that fails leaves nothing behind: no master key, no database,
// no directory. Everything that can be checked is checked before any file
// is written.
func TestFailedStartLeavesNoFiles(t *testing.T) {
	ctx := context.Background()
	// A database whose secrets are sealed under the test servers' key.
	sealedDB := testdb.SQLiteURL(t)
	s := testserver.Start(t, testserver.Options{DatabaseURL: sealedDB})
	if err := s.Shutdown(ctx); err != nil {
		t.Logf("shutdown: %v", err)
	}
	tmp := t.TempDir()
	mistyped := filepath.Join(tmp, "no", "such", "dir", "x.db")
	for _, c := range []struct {
		name string
		cfg  server.Config
		want string // in the error
	}{
		{"a database sealed under another master key, and no key file",
			server.Config{DatabaseURL: sealedDB}, "no key file was written"},
		{"a missing TLS certificate",
			server.Config{DatabaseURL: "sqlite://" + filepath.Join(tmp, "new.db"), TLSCertFile: filepath.Join(tmp, "missing.pem"), TLSKeyFile: filepath.Join(tmp, "missing-key.pem")}, "missing.pem"},
		{"a mistyped database path",
			server.Config{DatabaseURL: "sqlite://" + mistyped}, filepath.Dir(mistyped)},
		// Found once the new database exists: the database goes again.
		{"a missing master key file",
			server.Config{DatabaseURL: "sqlite://" + filepath.Join(tmp, "new.db"), MasterKeyFiles: []string{filepath.Join(t.TempDir(), "missing.key")}}, "missing.key"},
	} {
		t.Run(c.name, func(t *testing.T) {
			dataDir := filepath.Join(t.TempDir(), "data")
			if err := os.Mkdir(dataDir, 0o750); err != nil {
				t.Fatal(err)
			}
			c.cfg.DataDir, c.cfg.Logger = dataDir, slog.New(slog.DiscardHandler)
			_, err := server.New(ctx, c.cfg)
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("start: %v, want an error naming %q", err, c.want)
			}
			if entries, _ := os.ReadDir(dataDir); len(entries) != 0 {
				t.Errorf("the failed start left %v in the data directory", entries)
			}
			if entries, _ := os.ReadDir(tmp); len(entries) != 0 {
				t.Errorf("the failed start left %v beside the database", entries)
			}
		})
	}
	// The data directory's own master key is written once the start can
	// succeed, and a new database is announced with its path.
	dataDir := t.TempDir()
	dbPath := filepath.Join(dataDir, "sub", "creativeops.db")
	var logs bytes.Buffer
	srv, err := server.New(ctx, server.Config{DatabaseURL: "sqlite://" + dbPath, DataDir: dataDir, Logger: slog.New(slog.NewTextHandler(&logs, nil))})
	if err != nil {
		t.Fatal(err)
	}
	_ = srv.Shutdown(ctx)
	if _, err := os.Stat(filepath.Join(dataDir, secrets.DefaultKeyFile)); err != nil {
		t.Errorf("no master key after a successful start: %v", err)
	}
	if !strings.Contains(logs.String(), "level=WARN") || !strings.Contains(logs.String(), "created a new, empty database") || !strings.Contains(logs.String(), dbPath) {
		t.Errorf("a new database was not announced:\n%s", logs.String())
	}
	// The next start opens it quietly.
	logs.Reset()
	srv, err = server.New(ctx, server.Config{DatabaseURL: "sqlite://" + dbPath, DataDir: dataDir, Logger: slog.New(slog.NewTextHandler(&logs, nil))})
	if err != nil {
		t.Fatal(err)
	}
	_ = srv.Shutdown(ctx)
	if strings.Contains(logs.String(), "new, empty database") {
		t.Errorf("an existing database announced as new:\n%s", logs.String())
	}
}
