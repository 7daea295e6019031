package auth

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/creativeops/creativeops/ent"
	"github.com/creativeops/creativeops/ent/apikey"
	"github.com/creativeops/creativeops/ent/organization"
	"github.com/creativeops/creativeops/ids"
)

// ErrUnauthenticated covers every reason a key is refused: unknown,
// malformed, revoked or expired. Callers are not told which.
var ErrUnauthenticated = errors.New("invalid API key")

// Store keeps organizations and keys.
type Store struct {
	Ent *ent.Client
	// Read, when set, serves lookups (see storage.Store.Read).
	Read *ent.Client
	Now  func() time.Time
}

// Reader is the client for queries outside transactions.
func (s *Store) Reader() *ent.Client {
	if s.Read != nil {
		return s.Read
	}
	return s.Ent
}

func (s *Store) now() time.Time {
	if s.Now != nil {
		return s.Now().UTC()
	}
	return time.Now().UTC()
}

// NewKeyParams describes a key to create.
type NewKeyParams struct {
	OrganizationID string
	Name           string
	Scopes         []string
	ExpiresAt      *time.Time
	RateLimit      *RateLimit
}

// CreateKey stores a new key and returns it with its secret, which is not
// kept and cannot be shown again.
func (s *Store) CreateKey(ctx context.Context, p NewKeyParams) (*ent.APIKey, string, error) {
	for _, sc := range p.Scopes {
		if !ValidScope(sc) {
			return nil, "", fmt.Errorf("unknown scope %q", sc)
		}
	}
	secret, err := NewKey()
	if err != nil {
		return nil, "", err
	}
	c := s.Ent.APIKey.Create().
		SetID(ids.New(ids.Key)).
		SetOrganizationID(p.OrganizationID).
		SetName(p.Name).
		SetPrefix(DisplayPrefix(secret)).
		SetSecretHash(Hash(secret)).
		SetScopes(p.Scopes).
		SetNillableExpiresAt(p.ExpiresAt)
	if p.RateLimit != nil {
		c.SetRateLimitRps(p.RateLimit.RequestsPerSecond).SetRateLimitBurst(p.RateLimit.Burst)
	}
	k, err := c.Save(ctx)
	if err != nil {
		return nil, "", err
	}
	return k, secret, nil
}

// EnsureOrganization returns the organization with the name, creating it if
// missing.
func (s *Store) EnsureOrganization(ctx context.Context, name string) (*ent.Organization, error) {
	org, err := s.Ent.Organization.Query().Where(organization.Name(name)).Only(ctx)
	if err == nil {
		return org, nil
	}
	if !ent.IsNotFound(err) {
		return nil, err
	}
	org, err = s.Ent.Organization.Create().SetID(ids.New(ids.Organization)).SetName(name).Save(ctx)
	if ent.IsConstraintError(err) {
		// Another process created it first.
		return s.Ent.Organization.Query().Where(organization.Name(name)).Only(ctx)
	}
	return org, err
}

// Authenticate resolves a bearer secret to its principal. It reads the
// database on every call, so a revocation takes effect at once on every
// replica.
func (s *Store) Authenticate(ctx context.Context, secret string) (*Principal, error) {
	if !WellFormed(secret) {
		return nil, ErrUnauthenticated
	}
	h := Hash(secret)
	// Two single-index lookups: the current secret is by far the common case.
	k, err := s.Reader().APIKey.Query().Where(apikey.SecretHash(h)).Only(ctx)
	if ent.IsNotFound(err) {
		k, err = s.Reader().APIKey.Query().Where(apikey.PreviousSecretHash(h)).Only(ctx)
	}
	if ent.IsNotFound(err) {
		return nil, ErrUnauthenticated
	}
	if err != nil {
		return nil, err
	}
	now := s.now()
	switch {
	case HashEqual(k.SecretHash, h):
	case k.PreviousSecretHash != nil && HashEqual(*k.PreviousSecretHash, h) &&
		k.PreviousSecretExpiresAt != nil && now.Before(*k.PreviousSecretExpiresAt):
	default:
		return nil, ErrUnauthenticated
	}
	if k.RevokedAt != nil || (k.ExpiresAt != nil && !now.Before(*k.ExpiresAt)) {
		return nil, ErrUnauthenticated
	}
	p := &Principal{KeyID: k.ID, OrganizationID: k.OrganizationID, Scopes: k.Scopes}
	if k.RateLimitRps != nil && k.RateLimitBurst != nil {
		p.RateLimit = &RateLimit{RequestsPerSecond: *k.RateLimitRps, Burst: *k.RateLimitBurst}
	}
	return p, nil
}

// RotateKey gives a key a new secret; the current one keeps working for the
// grace period. A secret already in its grace period is replaced, so at most
// two secrets are ever valid.
func (s *Store) RotateKey(ctx context.Context, orgID, id string, grace time.Duration) (*ent.APIKey, string, error) {
	k, err := s.Ent.APIKey.Query().Where(apikey.ID(id), apikey.OrganizationID(orgID), apikey.RevokedAtIsNil()).Only(ctx)
	if err != nil {
		return nil, "", err
	}
	secret, err := NewKey()
	if err != nil {
		return nil, "", err
	}
	k, err = k.Update().
		SetPreviousSecretHash(k.SecretHash).
		SetPreviousSecretExpiresAt(s.now().Add(grace).Truncate(time.Microsecond)).
		SetSecretHash(Hash(secret)).
		SetPrefix(DisplayPrefix(secret)).
		Save(ctx)
	if err != nil {
		return nil, "", err
	}
	return k, secret, nil
}

// RevokeKey stops a key (and any secret in its grace period) at once.
func (s *Store) RevokeKey(ctx context.Context, orgID, id string) error {
	n, err := s.Ent.APIKey.Update().
		Where(apikey.ID(id), apikey.OrganizationID(orgID), apikey.RevokedAtIsNil()).
		SetRevokedAt(s.now()).
		Save(ctx)
	if err != nil {
		return err
	}
	if n == 0 {
		return &ent.NotFoundError{}
	}
	return nil
}
