package oauth

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"time"

	jose "github.com/go-jose/go-jose/v4"
	"github.com/go-jose/go-jose/v4/jwt"
	"golang.org/x/sync/singleflight"

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
	// The claims are checked before any key is looked for: an assertion
	// that could not be accepted whatever its signature costs no fetch of
	// the client's JWKS URL.
	now := s.now()
	if err := unverified.ValidateWithLeeway(jwt.Expected{
		Issuer: clientID, Subject: clientID,
		AnyAudience: jwt.Audience{s.cfg.Issuer, s.cfg.Issuer + TokenPath},
		Time:        now,
	}, leeway); err != nil {
		return nil, s.refusedClaims(unverified, err)
	}
	if err := assertionBounds(unverified, now); err != nil {
		return nil, err
	}
	c, err := s.activeClient(ctx, clientID)
	if err != nil {
		return nil, err
	}
	var claims jwt.Claims
	verify := func(keys *jose.JSONWebKeySet) bool {
		h := tok.Headers[0]
		for _, k := range keys.Keys {
			if (h.KeyID != "" && k.KeyID != h.KeyID) || (k.Algorithm != "" && k.Algorithm != h.Algorithm) {
				continue
			}
			if tok.Claims(k.Key, &claims) == nil {
				return true
			}
		}
		return false
	}
	keys, err := s.clientKeys(ctx, c, false)
	if err != nil {
		return nil, err
	}
	verified := verify(keys)
	if !verified && c.Jwks == "" {
		// The client may have rotated its keys since the set was cached:
		// look again, if the set is old enough to be fetched again.
		if keys, err = s.clientKeys(ctx, c, true); err != nil {
			return nil, err
		}
		verified = verify(keys)
	}
	if !verified {
		return nil, errBadCredentials
	}
	err = claims.ValidateWithLeeway(jwt.Expected{
		Issuer: clientID, Subject: clientID,
		AnyAudience: jwt.Audience{s.cfg.Issuer, s.cfg.Issuer + TokenPath},
		Time:        now,
	}, leeway)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", errBadCredentials, err)
	}
	if err := assertionBounds(claims, now); err != nil {
		return nil, err
	}
	// Remember the jti until the assertion expires; a second use finds it.
	err = s.cfg.Ent.OAuthAssertion.Create().SetID(clientID + ":" + claims.ID).
		SetExpiresAt(claims.Expiry.Time().Add(leeway)).Exec(ctx)
	if ent.IsConstraintError(err) {
		return nil, assertionRefused{"this assertion's jti was used before: sign a new assertion for each token request"}
	}
	if err != nil {
		return nil, err
	}
	return c, nil
}

// assertionBounds refuses an assertion without a jti, or whose expiry is
// missing or too far ahead to remember its jti until then.
func assertionBounds(c jwt.Claims, now time.Time) error {
	if c.Expiry == nil || c.ID == "" || len(c.ID) > 256 || c.Expiry.Time().After(now.Add(maxAssertionLifetime)) {
		return assertionRefused{fmt.Sprintf("an assertion needs a jti (at most 256 characters) and an exp at most %s away", maxAssertionLifetime)}
	}
	return nil
}

// assertionRefused is a client assertion refused for what its claims say
// (checked before any key, so telling why reveals nothing about the client
// or its keys): the reason goes into the invalid_client answer and the
// log, so a client addressing the wrong audience or reusing an assertion
// learns what to fix. A wrong signature or an unknown client stays the
// bare errBadCredentials.
type assertionRefused struct{ reason string }

func (e assertionRefused) Error() string { return "client assertion refused: " + e.reason }
func (e assertionRefused) Unwrap() error { return errBadCredentials }

// refusedClaims says which claim of an assertion failed validation.
func (s *Service) refusedClaims(c jwt.Claims, err error) error {
	switch {
	case errors.Is(err, jwt.ErrInvalidAudience):
		return assertionRefused{fmt.Sprintf("aud must be %q or %q (the issuer or its token endpoint, as the discovery document names them), not %q",
			s.cfg.Issuer, s.cfg.Issuer+TokenPath, strings.Join(c.Audience, " "))}
	case errors.Is(err, jwt.ErrInvalidIssuer), errors.Is(err, jwt.ErrInvalidSubject):
		return assertionRefused{"iss and sub must both be the client id"}
	case errors.Is(err, jwt.ErrExpired):
		return assertionRefused{"the assertion has expired (exp is in the past)"}
	case errors.Is(err, jwt.ErrNotValidYet), errors.Is(err, jwt.ErrIssuedInTheFuture):
		return assertionRefused{"the assertion is not valid yet (nbf or iat is in the future)"}
	}
	return fmt.Errorf("%w: %v", errBadCredentials, err)
}

// clientKeys returns the client's registered JWK set, or the one at its
// JWKS URL; with refresh, the one at its URL fetched again unless it was
// fetched within jwksRefetch.
func (s *Service) clientKeys(ctx context.Context, c *ent.OAuthClient, refresh bool) (*jose.JSONWebKeySet, error) {
	switch {
	case c.Jwks != "":
		return parseClientJWKS([]byte(c.Jwks))
	case c.JwksURI != "":
		return s.jwks.get(ctx, c.JwksURI, refresh)
	}
	return nil, errBadCredentials
}

// jwksCache holds client JWK sets fetched from their URLs. Keys are needed
// before an assertion's signature can be checked, so anyone may make the
// server fetch a client's URL by naming the client: the cache keeps that
// to one fetch per URL per jwksRefetch, whatever arrives. A set is kept
// for jwksTTL; a failed fetch is remembered for jwksRefetch, and answers
// every assertion in that time without another; concurrent fetches of one
// URL are merged into one, which a caller giving up does not cancel.
type jwksCache struct {
	client *http.Client
	// ttl and refetch are jwksTTL and jwksRefetch (shorter in tests).
	ttl, refetch time.Duration
	flights      singleflight.Group

	mu      sync.Mutex
	entries map[string]*jwksEntry
}

type jwksEntry struct {
	set     *jose.JSONWebKeySet
	err     error
	fetched time.Time
}

const (
	jwksTTL     = 5 * time.Minute
	jwksRefetch = time.Minute
	// jwksFetchTimeout bounds one fetch, whoever waits for it.
	jwksFetchTimeout = 10 * time.Second
	// maxJWKSEntries bounds the cache; past it, it starts over.
	maxJWKSEntries = 1000
)

func newJWKSCache(client *http.Client) *jwksCache {
	return &jwksCache{client: client, ttl: jwksTTL, refetch: jwksRefetch, entries: map[string]*jwksEntry{}}
}

// cached is the entry for uri if it answers without a fetch: a failure
// younger than refetch, or a set younger than ttl (and than refetch, when
// refresh asks for a newer one).
func (j *jwksCache) cached(uri string, refresh bool, now time.Time) *jwksEntry {
	j.mu.Lock()
	e := j.entries[uri]
	j.mu.Unlock()
	if e == nil {
		return nil
	}
	age := now.Sub(e.fetched)
	switch {
	case e.err != nil && age < j.refetch:
		return e
	case e.err == nil && age < j.ttl && (!refresh || age < j.refetch):
		return e
	}
	return nil
}

func (j *jwksCache) get(ctx context.Context, uri string, refresh bool) (*jose.JSONWebKeySet, error) {
	if e := j.cached(uri, refresh, time.Now()); e != nil {
		return e.set, e.err
	}
	ch := j.flights.DoChan(uri, func() (any, error) {
		// A flight that started after this caller looked may have
		// finished meanwhile.
		if e := j.cached(uri, refresh, time.Now()); e != nil {
			return e, nil
		}
		fetchCtx, cancel := context.WithTimeout(context.WithoutCancel(ctx), jwksFetchTimeout)
		defer cancel()
		set, err := j.fetch(fetchCtx, uri)
		e := &jwksEntry{set: set, err: err, fetched: time.Now()}
		j.mu.Lock()
		if len(j.entries) >= maxJWKSEntries {
			j.entries = map[string]*jwksEntry{}
		}
		j.entries[uri] = e
		j.mu.Unlock()
		return e, nil
	})
	select {
	case r := <-ch:
		e := r.Val.(*jwksEntry)
		return e.set, e.err
	case <-ctx.Done():
		return nil, fmt.Errorf("%w: %v", errBadCredentials, ctx.Err())
	}
}

func (j *jwksCache) fetch(ctx context.Context, uri string) (*jose.JSONWebKeySet, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, uri, nil)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", errBadCredentials, err)
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
	return set, nil
}
