package main

import (
	"context"
	"database/sql"
	"errors"
	"os"
	"strings"
	"syscall"
	"testing"

	"github.com/creativeops/creativeops/internal/clustertest"
	"github.com/creativeops/creativeops/internal/testdb"
	"github.com/creativeops/creativeops/storage"
)

// An interrupted run leaves nothing behind: once its context ends (as on
// SIGINT, SIGTERM or SIGHUP) the phases return at once, and closing the
// session stops the server processes, drops the PostgreSQL databases and
// removes the run directory.
func TestInterruptedRunCleansUp(t *testing.T) {
	if testing.Short() {
		t.Skip("starts server processes")
	}
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp)
	ms := []mode{{"sqlite", 1}}
	o := options{duration: 1, maxDuration: 1, rates: []int{1}, rounds: 1, concurrency: 1, postgres: os.Getenv(clustertest.PostgresEnv)}
	if o.postgres != "" {
		o.postgres = testdb.OnDemand(o.postgres)
		ms = append(ms, mode{"postgres", 2})
	} else {
		t.Logf("PostgreSQL part skipped: %s is not set", clustertest.PostgresEnv)
	}
	sess, err := newSession(false)
	if err != nil {
		t.Fatal(err)
	}
	closed := false
	t.Cleanup(func() {
		if !closed {
			sess.close()
		}
	})
	ctx, cancel := context.WithCancel(context.Background())
	var pids []int
	var dbs []string
	for _, m := range ms {
		mr, err := sess.start(ctx, o, m, os.Getenv(binEnv))
		if err != nil {
			t.Fatalf("%s: %v", m, err)
		}
		for _, r := range mr.c.Replicas {
			pids = append(pids, r.PID())
		}
		if name := dbName(mr.c.DatabaseURL, m.db); name != "" {
			dbs = append(dbs, name)
		}
	}
	cancel()
	for _, mr := range sess.runs {
		if err := mr.fixedRate(ctx, o); !errors.Is(err, context.Canceled) {
			t.Errorf("%s: a phase after the interrupt returned %v, want context.Canceled", mr.res.Mode, err)
		}
		if err := mr.maxRound(ctx, o, 0); !errors.Is(err, context.Canceled) {
			t.Errorf("%s: a round after the interrupt returned %v, want context.Canceled", mr.res.Mode, err)
		}
	}
	sess.close()
	closed = true

	entries, err := os.ReadDir(tmp)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if strings.HasPrefix(e.Name(), "creativeops-bench-") {
			t.Errorf("run directory %s left behind", e.Name())
		}
	}
	for _, pid := range pids {
		if err := syscall.Kill(pid, 0); !errors.Is(err, syscall.ESRCH) {
			t.Errorf("server process %d still exists (%v)", pid, err)
		}
	}
	if len(dbs) > 0 {
		admin, err := sql.Open("pgx", storage.WithoutPoolParams(o.postgres))
		if err != nil {
			t.Fatal(err)
		}
		defer admin.Close()
		for _, name := range dbs {
			var n int
			if err := admin.QueryRow("SELECT count(*) FROM pg_database WHERE datname = $1", name).Scan(&n); err != nil || n != 0 {
				t.Errorf("database %s left behind (%d, %v)", name, n, err)
			}
		}
	}
}
