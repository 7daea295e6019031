package oauth

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"encoding/json"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"

	"github.com/creativeops/creativeops/auth"
	"github.com/creativeops/creativeops/ratelimit"
)

// budgeted gives the fixture's service a limiter with limits, counting
// a request's address by its X-Test-Addr header.
func (f *fixture) budgeted(t *testing.T, limits TokenLimits) {
	t.Helper()
	lim, err := ratelimit.New(auth.RateLimit{RequestsPerSecond: 1, Burst: 1}, "", slog.Default())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { lim.Close() })
	f.svc.cfg.Limiter = lim
	f.svc.cfg.TokenLimits = limits.WithDefaults()
	f.svc.cfg.ClientAddress = func(r *http.Request) string { return r.Header.Get("X-Test-Addr") }
}

// tokenFrom asks for a token from addr.
func (f *fixture) tokenFrom(t *testing.T, addr string, form url.Values, basic ...string) (int, map[string]any, http.Header) {
	t.Helper()
	req := httptest.NewRequest("POST", TokenPath, strings.NewReader(form.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("X-Test-Addr", addr)
	if len(basic) == 2 {
		req.SetBasicAuth(url.QueryEscape(basic[0]), url.QueryEscape(basic[1]))
	}
	rec := httptest.NewRecorder()
	mux := http.NewServeMux()
	f.svc.Register(mux)
	mux.ServeHTTP(rec, req)
	var body map[string]any
	_ = json.Unmarshal(rec.Body.Bytes(), &body)
	return rec.Code, body, rec.Header()
}

func wantThrottled(t *testing.T, what string, code int, body map[string]any, h http.Header) {
	t.Helper()
	if code != http.StatusTooManyRequests || body["error"] != "temporarily_unavailable" || body["error_description"] == "" ||
		h.Get("Retry-After") == "" || h.Get("Content-Type") != "application/json" {
		t.Fatalf("%s: %d %v %v, want 429 temporarily_unavailable with Retry-After", what, code, body, h)
	}
}

var cc = url.Values{"grant_type": {"client_credentials"}}

// Every token request from one address spends its budget; another
// address has its own.
func TestTokenEndpointBudgetPerAddress(t *testing.T) {
	f := newFixture(t)
	f.budgeted(t, TokenLimits{PerAddress: auth.RateLimit{RequestsPerSecond: 0.001, Burst: 3}})
	for i := range 3 {
		if code, body, _ := f.tokenFrom(t, "198.51.100.1", cc, f.client.ID, f.secret); code != 200 {
			t.Fatalf("request %d: %d %v", i+1, code, body)
		}
	}
	code, body, h := f.tokenFrom(t, "198.51.100.1", cc, f.client.ID, f.secret)
	wantThrottled(t, "fourth request from one address", code, body, h)
	if code, body, _ := f.tokenFrom(t, "198.51.100.2", cc, f.client.ID, f.secret); code != 200 {
		t.Fatalf("another address: %d %v", code, body)
	}
}

// Failed authentications naming one client are budgeted per client id
// and address: past the budget a wrong credential from that address is
// refused as throttled, whatever its kind, while the right one is still
// accepted, from that address and from any other, so knowing a client id
// (it is in every token) is not enough to keep the client out. Successes
// spend nothing, and other clients are not affected.
func TestTokenEndpointBudgetPerClient(t *testing.T) {
	f := newFixture(t)
	f.budgeted(t, TokenLimits{PerAddress: auth.RateLimit{RequestsPerSecond: 1e6, Burst: 1e6}})
	burst := DefaultTokenLimits.PerClient.Burst
	for i := range 10 {
		if code, body, _ := f.tokenFrom(t, "198.51.100.1", cc, f.client.ID, f.secret); code != 200 {
			t.Fatalf("success %d: %d %v", i+1, code, body)
		}
	}
	// Junk assertions and wrong secrets naming the client, from one
	// address, all count.
	const attacker = "203.0.113.1"
	key, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	tries := []func() (int, map[string]any, http.Header){
		func() (int, map[string]any, http.Header) {
			return f.tokenFrom(t, attacker, cc, f.client.ID, SecretPrefix+"wrong")
		},
		func() (int, map[string]any, http.Header) {
			return f.tokenFrom(t, attacker, assertionForm("", signedAssertion(t, key, f.client.ID, f.now)))
		},
		func() (int, map[string]any, http.Header) {
			return f.tokenFrom(t, attacker, url.Values{"grant_type": {"client_credentials"}, "client_id": {f.client.ID}, "client_secret": {"x"}})
		},
	}
	for i := range burst {
		if code, body, _ := tries[i%len(tries)](); code != 401 {
			t.Fatalf("failure %d: %d %v", i+1, code, body)
		}
	}
	// The attack goes on past the budget; the client goes on too.
	for i := range 2 * burst {
		code, body, h := tries[i%len(tries)]()
		wantThrottled(t, "a wrong credential past the budget", code, body, h)
		if i%10 != 0 {
			continue
		}
		for _, addr := range []string{"198.51.100.7", attacker} {
			if code, body, _ := f.tokenFrom(t, addr, cc, f.client.ID, f.secret); code != 200 {
				t.Fatalf("the right secret from %s while another address fails in the client's name: %d %v", addr, code, body)
			}
		}
	}
	// Another address's failures have their own budget.
	if code, body, _ := f.tokenFrom(t, "198.51.100.7", cc, f.client.ID, SecretPrefix+"wrong"); code != 401 {
		t.Fatalf("a wrong secret from another address: %d %v, want 401", code, body)
	}

	other, secret, err := f.svc.CreateClient(t.Context(), NewClientParams{OrganizationID: f.orgID, Name: "other", Scopes: []string{auth.ScopeCreatorsRead}})
	if err != nil {
		t.Fatal(err)
	}
	if code, body, _ := f.tokenFrom(t, attacker, cc, other.ID, secret); code != 200 {
		t.Fatalf("another client: %d %v", code, body)
	}
}
