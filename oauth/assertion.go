package oauth

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"sync"
	"time"

	jose "github.com/go-jose/go-jose/v4"
	"github.com/go-jose/go-jose/v4/jwt"

	"github.com/creativeops/creativeops/ent"
	"github.com/creativeops/creativeops/ent/oauthassertion"
	"github.com/creativeops/creativeops/ent/predicate"
)

// AssertionType is the client_assertion_type of private_key_jwt (RFC 7523
// section 2.2).
const AssertionType = "urn:ietf:params:oauth:client-assertion-type:jwt-bearer"

// maxAssertionLifetime bounds how far in the future an assertion may
// expire, and so how long its jti must be remembered.
const maxAssertionLifetime = 10 * time.Minute

// assertionAlgorithms are those a client may sign assertions with.
var assertionAlgorithms = []jose.SignatureAlgorithm{jose.ES256, jose.ES384, jose.ES512, jose.EdDSA, jose.RS256, jose.RS384, jose.RS512, jose.PS256, jose.PS384, jose.PS512}

func oauthassertionExpiredBefore(t time.Time) predicate.OAuthAssertion {
	return oauthassertion.ExpiresAtLT(t)
}

// clientByAssertion authenticates a client by a JWT it signed with one of
// its registered keys (RFC 7523 section 3): iss and sub are the client id,
// aud names this server's token endpoint or issuer, exp is near, and the
// jti has not been used before.
func (s *Service) clientByAssertion(ctx context.Context, clientID, assertion string) (*ent.OAuthClient, error) {
	tok, err := jwt.ParseSigned(assertion, assertionAlgorithms)
	if err != nil || len(tok.Headers) != 1 {
		return nil, errBadCredentials
	}
	var unverified jwt.Claims
	if err := tok.UnsafeClaimsWithoutVerification(&unverified); err != nil {
		return nil, errBadCredentials
	}
	if clientID == "" {
		clientID = unverified.Subject
	}
	if unverified.Subject != clientID {
		return nil, errBadCredentials
	}
	c, err := s.activeClient(ctx, clientID)
	if err != nil {
		return nil, err
	}
	keys, err := s.clientKeys(ctx, c)
	if err != nil {
		return nil, err
	}
	h := tok.Headers[0]
	var claims jwt.Claims
	verified := false
	for _, k := range keys.Keys {
		if (h.KeyID != "" && k.KeyID != h.KeyID) || (k.Algorithm != "" && k.Algorithm != h.Algorithm) {
			continue
		}
		if tok.Claims(k.Key, &claims) == nil {
			verified = true
			break
		}
	}
	if !verified {
		return nil, errBadCredentials
	}
	now := s.now()
	err = claims.ValidateWithLeeway(jwt.Expected{
		Issuer: clientID, Subject: clientID,
		AnyAudience: jwt.Audience{s.cfg.Issuer, s.cfg.Issuer + TokenPath},
		Time:        now,
	}, leeway)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", errBadCredentials, err)
	}
	if claims.Expiry == nil || claims.ID == "" || len(claims.ID) > 256 || claims.Expiry.Time().After(now.Add(maxAssertionLifetime)) {
		return nil, fmt.Errorf("%w: an assertion needs a jti (at most 256 characters) and an exp at most %s away", errBadCredentials, maxAssertionLifetime)
	}
	// Remember the jti until the assertion expires; a second use finds it.
	err = s.cfg.Ent.OAuthAssertion.Create().SetID(clientID + ":" + claims.ID).
		SetExpiresAt(claims.Expiry.Time().Add(leeway)).Exec(ctx)
	if ent.IsConstraintError(err) {
		return nil, fmt.Errorf("%w: assertion replayed", errBadCredentials)
	}
	if err != nil {
		return nil, err
	}
	return c, nil
}

// clientKeys returns the client's registered JWK set, or the one at its
// JWKS URL.
func (s *Service) clientKeys(ctx context.Context, c *ent.OAuthClient) (*jose.JSONWebKeySet, error) {
	switch {
	case c.Jwks != "":
		return parseClientJWKS([]byte(c.Jwks))
	case c.JwksURI != "":
		return s.jwks.get(ctx, c.JwksURI)
	}
	return nil, errBadCredentials
}

// jwksCache holds fetched client JWK sets for a few minutes, so a burst of
// token requests does not fetch the set each time.
type jwksCache struct {
	client    *http.Client
	allowHTTP bool
	mu        sync.Mutex
	entries   map[string]jwksEntry
}

type jwksEntry struct {
	set     *jose.JSONWebKeySet
	fetched time.Time
}

const jwksTTL = 5 * time.Minute

func newJWKSCache(client *http.Client) *jwksCache {
	return &jwksCache{client: client, entries: map[string]jwksEntry{}}
}

func (j *jwksCache) get(ctx context.Context, uri string) (*jose.JSONWebKeySet, error) {
	j.mu.Lock()
	e, ok := j.entries[uri]
	j.mu.Unlock()
	if ok && time.Since(e.fetched) < jwksTTL {
		return e.set, nil
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, uri, nil)
	if err != nil {
		return nil, err
	}
	req.Header.Set("Accept", "application/json")
	resp, err := j.client.Do(req)
	if err != nil {
		return nil, fmt.Errorf("%w: fetch JWKS: %v", errBadCredentials, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("%w: fetch JWKS: status %d", errBadCredentials, resp.StatusCode)
	}
	body, err := io.ReadAll(io.LimitReader(resp.Body, 64<<10))
	if err != nil {
		return nil, fmt.Errorf("%w: fetch JWKS: %v", errBadCredentials, err)
	}
	set, err := parseClientJWKS(body)
	if err != nil {
		return nil, fmt.Errorf("%w: JWKS: %v", errBadCredentials, err)
	}
	j.mu.Lock()
	if len(j.entries) > 1000 {
		j.entries = map[string]jwksEntry{}
	}
	j.entries[uri] = jwksEntry{set: set, fetched: time.Now()}
	j.mu.Unlock()
	return set, nil
}
