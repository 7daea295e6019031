package main

import (
	"context"
	"database/sql"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/creativeops/creativeops/internal/clustertest"
	"github.com/creativeops/creativeops/internal/testdb"
	"github.com/creativeops/creativeops/internal/testlock"
	"github.com/creativeops/creativeops/storage"
	"github.com/creativeops/creativeops/webhooks"
)

// binEnv names a creativeops binary for the tests to run; by default they
// re-execute the test binary as the server (see clustertest.Launcher).
const binEnv = "CREATIVEOPS_CLUSTER_BIN"

func TestMain(m *testing.M) {
	clustertest.RunChildIfRequested()
	// Packages that start server processes under load take turns.
	os.Exit(testlock.Run(m.Run))
}

func launcher() *clustertest.Launcher {
	return &clustertest.Launcher{Binary: os.Getenv(binEnv)}
}

// receiver is a local webhook endpoint that checks signatures and
// remembers every event id it was sent.
type receiver struct {
	*httptest.Server
	secret string

	mu       sync.Mutex
	received map[string]int // webhook-id → deliveries
	bad      []string
}

func newReceiver(t *testing.T) *receiver {
	rc := &receiver{secret: webhooks.GenerateSecret(), received: map[string]int{}}
	rc.Server = httptest.NewServer(http.HandlerFunc(rc.serve))
	t.Cleanup(rc.Close)
	return rc
}

func (rc *receiver) serve(w http.ResponseWriter, r *http.Request) {
	body, err := io.ReadAll(io.LimitReader(r.Body, 1<<20))
	if err != nil {
		http.Error(w, "read", http.StatusBadRequest)
		return
	}
	id := r.Header.Get("webhook-id")
	ts, err := strconv.ParseInt(r.Header.Get("webhook-timestamp"), 10, 64)
	ok := err == nil && id != ""
	if ok {
		want, err := webhooks.Sign(rc.secret, id, time.Unix(ts, 0), body)
		ok = err == nil && strings.Contains(" "+r.Header.Get("webhook-signature")+" ", " "+want+" ")
	}
	rc.mu.Lock()
	defer rc.mu.Unlock()
	if !ok {
		rc.bad = append(rc.bad, id)
		http.Error(w, "bad signature", http.StatusUnauthorized)
		return
	}
	rc.received[id]++
	w.WriteHeader(http.StatusNoContent)
}

// missing returns the ids not received yet.
func (rc *receiver) missing(ids []string) []string {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	var out []string
	for _, id := range ids {
		if rc.received[id] == 0 {
			out = append(out, id)
		}
	}
	return out
}

func (rc *receiver) badSignatures() []string {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	return append([]string(nil), rc.bad...)
}

// The meter finds PostgreSQL's backends by the run's database name, so the
// name must come out of a Unix-socket URL too, whose query holds slashes.
func TestDBName(t *testing.T) {
	for _, c := range []struct{ url, db, want string }{
		{"postgres://postgres@127.0.0.1:5432/bench_1?sslmode=disable", "postgres", "bench_1"},
		{"postgres://postgres@/bench_2?host=/var/run/postgresql&sslmode=disable", "postgres", "bench_2"},
		{"sqlite:///tmp/run/creativeops.db", "sqlite", ""},
	} {
		if got := dbName(c.url, c.db); got != c.want {
			t.Errorf("dbName(%q) = %q, want %q", c.url, got, c.want)
		}
	}
}

// Every PostgreSQL replica of a run keeps its pools while the others are
// measured, so fitPools shrinks their main pools until all of them fit in
// the server's connections, and leaves alone a run whose defaults fit or a
// URL that sizes the pool itself.
func TestFitPools(t *testing.T) {
	base := testdb.PostgresURL(t)
	ctx := context.Background()
	db, err := sql.Open("pgx", storage.WithoutPoolParams(base))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var available int
	if err := db.QueryRowContext(ctx, `SELECT current_setting('max_connections')::int - current_setting('superuser_reserved_connections')::int`).Scan(&available); err != nil {
		t.Fatal(err)
	}
	defaults := storage.DefaultMaxConns + storage.BackgroundConns
	fits := (available - harnessConns) / defaults
	if fits < 1 {
		t.Skipf("PostgreSQL allows %d connections: not one default replica fits", available)
	}

	got, note, err := fitPools(ctx, base, []mode{{"sqlite", 1}, {"postgres", fits}})
	if err != nil || got != base || note != "" {
		t.Fatalf("%d replicas that fit: %q %q %v, want the URL unchanged", fits, got, note, err)
	}

	many := fits + 1
	got, note, err = fitPools(ctx, base, []mode{{"postgres", 1}, {"postgres", many - 1}})
	if err != nil {
		t.Fatal(err)
	}
	u, err := url.Parse(got)
	if err != nil {
		t.Fatal(err)
	}
	size, err := strconv.Atoi(u.Query().Get("pool_max_conns"))
	if err != nil || note == "" {
		t.Fatalf("%d replicas: %q (%q), want pool_max_conns set and said", many, got, note)
	}
	if total := many * (size + storage.BackgroundConns); total > available-harnessConns || size >= storage.DefaultMaxConns {
		t.Fatalf("%d replicas of pool_max_conns=%d: %d connections of %d", many, size, total, available)
	}

	sized := got
	if again, note, err := fitPools(ctx, sized, []mode{{"postgres", 100}}); err != nil || again != sized || note != "" {
		t.Fatalf("a URL with pool_max_conns: %q %q %v, want it unchanged", again, note, err)
	}
}
