package storage

import (
	"context"
	"database/sql"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

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
// (OpenDBFromPool keeps none), and never more: callers beyond those wait
// for the pool's connections in turn.
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

// Background work has connections of its own on PostgreSQL: with every
// connection of the requests' pool taken (a burst of requests), the
// background store still runs its statements, and while its database/sql
// holds all it may, River's workers still get a connection from its pool
// (to LISTEN and to fetch jobs). When both shared one pool, a burst made
// asynchronous runs wait seconds to start.
func TestPostgresBackgroundPool(t *testing.T) {
	st, err := Open(context.Background(), testdb.PostgresURL(t))
	if err != nil {
		t.Fatal(err)
	}
	// Closing a pool waits for its connections: held ones are released
	// first (cleanups run last in, first out).
	t.Cleanup(func() { st.Close() })
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	bg := st.Background
	if bg == st || bg.Pool == st.Pool || bg.DB == st.DB {
		t.Fatal("the background store shares the requests' pool")
	}
	if got := bg.Pool.Config().MaxConns; got != BackgroundConns {
		t.Fatalf("background pool of %d connections, want %d", got, BackgroundConns)
	}
	hold := func(db *sql.DB, n int) {
		t.Helper()
		for range n {
			c, err := db.Conn(ctx)
			if err != nil {
				t.Fatalf("take a connection: %v", err)
			}
			t.Cleanup(func() { c.Close() })
		}
	}
	hold(st.DB, int(st.Pool.Config().MaxConns))
	if _, err := bg.DB.ExecContext(ctx, "SELECT 1"); err != nil {
		t.Fatalf("background statement with every request connection taken: %v", err)
	}
	hold(bg.DB, bg.DB.Stats().MaxOpenConnections)
	for range riverReservedConns {
		c, err := bg.Pool.Acquire(ctx)
		if err != nil {
			t.Fatalf("River's workers found no connection: %v", err)
		}
		t.Cleanup(c.Release)
	}
}

// A server's store opens both PostgreSQL pools whole and keeps them so
// (Warm); other stores connect on demand; the URL's pool_min_conns wins.
func TestPostgresWarmPools(t *testing.T) {
	// Without testdb's pool_min_conns, for tests running side by side.
	u, err := url.Parse(WithoutPoolParams(testdb.PostgresURL(t)))
	if err != nil {
		t.Fatal(err)
	}
	q := u.Query()
	open := func(dsn string, opts ...Option) *Store {
		t.Helper()
		st, err := Open(context.Background(), dsn, opts...)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { st.Close() })
		return st
	}
	mins := func(st *Store) [2]int32 {
		return [2]int32{st.Pool.Config().MinConns, st.Background.Pool.Config().MinConns}
	}

	warm := open(u.String(), Warm())
	if got, want := mins(warm), [2]int32{DefaultMaxConns, BackgroundConns}; got != want {
		t.Fatalf("warm pools keep %v connections open, want %v", got, want)
	}
	// The connections open in the background, without a request.
	deadline := time.Now().Add(30 * time.Second)
	for warm.Pool.Stat().TotalConns() < DefaultMaxConns || warm.Background.Pool.Stat().TotalConns() < BackgroundConns {
		if time.Now().After(deadline) {
			t.Fatalf("after 30 s the pools hold %d and %d connections, want %d and %d",
				warm.Pool.Stat().TotalConns(), warm.Background.Pool.Stat().TotalConns(), DefaultMaxConns, BackgroundConns)
		}
		time.Sleep(20 * time.Millisecond)
	}

	if got := mins(open(u.String())); got != [2]int32{0, 0} {
		t.Fatalf("a store opened without Warm keeps %v connections open, want none", got)
	}
	q.Set("pool_min_conns", "3")
	u.RawQuery = q.Encode()
	if got := mins(open(u.String(), Warm())); got != [2]int32{3, 3} {
		t.Fatalf("with pool_min_conns=3, warm pools keep %v connections open, want [3 3]", got)
	}
}

// On SQLite, with its single writer, background work uses the store itself.
func TestSQLiteBackgroundIsTheStore(t *testing.T) {
	st, err := Open(context.Background(), "sqlite://"+filepath.Join(t.TempDir(), "bg.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	if st.Background != st {
		t.Fatal("SQLite store has a separate background store")
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

// Migrate drops the indexes no query uses any more from a database an
// earlier version made, on both databases, and a second migration finds
// nothing to do.
func TestMigrateDropsUnusedIndexes(t *testing.T) {
	for _, backend := range testdb.Backends(t) {
		t.Run(backend.Name, func(t *testing.T) {
			ctx := context.Background()
			st, err := Open(ctx, backend.URL(t))
			if err != nil {
				t.Fatal(err)
			}
			defer st.Close()
			if err := st.Migrate(ctx); err != nil {
				t.Fatal(err)
			}
			// As an earlier version made it.
			if _, err := st.DB.ExecContext(ctx, "CREATE INDEX planmilestone_state_date ON plan_milestones (state, date)"); err != nil {
				t.Fatal(err)
			}
			for range 2 {
				if err := st.Migrate(ctx); err != nil {
					t.Fatal(err)
				}
			}
			q := "SELECT count(*) FROM sqlite_master WHERE type = 'index' AND name = 'planmilestone_state_date'"
			if st.Dialect != "sqlite3" {
				q = "SELECT count(*) FROM pg_indexes WHERE indexname = 'planmilestone_state_date'"
			}
			var n int
			if err := st.DB.QueryRowContext(ctx, q).Scan(&n); err != nil {
				t.Fatal(err)
			}
			if n != 0 {
				t.Error("the unused index planmilestone_state_date is still there after a migration")
			}
		})
	}
}
