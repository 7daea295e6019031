// Package testdb gives tests fresh databases: a SQLite file, or a
// PostgreSQL database created for the test when CREATIVEOPS_TEST_POSTGRES_URL
// is set. It depends on nothing of the service, so any package's tests can
// use it.
package testdb

import (
	"database/sql"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"testing"
	"time"

	_ "github.com/jackc/pgx/v5/stdlib" // the "pgx" database/sql driver
)

// PostgresEnv names the variable holding a PostgreSQL URL for tests. Each
// test gets its own database created from it and dropped afterwards.
const PostgresEnv = "CREATIVEOPS_TEST_POSTGRES_URL"

// Backend is a database a test runs against.
type Backend struct {
	Name string
	// URL returns a fresh, empty database for one test.
	URL func(t testing.TB) string
}

// Backends lists SQLite, and PostgreSQL when configured. Tests that loop over
// it say so when PostgreSQL is skipped.
func Backends(t testing.TB) []Backend {
	out := []Backend{{Name: "sqlite", URL: SQLiteURL}}
	if os.Getenv(PostgresEnv) != "" {
		out = append(out, Backend{Name: "postgres", URL: PostgresURL})
	} else {
		t.Logf("PostgreSQL tests skipped: %s is not set", PostgresEnv)
	}
	return out
}

// SQLiteURL returns a database file in the test's temporary directory.
func SQLiteURL(t testing.TB) string {
	return "sqlite://" + filepath.Join(t.TempDir(), "test.db")
}

// PostgresURL creates a database for the test and drops it at cleanup.
func PostgresURL(t testing.TB) string {
	base := os.Getenv(PostgresEnv)
	if base == "" {
		t.Skipf("PostgreSQL tests skipped: %s is not set", PostgresEnv)
	}
	u, err := url.Parse(base)
	if err != nil {
		t.Fatalf("%s: %v", PostgresEnv, err)
	}
	name := fmt.Sprintf("co_test_%d", time.Now().UnixNano())
	admin, err := sql.Open("pgx", base)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := admin.Exec("CREATE DATABASE " + name); err != nil {
		admin.Close()
		t.Fatalf("create test database: %v", err)
	}
	t.Cleanup(func() {
		_, _ = admin.Exec("DROP DATABASE IF EXISTS " + name + " WITH (FORCE)")
		admin.Close()
	})
	u.Path = "/" + name
	return OnDemand(u.String())
}

// OnDemand returns a PostgreSQL URL with pool_min_conns=0 unless it sets
// pool_min_conns itself. Servers open their pools whole (storage.Warm):
// 24 connections each, which tests running side by side (several servers
// each, two packages at a time) would soon take from the server's 100.
// Tests' servers connect on demand instead.
func OnDemand(rawURL string) string {
	u, err := url.Parse(rawURL)
	if rawURL == "" || err != nil {
		return rawURL // the caller's own parse reports it
	}
	if q := u.Query(); !q.Has("pool_min_conns") {
		q.Set("pool_min_conns", "0")
		u.RawQuery = q.Encode()
	}
	return u.String()
}

// Values reads every row of rows, each as its columns' values ([]byte
// read as a string), and closes rows: for tests that print what a query
// returned (EXPLAIN's plan, a table's raw rows).
func Values(t testing.TB, rows *sql.Rows) (cols []string, out [][]any) {
	t.Helper()
	defer rows.Close()
	cols, err := rows.Columns()
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		vals := make([]any, len(cols))
		ptrs := make([]any, len(cols))
		for i := range vals {
			ptrs[i] = &vals[i]
		}
		if err := rows.Scan(ptrs...); err != nil {
			t.Fatal(err)
		}
		for i, v := range vals {
			if raw, ok := v.([]byte); ok {
				vals[i] = string(raw)
			}
		}
		out = append(out, vals)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return cols, out
}
