package oauth

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"strings"
	"testing"
	"time"

	jose "github.com/go-jose/go-jose/v4"
	"github.com/go-jose/go-jose/v4/jwt"
)

// An assertion refused for its claims says which claim and what it must
// be; one refused for its signature says nothing more than that
// authentication failed.
func TestAssertionRefusalSaysWhy(t *testing.T) {
	f := newFixture(t)
	key, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	srv := newJWKSServer(t, key, 0)
	id := f.uriClient(t, srv.URL)
	sign := func(k *ecdsa.PrivateKey, edit func(*jwt.Claims)) string {
		signer, err := jose.NewSigner(jose.SigningKey{Algorithm: jose.ES256, Key: jose.JSONWebKey{Key: k, KeyID: "k1"}}, nil)
		if err != nil {
			t.Fatal(err)
		}
		c := jwt.Claims{Issuer: id, Subject: id, Audience: jwt.Audience{testIssuer + TokenPath},
			Expiry: jwt.NewNumericDate(f.now.Add(2 * time.Minute)), IssuedAt: jwt.NewNumericDate(f.now), ID: rand.Text()}
		edit(&c)
		raw, err := jwt.Signed(signer).Claims(c).Serialize()
		if err != nil {
			t.Fatal(err)
		}
		return raw
	}
	junk, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	reused := sign(key, func(*jwt.Claims) {})
	if code, body, _ := f.token(t, assertionForm(id, reused)); code != 200 {
		t.Fatalf("valid assertion: %d %v", code, body)
	}
	for _, tc := range []struct {
		name      string
		assertion string
		want      string // in error_description; "" for no more than "client authentication failed"
	}{
		{"wrong aud", sign(key, func(c *jwt.Claims) { c.Audience = jwt.Audience{"http://127.0.0.1:8080/oauth/token"} }),
			`aud must be "` + testIssuer + `" or "` + testIssuer + TokenPath + `"`},
		{"expired", sign(key, func(c *jwt.Claims) { c.Expiry = jwt.NewNumericDate(f.now.Add(-time.Hour)) }), "expired"},
		{"replayed", reused, "jti was used before"},
		{"no jti", sign(key, func(c *jwt.Claims) { c.ID = "" }), "needs a jti"},
		{"wrong key", sign(junk, func(*jwt.Claims) {}), ""},
	} {
		code, body, _ := f.token(t, assertionForm(id, tc.assertion))
		desc, _ := body["error_description"].(string)
		if code != 401 || body["error"] != "invalid_client" {
			t.Fatalf("%s: %d %v, want 401 invalid_client", tc.name, code, body)
		}
		if tc.want == "" && desc != "client authentication failed" {
			t.Fatalf("%s: error_description %q tells more than that authentication failed", tc.name, desc)
		}
		if tc.want != "" && !strings.Contains(desc, tc.want) {
			t.Fatalf("%s: error_description %q does not say %q", tc.name, desc, tc.want)
		}
	}
}
