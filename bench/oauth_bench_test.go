package bench

import (
	"context"
	"net/http"
	"net/http/httptest"
	"net/url"
	"slices"
	"strings"
	"testing"
	"time"

	"golang.org/x/oauth2/clientcredentials"

	"github.com/creativeops/creativeops/auth"
	"github.com/creativeops/creativeops/internal/testserver"
	"github.com/creativeops/creativeops/oauth"
)

// oauthFixture is a server with a creator, an API key and an OAuth client
// holding the same scope, and a token of that client.
type oauthFixture struct {
	s                *testserver.Server
	creatorID        string
	key, token       string
	clientID, secret string
}

func newOAuthFixture(b *testing.B) *oauthFixture {
	b.Helper()
	s := testserver.Start(b, testserver.Options{NoWorkers: true})
	r := s.Do(b, "POST", "/v1/creators", s.AdminKey, map[string]any{"name": "Nova Reyes", "email": "nova@example.com", "vertical": "music"})
	f := &oauthFixture{s: s, creatorID: r.JSON["id"].(string), key: s.NewKey(b, "acme", auth.ScopeCreatorsRead)}
	c, secret, err := s.OAuth().CreateClient(context.Background(), oauth.NewClientParams{OrganizationID: s.OrgID, Name: "bench", Scopes: []string{auth.ScopeCreatorsRead}})
	if err != nil {
		b.Fatal(err)
	}
	f.clientID, f.secret = c.ID, secret
	tok, err := (&clientcredentials.Config{ClientID: c.ID, ClientSecret: secret, TokenURL: s.URL + oauth.TokenPath}).Token(context.Background())
	if err != nil {
		b.Fatal(err)
	}
	f.token = tok.AccessToken
	return f
}

func (f *oauthFixture) get(b *testing.B, h http.Handler, bearer string) {
	req := httptest.NewRequest("GET", "/v1/creators/"+f.creatorID, nil)
	req.Header.Set("Authorization", "Bearer "+bearer)
	w := httptest.NewRecorder()
	h.ServeHTTP(w, req)
	if w.Code != http.StatusOK {
		b.Fatalf("status %d: %s", w.Code, w.Body)
	}
}

// BenchmarkGetCreatorBearer compares GET /v1/creators/{id} through the
// whole REST stack (no network) with an API key and with an OAuth access
// token. The two alternate within each iteration, so both see the same
// machine load, and the medians are compared, so a stall of the shared
// machine does not land on one side: jwt/key is what a token costs
// relative to a key.
func BenchmarkGetCreatorBearer(b *testing.B) {
	f := newOAuthFixture(b)
	h := f.s.Handler()
	f.get(b, h, f.key) // warm both caches
	f.get(b, h, f.token)
	keyTimes := make([]time.Duration, 0, b.N)
	jwtTimes := make([]time.Duration, 0, b.N)
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		// Alternate which goes first, so neither always runs on a warmer cache.
		first, second := f.key, f.token
		if i%2 == 1 {
			first, second = second, first
		}
		t0 := time.Now()
		f.get(b, h, first)
		t1 := time.Now()
		f.get(b, h, second)
		t2 := time.Now()
		if first == f.key {
			keyTimes, jwtTimes = append(keyTimes, t1.Sub(t0)), append(jwtTimes, t2.Sub(t1))
		} else {
			jwtTimes, keyTimes = append(jwtTimes, t1.Sub(t0)), append(keyTimes, t2.Sub(t1))
		}
	}
	b.StopTimer()
	key, jwt := p50(keyTimes), p50(jwtTimes)
	b.ReportMetric(float64(key.Nanoseconds()), "key-p50-ns")
	b.ReportMetric(float64(jwt.Nanoseconds()), "jwt-p50-ns")
	b.ReportMetric(float64(jwt)/float64(key), "jwt/key")
}

func p50(d []time.Duration) time.Duration {
	slices.Sort(d)
	return d[len(d)/2]
}

// BenchmarkGetCreatorCredential is the same request with one credential
// per sub-benchmark, for its CPU time and allocations.
func BenchmarkGetCreatorCredential(b *testing.B) {
	f := newOAuthFixture(b)
	h := f.s.Handler()
	for _, c := range []struct{ name, bearer string }{{"api-key", f.key}, {"jwt", f.token}} {
		b.Run(c.name, func(b *testing.B) {
			f.get(b, h, c.bearer)
			b.ReportAllocs()
			b.ResetTimer()
			cpu := cpuTime()
			for i := 0; i < b.N; i++ {
				f.get(b, h, c.bearer)
			}
			b.ReportMetric(float64(cpuTime()-cpu)/float64(b.N), "cpu-ns/op")
		})
	}
}

// BenchmarkOAuthTokenIssue measures POST /oauth/token (client_secret_basic)
// through the HTTP stack: client lookup, secret check, signing.
func BenchmarkOAuthTokenIssue(b *testing.B) {
	f := newOAuthFixture(b)
	h := f.s.Handler()
	body := url.Values{"grant_type": {"client_credentials"}}.Encode()
	b.ReportAllocs()
	b.ResetTimer()
	cpu := cpuTime()
	for i := 0; i < b.N; i++ {
		req := httptest.NewRequest("POST", oauth.TokenPath, strings.NewReader(body))
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		req.SetBasicAuth(f.clientID, f.secret)
		w := httptest.NewRecorder()
		h.ServeHTTP(w, req)
		if w.Code != http.StatusOK {
			b.Fatalf("status %d: %s", w.Code, w.Body)
		}
	}
	b.ReportMetric(float64(cpuTime()-cpu)/float64(b.N), "cpu-ns/op")
}
