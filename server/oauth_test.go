package server_test

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"net/url"
	"slices"
	"strings"
	"testing"
	"time"

	jose "github.com/go-jose/go-jose/v4"
	"github.com/go-jose/go-jose/v4/jwt"
	"golang.org/x/oauth2"
	"golang.org/x/oauth2/clientcredentials"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"

	"github.com/creativeops/creativeops/auth"
	creativeopsv1 "github.com/creativeops/creativeops/gen/creativeops/v1"
	"github.com/creativeops/creativeops/internal/testserver"
	"github.com/creativeops/creativeops/oauth"
	"github.com/creativeops/creativeops/server"
)

// assertion is a private_key_jwt client assertion (RFC 7523) signed by key.
func assertion(t *testing.T, key *ecdsa.PrivateKey, kid, clientID, aud string) string {
	t.Helper()
	signer, err := jose.NewSigner(jose.SigningKey{Algorithm: jose.ES256, Key: jose.JSONWebKey{Key: key, KeyID: kid}}, (&jose.SignerOptions{}).WithType("JWT"))
	if err != nil {
		t.Fatal(err)
	}
	now := time.Now()
	raw, err := jwt.Signed(signer).Claims(jwt.Claims{Issuer: clientID, Subject: clientID, Audience: jwt.Audience{aud},
		Expiry: jwt.NewNumericDate(now.Add(2 * time.Minute)), IssuedAt: jwt.NewNumericDate(now), ID: rand.Text()}).Serialize()
	if err != nil {
		t.Fatal(err)
	}
	return raw
}

func publicJWKS(t *testing.T, key *ecdsa.PrivateKey, kid string) string {
	t.Helper()
	b, err := json.Marshal(jose.JSONWebKeySet{Keys: []jose.JSONWebKey{{Key: &key.PublicKey, KeyID: kid, Algorithm: "ES256", Use: "sig"}}})
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestOAuthClientCredentials obtains tokens with golang.org/x/oauth2 by each
// client authentication method and calls REST and gRPC with them.
func TestOAuthClientCredentials(t *testing.T) {
	s := testserver.Start(t, testserver.Options{})
	ctx := context.Background()
	svc := s.OAuth()
	tokenURL := s.URL + oauth.TokenPath

	key, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	jwksServer := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(publicJWKS(t, key, "k1")))
	}))
	t.Cleanup(jwksServer.Close)

	scopes := []string{auth.ScopeCreatorsRead}
	secretClient, secret, err := svc.CreateClient(ctx, oauth.NewClientParams{OrganizationID: s.OrgID, Name: "erp", Scopes: scopes})
	if err != nil {
		t.Fatal(err)
	}
	jwkClient, _, err := svc.CreateClient(ctx, oauth.NewClientParams{OrganizationID: s.OrgID, Name: "pkjwt", Scopes: scopes, JWKS: publicJWKS(t, key, "k1")})
	if err != nil {
		t.Fatal(err)
	}
	uriClient, _, err := svc.CreateClient(ctx, oauth.NewClientParams{OrganizationID: s.OrgID, Name: "pkjwt-uri", Scopes: scopes, JWKSURI: jwksServer.URL})
	if err != nil {
		t.Fatal(err)
	}
	withAssertion := func(clientID string) *clientcredentials.Config {
		return &clientcredentials.Config{ClientID: clientID, TokenURL: tokenURL, AuthStyle: oauth2.AuthStyleInParams,
			EndpointParams: url.Values{"client_assertion_type": {oauth.AssertionType}, "client_assertion": {assertion(t, key, "k1", clientID, svc.Issuer())}}}
	}
	methods := map[string]*clientcredentials.Config{
		"client_secret_basic":      {ClientID: secretClient.ID, ClientSecret: secret, TokenURL: tokenURL, AuthStyle: oauth2.AuthStyleInHeader},
		"client_secret_post":       {ClientID: secretClient.ID, ClientSecret: secret, TokenURL: tokenURL, AuthStyle: oauth2.AuthStyleInParams},
		"private_key_jwt jwks":     withAssertion(jwkClient.ID),
		"private_key_jwt jwks_uri": withAssertion(uriClient.ID),
	}
	creators := creativeopsv1.NewCreatorsServiceClient(s.Conn(t))
	for name, cfg := range methods {
		tok, err := cfg.Token(ctx)
		if err != nil {
			t.Fatalf("%s: token: %v", name, err)
		}
		// REST through an oauth2 client, which adds the bearer token (the
		// one just obtained: a second request would replay the assertion).
		hc := oauth2.NewClient(ctx, oauth2.StaticTokenSource(tok))
		resp, err := hc.Get(s.URL + "/v1/creators")
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != 200 {
			t.Fatalf("%s: REST with token: %d", name, resp.StatusCode)
		}
		// gRPC on the same port.
		md := metadata.Pairs("authorization", "Bearer "+tok.AccessToken)
		if _, err := creators.ListCreators(metadata.NewOutgoingContext(ctx, md), &creativeopsv1.ListCreatorsRequest{}); err != nil {
			t.Fatalf("%s: gRPC with token: %v", name, err)
		}
		// A scope the client lacks is 403 / PermissionDenied, as for keys.
		r := s.Do(t, "POST", "/v1/creators", tok.AccessToken, map[string]any{"name": "N", "email": "n@example.com", "vertical": "music"})
		if r.Status != 403 || r.ErrorReason() != "MISSING_SCOPE" {
			t.Fatalf("%s: write without the scope: %d %s", name, r.Status, r.Body)
		}
		_, err = creators.CreateCreator(metadata.NewOutgoingContext(ctx, md), &creativeopsv1.CreateCreatorRequest{Name: "N", Email: "n@example.com", Vertical: "music"})
		if status.Code(err) != codes.PermissionDenied {
			t.Fatalf("%s: gRPC write without the scope: %v", name, err)
		}
	}

	// A replayed assertion (same jti) is refused.
	replay := withAssertion(jwkClient.ID)
	if _, err := replay.Token(ctx); err != nil {
		t.Fatal(err)
	}
	var re *oauth2.RetrieveError
	if _, err := replay.Token(ctx); err == nil || !asRetrieveError(err, &re) || re.ErrorCode != "invalid_client" || re.Response.StatusCode != 401 {
		t.Fatalf("replayed assertion: %v", err)
	}
	// An assertion for another audience, or signed by an unregistered key.
	other, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	for name, a := range map[string]string{
		"wrong audience": assertion(t, key, "k1", jwkClient.ID, "https://other.example.com"),
		"unknown key":    assertion(t, other, "k1", jwkClient.ID, svc.Issuer()),
	} {
		cfg := &clientcredentials.Config{ClientID: jwkClient.ID, TokenURL: tokenURL, AuthStyle: oauth2.AuthStyleInParams,
			EndpointParams: url.Values{"client_assertion_type": {oauth.AssertionType}, "client_assertion": {a}}}
		if _, err := cfg.Token(ctx); err == nil || !asRetrieveError(err, &re) || re.ErrorCode != "invalid_client" {
			t.Fatalf("%s: %v", name, err)
		}
	}
}

func asRetrieveError(err error, re **oauth2.RetrieveError) bool {
	e, ok := err.(*oauth2.RetrieveError)
	*re = e
	return ok
}

// TestOAuthTokenLifecycle: a bad or revoked token is 401 on every
// transport, introspection reports what the API would do, and analytics
// count the client's requests under its id.
func TestOAuthTokenLifecycle(t *testing.T) {
	s := testserver.Start(t, testserver.Options{})
	ctx := context.Background()
	svc := s.OAuth()
	c, secret, err := svc.CreateClient(ctx, oauth.NewClientParams{OrganizationID: s.OrgID, Name: "erp", Scopes: []string{auth.ScopeCreatorsRead, auth.ScopeAnalyticsRead}})
	if err != nil {
		t.Fatal(err)
	}
	cfg := &clientcredentials.Config{ClientID: c.ID, ClientSecret: secret, TokenURL: s.URL + oauth.TokenPath}
	tok, err := cfg.Token(ctx)
	if err != nil {
		t.Fatal(err)
	}
	form := func(path string, v url.Values) (int, map[string]any) {
		req, _ := http.NewRequest("POST", s.URL+path, strings.NewReader(v.Encode()))
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		req.SetBasicAuth(c.ID, secret)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		var body map[string]any
		_ = json.NewDecoder(resp.Body).Decode(&body)
		return resp.StatusCode, body
	}
	if code, body := form(oauth.IntrospectPath, url.Values{"token": {tok.AccessToken}}); code != 200 || body["active"] != true || body["client_id"] != c.ID || body["scope"] != "creators:read analytics:read" {
		t.Fatalf("introspect: %d %v", code, body)
	}
	if r := s.Do(t, "GET", "/v1/creators", tok.AccessToken, nil); r.Status != 200 {
		t.Fatalf("REST: %d", r.Status)
	}
	// Connect (and so gRPC-Web, through the same transcoder) takes it too.
	if r := s.Do(t, "POST", "/creativeops.v1.CreatorsService/ListCreators", tok.AccessToken, map[string]any{}); r.Status != 200 {
		t.Fatalf("Connect: %d %s", r.Status, r.Body)
	}
	// Usage (both calls) is recorded under the client id, and filtered by it.
	if err := s.FlushAnalytics(ctx); err != nil {
		t.Fatal(err)
	}
	r := s.Do(t, "GET", "/v1/analytics/usage?key_id="+c.ID, s.AdminKey, nil)
	if totals, _ := r.JSON["totals"].(map[string]any); r.Status != 200 || totals["requests"] != "2" {
		t.Fatalf("usage filtered by client id: %d %s", r.Status, r.Body)
	}

	// RFC 7009 revocation: 200, then the token is refused everywhere.
	if code, _ := form(oauth.RevokePath, url.Values{"token": {tok.AccessToken}}); code != 200 {
		t.Fatalf("revoke: %d", code)
	}
	if r := s.Do(t, "GET", "/v1/creators", tok.AccessToken, nil); r.Status != 401 || r.Header.Get("WWW-Authenticate") == "" {
		t.Fatalf("REST with a revoked token: %d %v", r.Status, r.Header)
	}
	md := metadata.Pairs("authorization", "Bearer "+tok.AccessToken)
	_, err = creativeopsv1.NewCreatorsServiceClient(s.Conn(t)).ListCreators(metadata.NewOutgoingContext(ctx, md), &creativeopsv1.ListCreatorsRequest{})
	if status.Code(err) != codes.Unauthenticated {
		t.Fatalf("gRPC with a revoked token: %v", err)
	}
	if code, body := form(oauth.IntrospectPath, url.Values{"token": {tok.AccessToken}}); code != 200 || body["active"] != false || len(body) != 1 {
		t.Fatalf("introspect a revoked token: %d %v", code, body)
	}
	// A malformed token is 401 like a bad key.
	if r := s.Do(t, "GET", "/v1/creators", "eyJhbGciOiJub25lIn0.e30.", nil); r.Status != 401 {
		t.Fatalf("alg none: %d", r.Status)
	}

	// Metadata and key set.
	resp, err := http.Get(s.URL + oauth.MetadataPath)
	if err != nil {
		t.Fatal(err)
	}
	var meta map[string]any
	_ = json.NewDecoder(resp.Body).Decode(&meta)
	resp.Body.Close()
	if meta["issuer"] != svc.Issuer() || meta["token_endpoint"] != svc.Issuer()+oauth.TokenPath || meta["jwks_uri"] != svc.Issuer()+oauth.JWKSPath {
		t.Fatalf("metadata: %v", meta)
	}
	resp, err = http.Get(s.URL + oauth.JWKSPath)
	if err != nil {
		t.Fatal(err)
	}
	var set jose.JSONWebKeySet
	_ = json.NewDecoder(resp.Body).Decode(&set)
	resp.Body.Close()
	if len(set.Keys) != 1 || !set.Keys[0].IsPublic() || set.Keys[0].Algorithm != "ES256" {
		t.Fatalf("jwks: %+v", set)
	}
}

// TestOAuthClientsAudited: creating, rotating and deleting a client are in
// the audit log, by the key that did it, never with the secret.
func TestOAuthClientsAudited(t *testing.T) {
	s := testserver.Start(t, testserver.Options{})
	r := s.Do(t, "POST", "/v1/oauth/clients", s.AdminKey, map[string]any{"name": "erp", "scopes": []string{"creators:read"}})
	if r.Status != 201 {
		t.Fatalf("create: %d %s", r.Status, r.Body)
	}
	id, secret := r.JSON["id"].(string), r.JSON["secret"].(string)
	r = s.Do(t, "POST", "/v1/oauth/clients/"+id+":rotate", s.AdminKey, map[string]any{"grace_period": "60s"})
	if r.Status != 200 {
		t.Fatalf("rotate: %d %s", r.Status, r.Body)
	}
	rotated := r.JSON["secret"].(string)
	if r := s.Do(t, "DELETE", "/v1/oauth/clients/"+id, s.AdminKey, nil); r.Status != 204 {
		t.Fatalf("delete: %d %s", r.Status, r.Body)
	}
	r = s.Do(t, "GET", "/v1/audit-events?target_id="+id, s.AdminKey, nil)
	if r.Status != 200 {
		t.Fatalf("audit: %d %s", r.Status, r.Body)
	}
	var actions []string
	for _, e := range r.JSON["audit_events"].([]any) {
		ev := e.(map[string]any)
		actions = append(actions, ev["action"].(string))
		if ev["target_type"] != "oauth_client" || !strings.HasPrefix(ev["actor"].(string), "key_") {
			t.Errorf("event %v", ev)
		}
	}
	if strings.Join(actions, " ") != "oauth_client.deleted oauth_client.rotated oauth_client.created" {
		t.Fatalf("audited actions %v", actions)
	}
	if strings.Contains(string(r.Body), secret) || strings.Contains(string(r.Body), rotated) {
		t.Fatal("a client secret is in the audit log")
	}
	if r := s.Do(t, "GET", "/v1/audit-events?action=oauth_client.created", s.AdminKey, nil); r.Status != 200 || len(r.JSON["audit_events"].([]any)) != 1 {
		t.Fatalf("filter by oauth_client.created: %d %s", r.Status, r.Body)
	}
}

// Over REST, a JWKS URL inside the network is a 400 naming jwks_uri, as a
// webhook URL is, on a server without --allow-insecure-webhooks.
func TestOAuthClientJWKSURIRefusedOverREST(t *testing.T) {
	s := testserver.Start(t, testserver.Options{Configure: func(c *server.Config) { c.AllowInsecureWebhooks = false }})
	for _, uri := range []string{"https://127.1/jwks.json", "https://[::1]/jwks.json", "https://2130706433/jwks.json", "https://localhost/jwks.json"} {
		r := s.Do(t, "POST", "/v1/oauth/clients", s.AdminKey, map[string]any{"name": "pkjwt", "scopes": []string{auth.ScopeCreatorsRead}, "jwks_uri": uri})
		if r.Status != 400 || !slices.Equal(r.ViolatedFields(), []string{"jwks_uri"}) {
			t.Errorf("%s: %d %s, want 400 naming jwks_uri", uri, r.Status, r.Body)
		}
	}
}

// The token endpoint is budgeted per client address as the server finds
// it: behind a trusted proxy, each client apart; a refusal is RFC 6749
// JSON with Retry-After.
func TestOAuthTokenBudgetPerClientAddress(t *testing.T) {
	s := testserver.Start(t, testserver.Options{NoWorkers: true, Configure: func(c *server.Config) {
		c.TrustedProxies = []string{"127.0.0.0/8"}
		c.OAuthTokenLimits = oauth.TokenLimits{PerAddress: auth.RateLimit{RequestsPerSecond: 0.001, Burst: 2}}
	}})
	c, secret, err := s.OAuth().CreateClient(context.Background(), oauth.NewClientParams{OrganizationID: s.OrgID, Name: "erp", Scopes: []string{auth.ScopeCreatorsRead}})
	if err != nil {
		t.Fatal(err)
	}
	token := func(from string) *http.Response {
		req, _ := http.NewRequest("POST", s.URL+oauth.TokenPath, strings.NewReader("grant_type=client_credentials"))
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		req.Header.Set("X-Forwarded-For", from)
		req.SetBasicAuth(c.ID, secret)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { resp.Body.Close() })
		return resp
	}
	for i := range 2 {
		if r := token("203.0.113.1"); r.StatusCode != 200 {
			t.Fatalf("token %d: %d", i+1, r.StatusCode)
		}
	}
	r := token("203.0.113.1")
	var body map[string]any
	_ = json.NewDecoder(r.Body).Decode(&body)
	if r.StatusCode != http.StatusTooManyRequests || r.Header.Get("Retry-After") == "" || body["error"] != "temporarily_unavailable" {
		t.Fatalf("third token from one address: %d %v %v", r.StatusCode, r.Header, body)
	}
	if r := token("203.0.113.2"); r.StatusCode != 200 {
		t.Fatalf("another client behind the proxy: %d", r.StatusCode)
	}
}
