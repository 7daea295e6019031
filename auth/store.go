package auth

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"strings"
	"time"

	"google.golang.org/grpc/codes"

	"github.com/creativeops/creativeops/apierror"
	"github.com/creativeops/creativeops/audit"
	"github.com/creativeops/creativeops/ent"
	"github.com/creativeops/creativeops/ent/apikey"
	"github.com/creativeops/creativeops/ent/keyepoch"
	"github.com/creativeops/creativeops/ent/organization"
	"github.com/creativeops/creativeops/ent/session"
	"github.com/creativeops/creativeops/ids"
)

// ErrUnauthenticated covers every reason a key is refused: unknown,
// malformed, revoked or expired. Callers are not told which.
var ErrUnauthenticated = errors.New("invalid API key")

// ErrNoSuchKey is returned for a key id that names no active key of the
// organization.
var ErrNoSuchKey = errors.New("no such active API key")

// Key is an API key as the API shows it: never its secret.
type Key struct {
	ID             string
	OrganizationID string
	Name           string
	Scopes         []string
	// Prefix is the secret's first characters, to recognise it by.
	Prefix    string
	CreatedAt time.Time
	ExpiresAt *time.Time
	RevokedAt *time.Time
	// PreviousSecretExpiresAt is when the secret replaced by the last
	// rotation stops working; nil when none is in its grace period.
	PreviousSecretExpiresAt *time.Time
	RateLimit               *RateLimit
}

func toKey(k *ent.APIKey) *Key {
	out := &Key{
		ID: k.ID, OrganizationID: k.OrganizationID, Name: k.Name, Scopes: k.Scopes, Prefix: k.Prefix,
		CreatedAt: k.CreatedAt, ExpiresAt: k.ExpiresAt, RevokedAt: k.RevokedAt,
	}
	if k.PreviousSecretHash != nil {
		out.PreviousSecretExpiresAt = k.PreviousSecretExpiresAt
	}
	if k.RateLimitRps != nil && k.RateLimitBurst != nil {
		out.RateLimit = &RateLimit{RequestsPerSecond: *k.RateLimitRps, Burst: *k.RateLimitBurst}
	}
	return out
}

// ListKeys returns up to limit keys of the organization after the id
// after, newest first, revoked and expired ones included.
func (s *Store) ListKeys(ctx context.Context, orgID, after string, limit int) ([]*Key, error) {
	q := s.Reader().APIKey.Query().Where(apikey.OrganizationID(orgID))
	if after != "" {
		q = q.Where(apikey.IDLT(after))
	}
	rows, err := q.Order(ent.Desc(apikey.FieldID)).Limit(limit).All(ctx)
	if err != nil {
		return nil, err
	}
	out := make([]*Key, len(rows))
	for i, k := range rows {
		out[i] = toKey(k)
	}
	return out, nil
}

// Store keeps organizations and keys.
type Store struct {
	Ent *ent.Client
	// Read, when set, serves lookups (see storage.Store.Read).
	Read *ent.Client
	// Poll, when set, serves the key cache's poll of the key epoch: the
	// background store's client, so that a burst of requests queueing for
	// connections cannot delay the poll past the cache's bound and turn
	// every authentication into a database read.
	Poll *ent.Client
	Now  func() time.Time
	// Sessions is how long dashboard sessions live (zero: the defaults).
	Sessions SessionPolicy
	// Clients, when set, resolves the OAuth clients dashboard sessions
	// may be opened with (CreateClientSession).
	Clients ClientSource

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
	// By, when set, is the caller creating the key; the new key's scopes
	// must be a subset of its own. Unset for bootstrap and the CLI.
	By             *Principal
	OrganizationID string
	Name           string
	Scopes         []string
	ExpiresAt      *time.Time
	RateLimit      *RateLimit
}

// CreateKey stores a new key and returns it with its secret, which is not
// kept and cannot be shown again.
func (s *Store) CreateKey(ctx context.Context, p NewKeyParams) (*Key, string, error) {
	for _, sc := range p.Scopes {
		if !ValidScope(sc) {
			return nil, "", fmt.Errorf("unknown scope %q", sc)
		}
	}
	if err := mayManage(p.By, p.Scopes, "create"); err != nil {
		return nil, "", err
	}
	secret, err := NewKey()
	if err != nil {
		return nil, "", err
	}
	var k *ent.APIKey
	err = s.change(ctx, func(tx *ent.Client) error {
		var err error
		k, err = createKey(ctx, tx, p, secret)
		return err
	})
	if err != nil {
		return nil, "", err
	}
	return toKey(k), secret, nil
}

// createKey inserts a key with the given secret, and its audit entry,
// inside the caller's transaction (see change).
func createKey(ctx context.Context, tx *ent.Client, p NewKeyParams, secret string) (*ent.APIKey, error) {
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
	k, err := c.Save(ctx)
	if err != nil {
		return nil, err
	}
	details := map[string]string{"name": k.Name, "scopes": audit.Scopes(k.Scopes)}
	if k.ExpiresAt != nil {
		details["expires_at"] = k.ExpiresAt.UTC().Format(time.RFC3339)
	}
	if p.RateLimit != nil {
		details["rate_limit"] = fmt.Sprintf("%g/s burst %d", p.RateLimit.RequestsPerSecond, p.RateLimit.Burst)
	}
	err = audit.Record(ctx, tx, audit.Entry{
		OrganizationID: k.OrganizationID, Action: audit.KeyCreated,
		TargetType: audit.TargetKey, TargetID: k.ID, Details: details,
	})
	return k, err
}

// DefaultOrganization is the organization a new installation starts with.
const DefaultOrganization = "default"

// ErrBootstrapped is returned by Bootstrap on a database that already has
// an organization.
var ErrBootstrapped = errors.New("already bootstrapped")

// Bootstrap gives a brand-new installation a way in: on a database with no
// organization it creates DefaultOrganization with one all-scopes key, in
// one transaction, and returns the organization's id and the key's secret.
// keep is called with the secret before that transaction commits, so a key
// that cannot be kept (written to a file, say) is never created. On a
// database with organizations, or when another replica starting at the
// same time won the race, it returns ErrBootstrapped.
func (s *Store) Bootstrap(ctx context.Context, keep func(secret string) error) (orgID, secret string, err error) {
	secret, err = NewKey()
	if err != nil {
		return "", "", err
	}
	err = s.change(ctx, func(tx *ent.Client) error {
		n, err := tx.Organization.Query().Count(ctx)
		if err != nil {
			return err
		}
		if n > 0 {
			return ErrBootstrapped
		}
		org, err := tx.Organization.Create().SetID(ids.New(ids.Organization)).SetName(DefaultOrganization).Save(ctx)
		if err != nil {
			return err
		}
		err = audit.Record(ctx, tx, audit.Entry{
			OrganizationID: org.ID, Action: audit.OrganizationCreated,
			TargetType: audit.TargetOrganization, TargetID: org.ID, Details: map[string]string{"name": org.Name},
		})
		if err != nil {
			return err
		}
		if _, err := createKey(ctx, tx, NewKeyParams{OrganizationID: org.ID, Name: "bootstrap", Scopes: []string{ScopeAll}}, secret); err != nil {
			return err
		}
		orgID = org.ID
		return keep(secret)
	})
	if ent.IsConstraintError(err) {
		return "", "", ErrBootstrapped
	}
	if err != nil {
		return "", "", err
	}
	return orgID, secret, nil
}

// HasUsableKey reports whether any key, of any organization, can still
// authenticate (neither revoked nor expired).
func (s *Store) HasUsableKey(ctx context.Context) (bool, error) {
	return s.Reader().APIKey.Query().Where(
		apikey.RevokedAtIsNil(),
		apikey.Or(apikey.ExpiresAtIsNil(), apikey.ExpiresAtGT(s.now())),
	).Exist(ctx)
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
	e, err := s.verify(ctx, secret)
	if err != nil {
		return nil, err
	}
	return e.principal(s.now())
}

// verify finds what the database says of a secret, through the cache when
// it is current; the caller checks the entry at its time.
func (s *Store) verify(ctx context.Context, secret string) (*cachedKey, error) {
	if !WellFormed(secret) {
		return nil, ErrUnauthenticated
	}
	sum := sha256.Sum256([]byte(secret))
	gen, cacheable := uint64(0), false
	if s.cache != nil {
		var e *cachedKey
		e, gen, cacheable = s.cache.lookup(sum)
		if e != nil {
			return e, nil
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
	return e, nil
}

// RotateKey gives a key a new secret; the current one keeps working for the
// grace period. A secret already in its grace period is replaced, so at most
// two secrets are ever valid. by, when set, must hold every scope of the key.
//
// The update is conditional on the secret read: of two concurrent rotations
// the later one sees the earlier one's secret and rotates on top of it, so
// every secret returned works (the earlier one for the grace period), and
// none is lost to a write that overwrote it unseen.
func (s *Store) RotateKey(ctx context.Context, by *Principal, orgID, id string, grace time.Duration) (*Key, string, error) {
	const attempts = 5
	for range attempts {
		k, err := s.Ent.APIKey.Query().Where(apikey.ID(id), apikey.OrganizationID(orgID), apikey.RevokedAtIsNil()).Only(ctx)
		if ent.IsNotFound(err) {
			return nil, "", ErrNoSuchKey
		}
		if err != nil {
			return nil, "", err
		}
		if err := mayManage(by, k.Scopes, "rotate"); err != nil {
			return nil, "", err
		}
		secret, err := NewKey()
		if err != nil {
			return nil, "", err
		}
		// The clock is read before the transaction opens: nothing slow
		// happens while the database's write lock is held.
		expires := s.now().Add(grace).Truncate(time.Microsecond)
		var rotated *ent.APIKey
		err = s.change(ctx, func(tx *ent.Client) error {
			n, err := tx.APIKey.Update().
				Where(apikey.ID(k.ID), apikey.SecretHash(k.SecretHash), apikey.RevokedAtIsNil()).
				SetPreviousSecretHash(k.SecretHash).
				SetPreviousSecretExpiresAt(expires).
				SetSecretHash(Hash(secret)).
				SetPrefix(DisplayPrefix(secret)).
				Save(ctx)
			if err != nil || n == 0 {
				return err // n == 0: rotated or revoked meanwhile, read it again
			}
			if rotated, err = tx.APIKey.Get(ctx, k.ID); err != nil {
				return err
			}
			// Every session open now was opened with the secret being
			// replaced: it ends when that secret does, so rotating a key
			// also shuts out whoever signed in with a stolen one.
			if _, err := tx.Session.Update().
				Where(session.KeyID(k.ID), session.ExpiresAtGT(expires)).
				SetExpiresAt(expires).
				Save(ctx); err != nil {
				return err
			}
			return audit.Record(ctx, tx, audit.Entry{
				OrganizationID: orgID, Action: audit.KeyRotated, TargetType: audit.TargetKey, TargetID: k.ID,
				Details: map[string]string{
					"name": k.Name, "grace_period": grace.String(),
					"previous_expires_at": expires.Format(time.RFC3339),
				},
			})
		})
		if err != nil {
			return nil, "", err
		}
		if rotated != nil {
			return toKey(rotated), secret, nil
		}
	}
	return nil, "", apierror.New(codes.Aborted, "CONCURRENT_ROTATION", "the key is being rotated concurrently; try again")
}

// RevokeKey stops a key (and any secret in its grace period) at once and
// ends the dashboard sessions opened with it. by, when set, must hold every
// scope of the key.
func (s *Store) RevokeKey(ctx context.Context, by *Principal, orgID, id string) error {
	k, err := s.Ent.APIKey.Query().Where(apikey.ID(id), apikey.OrganizationID(orgID), apikey.RevokedAtIsNil()).Only(ctx)
	if ent.IsNotFound(err) {
		return ErrNoSuchKey
	}
	if err != nil {
		return err
	}
	if err := mayManage(by, k.Scopes, "revoke"); err != nil {
		return err
	}
	revokedAt := s.now()
	return s.change(ctx, func(tx *ent.Client) error {
		n, err := tx.APIKey.Update().
			Where(apikey.ID(id), apikey.OrganizationID(orgID), apikey.RevokedAtIsNil()).
			SetRevokedAt(revokedAt).
			Save(ctx)
		if err != nil {
			return err
		}
		if n == 0 {
			return ErrNoSuchKey
		}
		if _, err := tx.Session.Delete().Where(session.KeyID(id)).Exec(ctx); err != nil {
			return err
		}
		return audit.Record(ctx, tx, audit.Entry{
			OrganizationID: orgID, Action: audit.KeyRevoked, TargetType: audit.TargetKey, TargetID: id,
			Details: map[string]string{"name": k.Name, "scopes": audit.Scopes(k.Scopes)},
		})
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

// mayManage refuses an action on a key whose scopes the caller does not all
// hold, naming the ones it lacks.
func mayManage(by *Principal, scopes []string, action string) error {
	if by == nil {
		return nil
	}
	missing := by.MissingScopes(scopes)
	if len(missing) == 0 {
		return nil
	}
	list := strings.Join(missing, ",")
	e := apierror.New(codes.PermissionDenied, "SCOPE_NOT_HELD",
		fmt.Sprintf("cannot %s a key with scopes the caller lacks: %s", action, list))
	e.Metadata = map[string]string{"missing_scopes": list}
	return e
}
