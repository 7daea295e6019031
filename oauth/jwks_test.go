package oauth

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"net/url"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	jose "github.com/go-jose/go-jose/v4"
	"github.com/go-jose/go-jose/v4/jwt"

	"github.com/creativeops/creativeops/auth"
)

// jwksServer serves a JWK set of one key, counting requests; fail makes it
// answer 500, delay makes it slow.
type jwksServer struct {
	*httptest.Server
	hits  atomic.Int64
	fail  atomic.Bool
	delay time.Duration
	set   []byte
}

func newJWKSServer(t *testing.T, key *ecdsa.PrivateKey, delay time.Duration) *jwksServer {
	t.Helper()
	set, err := json.Marshal(jose.JSONWebKeySet{Keys: []jose.JSONWebKey{{Key: &key.PublicKey, KeyID: "k1", Algorithm: "ES256", Use: "sig"}}})
	if err != nil {
		t.Fatal(err)
	}
	j := &jwksServer{delay: delay, set: set}
	j.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		j.hits.Add(1)
		time.Sleep(j.delay)
		if j.fail.Load() {
			http.Error(w, "down", http.StatusInternalServerError)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write(j.set)
	}))
	t.Cleanup(j.Close)
	return j
}

// signedAssertion is a private_key_jwt assertion for clientID signed by
// key, with claims this server accepts.
func signedAssertion(t *testing.T, key *ecdsa.PrivateKey, clientID string, now time.Time) string {
	t.Helper()
	signer, err := jose.NewSigner(jose.SigningKey{Algorithm: jose.ES256, Key: jose.JSONWebKey{Key: key, KeyID: "k1"}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	raw, err := jwt.Signed(signer).Claims(jwt.Claims{Issuer: clientID, Subject: clientID, Audience: jwt.Audience{testIssuer},
		Expiry: jwt.NewNumericDate(now.Add(2 * time.Minute)), IssuedAt: jwt.NewNumericDate(now), ID: rand.Text()}).Serialize()
	if err != nil {
		t.Fatal(err)
	}
	return raw
}

// uriClient registers a private_key_jwt client whose keys are at uri.
func (f *fixture) uriClient(t *testing.T, uri string) string {
	t.Helper()
	f.svc.cfg.AllowInsecureJWKS = true // the test server is http on loopback
	c, _, err := f.svc.CreateClient(context.Background(), NewClientParams{OrganizationID: f.orgID, Name: "pkjwt",
		Scopes: []string{auth.ScopeCreatorsRead}, JWKSURI: uri})
	if err != nil {
		t.Fatal(err)
	}
	return c.ID
}

func assertionForm(clientID, assertion string) url.Values {
	return url.Values{"grant_type": {"client_credentials"}, "client_id": {clientID},
		"client_assertion_type": {AssertionType}, "client_assertion": {assertion}}
}

// Junk-signed assertions naming a client, sent at once, make the server
// fetch the client's JWKS URL once, however slowly it answers; a valid
// assertion then needs no fetch.
func TestJWKSConcurrentAssertionsFetchOnce(t *testing.T) {
	f := newFixture(t)
	key, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	srv := newJWKSServer(t, key, 300*time.Millisecond)
	id := f.uriClient(t, srv.URL)
	junk, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	const n = 50
	var wg sync.WaitGroup
	codes := make(chan int, n)
	for range n {
		wg.Go(func() {
			code, _, _ := f.token(t, assertionForm(id, signedAssertion(t, junk, id, f.now)))
			codes <- code
		})
	}
	wg.Wait()
	close(codes)
	for c := range codes {
		if c != 401 {
			t.Fatalf("junk assertion answered %d, want 401", c)
		}
	}
	if h := srv.hits.Load(); h != 1 {
		t.Fatalf("%d concurrent junk assertions fetched the JWKS URL %d times, want 1", n, h)
	}
	if code, body, _ := f.token(t, assertionForm(id, signedAssertion(t, key, id, f.now))); code != 200 {
		t.Fatalf("valid assertion: %d %v", code, body)
	}
	if h := srv.hits.Load(); h != 1 {
		t.Fatalf("a valid assertion with the set cached fetched it again (%d fetches)", h)
	}
}

// A failed fetch is remembered: assertions within the refetch interval do
// not fetch again; after it, one does.
func TestJWKSFailureIsCached(t *testing.T) {
	f := newFixture(t)
	key, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	srv := newJWKSServer(t, key, 0)
	srv.fail.Store(true)
	id := f.uriClient(t, srv.URL)
	f.svc.jwks.refetch = 300 * time.Millisecond
	start := time.Now()
	for range 20 {
		if code, _, _ := f.token(t, assertionForm(id, signedAssertion(t, key, id, f.now))); code != 401 {
			t.Fatalf("assertion while the JWKS URL fails: %d, want 401", code)
		}
	}
	if time.Since(start) < f.svc.jwks.refetch {
		if h := srv.hits.Load(); h != 1 {
			t.Fatalf("20 assertions while the JWKS URL fails fetched it %d times, want 1", h)
		}
	}
	// Once the interval has passed the URL is asked again, and a set it
	// serves by then is used.
	srv.fail.Store(false)
	time.Sleep(f.svc.jwks.refetch)
	before := srv.hits.Load()
	if code, body, _ := f.token(t, assertionForm(id, signedAssertion(t, key, id, f.now))); code != 200 {
		t.Fatalf("after the interval, with the URL serving again: %d %v", code, body)
	}
	if srv.hits.Load() != before+1 {
		t.Fatalf("after the interval: %d fetches, want 1", srv.hits.Load()-before)
	}
}

// An assertion signed by a key the cached set lacks (the client rotated)
// fetches the set again, but not more often than the refetch interval.
func TestJWKSRefetchForUnknownKeyIsBounded(t *testing.T) {
	f := newFixture(t)
	key, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	srv := newJWKSServer(t, key, 0)
	id := f.uriClient(t, srv.URL)
	if code, body, _ := f.token(t, assertionForm(id, signedAssertion(t, key, id, f.now))); code != 200 {
		t.Fatalf("valid assertion: %d %v", code, body)
	}
	junk, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	for range 10 {
		if code, _, _ := f.token(t, assertionForm(id, signedAssertion(t, junk, id, f.now))); code != 401 {
			t.Fatalf("junk assertion: %d", code)
		}
	}
	if h := srv.hits.Load(); h != 1 {
		t.Fatalf("junk assertions within the interval refetched the set: %d fetches", h)
	}
	f.svc.jwks.refetch = 0
	if code, _, _ := f.token(t, assertionForm(id, signedAssertion(t, junk, id, f.now))); code != 401 {
		t.Fatalf("junk assertion: %d", code)
	}
	if h := srv.hits.Load(); h != 2 {
		t.Fatalf("an unknown key past the interval: %d fetches, want 2", h)
	}
}
