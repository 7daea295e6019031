package server_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"reflect"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	standardwebhooks "github.com/standard-webhooks/standard-webhooks/libraries/go"

	"github.com/creativeops/creativeops/ent/delivery"
	"github.com/creativeops/creativeops/ids"
	"github.com/creativeops/creativeops/internal/testdb"
	"github.com/creativeops/creativeops/internal/testserver"
	"github.com/creativeops/creativeops/server"
	"github.com/creativeops/creativeops/webhooks"
)

// fastSchedule keeps retry tests within seconds.
var fastSchedule = webhooks.Schedule{0, 200 * time.Millisecond, 200 * time.Millisecond, 200 * time.Millisecond, 200 * time.Millisecond}

func withSchedule(sched webhooks.Schedule) func(*server.Config) {
	return func(c *server.Config) { c.WebhookSchedule = sched }
}

// received is one request a receiver got.
type received struct {
	Header http.Header
	Body   []byte
	At     time.Time
}

func (r received) event(t *testing.T) map[string]any {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal(r.Body, &m); err != nil {
		t.Fatalf("payload is not JSON: %v: %s", err, r.Body)
	}
	return m
}

// reply is how a receiver answers one request.
type reply struct {
	code   int
	header http.Header
	body   string
}

// receiver is a local webhook endpoint. respond chooses the reply to the
// n-th request (1-based); nil answers 204.
type receiver struct {
	*httptest.Server
	mu      sync.Mutex
	reqs    []received
	changed chan struct{}
	respond func(n int) reply
}

func newReceiver(t *testing.T, respond func(n int) reply) *receiver {
	t.Helper()
	rc := &receiver{changed: make(chan struct{}, 1), respond: respond}
	rc.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		rc.mu.Lock()
		rc.reqs = append(rc.reqs, received{Header: r.Header.Clone(), Body: body, At: time.Now()})
		n, respond := len(rc.reqs), rc.respond
		rc.mu.Unlock()
		rp := reply{code: http.StatusNoContent}
		if respond != nil {
			rp = respond(n)
		}
		for k, v := range rp.header {
			w.Header()[k] = v
		}
		w.WriteHeader(rp.code)
		_, _ = io.WriteString(w, rp.body)
		select {
		case rc.changed <- struct{}{}:
		default:
		}
	}))
	t.Cleanup(rc.Close)
	return rc
}

func (rc *receiver) setRespond(f func(n int) reply) {
	rc.mu.Lock()
	rc.respond = f
	rc.mu.Unlock()
}

func (rc *receiver) received() []received {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	return slices.Clone(rc.reqs)
}

// wait returns once the receiver got at least n requests.
func (rc *receiver) wait(t *testing.T, n int, timeout time.Duration) []received {
	t.Helper()
	deadline := time.After(timeout)
	for {
		if got := rc.received(); len(got) >= n {
			return got
		}
		select {
		case <-rc.changed:
		case <-time.After(20 * time.Millisecond):
		case <-deadline:
			t.Fatalf("receiver got %d requests within %v, want %d", len(rc.received()), timeout, n)
		}
	}
}

// quiet asserts that the receiver gets nothing more for a while.
func (rc *receiver) quiet(t *testing.T, n int, d time.Duration) {
	t.Helper()
	time.Sleep(d)
	if got := len(rc.received()); got != n {
		t.Fatalf("receiver got %d requests, want %d", got, n)
	}
}

func answer(code int) func(int) reply {
	return func(int) reply { return reply{code: code} }
}

func createWebhook(t *testing.T, s *testserver.Server, key, url string, events []string, secret string) map[string]any {
	t.Helper()
	body := map[string]any{"url": url, "events": events}
	if secret != "" {
		body["secret"] = secret
	}
	r := s.Do(t, "POST", "/v1/webhooks", key, body)
	if r.Status != http.StatusCreated {
		t.Fatalf("create webhook: %d %s", r.Status, r.Body)
	}
	return r.JSON
}

var creatorSeq int

func createCreator(t *testing.T, s *testserver.Server, key string) map[string]any {
	t.Helper()
	creatorSeq++
	r := s.Do(t, "POST", "/v1/creators", key, map[string]any{
		"name": "Nova Reyes", "email": fmt.Sprintf("nova%d-%d@example.com", creatorSeq, time.Now().UnixNano()),
		"vertical": "music", "metadata": map[string]any{"label": "Night Owl"},
	})
	if r.Status != http.StatusCreated {
		t.Fatalf("create creator: %d %s", r.Status, r.Body)
	}
	return r.JSON
}

// deliveriesUntil polls the deliveries of a webhook until ok accepts them.
func deliveriesUntil(t *testing.T, s *testserver.Server, key, webhookID string, timeout time.Duration, ok func([]map[string]any) bool) []map[string]any {
	t.Helper()
	deadline := time.Now().Add(timeout)
	for {
		r := s.Do(t, "GET", "/v1/webhooks/"+webhookID+"/deliveries", key, nil)
		if r.Status != 200 {
			t.Fatalf("list deliveries: %d %s", r.Status, r.Body)
		}
		var ds []map[string]any
		for _, d := range r.JSON["deliveries"].([]any) {
			ds = append(ds, d.(map[string]any))
		}
		if ok(ds) {
			return ds
		}
		if time.Now().After(deadline) {
			t.Fatalf("deliveries did not reach the expected state within %v: %s", timeout, r.Body)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

func settled(ds []map[string]any) bool {
	if len(ds) == 0 {
		return false
	}
	for _, d := range ds {
		if d["status"] == "pending" {
			return false
		}
	}
	return true
}

func TestWebhooksAPI(t *testing.T) {
	for _, b := range testdb.Backends(t) {
		t.Run(b.Name, func(t *testing.T) {
			s := testserver.Start(t, testserver.Options{DatabaseURL: b.URL(t)})
			rc := newReceiver(t, nil)

			// Without a secret one is generated and returned once.
			r := s.Do(t, "POST", "/v1/webhooks", s.AdminKey, map[string]any{"url": rc.URL + "/a", "events": []string{"creator.created", "engine.job.completed"}})
			if r.Status != http.StatusCreated {
				t.Fatalf("create: %d %s", r.Status, r.Body)
			}
			gen := r.JSON
			id, _ := gen["id"].(string)
			secret, _ := gen["secret"].(string)
			if !ids.Valid(ids.Webhook, id) || !strings.HasPrefix(secret, "whsec_") || gen["status"] != "active" ||
				gen["url"] != rc.URL+"/a" || !reflect.DeepEqual(gen["events"], []any{"creator.created", "engine.job.completed"}) || gen["created_at"] == nil {
				t.Fatalf("unexpected webhook %s", r.Body)
			}
			if _, err := webhooks.KeyBytes(secret); err != nil {
				t.Fatalf("generated secret: %v", err)
			}
			// A supplied secret is never returned.
			supplied := createWebhook(t, s, s.AdminKey, rc.URL+"/b", []string{"*"}, "a-secret-of-my-own-choosing")
			if _, ok := supplied["secret"]; ok {
				t.Fatalf("supplied secret returned: %v", supplied)
			}
			for _, path := range []string{"/v1/webhooks", "/v1/webhooks/" + id} {
				r := s.Do(t, "GET", path, s.AdminKey, nil)
				if r.Status != 200 || strings.Contains(string(r.Body), `"secret"`) || strings.Contains(string(r.Body), "whsec_") {
					t.Fatalf("GET %s: %d %s", path, r.Status, r.Body)
				}
			}
			if r := s.Do(t, "GET", "/v1/webhooks/"+id, s.AdminKey, nil); r.JSON["id"] != id || r.JSON["status"] != "active" {
				t.Fatalf("get: %s", r.Body)
			}

			// Newest first, paginated.
			r = s.Do(t, "GET", "/v1/webhooks?page_size=1", s.AdminKey, nil)
			list := r.JSON["webhooks"].([]any)
			if len(list) != 1 || list[0].(map[string]any)["id"] != supplied["id"] || r.JSON["next_page_token"] == "" {
				t.Fatalf("first page: %s", r.Body)
			}
			r = s.Do(t, "GET", "/v1/webhooks?page_size=1&page_token="+r.JSON["next_page_token"].(string), s.AdminKey, nil)
			list = r.JSON["webhooks"].([]any)
			if len(list) != 1 || list[0].(map[string]any)["id"] != id || r.JSON["next_page_token"] != "" {
				t.Fatalf("second page: %s", r.Body)
			}
			if r := s.Do(t, "GET", "/v1/webhooks?page_token=nope", s.AdminKey, nil); r.Status != 400 {
				t.Fatalf("bad page token: %d", r.Status)
			}

			// Validation names the field.
			for _, tc := range []struct {
				body  map[string]any
				field string
			}{
				{map[string]any{"url": rc.URL, "events": []string{"creator.archived"}}, "events"},
				{map[string]any{"url": rc.URL, "events": []string{}}, "events"},
				{map[string]any{"url": rc.URL, "events": []string{"*"}, "secret": "short"}, "secret"},
				{map[string]any{"url": rc.URL, "events": []string{"*"}, "secret": "whsec_!!not-base64!!"}, "secret"},
				{map[string]any{"url": rc.URL, "events": []string{"*"}, "secret": "whsec_c2hvcnQ="}, "secret"},
				{map[string]any{"url": "ftp://example.com/x", "events": []string{"*"}}, "url"},
				{map[string]any{"url": "not a url", "events": []string{"*"}}, "url"},
				{map[string]any{"events": []string{"*"}}, "url"},
			} {
				r := s.Do(t, "POST", "/v1/webhooks", s.AdminKey, tc.body)
				if r.Status != 400 || !slices.ContainsFunc(r.ViolatedFields(), func(f string) bool { return strings.HasPrefix(f, tc.field) }) {
					t.Errorf("%v: %d %v %s", tc.body, r.Status, r.ViolatedFields(), r.Body)
				}
			}

			// Delete: 204 without a body (DELETE and the literal DEL), then 404.
			if r := s.Do(t, "DELETE", "/v1/webhooks/"+id, s.AdminKey, nil); r.Status != http.StatusNoContent || len(r.Body) != 0 {
				t.Fatalf("delete: %d %s", r.Status, r.Body)
			}
			if r := s.Do(t, "DEL", "/v1/webhooks/"+supplied["id"].(string), s.AdminKey, nil); r.Status != http.StatusNoContent {
				t.Fatalf("DEL: %d %s", r.Status, r.Body)
			}
			for _, c := range []struct{ method, path string }{
				{"GET", "/v1/webhooks/" + id}, {"DELETE", "/v1/webhooks/" + id}, {"GET", "/v1/webhooks/" + id + "/deliveries"},
				{"POST", "/v1/webhooks/" + id + ":test"}, {"DELETE", "/v1/webhooks/wh_unknown"},
			} {
				var body any
				if c.method == "POST" {
					body = map[string]any{}
				}
				if r := s.Do(t, c.method, c.path, s.AdminKey, body); r.Status != 404 {
					t.Errorf("%s %s after delete: %d %s", c.method, c.path, r.Status, r.Body)
				}
			}
			if r := s.Do(t, "GET", "/v1/webhooks", s.AdminKey, nil); len(r.JSON["webhooks"].([]any)) != 0 {
				t.Fatalf("deleted webhooks listed: %s", r.Body)
			}
		})
	}
}

func TestWebhookScopes(t *testing.T) {
	s := testserver.Start(t, testserver.Options{})
	reader := s.NewKey(t, "acme", "webhooks:read")
	if r := s.Do(t, "POST", "/v1/webhooks", reader, map[string]any{"url": "https://example.com", "events": []string{"*"}}); r.Status != 403 {
		t.Fatalf("create with webhooks:read: %d", r.Status)
	}
	if r := s.Do(t, "GET", "/v1/webhooks", reader, nil); r.Status != 200 {
		t.Fatalf("list with webhooks:read: %d", r.Status)
	}
}

// A delivery's signature verifies with the reference Standard Webhooks
// library, for a generated whsec_ secret and for a raw secret, and the
// payload carries the resource exactly as the API returned it.
func TestWebhookSignedPayload(t *testing.T) {
	s := testserver.Start(t, testserver.Options{})
	for _, tc := range []struct{ name, secret string }{{"whsec", ""}, {"raw", "my raw secret, ünïcode too"}} {
		t.Run(tc.name, func(t *testing.T) {
			rc := newReceiver(t, nil)
			wh := createWebhook(t, s, s.AdminKey, rc.URL+"/hook", []string{"creator.created"}, tc.secret)
			var verifier *standardwebhooks.Webhook
			var err error
			if tc.secret == "" {
				verifier, err = standardwebhooks.NewWebhook(wh["secret"].(string))
			} else {
				verifier, err = standardwebhooks.NewWebhookRaw([]byte(tc.secret))
			}
			if err != nil {
				t.Fatal(err)
			}
			creator := createCreator(t, s, s.AdminKey)
			got := rc.wait(t, 1, 10*time.Second)[0]
			if err := verifier.Verify(got.Body, got.Header); err != nil {
				t.Fatalf("signature does not verify: %v\n%v\n%s", err, got.Header, got.Body)
			}
			other, _ := standardwebhooks.NewWebhook(webhooks.GenerateSecret())
			if other.Verify(got.Body, got.Header) == nil {
				t.Fatal("signature verifies with another secret")
			}

			ev := got.event(t)
			if len(ev) != 4 {
				t.Errorf("payload keys: %v", ev)
			}
			evID, _ := ev["id"].(string)
			if !ids.Valid(ids.Event, evID) || ev["type"] != "creator.created" || got.Header.Get("webhook-id") != evID {
				t.Errorf("payload id/type: %v, webhook-id %q", ev, got.Header.Get("webhook-id"))
			}
			if ts, _ := ev["timestamp"].(string); !regexp.MustCompile(`^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$`).MatchString(ts) {
				t.Errorf("payload timestamp %q", ts)
			}
			if !reflect.DeepEqual(ev["data"], creator) {
				t.Errorf("data is not the creator as the API returned it:\n%v\n%v", ev["data"], creator)
			}
			unix, err := strconv.ParseInt(got.Header.Get("webhook-timestamp"), 10, 64)
			if err != nil || time.Since(time.Unix(unix, 0)).Abs() > time.Minute {
				t.Errorf("webhook-timestamp %q", got.Header.Get("webhook-timestamp"))
			}
			if ct := got.Header.Get("Content-Type"); ct != "application/json" {
				t.Errorf("Content-Type %q", ct)
			}
			if ua := got.Header.Get("User-Agent"); !strings.HasPrefix(ua, "creativeops-webhooks/") {
				t.Errorf("User-Agent %q", ua)
			}
			ds := deliveriesUntil(t, s, s.AdminKey, wh["id"].(string), 10*time.Second, settled)
			if d := ds[0]; d["status"] != "succeeded" || d["event_id"] != evID || d["event_type"] != "creator.created" || d["response_status"] != 204.0 {
				t.Errorf("delivery %v", d)
			}
		})
	}
}

// A receiver that fails twice then succeeds gets exactly one successful
// delivery, with the same webhook-id on every attempt, and the log shows
// the three attempts.
func TestWebhookRetries(t *testing.T) {
	for _, b := range testdb.Backends(t) {
		t.Run(b.Name, func(t *testing.T) {
			s := testserver.Start(t, testserver.Options{DatabaseURL: b.URL(t), Configure: withSchedule(fastSchedule)})
			rc := newReceiver(t, func(n int) reply {
				if n <= 2 {
					return reply{code: http.StatusInternalServerError, body: "not yet"}
				}
				return reply{code: http.StatusOK}
			})
			wh := createWebhook(t, s, s.AdminKey, rc.URL, []string{"*"}, "")
			createCreator(t, s, s.AdminKey)
			got := rc.wait(t, 3, 15*time.Second)
			rc.quiet(t, 3, 700*time.Millisecond)
			for _, g := range got[1:] {
				if g.Header.Get("webhook-id") != got[0].Header.Get("webhook-id") || string(g.Body) != string(got[0].Body) {
					t.Fatalf("retry differs: %v vs %v", g.Header, got[0].Header)
				}
			}
			ds := deliveriesUntil(t, s, s.AdminKey, wh["id"].(string), 10*time.Second, settled)
			if len(ds) != 1 {
				t.Fatalf("%d deliveries", len(ds))
			}
			d := ds[0]
			log, _ := d["attempt_log"].([]any)
			if d["status"] != "succeeded" || d["attempts"] != 3.0 || d["response_status"] != 200.0 || d["completed_at"] == nil ||
				d["next_retry_at"] != nil || d["last_error"] != "" || len(log) != 3 {
				t.Fatalf("delivery %v", d)
			}
			for i, want := range []float64{500, 500, 200} {
				a := log[i].(map[string]any)
				if a["number"] != float64(i+1) || a["response_status"] != want || a["at"] == nil {
					t.Errorf("attempt %d: %v", i+1, a)
				}
				if (a["next_retry_at"] == nil) != (i == 2) {
					t.Errorf("attempt %d next_retry_at: %v", i+1, a["next_retry_at"])
				}
				if i < 2 && (a["response_body"] != "not yet" || !strings.Contains(a["error"].(string), "500")) {
					t.Errorf("attempt %d: %v", i+1, a)
				}
			}
			waitMetrics(t, s, `creativeops_webhook_delivery_attempts_total{result="retrying"} 2`,
				`creativeops_webhook_delivery_attempts_total{result="succeeded"} 1`)
		})
	}
}

// Retries are exhausted into a failed delivery.
func TestWebhookRetriesExhausted(t *testing.T) {
	s := testserver.Start(t, testserver.Options{Configure: withSchedule(webhooks.Schedule{0, 100 * time.Millisecond, 100 * time.Millisecond})})
	rc := newReceiver(t, answer(http.StatusBadGateway))
	wh := createWebhook(t, s, s.AdminKey, rc.URL, []string{"*"}, "")
	createCreator(t, s, s.AdminKey)
	rc.wait(t, 3, 10*time.Second)
	rc.quiet(t, 3, 500*time.Millisecond)
	d := deliveriesUntil(t, s, s.AdminKey, wh["id"].(string), 10*time.Second, settled)[0]
	if d["status"] != "failed" || d["attempts"] != 3.0 || !strings.Contains(d["last_error"].(string), "gave up after 3 attempts") || d["next_retry_at"] != nil {
		t.Fatalf("delivery %v", d)
	}
}

// An event is not lost when the server stops before delivering it, nor
// when the endpoint is down while the server restarts.
func TestWebhookDeliverySurvivesRestart(t *testing.T) {
	for _, b := range testdb.Backends(t) {
		t.Run(b.Name, func(t *testing.T) {
			dbURL := b.URL(t)
			sched := withSchedule(webhooks.Schedule{0, 300 * time.Millisecond, 300 * time.Millisecond, 300 * time.Millisecond, 300 * time.Millisecond, 300 * time.Millisecond})
			rc := newReceiver(t, answer(http.StatusServiceUnavailable))

			// The endpoint is down: the first attempt fails, then the
			// server stops with the retry queued.
			s1 := testserver.Start(t, testserver.Options{DatabaseURL: dbURL, Configure: sched})
			wh := createWebhook(t, s1, s1.AdminKey, rc.URL, []string{"*"}, "")
			createCreator(t, s1, s1.AdminKey)
			rc.wait(t, 1, 10*time.Second)
			if err := s1.Shutdown(context.Background()); err != nil {
				t.Logf("shutdown: %v", err)
			}
			before := len(rc.received())

			// A second event is written while no worker runs at all.
			s2 := testserver.Start(t, testserver.Options{DatabaseURL: dbURL, Configure: sched, NoWorkers: true})
			createCreator(t, s2, s2.AdminKey)
			if err := s2.Shutdown(context.Background()); err != nil {
				t.Logf("shutdown: %v", err)
			}
			rc.quiet(t, before, 300*time.Millisecond)

			// The endpoint recovers; a new server delivers both events.
			rc.setRespond(nil)
			s3 := testserver.Start(t, testserver.Options{DatabaseURL: dbURL, Configure: sched})
			ds := deliveriesUntil(t, s3, s3.AdminKey, wh["id"].(string), 15*time.Second, func(ds []map[string]any) bool {
				return len(ds) == 2 && settled(ds)
			})
			for _, d := range ds {
				if d["status"] != "succeeded" {
					t.Fatalf("delivery %v", d)
				}
			}
			ok := map[string]bool{}
			for _, g := range rc.received() {
				if g.Header.Get("webhook-id") != "" {
					ok[g.Header.Get("webhook-id")] = true
				}
			}
			if len(ok) != 2 {
				t.Fatalf("receiver saw events %v, want 2", ok)
			}
		})
	}
}

// 410 Gone disables the webhook: the delivery fails, nothing more is sent.
func TestWebhookGoneDisables(t *testing.T) {
	s := testserver.Start(t, testserver.Options{Configure: withSchedule(fastSchedule)})
	rc := newReceiver(t, answer(http.StatusGone))
	wh := createWebhook(t, s, s.AdminKey, rc.URL, []string{"*"}, "")
	id := wh["id"].(string)
	createCreator(t, s, s.AdminKey)
	rc.wait(t, 1, 10*time.Second)
	d := deliveriesUntil(t, s, s.AdminKey, id, 10*time.Second, settled)[0]
	if d["status"] != "failed" || d["attempts"] != 1.0 || d["response_status"] != 410.0 {
		t.Fatalf("delivery %v", d)
	}
	r := s.Do(t, "GET", "/v1/webhooks/"+id, s.AdminKey, nil)
	if r.JSON["status"] != "disabled" || !strings.Contains(r.JSON["disabled_reason"].(string), "410") {
		t.Fatalf("webhook after 410: %s", r.Body)
	}
	createCreator(t, s, s.AdminKey)
	rc.quiet(t, 1, 500*time.Millisecond)
	if r := s.Do(t, "POST", "/v1/webhooks/"+id+":test", s.AdminKey, map[string]any{}); r.Status != 409 || r.ErrorReason() != "WEBHOOK_DISABLED" {
		t.Fatalf("test a disabled webhook: %d %s", r.Status, r.Body)
	}
}

// Retry-After on 429 (and 503) postpones the retry beyond the schedule.
func TestWebhookRetryAfter(t *testing.T) {
	s := testserver.Start(t, testserver.Options{Configure: withSchedule(webhooks.Schedule{0, 50 * time.Millisecond, 50 * time.Millisecond})})
	rc := newReceiver(t, func(n int) reply {
		if n == 1 {
			return reply{code: http.StatusTooManyRequests, header: http.Header{"Retry-After": {"2"}}}
		}
		return reply{code: http.StatusOK}
	})
	wh := createWebhook(t, s, s.AdminKey, rc.URL, []string{"*"}, "")
	createCreator(t, s, s.AdminKey)
	got := rc.wait(t, 2, 10*time.Second)
	if gap := got[1].At.Sub(got[0].At); gap < 1900*time.Millisecond {
		t.Fatalf("retried %v after a Retry-After of 2 s", gap)
	}
	d := deliveriesUntil(t, s, s.AdminKey, wh["id"].(string), 10*time.Second, settled)[0]
	first := d["attempt_log"].([]any)[0].(map[string]any)
	at, _ := time.Parse(time.RFC3339Nano, first["at"].(string))
	next, _ := time.Parse(time.RFC3339Nano, first["next_retry_at"].(string))
	if d["status"] != "succeeded" || first["response_status"] != 429.0 || next.Sub(at) < 1900*time.Millisecond {
		t.Fatalf("delivery %v", d)
	}
}

// Without --allow-insecure-webhooks, plain http and internal addresses are
// refused at registration, and an endpoint that points inside later is
// refused when dialled.
func TestWebhookSSRF(t *testing.T) {
	s := testserver.Start(t, testserver.Options{Configure: func(c *server.Config) { c.AllowInsecureWebhooks = false }})
	refused := []string{
		"https://127.0.0.1/hook",
		"https://10.0.0.1/hook",
		"https://[::1]/hook",
		"https://169.254.169.254/latest/meta-data",
		"https://localhost/hook",
		"https://localhost:8443/hook",
		"http://example.com/hook",
	}
	// A name that resolves to a private address: this machine's own
	// hostname usually does (/etc/hosts).
	if host, err := os.Hostname(); err == nil {
		if addrs, err := net.DefaultResolver.LookupNetIP(context.Background(), "ip", host); err == nil && len(addrs) > 0 &&
			(addrs[0].IsLoopback() || addrs[0].IsPrivate()) && !strings.EqualFold(host, "localhost") {
			refused = append(refused, "https://"+host+":8443/hook")
		} else {
			t.Logf("hostname %q does not resolve to a private address here; that case is skipped", host)
		}
	}
	for _, u := range refused {
		r := s.Do(t, "POST", "/v1/webhooks", s.AdminKey, map[string]any{"url": u, "events": []string{"*"}})
		if r.Status != 400 || !slices.Contains(r.ViolatedFields(), "url") {
			t.Errorf("%s: %d %s", u, r.Status, r.Body)
		}
	}
	// A public address is accepted (no DNS needed for a literal).
	createWebhook(t, s, s.AdminKey, "https://93.184.215.14/hook", []string{"webhook.test"}, "")

	// An endpoint that reaches a loopback address anyway (as after DNS
	// rebinding) is refused by the delivery dialer: the receiver gets nothing.
	rc := newReceiver(t, nil)
	wh, err := s.Store.Ent.Webhook.Create().SetID(ids.New(ids.Webhook)).SetOrganizationID(s.OrgID).
		SetURL(rc.URL).SetEvents([]string{"*"}).SetSecret(webhooks.GenerateSecret()).Save(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if r := s.Do(t, "POST", "/v1/webhooks/"+wh.ID+":test", s.AdminKey, map[string]any{}); r.Status != 202 {
		t.Fatalf("test: %d %s", r.Status, r.Body)
	}
	ds := deliveriesUntil(t, s, s.AdminKey, wh.ID, 10*time.Second, func(ds []map[string]any) bool {
		return len(ds) == 1 && ds[0]["attempts"].(float64) >= 1
	})
	if e, _ := ds[0]["last_error"].(string); ds[0]["response_status"] != 0.0 || !strings.Contains(e, "prohibited") {
		t.Fatalf("delivery to loopback: %v", ds[0])
	}
	rc.quiet(t, 0, 100*time.Millisecond)
}

// Organizations never see each other's webhooks or events.
func TestWebhookTenancy(t *testing.T) {
	s := testserver.Start(t, testserver.Options{})
	other := s.NewKey(t, "globex", "*")
	rc := newReceiver(t, nil)
	wh := createWebhook(t, s, s.AdminKey, rc.URL, []string{"*"}, "")
	id := wh["id"].(string)
	for _, c := range []struct{ method, path string }{
		{"GET", "/v1/webhooks/" + id}, {"DELETE", "/v1/webhooks/" + id}, {"GET", "/v1/webhooks/" + id + "/deliveries"},
		{"POST", "/v1/webhooks/" + id + ":test"},
	} {
		var body any
		if c.method == "POST" {
			body = map[string]any{}
		}
		if r := s.Do(t, c.method, c.path, other, body); r.Status != 404 || r.ErrorReason() != "NOT_FOUND" {
			t.Errorf("%s %s from another organization: %d %s", c.method, c.path, r.Status, r.Body)
		}
	}
	if r := s.Do(t, "GET", "/v1/webhooks", other, nil); len(r.JSON["webhooks"].([]any)) != 0 {
		t.Fatalf("another organization lists %s", r.Body)
	}
	// The other organization's events are not delivered here.
	createCreator(t, s, other)
	mine := createCreator(t, s, s.AdminKey)
	got := rc.wait(t, 1, 10*time.Second)
	rc.quiet(t, 1, 500*time.Millisecond)
	if data := got[0].event(t)["data"].(map[string]any); data["id"] != mine["id"] {
		t.Fatalf("delivered %v, want creator %v", data["id"], mine["id"])
	}
	// Another organization's delivery cannot be redelivered through it.
	d := deliveriesUntil(t, s, s.AdminKey, id, 10*time.Second, settled)[0]
	otherWh := createWebhook(t, s, other, rc.URL, []string{"*"}, "")
	if r := s.Do(t, "POST", "/v1/webhooks/"+otherWh["id"].(string)+"/deliveries/"+d["id"].(string)+":redeliver", other, map[string]any{}); r.Status != 404 {
		t.Fatalf("redeliver another organization's delivery: %d %s", r.Status, r.Body)
	}
}

// A deleted webhook receives nothing afterwards, not even retries that were
// already queued.
func TestWebhookDeletedReceivesNothing(t *testing.T) {
	for _, b := range testdb.Backends(t) {
		t.Run(b.Name, func(t *testing.T) {
			s := testserver.Start(t, testserver.Options{DatabaseURL: b.URL(t), Configure: withSchedule(webhooks.Schedule{0, 400 * time.Millisecond, 400 * time.Millisecond, 400 * time.Millisecond})})
			rc := newReceiver(t, answer(http.StatusInternalServerError))
			wh := createWebhook(t, s, s.AdminKey, rc.URL, []string{"*"}, "")
			id := wh["id"].(string)
			createCreator(t, s, s.AdminKey)
			rc.wait(t, 1, 10*time.Second)
			if r := s.Do(t, "DELETE", "/v1/webhooks/"+id, s.AdminKey, nil); r.Status != 204 {
				t.Fatalf("delete: %d", r.Status)
			}
			n := len(rc.received())
			createCreator(t, s, s.AdminKey)
			rc.quiet(t, n, 1500*time.Millisecond)
			if n != 1 {
				t.Fatalf("%d attempts before the delete, want 1 (test too slow?)", n)
			}
			ds, err := s.Store.Ent.Delivery.Query().Where(delivery.WebhookID(id)).All(context.Background())
			if err != nil {
				t.Fatal(err)
			}
			if len(ds) != 1 || ds[0].Status != "failed" || ds[0].LastError != "webhook deleted" || ds[0].NextRetryAt != nil {
				t.Fatalf("deliveries of the deleted webhook: %+v", ds)
			}
		})
	}
}

// Engine, creator and test events reach the webhooks subscribed to them,
// with the resource as the API returns it.
func TestWebhookEventTypes(t *testing.T) {
	s := testserver.Start(t, testserver.Options{})
	jobsRc := newReceiver(t, nil)
	allRc := newReceiver(t, nil)
	jobsWh := createWebhook(t, s, s.AdminKey, jobsRc.URL, []string{"engine.job.completed"}, "")
	createWebhook(t, s, s.AdminKey, allRc.URL, []string{"*"}, "")

	run := s.Do(t, "POST", "/v1/engine/run", s.AdminKey, map[string]any{"vertical": "music", "workflow": "release-strategy", "context": releaseContext})
	if run.Status != 200 {
		t.Fatalf("run: %d %s", run.Status, run.Body)
	}
	creator := createCreator(t, s, s.AdminKey)

	got := jobsRc.wait(t, 1, 10*time.Second)[0].event(t)
	if got["type"] != "engine.job.completed" || !reflect.DeepEqual(got["data"], run.JSON) {
		t.Fatalf("job event %v\nwant data %v", got, run.JSON)
	}
	all := allRc.wait(t, 2, 10*time.Second)
	byType := map[string]map[string]any{}
	for _, g := range all {
		ev := g.event(t)
		byType[ev["type"].(string)] = ev
	}
	if !reflect.DeepEqual(byType["creator.created"]["data"], creator) || byType["engine.job.completed"] == nil {
		t.Fatalf("wildcard webhook got %v", byType)
	}
	jobsRc.quiet(t, 1, 300*time.Millisecond)

	// :test goes to the tested webhook alone, whatever it subscribes to.
	r := s.Do(t, "POST", "/v1/webhooks/"+jobsWh["id"].(string)+":test", s.AdminKey, map[string]any{})
	if r.Status != 202 || r.JSON["event_type"] != "webhook.test" || r.JSON["webhook_id"] != jobsWh["id"] || r.JSON["status"] != "pending" ||
		!ids.Valid(ids.Delivery, r.JSON["id"].(string)) {
		t.Fatalf("test: %d %s", r.Status, r.Body)
	}
	testDelivery := r.JSON
	test := jobsRc.wait(t, 2, 10*time.Second)[1]
	ev := test.event(t)
	data, _ := ev["data"].(map[string]any)
	if ev["type"] != "webhook.test" || ev["id"] != testDelivery["event_id"] || data["id"] != jobsWh["id"] || data["url"] != jobsRc.URL {
		t.Fatalf("test event %v", ev)
	}
	if _, ok := data["secret"]; ok {
		t.Fatal("test event carries the secret")
	}
	allRc.quiet(t, 2, 300*time.Millisecond)

	// Redelivery is a new delivery of the same event (same webhook-id).
	deliveriesUntil(t, s, s.AdminKey, jobsWh["id"].(string), 10*time.Second, settled)
	r = s.Do(t, "POST", "/v1/webhooks/"+jobsWh["id"].(string)+"/deliveries/"+testDelivery["id"].(string)+":redeliver", s.AdminKey, map[string]any{})
	if r.Status != 202 || r.JSON["id"] == testDelivery["id"] || r.JSON["event_id"] != testDelivery["event_id"] || r.JSON["status"] != "pending" {
		t.Fatalf("redeliver: %d %s", r.Status, r.Body)
	}
	again := jobsRc.wait(t, 3, 10*time.Second)[2]
	if again.Header.Get("webhook-id") != test.Header.Get("webhook-id") || string(again.Body) != string(test.Body) {
		t.Fatalf("redelivery differs: %s vs %s", again.Body, test.Body)
	}
	ds := deliveriesUntil(t, s, s.AdminKey, jobsWh["id"].(string), 10*time.Second, func(ds []map[string]any) bool { return len(ds) == 3 && settled(ds) })
	if ds[0]["id"] != r.JSON["id"] {
		t.Fatalf("deliveries not newest first: %v", ds)
	}
	if r := s.Do(t, "POST", "/v1/webhooks/"+jobsWh["id"].(string)+"/deliveries/whd_unknown:redeliver", s.AdminKey, map[string]any{}); r.Status != 404 {
		t.Fatalf("redeliver unknown: %d", r.Status)
	}
	if r := s.Do(t, "GET", "/v1/webhooks/"+jobsWh["id"].(string)+"/deliveries?page_size=2", s.AdminKey, nil); len(r.JSON["deliveries"].([]any)) != 2 || r.JSON["next_page_token"] == "" {
		t.Fatalf("deliveries page: %s", r.Body)
	}
}
