package server_test

import (
	"bytes"
	"context"
	"encoding/json"
	"log/slog"
	"net/http"
	"strings"
	"sync"
	"testing"

	"google.golang.org/grpc/metadata"

	"github.com/creativeops/creativeops/auth"
	creativeopsv1 "github.com/creativeops/creativeops/gen/creativeops/v1"
	"github.com/creativeops/creativeops/internal/testserver"
	"github.com/creativeops/creativeops/server"
	"github.com/creativeops/creativeops/server/edge"
)

// lockedBuffer collects a server's JSON log lines.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

// requestLines are the request log lines of route.
func (l *lockedBuffer) requestLines(t *testing.T, route string) []map[string]any {
	l.mu.Lock()
	defer l.mu.Unlock()
	var out []map[string]any
	for line := range strings.SplitSeq(l.b.String(), "\n") {
		var m map[string]any
		if json.Unmarshal([]byte(line), &m) == nil && m["msg"] == "request" && m["route"] == route {
			out = append(out, m)
		}
	}
	return out
}

// proxyServer is a test server whose peers (the test, on loopback) are
// trusted proxies, or not, logging every request into logs.
func proxyServer(t *testing.T, trusted []string, logs *lockedBuffer) *testserver.Server {
	return testserver.Start(t, testserver.Options{NoWorkers: true, Configure: func(c *server.Config) {
		c.TrustedProxies = trusted
		c.SignInLimit = auth.RateLimit{RequestsPerSecond: 0.01, Burst: 2}
		c.Logger = slog.New(slog.NewJSONHandler(logs, nil))
		c.LogRequests = edge.LogRequestsAll
	}})
}

// auditedIP creates a key over REST with headers and returns the client
// address its audit event records.
func auditedIP(t *testing.T, srv *testserver.Server, name string, headers ...string) string {
	t.Helper()
	r := srv.Do(t, "POST", "/v1/keys", srv.AdminKey, map[string]any{"name": name, "scopes": []string{"creators:read"}}, headers...)
	if r.Status != http.StatusOK && r.Status != http.StatusCreated {
		t.Fatalf("create key: %d %s", r.Status, r.Body)
	}
	return eventIP(t, srv, r.JSON["id"].(string))
}

func eventIP(t *testing.T, srv *testserver.Server, keyID string) string {
	t.Helper()
	ev := srv.Do(t, "GET", "/v1/audit-events?action=key.created&target_id="+keyID, srv.AdminKey, nil)
	evs, _ := ev.JSON["audit_events"].([]any)
	if len(evs) != 1 {
		t.Fatalf("audit of %s: %s", keyID, ev.Body)
	}
	origin, _ := evs[0].(map[string]any)["origin"].(map[string]any)
	ip, _ := origin["client_ip"].(string)
	return ip
}

// wrongSignIn makes a failed sign-in attempt with headers and returns
// its status.
func wrongSignIn(t *testing.T, srv *testserver.Server, headers ...string) int {
	t.Helper()
	b := &browser{t: t, srv: srv}
	return b.send(srv, "POST", "/dashboard/api/session", map[string]string{"api_key": "co_live_" + strings.Repeat("d", 38)}, false, headers...).status
}

// Behind a trusted proxy the client's address is the proxy's word: the
// right-most address of X-Forwarded-For (or Forwarded, when the proxies
// write that) that is not itself
// a trusted proxy. The audit log over REST and gRPC, the request log and
// the per-address limits all use it; IPv6 clients are counted by /64.
func TestTrustedProxyNamesTheClient(t *testing.T) {
	var logs lockedBuffer
	srv := proxyServer(t, []string{"127.0.0.0/8", "::1/128"}, &logs)

	// A client-written entry left of the proxy's is not believed.
	if ip := auditedIP(t, srv, "rest", "X-Forwarded-For", "198.51.100.66, 203.0.113.9"); ip != "203.0.113.9" {
		t.Fatalf("REST audit client_ip %q, want 203.0.113.9", ip)
	}
	// Proxies that write X-Forwarded-For (the default): a Forwarded
	// header is the client's own word, not believed.
	if ip := auditedIP(t, srv, "forwarded", "Forwarded", `for="[2001:db8::5]:443";proto=https`); ip != "127.0.0.1" {
		t.Fatalf("Forwarded through X-Forwarded-For proxies: audit client_ip %q, want the proxy's 127.0.0.1", ip)
	}
	lines := logs.requestLines(t, "/v1/keys")
	if len(lines) == 0 || lines[0]["client_ip"] != "203.0.113.9" {
		t.Fatalf("request log of the REST call: %v", lines)
	}

	// Native gRPC: the proxy's header arrives as metadata.
	keys := creativeopsv1.NewKeysServiceClient(srv.Conn(t))
	ctx := metadata.AppendToOutgoingContext(context.Background(), "authorization", "Bearer "+srv.AdminKey, "x-forwarded-for", "203.0.113.10")
	k, err := keys.CreateKey(ctx, &creativeopsv1.CreateKeyRequest{Name: "grpc", Scopes: []string{"creators:read"}})
	if err != nil {
		t.Fatal(err)
	}
	if ip := eventIP(t, srv, k.GetId()); ip != "203.0.113.10" {
		t.Fatalf("gRPC audit client_ip %q, want 203.0.113.10", ip)
	}
	grpcLines := logs.requestLines(t, "/v1/keys")
	found := false
	for _, l := range grpcLines {
		found = found || l["transport"] == "grpc" && l["client_ip"] == "203.0.113.10"
	}
	if !found {
		t.Fatalf("no gRPC request line with the client's address: %v", grpcLines)
	}

	// Per-address limits count each client behind the proxy apart.
	for i := range 2 {
		if code := wrongSignIn(t, srv, "X-Forwarded-For", "203.0.113.20"); code != http.StatusUnauthorized {
			t.Fatalf("wrong sign-in %d from 203.0.113.20: %d", i+1, code)
		}
	}
	if code := wrongSignIn(t, srv, "X-Forwarded-For", "203.0.113.20"); code != http.StatusTooManyRequests {
		t.Fatalf("third wrong sign-in from 203.0.113.20: %d, want 429", code)
	}
	if code := wrongSignIn(t, srv, "X-Forwarded-For", "203.0.113.21"); code != http.StatusUnauthorized {
		t.Fatalf("another client behind the proxy: %d, want 401", code)
	}
	// A client cannot escape its bucket by prepending addresses.
	if code := wrongSignIn(t, srv, "X-Forwarded-For", "192.0.2.1, 203.0.113.20"); code != http.StatusTooManyRequests {
		t.Fatalf("spoofed entry before the client's address: %d, want 429", code)
	}
	// One IPv6 /64 is one client.
	for _, a := range []string{"2001:db8:1:2::1", "2001:db8:1:2::2"} {
		if code := wrongSignIn(t, srv, "X-Forwarded-For", a); code != http.StatusUnauthorized {
			t.Fatalf("wrong sign-in from %s: %d", a, code)
		}
	}
	if code := wrongSignIn(t, srv, "X-Forwarded-For", "2001:db8:1:2:ffff::9"); code != http.StatusTooManyRequests {
		t.Fatalf("third wrong sign-in from the same /64: %d, want 429", code)
	}
	if code := wrongSignIn(t, srv, "X-Forwarded-For", "2001:db8:1:3::1"); code != http.StatusUnauthorized {
		t.Fatalf("another /64: %d, want 401", code)
	}
}

// From a peer that is not a trusted proxy the forwarding headers are
// ignored: they cannot move the client's address, in the audit log or the
// limits.
func TestUntrustedPeerCannotForwardAddresses(t *testing.T) {
	for name, trusted := range map[string][]string{"none": nil, "others": {"10.0.0.0/8"}} {
		t.Run(name, func(t *testing.T) {
			var logs lockedBuffer
			srv := proxyServer(t, trusted, &logs)
			if ip := auditedIP(t, srv, "rest", "X-Forwarded-For", "203.0.113.9"); ip != "127.0.0.1" {
				t.Fatalf("audit client_ip %q, want the peer 127.0.0.1", ip)
			}
			if ip := auditedIP(t, srv, "fwd", "Forwarded", "for=203.0.113.9"); ip != "127.0.0.1" {
				t.Fatalf("audit client_ip %q, want the peer 127.0.0.1", ip)
			}
			if lines := logs.requestLines(t, "/v1/keys"); len(lines) == 0 || lines[0]["client_ip"] != "127.0.0.1" {
				t.Fatalf("request log: %v", lines)
			}
			// Every attempt counts against the peer, whatever it claims.
			for i, a := range []string{"203.0.113.1", "203.0.113.2"} {
				if code := wrongSignIn(t, srv, "X-Forwarded-For", a); code != http.StatusUnauthorized {
					t.Fatalf("wrong sign-in %d: %d", i+1, code)
				}
			}
			if code := wrongSignIn(t, srv, "X-Forwarded-For", "203.0.113.3"); code != http.StatusTooManyRequests {
				t.Fatalf("a third address claimed by one peer: %d, want 429", code)
			}
		})
	}
}

// Behind proxies that write Forwarded (--client-ip-header forwarded) the
// client's address is read from Forwarded alone: an X-Forwarded-For the
// client sent through such a proxy names nobody.
func TestTrustedProxyWritingForwarded(t *testing.T) {
	var logs lockedBuffer
	srv := testserver.Start(t, testserver.Options{NoWorkers: true, Configure: func(c *server.Config) {
		c.TrustedProxies = []string{"127.0.0.0/8", "::1/128"}
		c.ClientIPHeader = "forwarded"
		c.Logger = slog.New(slog.NewJSONHandler(&logs, nil))
	}})
	if ip := auditedIP(t, srv, "forwarded", "Forwarded", `for="[2001:db8::5]:443";proto=https`); ip != "2001:db8::5" {
		t.Fatalf("Forwarded: audit client_ip %q, want 2001:db8::5", ip)
	}
	if ip := auditedIP(t, srv, "spoofed", "X-Forwarded-For", "198.51.100.66"); ip != "127.0.0.1" {
		t.Fatalf("a client's X-Forwarded-For through a Forwarded proxy: audit client_ip %q, want the proxy's 127.0.0.1", ip)
	}
}
