package oauth

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"database/sql"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	jose "github.com/go-jose/go-jose/v4"
	"github.com/go-jose/go-jose/v4/jwt"

	"github.com/creativeops/creativeops/auth"
	"github.com/creativeops/creativeops/ent"
	"github.com/creativeops/creativeops/ent/oauthclient"
	"github.com/creativeops/creativeops/ent/oauthrevocation"
)

// tokenType is the JOSE "typ" of access tokens (RFC 9068 section 2.1); a
// JWT of another type (an ID token, a client assertion) is not one.
const tokenType = "at+jwt"

// leeway tolerates clock differences between replicas.
const leeway = 30 * time.Second

// accessClaims are an access token's claims (RFC 9068 section 2.2), plus
// the organization the client belongs to.
type accessClaims struct {
	jwt.Claims
	ClientID string `json:"client_id"`
	Scope    string `json:"scope"`
	OrgID    string `json:"org_id"`
}

// Token is an issued access token.
type Token struct {
	AccessToken string
	ExpiresIn   time.Duration
	Scopes      []string
}

// LooksLikeJWT tells a bearer JWT (three dot-separated parts) from an API
// key, so the caller knows which verifier to ask.
func LooksLikeJWT(token string) bool { return strings.Count(token, ".") == 2 }

// issue signs an access token for the client with the given scopes.
func (s *Service) issue(ctx context.Context, c *ent.OAuthClient, scopes []string) (*Token, error) {
	st, _ := s.current()
	if st == nil || st.signer() == nil {
		if err := s.Sync(ctx); err != nil {
			return nil, err
		}
		st, _ = s.current()
	}
	k := st.signer()
	if k == nil {
		return nil, errors.New("oauth: no signing key")
	}
	signer, err := jose.NewSigner(
		jose.SigningKey{Algorithm: signingAlgorithm, Key: jose.JSONWebKey{Key: k.private, KeyID: k.id}},
		(&jose.SignerOptions{}).WithType(tokenType))
	if err != nil {
		return nil, err
	}
	now := s.now()
	lifetime := time.Duration(c.TokenLifetimeSeconds) * time.Second
	claims := accessClaims{
		Claims: jwt.Claims{
			Issuer: s.cfg.Issuer, Subject: c.ID, Audience: jwt.Audience{s.cfg.Issuer},
			Expiry: jwt.NewNumericDate(now.Add(lifetime)), IssuedAt: jwt.NewNumericDate(now),
			NotBefore: jwt.NewNumericDate(now), ID: rand.Text(),
		},
		ClientID: c.ID, Scope: strings.Join(scopes, " "), OrgID: c.OrganizationID,
	}
	raw, err := jwt.Signed(signer).Claims(claims).Serialize()
	if err != nil {
		return nil, err
	}
	return &Token{AccessToken: raw, ExpiresIn: lifetime, Scopes: scopes}, nil
}

// parse checks a token's signature and claims (not whether it was revoked)
// against the keys of st.
func (s *Service) parse(st *state, raw string) (*accessClaims, error) {
	tok, err := jwt.ParseSigned(raw, acceptedAlgorithms)
	if err != nil || len(tok.Headers) != 1 {
		return nil, auth.ErrUnauthenticated
	}
	h := tok.Headers[0]
	if typ, _ := h.ExtraHeaders[jose.HeaderType].(string); !strings.EqualFold(typ, tokenType) && !strings.EqualFold(typ, "application/"+tokenType) {
		return nil, auth.ErrUnauthenticated
	}
	k := st.byKID[h.KeyID]
	if k == nil || h.Algorithm != k.public.Algorithm {
		return nil, auth.ErrUnauthenticated
	}
	var c accessClaims
	if err := tok.Claims(k.public.Key, &c); err != nil {
		return nil, auth.ErrUnauthenticated
	}
	if c.Expiry == nil || c.ID == "" || c.ClientID == "" || c.Subject != c.ClientID || c.OrgID == "" {
		return nil, auth.ErrUnauthenticated
	}
	err = c.ValidateWithLeeway(jwt.Expected{Issuer: s.cfg.Issuer, AnyAudience: jwt.Audience{s.cfg.Issuer}, Time: s.now()}, leeway)
	if err != nil {
		return nil, auth.ErrUnauthenticated
	}
	return &c, nil
}

// Verify resolves a bearer access token to its principal. While the
// in-memory state is known current (polled within auth.KeyChangeBound) it
// costs no database round trip; a token verified before is not verified
// again, only checked for expiry and revocation.
func (s *Service) Verify(ctx context.Context, raw string) (*auth.Principal, error) {
	st, fresh := s.current()
	if st == nil {
		return nil, auth.ErrUnauthenticated
	}
	sum := sha256.Sum256([]byte(raw))
	c := s.verified.get(sum)
	if c == nil {
		var err error
		if c, err = s.parse(st, raw); err != nil {
			return nil, err
		}
		s.verified.put(sum, c)
	} else if !s.now().Before(c.Expiry.Time().Add(leeway)) {
		return nil, auth.ErrUnauthenticated
	}
	revoked, err := s.isRevoked(ctx, st, fresh, c)
	if err != nil {
		return nil, err
	}
	if revoked {
		return nil, auth.ErrUnauthenticated
	}
	return &auth.Principal{KeyID: c.ClientID, ClientID: c.ClientID, OrganizationID: c.OrgID, Scopes: strings.Fields(c.Scope)}, nil
}

// isRevoked checks the token and its client: in memory when the state is
// current, otherwise in the database, so a revocation never takes longer
// than auth.KeyChangeBound to be seen.
func (s *Service) isRevoked(ctx context.Context, st *state, fresh bool, c *accessClaims) (bool, error) {
	if fresh {
		return st.revoked[c.ID] || st.clients[c.ClientID], nil
	}
	n, err := s.reader().OAuthRevocation.Query().Where(oauthrevocation.ID(c.ID)).Count(ctx)
	if err != nil || n > 0 {
		return n > 0, err
	}
	n, err = s.reader().OAuthClient.Query().Where(oauthclient.ID(c.ClientID), oauthclient.RevokedAtIsNil()).Count(ctx)
	return n == 0, err
}

// revoke records a token's revocation (RFC 7009). Revoking a token again
// is a success that changes nothing: no write, no epoch increment.
func (s *Service) revoke(ctx context.Context, c *accessClaims) error {
	n, err := s.cfg.Ent.OAuthRevocation.Query().Where(oauthrevocation.ID(c.ID)).Count(ctx)
	if err != nil || n > 0 {
		return err
	}
	return s.change(ctx, func(tx *ent.Client) error {
		err := tx.OAuthRevocation.Create().SetID(c.ID).SetClientID(c.ClientID).
			SetExpiresAt(c.Expiry.Time().Add(leeway)).SetCreatedAt(s.now()).
			OnConflictColumns(oauthrevocation.FieldID).DoNothing().Exec(ctx)
		// ent reads back the id of the row it inserted; when a concurrent
		// revocation inserted it first, DO NOTHING returns no row, which
		// is the success RFC 7009 asks for.
		if errors.Is(err, sql.ErrNoRows) {
			return nil
		}
		return err
	})
}

// PurgeExpired deletes revocations and used client assertions past their
// expiry; neither can matter any more.
func (s *Service) PurgeExpired(ctx context.Context) (int, error) {
	now := s.now()
	a, err := s.cfg.Ent.OAuthRevocation.Delete().Where(oauthrevocation.ExpiresAtLT(now)).Exec(ctx)
	if err != nil {
		return a, fmt.Errorf("purge OAuth revocations: %w", err)
	}
	b, err := s.cfg.Ent.OAuthAssertion.Delete().Where(oauthassertionExpiredBefore(now)).Exec(ctx)
	return a + b, err
}

// verifiedCache remembers tokens whose signature and claims checked out,
// by the SHA-256 of the token; entries are dropped with the state.
type verifiedCache struct {
	mu      sync.RWMutex
	entries map[[32]byte]*accessClaims
}

const maxVerified = 10_000

func newVerifiedCache() *verifiedCache {
	return &verifiedCache{entries: map[[32]byte]*accessClaims{}}
}

func (v *verifiedCache) get(sum [32]byte) *accessClaims {
	v.mu.RLock()
	defer v.mu.RUnlock()
	return v.entries[sum]
}

func (v *verifiedCache) put(sum [32]byte, c *accessClaims) {
	v.mu.Lock()
	defer v.mu.Unlock()
	if len(v.entries) >= maxVerified {
		v.entries = map[[32]byte]*accessClaims{}
	}
	v.entries[sum] = c
}

func (v *verifiedCache) drop() {
	v.mu.Lock()
	defer v.mu.Unlock()
	v.entries = map[[32]byte]*accessClaims{}
}
