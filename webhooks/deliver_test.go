package webhooks

import (
	"context"
	"crypto/x509"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
	"unicode/utf8"

	"code.dny.dev/ssrf"
	standardwebhooks "github.com/standard-webhooks/standard-webhooks/libraries/go"

	"github.com/creativeops/creativeops/events"
)

// clientFor returns a NewClient client that trusts srv's certificate when
// srv is a TLS server.
func clientFor(t *testing.T, srv *httptest.Server, allowInsecure bool, timeout time.Duration) *http.Client {
	t.Helper()
	c := NewClient(allowInsecure, timeout)
	if srv.TLS != nil {
		pool := x509.NewCertPool()
		pool.AddCert(srv.Certificate())
		c.Transport.(*http.Transport).TLSClientConfig.RootCAs = pool
	}
	return c
}

func testEvent() Event {
	return Event{
		ID:        NewEventID(),
		Type:      events.JobCompleted,
		Timestamp: time.Now().Add(-time.Minute),
		Data:      json.RawMessage(`{"job_id":"job_123"}`),
	}
}

// receiver is an endpoint that verifies every request with the reference
// Standard Webhooks library and answers the given statuses in turn.
type receiver struct {
	verifier *standardwebhooks.Webhook
	statuses []int

	mu   sync.Mutex
	ids  []string
	errs []error
}

func (rc *receiver) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	rc.mu.Lock()
	defer rc.mu.Unlock()
	n := len(rc.ids)
	rc.ids = append(rc.ids, r.Header.Get("webhook-id"))
	var err error
	switch {
	case r.Method != http.MethodPost:
		err = fmt.Errorf("method %s", r.Method)
	case r.Header.Get("Content-Type") != "application/json":
		err = fmt.Errorf("content-type %q", r.Header.Get("Content-Type"))
	case r.Header.Get("User-Agent") != UserAgent:
		err = fmt.Errorf("user-agent %q", r.Header.Get("User-Agent"))
	default:
		err = rc.verifier.Verify(body, r.Header)
		var ev Event
		if err == nil {
			err = json.Unmarshal(body, &ev)
		}
		if err == nil && ev.ID != r.Header.Get("webhook-id") {
			err = fmt.Errorf("body id %q != webhook-id %q", ev.ID, r.Header.Get("webhook-id"))
		}
	}
	rc.errs = append(rc.errs, err)
	status := http.StatusOK
	if n < len(rc.statuses) {
		status = rc.statuses[n]
	}
	w.WriteHeader(status)
	fmt.Fprintf(w, "attempt %d", n+1)
}

func TestDeliverRetriesThenSucceeds(t *testing.T) {
	for _, tlsServer := range []bool{false, true} {
		t.Run(fmt.Sprintf("tls=%v", tlsServer), func(t *testing.T) {
			secret := GenerateSecret()
			verifier, err := standardwebhooks.NewWebhook(secret)
			if err != nil {
				t.Fatal(err)
			}
			rc := &receiver{verifier: verifier, statuses: []int{500, 500, 200}}
			var srv *httptest.Server
			if tlsServer {
				srv = httptest.NewTLSServer(rc)
			} else {
				srv = httptest.NewServer(rc)
			}
			defer srv.Close()
			client := clientFor(t, srv, true, 5*time.Second)
			ev := testEvent()

			want := []struct {
				outcome Outcome
				status  int
			}{{Retry, 500}, {Retry, 500}, {Succeeded, 200}}
			for i, w := range want {
				a := Deliver(context.Background(), client, srv.URL+"/hook", secret, ev, time.Now())
				if a.Outcome != w.outcome || a.StatusCode != w.status {
					t.Fatalf("attempt %d: %+v, want outcome %s status %d", i+1, a, w.outcome, w.status)
				}
				if wantBody := fmt.Sprintf("attempt %d", i+1); a.ResponseBody != wantBody {
					t.Errorf("attempt %d: body %q, want %q", i+1, a.ResponseBody, wantBody)
				}
				if (a.Err == "") != (w.outcome == Succeeded) {
					t.Errorf("attempt %d: Err = %q", i+1, a.Err)
				}
				if a.Latency <= 0 {
					t.Errorf("attempt %d: latency %v", i+1, a.Latency)
				}
			}
			rc.mu.Lock()
			defer rc.mu.Unlock()
			if len(rc.ids) != 3 {
				t.Fatalf("receiver saw %d requests, want 3", len(rc.ids))
			}
			for i, id := range rc.ids {
				if id != ev.ID {
					t.Errorf("request %d: webhook-id %q, want %q", i+1, id, ev.ID)
				}
				if rc.errs[i] != nil {
					t.Errorf("request %d: %v", i+1, rc.errs[i])
				}
			}
		})
	}
}

func TestDeliverOutcomes(t *testing.T) {
	now := time.Now().Truncate(time.Second)
	tests := []struct {
		name           string
		status         int
		retryAfter     string
		body           string
		wantOutcome    Outcome
		wantRetryAfter time.Duration
		wantBody       string
	}{
		{name: "200", status: 200, wantOutcome: Succeeded},
		{name: "204", status: 204, wantOutcome: Succeeded},
		{name: "299", status: 299, wantOutcome: Succeeded},
		{name: "410 disables", status: 410, wantOutcome: Disable},
		{name: "429 seconds", status: 429, retryAfter: "7", wantOutcome: Retry, wantRetryAfter: 7 * time.Second},
		{name: "503 seconds", status: 503, retryAfter: " 120 ", wantOutcome: Retry, wantRetryAfter: 2 * time.Minute},
		{name: "503 http-date", status: 503, retryAfter: now.Add(30 * time.Second).UTC().Format(http.TimeFormat), wantOutcome: Retry, wantRetryAfter: 30 * time.Second},
		{name: "429 date in the past", status: 429, retryAfter: now.Add(-time.Hour).UTC().Format(http.TimeFormat), wantOutcome: Retry},
		{name: "429 huge is capped", status: 429, retryAfter: "99999999999", wantOutcome: Retry, wantRetryAfter: MaxRetryAfter},
		{name: "429 negative", status: 429, retryAfter: "-5", wantOutcome: Retry},
		{name: "429 garbage", status: 429, retryAfter: "soon", wantOutcome: Retry},
		{name: "429 without header", status: 429, wantOutcome: Retry},
		{name: "500 ignores Retry-After", status: 500, retryAfter: "7", wantOutcome: Retry},
		{name: "400", status: 400, wantOutcome: Retry},
		{name: "404", status: 404, wantOutcome: Retry},
		{name: "body truncated to 1 KiB", status: 500, body: strings.Repeat("x", 5000), wantOutcome: Retry, wantBody: strings.Repeat("x", 1024)},
		{name: "body made storable", status: 200, body: "ok\x00\xff", wantOutcome: Succeeded, wantBody: "ok\uFFFD"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				if tt.retryAfter != "" {
					w.Header().Set("Retry-After", tt.retryAfter)
				}
				w.WriteHeader(tt.status)
				io.WriteString(w, tt.body)
			}))
			defer srv.Close()
			a := Deliver(context.Background(), clientFor(t, srv, true, 5*time.Second), srv.URL, "whsec_AQID", testEvent(), now)
			if a.Outcome != tt.wantOutcome || a.StatusCode != tt.status || a.RetryAfter != tt.wantRetryAfter {
				t.Fatalf("got %+v, want outcome %s status %d RetryAfter %v", a, tt.wantOutcome, tt.status, tt.wantRetryAfter)
			}
			if a.ResponseBody != tt.wantBody {
				t.Errorf("ResponseBody = %q, want %q", a.ResponseBody, tt.wantBody)
			}
			if (a.Err == "") != (tt.wantOutcome == Succeeded) {
				t.Errorf("Err = %q", a.Err)
			}
		})
	}
}

func TestDeliverTruncatedBodyStaysValidUTF8(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.WriteString(w, "a"+strings.Repeat("é", 2000)) // 1024 cuts an "é" in half
	}))
	defer srv.Close()
	a := Deliver(context.Background(), clientFor(t, srv, true, 5*time.Second), srv.URL, "s", testEvent(), time.Now())
	if !utf8.ValidString(a.ResponseBody) || len(a.ResponseBody) > MaxResponseBody+2 {
		t.Fatalf("ResponseBody %d bytes, valid=%v", len(a.ResponseBody), utf8.ValidString(a.ResponseBody))
	}
}

func TestDeliverDoesNotFollowRedirects(t *testing.T) {
	var targetHits atomic.Int32
	target := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		targetHits.Add(1)
	}))
	defer target.Close()
	for _, status := range []int{301, 302, 307, 308} {
		redirector := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			http.Redirect(w, r, target.URL, status)
		}))
		a := Deliver(context.Background(), clientFor(t, redirector, true, 5*time.Second), redirector.URL, "s", testEvent(), time.Now())
		redirector.Close()
		if a.Outcome != Retry || a.StatusCode != status || a.Err == "" {
			t.Errorf("%d: got %+v, want Retry with status %d", status, a, status)
		}
	}
	if n := targetHits.Load(); n != 0 {
		t.Fatalf("redirect target was hit %d times", n)
	}
}

func TestDeliverTimeout(t *testing.T) {
	release := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-release:
		case <-r.Context().Done():
		}
	}))
	defer srv.Close()
	defer close(release)

	const timeout = 200 * time.Millisecond
	a := Deliver(context.Background(), clientFor(t, srv, true, timeout), srv.URL, "s", testEvent(), time.Now())
	if a.Outcome != Retry || a.StatusCode != 0 || a.Err == "" {
		t.Fatalf("got %+v, want Retry with an error and no status", a)
	}
	if a.Latency < timeout || a.Latency > 5*time.Second {
		t.Fatalf("latency %v, want about %v", a.Latency, timeout)
	}
}

func TestDeliverCanceledContext(t *testing.T) {
	var hits atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { hits.Add(1) }))
	defer srv.Close()
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	a := Deliver(ctx, clientFor(t, srv, true, 5*time.Second), srv.URL, "s", testEvent(), time.Now())
	if a.Outcome != Retry || !strings.Contains(a.Err, "canceled") || hits.Load() != 0 {
		t.Fatalf("got %+v (hits %d), want Retry with a cancellation error", a, hits.Load())
	}
}

func TestDeliverLocalFailures(t *testing.T) {
	var hits atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { hits.Add(1) }))
	defer srv.Close()
	client := clientFor(t, srv, true, 5*time.Second)
	tests := []struct {
		name     string
		endpoint string
		secret   string
		ev       Event
	}{
		{"invalid secret", srv.URL, "whsec_!!!", testEvent()},
		{"event without id", srv.URL, "s", Event{Type: events.WebhookTest, Timestamp: time.Now()}},
		{"unparsable URL", "http://[::1", "s", testEvent()},
	}
	for _, tt := range tests {
		a := Deliver(context.Background(), client, tt.endpoint, tt.secret, tt.ev, time.Now())
		if a.Outcome != Retry || a.Err == "" || a.StatusCode != 0 {
			t.Errorf("%s: got %+v, want Retry with an error", tt.name, a)
		}
	}
	if hits.Load() != 0 {
		t.Fatalf("server was hit %d times", hits.Load())
	}
}

// TestClientRefusesLoopbackAfterResolution covers what ValidateURL cannot
// see: a hostname that resolves to loopback must be refused when dialing.
func TestClientRefusesLoopbackAfterResolution(t *testing.T) {
	for _, tlsServer := range []bool{false, true} {
		t.Run(fmt.Sprintf("tls=%v", tlsServer), func(t *testing.T) {
			var hits atomic.Int32
			h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { hits.Add(1) })
			var srv *httptest.Server
			if tlsServer {
				srv = httptest.NewTLSServer(h)
			} else {
				srv = httptest.NewServer(h)
			}
			defer srv.Close()
			viaLocalhost := strings.Replace(srv.URL, "127.0.0.1", "localhost", 1)

			strict := clientFor(t, srv, false, 5*time.Second)
			for _, u := range []string{viaLocalhost, srv.URL} {
				resp, err := strict.Post(u, "application/json", strings.NewReader("{}"))
				if err == nil {
					resp.Body.Close()
					t.Fatalf("%s: strict client got %s, want a refused dial", u, resp.Status)
				}
				if !errors.Is(err, ssrf.ErrProhibitedIP) {
					t.Fatalf("%s: err = %v, want ssrf.ErrProhibitedIP", u, err)
				}
				a := Deliver(context.Background(), strict, u, "s", testEvent(), time.Now())
				if a.Outcome != Retry || !strings.Contains(a.Err, "prohibited IP") {
					t.Fatalf("%s: Deliver = %+v, want Retry refused by the SSRF guard", u, a)
				}
			}
			if n := hits.Load(); n != 0 {
				t.Fatalf("server was hit %d times by the strict client", n)
			}

			// Positive control: the same endpoint is reachable in insecure
			// mode, so the refusal above is the guard and not a broken setup.
			// (The test certificate does not name localhost, so use the IP.)
			insecure := clientFor(t, srv, true, 5*time.Second)
			u := srv.URL
			if !tlsServer {
				u = viaLocalhost
			}
			if a := Deliver(context.Background(), insecure, u, "s", testEvent(), time.Now()); a.Outcome != Succeeded {
				t.Fatalf("insecure client: %+v, want Succeeded", a)
			}
			if hits.Load() != 1 {
				t.Fatalf("server hits = %d, want 1", hits.Load())
			}
		})
	}
}

// The dial guard NewClient installs (guard: the metadata addresses, then
// the SSRF guardian) is checked directly so that no test ever sends a
// packet towards a non-loopback address. Each refusal is checked for its
// reason: a metadata address is refused by the project's own list even
// where the guardian would allow it.
func TestGuardians(t *testing.T) {
	const ok, ip, meta = "ok", "prohibited address", "metadata address"
	tests := []struct {
		addr             string
		strict, insecure string
	}{
		{"93.184.216.34:443", ok, ok},
		{"93.184.216.34:8443", ok, ok},
		{"[2606:2800:220:1:248:1893:25c8:1946]:443", ok, ok},
		{"127.0.0.1:443", ip, ok},
		{"[::1]:8080", ip, ok},
		{"10.1.2.3:443", ip, ok},
		{"172.20.0.1:443", ip, ok},
		{"192.168.0.10:443", ip, ok},
		{"[fd00::1]:443", ip, ok},
		{"169.254.169.254:80", ip, ip},
		{"[fe80::1]:80", ip, ip},
		{"0.0.0.0:80", ip, ip},
		{"224.0.0.1:80", ip, ip},
		{"[::ffff:169.254.169.254]:80", ip, ip},
		// Metadata services the guardian alone would let through in
		// development (fc00::/7, CGNAT) or everywhere (a public address).
		{"[fd00:ec2::254]:80", meta, meta},
		{"100.100.100.200:80", meta, meta},
		{"168.63.129.16:80", meta, meta},
		{"[::ffff:168.63.129.16]:80", meta, meta},
	}
	reason := func(err error) string {
		switch {
		case err == nil:
			return ok
		case errors.Is(err, errMetadataAddr):
			return meta
		case errors.Is(err, ssrf.ErrProhibitedIP):
			return ip
		}
		return err.Error()
	}
	strict, insecure := guard(strictGuardian), guard(insecureGuardian)
	for _, tt := range tests {
		ap := netip.MustParseAddrPort(tt.addr)
		network := "tcp4"
		if ap.Addr().Is6() {
			network = "tcp6"
		}
		if got := reason(strict(network, tt.addr, nil)); got != tt.strict {
			t.Errorf("strict %s: %s, want %s", tt.addr, got, tt.strict)
		}
		if got := reason(insecure(network, tt.addr, nil)); got != tt.insecure {
			t.Errorf("insecure %s: %s, want %s", tt.addr, got, tt.insecure)
		}
	}
}

func TestNewClientSettings(t *testing.T) {
	t.Setenv("HTTP_PROXY", "http://127.0.0.1:1")
	t.Setenv("HTTPS_PROXY", "http://127.0.0.1:1")
	c := NewClient(true, 3*time.Second)
	tr, ok := c.Transport.(*http.Transport)
	if !ok {
		t.Fatalf("Transport is %T", c.Transport)
	}
	if tr == http.DefaultTransport {
		t.Fatal("uses http.DefaultTransport")
	}
	if tr.Proxy != nil {
		t.Fatal("Transport.Proxy is set; environment proxies would bypass the SSRF guard")
	}
	if c.Timeout != 3*time.Second {
		t.Fatalf("Timeout = %v", c.Timeout)
	}
	if NewClient(false, 0).Timeout != DefaultTimeout {
		t.Fatal("zero timeout does not fall back to DefaultTimeout")
	}
	if err := c.CheckRedirect(nil, nil); !errors.Is(err, http.ErrUseLastResponse) {
		t.Fatalf("CheckRedirect = %v", err)
	}
	if tr.MaxIdleConnsPerHost < 16 {
		t.Fatalf("MaxIdleConnsPerHost = %d, too few for bursts to one host", tr.MaxIdleConnsPerHost)
	}

	// With the proxy variables pointing at a dead port, a request only
	// succeeds if it goes direct.
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {}))
	defer srv.Close()
	if a := Deliver(context.Background(), c, srv.URL, "s", testEvent(), time.Now()); a.Outcome != Succeeded {
		t.Fatalf("direct delivery with proxy env set: %+v", a)
	}
}
