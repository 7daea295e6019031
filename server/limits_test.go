package server_test

import (
	"context"
	"database/sql"
	"encoding/json"
	"net"
	"os"
	"reflect"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"

	"github.com/creativeops/creativeops/auth"
	"github.com/creativeops/creativeops/ent/idempotencykey"
	creativeopsv1 "github.com/creativeops/creativeops/gen/creativeops/v1"
	"github.com/creativeops/creativeops/internal/testdb"
	"github.com/creativeops/creativeops/internal/testserver"
	"github.com/creativeops/creativeops/server"
)

// The rates are slow (a token every 5 s, and every 20 s for the key with
// its own limit) so that a bucket does not refill between two requests
// that expect it empty, however slowly a loaded machine serves them;
// waiting for a refill is a lower bound, which a slow machine only meets
// more surely.
func TestRateLimit(t *testing.T) {
	s := testserver.Start(t, testserver.Options{Configure: func(c *server.Config) {
		c.RateLimit = auth.RateLimit{RequestsPerSecond: 0.2, Burst: 5}
	}})
	path := "/v1/engine/verticals"
	prev := 5
	for i := range 5 {
		r := s.Do(t, "GET", path, s.AdminKey, nil)
		if r.Status != 200 {
			t.Fatalf("request %d of the burst: %d", i+1, r.Status)
		}
		if p := r.Header.Get("RateLimit-Policy"); p != "1;w=5;burst=5" {
			t.Fatalf("RateLimit-Policy %q", p)
		}
		rl := parseRateLimit(t, r.Header.Get("RateLimit"))
		if rl["limit"] != 5 || rl["remaining"] >= prev || rl["reset"] < 1 || rl["reset"] > 25 {
			t.Fatalf("request %d: RateLimit %q after remaining=%d", i+1, r.Header.Get("RateLimit"), prev)
		}
		prev = rl["remaining"]
	}
	r := s.Do(t, "GET", path, s.AdminKey, nil)
	if r.Status != 429 || r.ErrorReason() != "RATE_LIMITED" || r.JSON["error"].(map[string]any)["status"] != "RESOURCE_EXHAUSTED" {
		t.Fatalf("past the burst: %d %s", r.Status, r.Body)
	}
	if !between(r.Header.Get("Retry-After"), 1, 5) || r.Header.Get("RateLimit-Policy") != "1;w=5;burst=5" ||
		parseRateLimit(t, r.Header.Get("RateLimit"))["remaining"] != 0 {
		t.Fatalf("429 headers: %v", r.Header)
	}
	// Another key has a bucket of its own.
	other := s.NewKey(t, "acme", auth.ScopeAll)
	if r := s.Do(t, "GET", path, other, nil); r.Status != 200 {
		t.Fatalf("another key: %d", r.Status)
	}
	// The bucket refills at a token every 5 s.
	time.Sleep(5100 * time.Millisecond)
	if r := s.Do(t, "GET", path, s.AdminKey, nil); r.Status != 200 {
		t.Fatalf("after refilling: %d %s", r.Status, r.Body)
	}
	// Unauthenticated requests spend nobody's tokens and carry no headers.
	if r := s.Do(t, "GET", path, "", nil); r.Status != 401 || r.Header.Get("RateLimit") != "" {
		t.Fatalf("unauthenticated: %d %v", r.Status, r.Header)
	}

	// A key's own limit overrides the default.
	r = s.Do(t, "POST", "/v1/keys", other, map[string]any{"name": "slow", "scopes": []string{"*"}, "rate_limit": map[string]any{"requests_per_second": 0.05, "burst": 2}})
	if r.Status != 201 {
		t.Fatalf("create key: %d %s", r.Status, r.Body)
	}
	slow := r.JSON["secret"].(string)
	for i := range 2 {
		if r := s.Do(t, "GET", path, slow, nil); r.Status != 200 || r.Header.Get("RateLimit-Policy") != "1;w=20;burst=2" {
			t.Fatalf("override, request %d: %d %q", i+1, r.Status, r.Header.Get("RateLimit-Policy"))
		}
	}
	if r := s.Do(t, "GET", path, slow, nil); r.Status != 429 || !between(r.Header.Get("Retry-After"), 2, 20) {
		t.Fatalf("override past its burst: %d Retry-After %q", r.Status, r.Header.Get("Retry-After"))
	}

	// The product default when nothing is configured.
	d := testserver.Start(t, testserver.Options{Configure: func(c *server.Config) { c.RateLimit = auth.RateLimit{} }})
	if r := d.Do(t, "GET", path, d.AdminKey, nil); r.Header.Get("RateLimit-Policy") != "100;w=1;burst=200" || r.Header.Get("RateLimit") != "limit=200, remaining=199, reset=1" {
		t.Fatalf("default limit: %v", r.Header)
	}

	// Native gRPC: RESOURCE_EXHAUSTED, with the same headers as metadata.
	ctx := metadata.AppendToOutgoingContext(context.Background(), "authorization", "Bearer "+slow)
	var header metadata.MD
	_, err := creativeopsv1.NewEngineServiceClient(s.Conn(t)).ListVerticals(ctx, &creativeopsv1.ListVerticalsRequest{}, grpc.Header(&header))
	if status.Code(err) != codes.ResourceExhausted || len(header.Get("ratelimit")) == 0 || len(header.Get("retry-after")) == 0 {
		t.Fatalf("gRPC past the limit: %v %v", err, header)
	}
}

// between reports whether a header holds a whole number in [lo, hi].
func between(h string, lo, hi int) bool {
	n, err := strconv.Atoi(h)
	return err == nil && n >= lo && n <= hi
}

func parseRateLimit(t *testing.T, h string) map[string]int {
	t.Helper()
	out := map[string]int{}
	for _, part := range strings.Split(h, ",") {
		k, v, ok := strings.Cut(strings.TrimSpace(part), "=")
		if !ok {
			t.Fatalf("malformed RateLimit %q", h)
		}
		var n int
		if err := json.Unmarshal([]byte(v), &n); err != nil {
			t.Fatalf("malformed RateLimit %q", h)
		}
		out[k] = n
	}
	return out
}

// redisURL is the Redis of the shared rate limit tests
// (CREATIVEOPS_TEST_REDIS_URL, default the local one); they are skipped
// when it does not answer.
func redisURL(t *testing.T) string {
	u := os.Getenv("CREATIVEOPS_TEST_REDIS_URL")
	if u == "" {
		u = "redis://127.0.0.1:6379/0"
	}
	host := strings.TrimPrefix(u, "redis://")
	host, _, _ = strings.Cut(host, "/")
	if i := strings.LastIndex(host, "@"); i >= 0 {
		host = host[i+1:]
	}
	c, err := net.DialTimeout("tcp", host, time.Second)
	if err != nil {
		t.Skipf("Redis at %s unreachable: %v", u, err)
	}
	c.Close()
	return u
}

func TestRateLimitSharedAcrossReplicas(t *testing.T) {
	rurl := redisURL(t)
	dbURL := testdb.SQLiteURL(t)
	if os.Getenv(testdb.PostgresEnv) != "" {
		dbURL = testdb.PostgresURL(t)
	}
	configure := func(c *server.Config) {
		c.RateLimit = auth.RateLimit{RequestsPerSecond: 1, Burst: 4}
		c.RedisURL = rurl
	}
	s1 := testserver.Start(t, testserver.Options{DatabaseURL: dbURL, Configure: configure})
	s2 := testserver.Start(t, testserver.Options{DatabaseURL: dbURL, Configure: configure, NoWorkers: true})
	key := s1.AdminKey // a fresh key: its bucket in Redis is new
	for i, s := range []*testserver.Server{s1, s2, s1, s2} {
		r := s.Do(t, "GET", "/v1/engine/verticals", key, nil)
		if r.Status != 200 {
			t.Fatalf("request %d: %d", i+1, r.Status)
		}
		if rl := parseRateLimit(t, r.Header.Get("RateLimit")); rl["remaining"] != 3-i {
			t.Fatalf("request %d: RateLimit %q, want remaining=%d", i+1, r.Header.Get("RateLimit"), 3-i)
		}
	}
	// Each replica alone would still allow this key 2 more requests.
	for _, s := range []*testserver.Server{s1, s2} {
		if r := s.Do(t, "GET", "/v1/engine/verticals", key, nil); r.Status != 429 || r.Header.Get("Retry-After") != "1" {
			t.Fatalf("over the shared limit: %d %v", r.Status, r.Header)
		}
	}
	time.Sleep(1100 * time.Millisecond)
	if r := s2.Do(t, "GET", "/v1/engine/verticals", key, nil); r.Status != 200 {
		t.Fatalf("after refilling: %d", r.Status)
	}
}

// With Redis down, each replica limits on its own instead of failing.
func TestRateLimitRedisDown(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	s := testserver.Start(t, testserver.Options{Configure: func(c *server.Config) {
		c.RateLimit = auth.RateLimit{RequestsPerSecond: 1, Burst: 2}
		c.RedisURL = "redis://" + addr + "/0"
	}})
	for i := range 2 {
		if r := s.Do(t, "GET", "/v1/engine/verticals", s.AdminKey, nil); r.Status != 200 {
			t.Fatalf("request %d: %d", i+1, r.Status)
		}
	}
	if r := s.Do(t, "GET", "/v1/engine/verticals", s.AdminKey, nil); r.Status != 429 {
		t.Fatalf("local fallback does not limit: %d", r.Status)
	}
}

var asyncRun = map[string]any{"vertical": "music", "workflow": "release-strategy", "context": releaseContext, "async": true}

func TestIdempotency(t *testing.T) {
	for _, b := range testdb.Backends(t) {
		t.Run(b.Name, func(t *testing.T) { testIdempotency(t, b) })
	}
}

func testIdempotency(t *testing.T, b testdb.Backend) {
	// Without workers jobs stay queued, so replayed bodies are comparable.
	s := testserver.Start(t, testserver.Options{DatabaseURL: b.URL(t), NoWorkers: true})
	ctx := context.Background()
	jobCount := func() int { return s.Store.Ent.Job.Query().CountX(ctx) }

	first := s.Do(t, "POST", "/v1/engine/run", s.AdminKey, asyncRun, "Idempotency-Key", "run-1")
	if first.Status != 202 || first.Header.Get("Idempotent-Replayed") != "" {
		t.Fatalf("first run: %d %v %s", first.Status, first.Header, first.Body)
	}
	again := s.Do(t, "POST", "/v1/engine/run", s.AdminKey, asyncRun, "Idempotency-Key", "run-1")
	if again.Status != 202 || again.Header.Get("Idempotent-Replayed") != "true" || again.Header.Get("Location") != first.Header.Get("Location") {
		t.Fatalf("retry: %d %v", again.Status, again.Header)
	}
	if !reflect.DeepEqual(first.JSON, again.JSON) {
		t.Fatalf("replayed body differs:\n%s\n%s", first.Body, again.Body)
	}
	if n := jobCount(); n != 1 {
		t.Fatalf("%d jobs after a retry", n)
	}
	// The same body written differently is the same request.
	reordered := `{"async": true, "context": {"as_of": "2026-11-20", "releaseDate": "2027-03-03", "genre": "indie pop", "artist": "Nova Reyes"}, "workflow": "release-strategy", "vertical": "music"}`
	if r := s.Do(t, "POST", "/v1/engine/run", s.AdminKey, reordered, "Idempotency-Key", "run-1"); r.Status != 202 || r.Header.Get("Idempotent-Replayed") != "true" {
		t.Fatalf("same request, other JSON layout: %d %s", r.Status, r.Body)
	}
	// Same key, other request.
	other := map[string]any{"vertical": "music", "workflow": "release-strategy", "context": releaseContext}
	if r := s.Do(t, "POST", "/v1/engine/run", s.AdminKey, other, "Idempotency-Key", "run-1"); r.Status != 422 || r.ErrorReason() != "IDEMPOTENCY_KEY_MISMATCH" {
		t.Fatalf("other body: %d %s", r.Status, r.Body)
	}
	if r := s.Do(t, "POST", "/v1/creators", s.AdminKey, map[string]any{"name": "N", "email": "n@example.com", "vertical": "music"}, "Idempotency-Key", "run-1"); r.Status != 422 {
		t.Fatalf("other method: %d %s", r.Status, r.Body)
	}
	// Keys are per organization: another one may use the same key.
	globex := s.NewKey(t, "globex", auth.ScopeAll)
	if r := s.Do(t, "POST", "/v1/engine/run", globex, asyncRun, "Idempotency-Key", "run-1"); r.Status != 202 || r.Header.Get("Idempotent-Replayed") != "" {
		t.Fatalf("another organization, same key: %d %v", r.Status, r.Header)
	}
	if n := jobCount(); n != 2 {
		t.Fatalf("%d jobs", n)
	}

	// Creation (201) replays as 201 with the same resource.
	body := map[string]any{"name": "Nova", "email": "nova@example.com", "vertical": "music"}
	c1 := s.Do(t, "POST", "/v1/creators", s.AdminKey, body, "Idempotency-Key", "creator-1")
	c2 := s.Do(t, "POST", "/v1/creators", s.AdminKey, body, "Idempotency-Key", "creator-1")
	if c1.Status != 201 || c2.Status != 201 || c2.JSON["id"] != c1.JSON["id"] || c2.Header.Get("Idempotent-Replayed") != "true" {
		t.Fatalf("creator retry: %d %d %v %v", c1.Status, c2.Status, c1.JSON["id"], c2.JSON["id"])
	}
	// A key's secret is shown once, and never stored: the replay lacks it.
	k1 := s.Do(t, "POST", "/v1/keys", s.AdminKey, map[string]any{"name": "ci", "scopes": []string{"engine:run"}}, "Idempotency-Key", "key-1")
	k2 := s.Do(t, "POST", "/v1/keys", s.AdminKey, map[string]any{"name": "ci", "scopes": []string{"engine:run"}}, "Idempotency-Key", "key-1")
	if k1.Status != 201 || k1.JSON["secret"] == nil || k2.Status != 201 || k2.JSON["id"] != k1.JSON["id"] || k2.JSON["secret"] != nil {
		t.Fatalf("key creation retry: %d %s / %d %s", k1.Status, k1.Body, k2.Status, k2.Body)
	}
	// A client error is stored and replayed too.
	bad := map[string]any{"vertical": "opera", "workflow": "x", "context": map[string]any{}}
	e1 := s.Do(t, "POST", "/v1/engine/run", s.AdminKey, bad, "Idempotency-Key", "bad-1")
	e2 := s.Do(t, "POST", "/v1/engine/run", s.AdminKey, bad, "Idempotency-Key", "bad-1")
	if e1.Status != 400 || e2.Status != 400 || e2.ErrorReason() != e1.ErrorReason() || e2.Header.Get("Idempotent-Replayed") != "true" {
		t.Fatalf("client error retry: %d %d %s", e1.Status, e2.Status, e2.Body)
	}
	// Requests that fail validation never reach the store.
	if r := s.Do(t, "POST", "/v1/creators", s.AdminKey, map[string]any{"name": "", "email": "bad"}, "Idempotency-Key", "invalid-1"); r.Status != 400 || r.Header.Get("Idempotent-Replayed") != "" {
		t.Fatalf("invalid request: %d", r.Status)
	}
	if s.Store.Ent.IdempotencyKey.Query().Where(idempotencykey.Key("invalid-1")).ExistX(ctx) {
		t.Fatal("an invalid request stored its key")
	}
	// Key length.
	if r := s.Do(t, "POST", "/v1/engine/run", s.AdminKey, asyncRun, "Idempotency-Key", strings.Repeat("k", 256)); r.Status != 400 || r.ErrorReason() != "INVALID_IDEMPOTENCY_KEY" {
		t.Fatalf("256-character key: %d %s", r.Status, r.Body)
	}
	if r := s.Do(t, "POST", "/v1/engine/run", s.AdminKey, asyncRun, "Idempotency-Key", strings.Repeat("k", 255)); r.Status != 202 {
		t.Fatalf("255-character key: %d %s", r.Status, r.Body)
	}
	// GET ignores the header.
	if r := s.Do(t, "GET", "/v1/engine/verticals", s.AdminKey, nil, "Idempotency-Key", "run-1"); r.Status != 200 {
		t.Fatalf("GET with a key: %d", r.Status)
	}

	// While the first request runs: 409. Simulated by putting the stored
	// key back in progress.
	jobs := jobCount()
	s.Store.Ent.IdempotencyKey.Update().Where(idempotencykey.Key("run-1"), idempotencykey.OrganizationID(s.OrgID)).
		SetState("in_progress").ExecX(ctx)
	if r := s.Do(t, "POST", "/v1/engine/run", s.AdminKey, asyncRun, "Idempotency-Key", "run-1"); r.Status != 409 || r.ErrorReason() != "IDEMPOTENCY_REQUEST_IN_PROGRESS" || r.Header.Get("Retry-After") != "1" {
		t.Fatalf("in progress: %d %v %s", r.Status, r.Header, r.Body)
	}
	// An in-progress key whose replica died is taken over after the lock
	// timeout, and the request runs.
	s.Store.Ent.IdempotencyKey.Update().Where(idempotencykey.Key("run-1"), idempotencykey.OrganizationID(s.OrgID)).
		SetLockedAt(time.Now().UTC().Add(-time.Hour)).ExecX(ctx)
	if r := s.Do(t, "POST", "/v1/engine/run", s.AdminKey, asyncRun, "Idempotency-Key", "run-1"); r.Status != 202 || r.Header.Get("Idempotent-Replayed") != "" || jobCount() != jobs+1 {
		t.Fatalf("abandoned key: %d %v", r.Status, r.Header)
	}
	// Expired keys no longer count.
	s.Store.Ent.IdempotencyKey.Update().Where(idempotencykey.Key("run-1"), idempotencykey.OrganizationID(s.OrgID)).
		SetExpiresAt(time.Now().UTC().Add(-time.Minute)).ExecX(ctx)
	if r := s.Do(t, "POST", "/v1/engine/run", s.AdminKey, other, "Idempotency-Key", "run-1"); r.Status != 200 || r.Header.Get("Idempotent-Replayed") != "" {
		t.Fatalf("expired key reused: %d %s", r.Status, r.Body)
	}
	row := s.Store.Ent.IdempotencyKey.Query().Where(idempotencykey.Key("run-1"), idempotencykey.OrganizationID(s.OrgID)).OnlyX(ctx)
	if d := time.Until(row.ExpiresAt); d < 23*time.Hour || d > 25*time.Hour || row.State != "done" || row.HTTPStatus != 200 {
		t.Fatalf("stored key: %+v", row)
	}

	// Over native gRPC, the same metadata.
	gctx := metadata.AppendToOutgoingContext(ctx, "authorization", "Bearer "+s.AdminKey, "idempotency-key", "grpc-1")
	client := creativeopsv1.NewCreatorsServiceClient(s.Conn(t))
	req := &creativeopsv1.CreateCreatorRequest{Name: "Ada", Email: "ada@example.com", Vertical: "music"}
	var h1, h2 metadata.MD
	a, err := client.CreateCreator(gctx, req, grpc.Header(&h1))
	if err != nil {
		t.Fatal(err)
	}
	b2, err := client.CreateCreator(gctx, req, grpc.Header(&h2))
	if err != nil || b2.GetId() != a.GetId() || len(h1.Get("idempotent-replayed")) != 0 || h2.Get("idempotent-replayed")[0] != "true" {
		t.Fatalf("gRPC retry: %v %s %s %v", err, a.GetId(), b2.GetId(), h2)
	}
}

// Identical requests sent at once: one runs, the others get 409 or the
// replay; never two jobs.
func TestIdempotencyConcurrent(t *testing.T) {
	for _, b := range testdb.Backends(t) {
		t.Run(b.Name, func(t *testing.T) {
			s := testserver.Start(t, testserver.Options{DatabaseURL: b.URL(t), NoWorkers: true})
			const rounds, parallel = 5, 4
			for round := range rounds {
				key := "concurrent-" + string(rune('a'+round))
				var wg sync.WaitGroup
				results := make([]testserver.Response, parallel)
				start := make(chan struct{})
				for i := range parallel {
					wg.Add(1)
					go func() {
						defer wg.Done()
						<-start
						results[i] = s.Do(t, "POST", "/v1/engine/run", s.AdminKey, asyncRun, "Idempotency-Key", key)
					}()
				}
				close(start)
				wg.Wait()
				ran, replayed, conflicts := 0, 0, 0
				for _, r := range results {
					switch {
					case r.Status == 202 && r.Header.Get("Idempotent-Replayed") == "":
						ran++
					case r.Status == 202 && r.Header.Get("Idempotent-Replayed") == "true":
						replayed++
					case r.Status == 409 && r.ErrorReason() == "IDEMPOTENCY_REQUEST_IN_PROGRESS":
						conflicts++
					default:
						t.Fatalf("round %d: unexpected %d %s", round, r.Status, r.Body)
					}
				}
				if ran != 1 {
					t.Fatalf("round %d: %d requests ran", round, ran)
				}
				t.Logf("round %d: 1 ran, %d replayed, %d got 409", round, replayed, conflicts)
			}
			if n := s.Store.Ent.Job.Query().CountX(context.Background()); n != rounds {
				t.Fatalf("%d jobs from %d rounds", n, rounds)
			}
		})
	}
}

// A request whose body or query the decoder refuses spends its key's token
// like any other: it is charged before it is read, so a key past its limit
// gets 429 for malformed requests too, over REST and Connect, instead of an
// unbounded stream of 400s the limiter never saw. The token of a request
// that reaches the interceptors is spent once, not twice.
func TestRateLimitChargedBeforeTheBody(t *testing.T) {
	s := testserver.Start(t, testserver.Options{Configure: func(c *server.Config) {
		c.RateLimit = auth.RateLimit{RequestsPerSecond: 0.2, Burst: 4}
	}})
	key := s.NewKey(t, "acme", auth.ScopeAll)
	// One valid creation spends one token (the interceptor does not spend
	// a second): three remain.
	r := s.Do(t, "POST", "/v1/creators", key, map[string]any{"name": "Ada", "email": "ada@example.com", "vertical": "music"})
	if r.Status != 201 || parseRateLimit(t, r.Header.Get("RateLimit"))["remaining"] != 3 {
		t.Fatalf("valid creation: %d RateLimit %q %s", r.Status, r.Header.Get("RateLimit"), r.Body)
	}
	// Three bodies and a query the gateway's decoder refuses.
	bad := []struct{ method, path, body string }{
		{"POST", "/v1/creators", `{"name": `},
		{"POST", "/v1/creators", `{"name": "\xff"}`},
		{"POST", "/v1/creators", `{"metadata": ` + strings.Repeat("[", 5000) + `}`},
		{"GET", "/v1/creators?page_size=1e400", ""},
	}
	do := func(i int) testserver.Response {
		var body any
		if b := bad[i%len(bad)]; b.body != "" {
			body = b.body
		}
		return s.Do(t, bad[i%len(bad)].method, bad[i%len(bad)].path, key, body)
	}
	for i := range 3 {
		r := do(i)
		if r.Status != 400 {
			t.Fatalf("malformed request %d within the limit: %d %s", i, r.Status, r.Body)
		}
		if got := parseRateLimit(t, r.Header.Get("RateLimit"))["remaining"]; got != 2-i {
			t.Fatalf("malformed request %d: RateLimit %q, want remaining=%d", i, r.Header.Get("RateLimit"), 2-i)
		}
	}
	for i := range bad {
		r := do(i)
		if r.Status != 429 || r.ErrorReason() != "RATE_LIMITED" || !between(r.Header.Get("Retry-After"), 1, 5) ||
			r.Header.Get("RateLimit-Policy") != "1;w=5;burst=4" {
			t.Fatalf("malformed request %d past the limit: %d %v %s", i, r.Status, r.Header, r.Body)
		}
	}
	// Connect: the same bucket, the same answer in its protocol.
	r = s.Do(t, "POST", "/creativeops.v1.CreatorsService/CreateCreator", key, `{"name": `, "Connect-Protocol-Version", "1")
	if r.Status != 429 || r.Header.Get("Retry-After") == "" || !strings.Contains(string(r.Body), "resource_exhausted") {
		t.Fatalf("Connect past the limit: %d %v %s", r.Status, r.Header, r.Body)
	}
	// Another key of the organization is untouched.
	other := s.NewKey(t, "acme", auth.ScopeAll)
	if r := s.Do(t, "GET", "/v1/creators?page_size=1e400", other, nil); r.Status != 400 {
		t.Fatalf("another key: %d %s", r.Status, r.Body)
	}
	// A method outside the key's scopes is refused before its body too
	// (403 whatever the body), and spends nothing.
	reader := s.NewKey(t, "acme", auth.ScopeCreatorsRead)
	for range 6 {
		if r := s.Do(t, "POST", "/v1/creators", reader, `{"name": `); r.Status != 403 || r.ErrorReason() != "MISSING_SCOPE" {
			t.Fatalf("outside the key's scopes: %d %s", r.Status, r.Body)
		}
	}
	if r := s.Do(t, "GET", "/v1/creators", reader, nil); r.Status != 200 || parseRateLimit(t, r.Header.Get("RateLimit"))["remaining"] != 3 {
		t.Fatalf("the reader's first read: %d RateLimit %q", r.Status, r.Header.Get("RateLimit"))
	}
}

// When the key store fails, admission answers as the interceptors' error
// mapping would: 500 "internal error", the cause logged and not sent. (A
// dashboard session's lookup reads the database; API keys are cached.)
func TestAdmissionKeyStoreFailure(t *testing.T) {
	s := testserver.Start(t, testserver.Options{NoWorkers: true})
	for _, db := range []*sql.DB{s.Store.DB, s.Store.ReadDB()} {
		if err := db.Close(); err != nil {
			t.Fatal(err)
		}
	}
	for _, body := range []any{nil, map[string]any{"name": "Ada"}} {
		method := "GET"
		if body != nil {
			method = "POST"
		}
		r := s.Do(t, method, "/v1/creators", "", body,
			"Cookie", "__Host-creativeops_session="+strings.Repeat("f", 43), "X-CSRF-Token", "token")
		if r.Status != 500 || r.JSON["error"].(map[string]any)["message"] != "internal error" || strings.Contains(string(r.Body), "closed") {
			t.Fatalf("%s with the key store down: %d %s", method, r.Status, r.Body)
		}
	}
}
