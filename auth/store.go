package auth

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"time"

	"github.com/creativeops/creativeops/ent"
	"github.com/creativeops/creativeops/ent/apikey"
	"github.com/creativeops/creativeops/ent/keyepoch"
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

	cache *keyCache // nil until StartCache
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
	var k *ent.APIKey
	err = s.change(ctx, func(tx *ent.Client) error {
		c := tx.APIKey.Create().
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
		var err error
		k, err = c.Save(ctx)
		return err
	})
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

// Authenticate resolves a bearer secret to its principal. With the cache
// started (StartCache) a verified key is served from memory while the cache
// is known current; otherwise every call reads the database.
func (s *Store) Authenticate(ctx context.Context, secret string) (*Principal, error) {
	if !WellFormed(secret) {
		return nil, ErrUnauthenticated
	}
	sum := sha256.Sum256([]byte(secret))
	gen, cacheable := uint64(0), false
	if s.cache != nil {
		var e *cachedKey
		e, gen, cacheable = s.cache.lookup(sum)
		if e != nil {
			return e.principal(s.now())
		}
	}
	h := hex.EncodeToString(sum[:])
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
	var e *cachedKey
	switch {
	case HashEqual(k.SecretHash, h):
		e = newCachedKey(k, false)
	case k.PreviousSecretHash != nil && HashEqual(*k.PreviousSecretHash, h):
		e = newCachedKey(k, true)
	default:
		return nil, ErrUnauthenticated
	}
	if cacheable {
		s.cache.store(sum, e, gen)
	}
	return e.principal(s.now())
}

// RotateKey gives a key a new secret; the current one keeps working for the
// grace period. A secret already in its grace period is replaced, so at most
// two secrets are ever valid.
func (s *Store) RotateKey(ctx context.Context, orgID, id string, grace time.Duration) (*ent.APIKey, string, error) {
	secret, err := NewKey()
	if err != nil {
		return nil, "", err
	}
	var k *ent.APIKey
	err = s.change(ctx, func(tx *ent.Client) error {
		old, err := tx.APIKey.Query().Where(apikey.ID(id), apikey.OrganizationID(orgID), apikey.RevokedAtIsNil()).Only(ctx)
		if err != nil {
			return err
		}
		k, err = old.Update().
			SetPreviousSecretHash(old.SecretHash).
			SetPreviousSecretExpiresAt(s.now().Add(grace)).
			SetSecretHash(Hash(secret)).
			SetPrefix(DisplayPrefix(secret)).
			Save(ctx)
		return err
	})
	if err != nil {
		return nil, "", err
	}
	return k, secret, nil
}

// RevokeKey stops a key (and any secret in its grace period) at once.
func (s *Store) RevokeKey(ctx context.Context, orgID, id string) error {
	return s.change(ctx, func(tx *ent.Client) error {
		n, err := tx.APIKey.Update().
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
	})
}

// change runs a write to API keys in one transaction with an increment of
// the key epoch, so no replica's cache outlives a committed change by more
// than KeyChangeBound. Every write to api_keys must go through it.
func (s *Store) change(ctx context.Context, fn func(tx *ent.Client) error) error {
	tx, err := s.Ent.Tx(ctx)
	if err != nil {
		return err
	}
	if err := fn(tx.Client()); err != nil {
		_ = tx.Rollback()
		return err
	}
	err = tx.KeyEpoch.Create().SetID(keyEpochID).SetEpoch(1).
		OnConflictColumns(keyepoch.FieldID).AddEpoch(1).Exec(ctx)
	if err != nil {
		_ = tx.Rollback()
		return fmt.Errorf("bump key epoch: %w", err)
	}
	if err := tx.Commit(); err != nil {
		return err
	}
	// This replica need not wait for its next poll.
	if s.cache != nil {
		s.cache.drop()
	}
	return nil
}
