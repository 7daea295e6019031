package oauth

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/sha256"
	"crypto/x509"
	"encoding/base64"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"

	jose "github.com/go-jose/go-jose/v4"
	"github.com/go-jose/go-jose/v4/jwt"

	"github.com/creativeops/creativeops/auth"
	"github.com/creativeops/creativeops/internal/testdb"
	"github.com/creativeops/creativeops/secrets"
	"github.com/creativeops/creativeops/storage"
)

const testIssuer = "https://api.example.com"

type fixture struct {
	svc    *Service
	store  *storage.Store
	orgID  string
	client *Client
	secret string
	now    time.Time
}

func newFixture(t testing.TB) *fixture { return newFixtureOn(t, testdb.SQLiteURL(t)) }

// newFixtureOn is newFixture on the database at dbURL.
func newFixtureOn(t testing.TB, dbURL string) *fixture {
	t.Helper()
	ctx := context.Background()
	store, err := storage.Open(ctx, dbURL)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { store.Close() })
	if err := store.Migrate(ctx); err != nil {
		t.Fatal(err)
	}
	kr, err := secrets.NewKeyring(secrets.GenerateKey())
	if err != nil {
		t.Fatal(err)
	}
	keys := &auth.Store{Ent: store.Ent}
	org, err := keys.EnsureOrganization(ctx, "acme")
	if err != nil {
		t.Fatal(err)
	}
	f := &fixture{store: store, orgID: org.ID, now: time.Now().UTC()}
	f.svc, err = New(Config{Issuer: testIssuer, Ent: store.Ent, Keyring: kr, JWKSClient: http.DefaultClient,
		Now: func() time.Time { return f.now }})
	if err != nil {
		t.Fatal(err)
	}
	if err := f.svc.EnsureSigningKey(ctx); err != nil {
		t.Fatal(err)
	}
	stop, err := f.svc.Start(ctx, time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(stop)
	f.client, f.secret, err = f.svc.CreateClient(ctx, NewClientParams{OrganizationID: org.ID, Name: "erp",
		Scopes: []string{auth.ScopeCreatorsRead, auth.ScopeEngineRun}})
	if err != nil {
		t.Fatal(err)
	}
	return f
}

// token asks the token endpoint for a token with the given form and
// returns the status and decoded body.
func (f *fixture) token(t testing.TB, form url.Values, basic ...string) (int, map[string]any, http.Header) {
	t.Helper()
	req := httptest.NewRequest("POST", TokenPath, strings.NewReader(form.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
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

func (f *fixture) issue(t testing.TB) string {
	t.Helper()
	code, body, _ := f.token(t, url.Values{"grant_type": {"client_credentials"}}, f.client.ID, f.secret)
	if code != 200 {
		t.Fatalf("token: %d %v", code, body)
	}
	return body["access_token"].(string)
}

func TestIssuedTokenIsRFC9068(t *testing.T) {
	f := newFixture(t)
	raw := f.issue(t)
	tok, err := jwt.ParseSigned(raw, []jose.SignatureAlgorithm{jose.ES256})
	if err != nil {
		t.Fatal(err)
	}
	if typ := tok.Headers[0].ExtraHeaders[jose.HeaderType]; typ != "at+jwt" {
		t.Errorf("typ = %v, want at+jwt", typ)
	}
	set := f.svc.KeySet()
	var claims map[string]any
	if err := tok.Claims(set.Key(tok.Headers[0].KeyID)[0].Key, &claims); err != nil {
		t.Fatalf("token does not verify with the published key set: %v", err)
	}
	for _, c := range []string{"iss", "sub", "aud", "exp", "iat", "jti", "client_id", "scope"} {
		if claims[c] == nil {
			t.Errorf("claim %s missing: %v", c, claims)
		}
	}
	if claims["sub"] != f.client.ID || claims["client_id"] != f.client.ID || claims["iss"] != testIssuer {
		t.Errorf("claims %v", claims)
	}
	if exp, iat := claims["exp"].(float64), claims["iat"].(float64); exp-iat != DefaultTokenLifetime.Seconds() {
		t.Errorf("lifetime %v s, want %v", exp-iat, DefaultTokenLifetime.Seconds())
	}
	p, err := f.svc.Verify(context.Background(), raw)
	if err != nil {
		t.Fatal(err)
	}
	if p.ClientID != f.client.ID || p.KeyID != f.client.ID || p.OrganizationID != f.orgID || !p.Allows(auth.ScopeEngineRun) || p.Allows(auth.ScopeCreatorsWrite) {
		t.Errorf("principal %+v", p)
	}
}

// forge signs claims with the server's current signing key, as an
// attacker who could only choose the claims (not the key) cannot.
func (f *fixture) forge(t *testing.T, mutate func(c *accessClaims), opts *jose.SignerOptions) string {
	t.Helper()
	st, _ := f.svc.current()
	k := st.signer()
	if opts == nil {
		opts = (&jose.SignerOptions{}).WithType(tokenType)
	}
	signer, err := jose.NewSigner(jose.SigningKey{Algorithm: jose.ES256, Key: jose.JSONWebKey{Key: k.private, KeyID: k.id}}, opts)
	if err != nil {
		t.Fatal(err)
	}
	c := accessClaims{
		Claims: jwt.Claims{Issuer: testIssuer, Subject: f.client.ID, Audience: jwt.Audience{testIssuer},
			Expiry: jwt.NewNumericDate(f.now.Add(time.Hour)), IssuedAt: jwt.NewNumericDate(f.now), ID: rand.Text()},
		ClientID: f.client.ID, Scope: "creators:read", OrgID: f.orgID,
	}
	if mutate != nil {
		mutate(&c)
	}
	raw, err := jwt.Signed(signer).Claims(c).Serialize()
	if err != nil {
		t.Fatal(err)
	}
	return raw
}

func TestVerifyRefuses(t *testing.T) {
	f := newFixture(t)
	st, _ := f.svc.current()
	k := st.signer()
	good := f.forge(t, nil, nil)
	if _, err := f.svc.Verify(context.Background(), good); err != nil {
		t.Fatalf("control token refused: %v", err)
	}
	parts := strings.Split(good, ".")
	b64 := base64.RawURLEncoding

	// alg none: the header says none and the signature is empty.
	noneHeader := b64.EncodeToString([]byte(`{"alg":"none","typ":"at+jwt","kid":"` + k.id + `"}`))
	// HS256 keyed with the public key, the classic algorithm confusion.
	pubDER, _ := x509.MarshalPKIXPublicKey(&k.private.PublicKey)
	pubJSON, _ := k.public.MarshalJSON()
	hmacWith := func(secret []byte) string {
		s, err := jose.NewSigner(jose.SigningKey{Algorithm: jose.HS256, Key: secret}, (&jose.SignerOptions{}).WithType(tokenType).WithHeader("kid", k.id))
		if err != nil {
			t.Fatal(err)
		}
		var c accessClaims
		_ = json.Unmarshal(mustDecode(t, parts[1]), &c)
		raw, err := jwt.Signed(s).Claims(c).Serialize()
		if err != nil {
			t.Fatal(err)
		}
		return raw
	}
	// A key the server never published.
	other, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	otherSigner, _ := jose.NewSigner(jose.SigningKey{Algorithm: jose.ES256, Key: jose.JSONWebKey{Key: other, KeyID: k.id}}, (&jose.SignerOptions{}).WithType(tokenType))
	foreign, _ := jwt.Signed(otherSigner).Claims(map[string]any{"iss": testIssuer, "sub": f.client.ID, "aud": testIssuer,
		"exp": f.now.Add(time.Hour).Unix(), "jti": "x", "client_id": f.client.ID, "org_id": f.orgID, "scope": "*"}).Serialize()

	tampered := parts[0] + "." + b64.EncodeToString([]byte(strings.Replace(string(mustDecode(t, parts[1])), "creators:read", "*", 1))) + "." + parts[2]

	cases := map[string]string{
		"expired":        f.forge(t, func(c *accessClaims) { c.Expiry = jwt.NewNumericDate(f.now.Add(-time.Minute)) }, nil),
		"not yet valid":  f.forge(t, func(c *accessClaims) { c.NotBefore = jwt.NewNumericDate(f.now.Add(time.Hour)) }, nil),
		"wrong audience": f.forge(t, func(c *accessClaims) { c.Audience = jwt.Audience{"https://other.example.com"} }, nil),
		"wrong issuer":   f.forge(t, func(c *accessClaims) { c.Issuer = "https://evil.example.com" }, nil),
		"no expiry":      f.forge(t, func(c *accessClaims) { c.Expiry = nil }, nil),
		"sub not client": f.forge(t, func(c *accessClaims) { c.Subject = "oc_other" }, nil),
		"typ JWT":        f.forge(t, nil, (&jose.SignerOptions{}).WithType("JWT")),
		"tampered":       tampered,
		"alg none":       noneHeader + "." + parts[1] + ".",
		"HS256 with DER": hmacWith(pubDER),
		"HS256 w/ JWK":   hmacWith(pubJSON),
		"foreign key":    foreign,
		"garbage":        "a.b.c",
	}
	for name, raw := range cases {
		if _, err := f.svc.Verify(context.Background(), raw); !errors.Is(err, auth.ErrUnauthenticated) {
			t.Errorf("%s: Verify = %v, want ErrUnauthenticated", name, err)
		}
	}
}

func mustDecode(t *testing.T, s string) []byte {
	t.Helper()
	b, err := base64.RawURLEncoding.DecodeString(s)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestTokenEndpointErrors(t *testing.T) {
	f := newFixture(t)
	cc := url.Values{"grant_type": {"client_credentials"}}
	with := func(extra map[string]string) url.Values {
		v := url.Values{"grant_type": {"client_credentials"}}
		for k, x := range extra {
			v.Set(k, x)
		}
		return v
	}
	type tc struct {
		name   string
		form   url.Values
		basic  []string
		status int
		err    string
	}
	for _, c := range []tc{
		{"wrong secret", cc, []string{f.client.ID, SecretPrefix + "nope"}, 401, "invalid_client"},
		{"unknown client", cc, []string{"oc_01jxxxxxxxxxxxxxxxxxxxxxxx", f.secret}, 401, "invalid_client"},
		{"no authentication", cc, nil, 401, "invalid_client"},
		{"post wrong secret", with(map[string]string{"client_id": f.client.ID, "client_secret": "x"}), nil, 401, "invalid_client"},
		{"two methods", with(map[string]string{"client_id": f.client.ID, "client_secret": f.secret}), []string{f.client.ID, f.secret}, 400, "invalid_request"},
		{"no grant type", url.Values{}, []string{f.client.ID, f.secret}, 400, "invalid_request"},
		{"other grant", url.Values{"grant_type": {"password"}}, []string{f.client.ID, f.secret}, 400, "unsupported_grant_type"},
		{"unknown scope", with(map[string]string{"scope": "root"}), []string{f.client.ID, f.secret}, 400, "invalid_scope"},
		{"scope not allowed", with(map[string]string{"scope": "keys:admin"}), []string{f.client.ID, f.secret}, 400, "invalid_scope"},
	} {
		code, body, h := f.token(t, c.form, c.basic...)
		if code != c.status || body["error"] != c.err {
			t.Errorf("%s: %d %v, want %d %s", c.name, code, body, c.status, c.err)
		}
		if code == 401 && !strings.HasPrefix(h.Get("WWW-Authenticate"), "Basic ") {
			t.Errorf("%s: 401 without a WWW-Authenticate challenge", c.name)
		}
		if h.Get("Cache-Control") != "no-store" {
			t.Errorf("%s: Cache-Control %q", c.name, h.Get("Cache-Control"))
		}
	}
	// Requested scopes are narrowed to those the client holds.
	code, body, _ := f.token(t, with(map[string]string{"scope": "engine:run keys:admin"}), f.client.ID, f.secret)
	if code != 200 || body["scope"] != "engine:run" {
		t.Fatalf("narrowed scope: %d %v", code, body)
	}
	// client_secret_post works too.
	code, body, _ = f.token(t, with(map[string]string{"client_id": f.client.ID, "client_secret": f.secret}))
	if code != 200 || body["token_type"] != "Bearer" || body["scope"] != "creators:read engine:run" {
		t.Fatalf("client_secret_post: %d %v", code, body)
	}
}

func TestRotationAndRevocation(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	old := f.issue(t)
	c, secret, err := f.svc.RotateClient(ctx, nil, f.orgID, f.client.ID, time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	if c.PreviousSecretExpiresAt == nil {
		t.Fatal("no grace period recorded")
	}
	for _, s := range []string{f.secret, secret} {
		if code, body, _ := f.token(t, url.Values{"grant_type": {"client_credentials"}}, f.client.ID, s); code != 200 {
			t.Fatalf("secret within grace refused: %d %v", code, body)
		}
	}
	f.now = f.now.Add(2 * time.Hour)
	if code, _, _ := f.token(t, url.Values{"grant_type": {"client_credentials"}}, f.client.ID, f.secret); code != 401 {
		t.Fatalf("secret after grace: %d, want 401", code)
	}
	f.now = f.now.Add(-2 * time.Hour)

	// Signing key rotation: tokens signed by the old key keep working.
	if _, err := f.svc.RotateSigningKey(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := f.svc.Verify(ctx, old); err != nil {
		t.Fatalf("token signed before key rotation refused: %v", err)
	}
	if n := len(f.svc.KeySet().Keys); n != 2 {
		t.Fatalf("%d keys published after rotation, want 2", n)
	}
	f.client.ID = c.ID
	f.secret = secret
	fresh := f.issue(t)
	if h1, h2 := kidOf(t, old), kidOf(t, fresh); h1 == h2 {
		t.Fatalf("new tokens still signed by the retired key %s", h1)
	}

	// A revoked token stops working, and its row is purged once the token
	// has expired anyway.
	st, _ := f.svc.current()
	claims, err := f.svc.parse(st, fresh)
	if err != nil {
		t.Fatal(err)
	}
	if err := f.svc.revoke(ctx, claims); err != nil {
		t.Fatal(err)
	}
	if _, err := f.svc.Verify(ctx, fresh); !errors.Is(err, auth.ErrUnauthenticated) {
		t.Fatalf("revoked token: %v", err)
	}
	if n, err := f.svc.PurgeExpired(ctx); err != nil || n != 0 {
		t.Fatalf("purged %d rows of live tokens (%v)", n, err)
	}
	f.now = f.now.Add(2 * time.Hour)
	if n, err := f.svc.PurgeExpired(ctx); err != nil || n != 1 {
		t.Fatalf("purged %d rows after expiry (%v), want 1", n, err)
	}
	f.now = f.now.Add(-2 * time.Hour)
	fresh = f.issue(t)

	// Revoking the client stops its tokens.
	if err := f.svc.RevokeClient(ctx, nil, f.orgID, f.client.ID); err != nil {
		t.Fatal(err)
	}
	if _, err := f.svc.Verify(ctx, fresh); !errors.Is(err, auth.ErrUnauthenticated) {
		t.Fatalf("token of a revoked client: %v", err)
	}
}

func kidOf(t *testing.T, raw string) string {
	t.Helper()
	tok, err := jwt.ParseSigned(raw, acceptedAlgorithms)
	if err != nil {
		t.Fatal(err)
	}
	return tok.Headers[0].KeyID
}

func TestClientScopesSubsetOfCaller(t *testing.T) {
	f := newFixture(t)
	by := &auth.Principal{KeyID: "key_x", OrganizationID: f.orgID, Scopes: []string{auth.ScopeKeysAdmin, auth.ScopeCreatorsRead}}
	_, _, err := f.svc.CreateClient(context.Background(), NewClientParams{By: by, OrganizationID: f.orgID, Name: "x", Scopes: []string{auth.ScopeCreatorsWrite}})
	if err == nil || !strings.Contains(err.Error(), "creators:write") {
		t.Fatalf("client with a scope the caller lacks: %v", err)
	}
	if _, _, err := f.svc.CreateClient(context.Background(), NewClientParams{By: by, OrganizationID: f.orgID, Name: "x", Scopes: []string{auth.ScopeCreatorsRead}}); err != nil {
		t.Fatal(err)
	}
	if err := f.svc.RevokeClient(context.Background(), by, f.orgID, f.client.ID); err == nil {
		t.Fatal("revoked a client holding engine:run with a key that lacks it")
	}
}

// BenchmarkVerify: a token seen before (the common case: a client reuses
// its token for its lifetime) and a token verified for the first time
// (signature and claims), both with the revocation state in memory.
func BenchmarkVerify(b *testing.B) {
	f := newFixture(b)
	raw := f.issue(b)
	ctx := context.Background()
	for _, c := range []struct {
		name  string
		fresh bool
	}{{"seen", false}, {"first", true}} {
		b.Run(c.name, func(b *testing.B) {
			b.ReportAllocs()
			for i := 0; i < b.N; i++ {
				if c.fresh {
					f.svc.verified.drop()
				}
				f.svc.mu.Lock()
				f.svc.st.checked = time.Now() // keep the state current, as the poller does
				f.svc.mu.Unlock()
				if _, err := f.svc.Verify(ctx, raw); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkIssue signs access tokens (no HTTP, no client lookup).
func BenchmarkIssue(b *testing.B) {
	f := newFixture(b)
	c, err := f.svc.activeClient(context.Background(), f.client.ID)
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		if _, err := f.svc.issue(context.Background(), c, c.Scopes); err != nil {
			b.Fatal(err)
		}
	}
}

// When the in-memory state is not known current (the epoch could not be
// read for longer than auth.KeyChangeBound), revocations are read from
// the database: a revocation is never missed, only costlier to see.
func TestRevocationReadFromDatabaseWhenStale(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	live, revoked := f.issue(t), f.issue(t)
	st, _ := f.svc.current()
	c, err := f.svc.parse(st, revoked)
	if err != nil {
		t.Fatal(err)
	}
	// Written behind the service's back, as another replica would, with
	// no poll to see it.
	err = f.store.Ent.OAuthRevocation.Create().SetID(c.ID).SetClientID(c.ClientID).
		SetExpiresAt(c.Expiry.Time()).SetCreatedAt(f.now).Exec(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.svc.Verify(ctx, revoked); err != nil {
		t.Fatalf("fresh state: the unpolled revocation is not seen yet, got %v", err)
	}
	f.svc.mu.Lock()
	f.svc.st.checked = time.Now().Add(-2 * auth.KeyChangeBound)
	f.svc.mu.Unlock()
	if _, err := f.svc.Verify(ctx, revoked); !errors.Is(err, auth.ErrUnauthenticated) {
		t.Fatalf("stale state: revoked token %v", err)
	}
	if _, err := f.svc.Verify(ctx, live); err != nil {
		t.Fatalf("stale state: live token %v", err)
	}
	// A revoked client, likewise.
	if _, err := f.store.Ent.OAuthClient.UpdateOneID(f.client.ID).SetRevokedAt(f.now).Save(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := f.svc.Verify(ctx, live); !errors.Is(err, auth.ErrUnauthenticated) {
		t.Fatalf("stale state: token of a revoked client %v", err)
	}
}

// A token verified once is remembered (its signature is not checked
// again), but every use still checks its expiry: a cached token stops
// working the moment it expires, not when the cache is dropped.
func TestCachedTokenExpires(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	raw := f.issue(t)
	if _, err := f.svc.Verify(ctx, raw); err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256([]byte(raw))
	if f.svc.verified.get(sum) == nil {
		t.Fatal("a verified token is not cached: this test would not exercise the cache")
	}
	f.now = f.now.Add(DefaultTokenLifetime - time.Minute)
	if _, err := f.svc.Verify(ctx, raw); err != nil {
		t.Fatalf("before expiry: %v", err)
	}
	f.now = f.now.Add(time.Minute + leeway + time.Second)
	if f.svc.verified.get(sum) == nil {
		t.Fatal("the cache was dropped: this test would not exercise it")
	}
	if p, err := f.svc.Verify(ctx, raw); !errors.Is(err, auth.ErrUnauthenticated) {
		t.Fatalf("after expiry: %v, %v; want ErrUnauthenticated", p, err)
	}
}
