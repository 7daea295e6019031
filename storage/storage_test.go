package storage

import (
	"context"
	"database/sql"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/creativeops/creativeops/internal/testdb"
)

// A replica's PostgreSQL pool holds DefaultMaxConns connections unless the
// database URL's pool_max_conns asks for another number.
func TestPostgresPoolSize(t *testing.T) {
	base := testdb.PostgresURL(t)
	u, err := url.Parse(base)
	if err != nil {
		t.Fatal(err)
	}
	q := u.Query()
	q.Set("pool_max_conns", "3")
	u.RawQuery = q.Encode()
	for _, c := range []struct {
		url  string
		want int32
	}{
		{base, DefaultMaxConns},
		{u.String(), 3},
	} {
		st, err := Open(context.Background(), c.url)
		if err != nil {
			t.Fatal(err)
		}
		got := st.Pool.Config().MaxConns
		st.Close()
		if got != c.want {
			t.Errorf("%s: pool of %d, want %d", c.url, got, c.want)
		}
	}
}

// On PostgreSQL, database/sql keeps IdleConns of the pool's connections
// between statements instead of acquiring and wrapping one per statement
// (OpenDBFromPool keeps none), and never more: the rest of the pool stays
// free for River's workers.
func TestPostgresIdleConns(t *testing.T) {
	st, err := Open(context.Background(), testdb.PostgresURL(t))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	ctx := context.Background()
	want := IdleConns(st.Pool.Config().MaxConns)
	if want != DefaultMaxConns/2 {
		t.Fatalf("IdleConns(%d) = %d, want %d", DefaultMaxConns, want, DefaultMaxConns/2)
	}
	// More connections at once than may stay idle.
	conns := make([]*sql.Conn, want+2)
	for i := range conns {
		if conns[i], err = st.DB.Conn(ctx); err != nil {
			t.Fatal(err)
		}
	}
	for _, c := range conns {
		if err := c.Close(); err != nil {
			t.Fatal(err)
		}
	}
	if idle := st.DB.Stats().Idle; idle != want {
		t.Fatalf("%d idle connections in database/sql, want %d", idle, want)
	}
	if free := st.Pool.Stat().IdleConns(); free < 2 {
		t.Fatalf("pgx pool has %d idle connections left for River, want at least 2", free)
	}
	// A statement reuses an idle connection rather than opening another.
	opened := st.DB.Stats().OpenConnections
	for range 10 {
		if _, err := st.DB.ExecContext(ctx, "SELECT 1"); err != nil {
			t.Fatal(err)
		}
	}
	if now := st.DB.Stats().OpenConnections; now != opened {
		t.Fatalf("open connections went from %d to %d over 10 statements", opened, now)
	}
}

// Stores migrating one empty database at once take turns: without that,
// two of them creating the same tables at once fail (on PostgreSQL's
// catalog constraints, or SQLite's "table already exists"). Within one
// process the turns are Migrate's mutex; across processes they are the
// advisory lock or the lock file, which TestReplicasStartTogetherOnAnEmptyDatabase
// (cmd/creativeops) exercises with real processes.
func TestConcurrentMigrate(t *testing.T) {
	for _, b := range testdb.Backends(t) {
		t.Run(b.Name, func(t *testing.T) {
			url := b.URL(t)
			ctx := context.Background()
			const replicas = 4
			stores := make([]*Store, replicas)
			for i := range stores {
				st, err := Open(ctx, url)
				if err != nil {
					t.Fatal(err)
				}
				defer st.Close()
				stores[i] = st
			}
			errs := make(chan error, replicas)
			start := make(chan struct{})
			for _, st := range stores {
				go func() {
					<-start
					errs <- st.Migrate(ctx)
				}()
			}
			close(start)
			for range replicas {
				if err := <-errs; err != nil {
					t.Errorf("concurrent migration: %v", err)
				}
			}
			// The schema is whole: ent's tables and River's.
			for _, table := range []string{"organizations", "river_job"} {
				var n int
				if err := stores[0].DB.QueryRowContext(ctx, "SELECT count(*) FROM "+table).Scan(&n); err != nil {
					t.Errorf("table %s: %v", table, err)
				}
			}
		})
	}
}

// A database SQLite cannot open is named in the error, with the likely
// cause.
func TestOpenSQLiteErrorNamesThePath(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "creativeops.db")
	if err := os.Mkdir(path, 0o750); err != nil {
		t.Fatal(err)
	}
	_, err := Open(context.Background(), "sqlite://"+path)
	if err == nil || !strings.Contains(err.Error(), path) || !strings.Contains(err.Error(), "is a directory") {
		t.Fatalf("Open on a directory: %v; want the path and the cause", err)
	}
	if os.Geteuid() != 0 { // root writes anywhere
		ro := filepath.Join(dir, "ro")
		if err := os.Mkdir(ro, 0o500); err != nil {
			t.Fatal(err)
		}
		_, err := Open(context.Background(), "sqlite://"+filepath.Join(ro, "x.db"))
		if err == nil || !strings.Contains(err.Error(), ro) || !strings.Contains(err.Error(), "writable") {
			t.Fatalf("Open in a read-only directory: %v; want the path and the cause", err)
		}
	}
}
