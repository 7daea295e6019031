package server_test

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"net/url"
	"testing"
	"time"

	jose "github.com/go-jose/go-jose/v4"
	"github.com/go-jose/go-jose/v4/jwt"
	"golang.org/x/oauth2"
	"golang.org/x/oauth2/clientcredentials"

	"github.com/creativeops/creativeops/auth"
	"github.com/creativeops/creativeops/internal/testserver"
	"github.com/creativeops/creativeops/oauth"
)

// assertionSource is docs/oauth.md's private_key_jwt recipe for
// golang.org/x/oauth2, verbatim: it signs a new client assertion for every
// token request, since an assertion's jti may be used only once.
type assertionSource struct {
	ctx      context.Context
	clientID string
	tokenURL string // where the request goes
	audience string // token_endpoint of /.well-known/oauth-authorization-server (under --public-url)
	signer   jose.Signer
	scopes   []string
}

func (s assertionSource) Token() (*oauth2.Token, error) {
	now := time.Now()
	assertion, err := jwt.Signed(s.signer).Claims(jwt.Claims{
		Issuer: s.clientID, Subject: s.clientID, Audience: jwt.Audience{s.audience},
		IssuedAt: jwt.NewNumericDate(now), Expiry: jwt.NewNumericDate(now.Add(5 * time.Minute)),
		ID: rand.Text(), // unique per assertion
	}).Serialize()
	if err != nil {
		return nil, err
	}
	cfg := clientcredentials.Config{
		ClientID: s.clientID, TokenURL: s.tokenURL, Scopes: s.scopes,
		AuthStyle: oauth2.AuthStyleInParams,
		EndpointParams: url.Values{
			"client_assertion_type": {"urn:ietf:params:oauth:client-assertion-type:jwt-bearer"},
			"client_assertion":      {assertion},
		},
	}
	return cfg.Token(s.ctx)
}

// TestOAuthAssertionRecipe runs the recipe against a live server: each
// token request of the source succeeds (a Config holding one assertion
// gets its second refused as a replay: TestOAuthClientCredentials), and
// the reusing client it is wrapped in calls the API.
func TestOAuthAssertionRecipe(t *testing.T) {
	s := testserver.Start(t, testserver.Options{})
	ctx := context.Background()
	key, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	client, _, err := s.OAuth().CreateClient(ctx, oauth.NewClientParams{OrganizationID: s.OrgID, Name: "erp",
		Scopes: []string{auth.ScopeCreatorsRead}, JWKS: publicJWKS(t, key, "erp-1")})
	if err != nil {
		t.Fatal(err)
	}
	signer, err := jose.NewSigner(jose.SigningKey{Algorithm: jose.ES256, Key: key},
		(&jose.SignerOptions{}).WithType("JWT").WithHeader("kid", "erp-1"))
	if err != nil {
		t.Fatal(err)
	}
	src := assertionSource{ctx: ctx, clientID: client.ID, tokenURL: s.URL + oauth.TokenPath,
		audience: s.OAuth().Issuer() + oauth.TokenPath, signer: signer,
		scopes: []string{auth.ScopeCreatorsRead}}
	for i := range 3 {
		if _, err := src.Token(); err != nil {
			t.Fatalf("token request %d: %v", i+1, err)
		}
	}
	hc := oauth2.NewClient(ctx, oauth2.ReuseTokenSource(nil, src))
	resp, err := hc.Get(s.URL + "/v1/creators")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 200 {
		t.Fatalf("GET /v1/creators with the recipe's token: %d", resp.StatusCode)
	}
}
