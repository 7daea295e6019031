package oauth

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/creativeops/creativeops/auth"
	"github.com/creativeops/creativeops/ent"
	"github.com/creativeops/creativeops/ent/keyepoch"
	"github.com/creativeops/creativeops/ent/oauthclient"
	"github.com/creativeops/creativeops/ent/oauthrevocation"
	"github.com/creativeops/creativeops/ent/oauthsigningkey"
	"github.com/creativeops/creativeops/ratelimit"
	"github.com/creativeops/creativeops/secrets"
	"github.com/creativeops/creativeops/webhooks"
)

// DefaultTokenLifetime is how long an access token lives unless its client
// says otherwise.
const DefaultTokenLifetime = time.Hour

// MaxTokenLifetime bounds a client's token lifetime, and so how long a
// retired signing key stays in the key set.
const MaxTokenLifetime = 24 * time.Hour

// epochID is the key_epoch row that counts OAuth changes (row 1 counts API
// key changes): client creation, rotation and revocation, token revocation
// and signing key rotation all increment it in their transaction.
const epochID = 2

// Config is what the authorization server is built from.
type Config struct {
	// Issuer is the server's public URL: the "iss" of every token, the
	// audience tokens are issued for, and the base of the endpoints'
	// URLs in the metadata. Required to Start; managing clients alone (the
	// command line) needs neither it nor Keyring.
	Issuer string
	// Ent writes; Read, when set, serves lookups.
	Ent, Read *ent.Client
	// Keyring seals the signing keys' private halves.
	Keyring *secrets.Keyring
	// DefaultLifetime is a new client's token lifetime (DefaultTokenLifetime
	// when zero).
	DefaultLifetime time.Duration
	// JWKSClient fetches clients' JWKS URLs; it must refuse internal
	// addresses (default: webhooks.NewClient, the webhooks' SSRF guard).
	JWKSClient *http.Client
	// AllowInsecureJWKS accepts http JWKS URLs (development only).
	AllowInsecureJWKS bool
	// Limiter, when set, budgets the token endpoint by TokenLimits
	// (DefaultTokenLimits where zero), per client address as
	// ClientAddress finds it (default: the TCP peer) and per client id.
	Limiter       *ratelimit.Limiter
	ClientAddress func(*http.Request) string
	TokenLimits   TokenLimits
	Log           *slog.Logger
	Now           func() time.Time
}

// Service is the authorization server and the verifier of its tokens.
type Service struct {
	cfg Config

	mu sync.RWMutex
	st *state // nil until the first load

	refreshMu sync.Mutex // one load at a time

	verified *verifiedCache
	jwks     *jwksCache
}

// state is what verification needs from the database, read at once.
type state struct {
	epoch   int64
	checked time.Time // start of the latest poll that confirmed epoch
	keys    []*signingKey
	byKID   map[string]*signingKey
	revoked map[string]bool // jti of revoked tokens not yet expired
	clients map[string]bool // ids of revoked clients
}

// New builds the service. Call Start before it verifies tokens concurrently.
func New(cfg Config) (*Service, error) {
	cfg.Issuer = strings.TrimRight(cfg.Issuer, "/")
	if cfg.DefaultLifetime <= 0 {
		cfg.DefaultLifetime = DefaultTokenLifetime
	}
	if cfg.DefaultLifetime > MaxTokenLifetime {
		return nil, fmt.Errorf("oauth: token lifetime %s exceeds %s", cfg.DefaultLifetime, MaxTokenLifetime)
	}
	if cfg.Log == nil {
		cfg.Log = slog.Default()
	}
	cfg.TokenLimits = cfg.TokenLimits.WithDefaults()
	if cfg.JWKSClient == nil {
		cfg.JWKSClient = webhooks.NewClient(cfg.AllowInsecureJWKS, 0)
	}
	s := &Service{cfg: cfg, verified: newVerifiedCache(), jwks: newJWKSCache(cfg.JWKSClient)}
	return s, nil
}

// Issuer is the issuer URL tokens carry.
func (s *Service) Issuer() string { return s.cfg.Issuer }

func (s *Service) reader() *ent.Client {
	if s.cfg.Read != nil {
		return s.cfg.Read
	}
	return s.cfg.Ent
}

func (s *Service) now() time.Time {
	if s.cfg.Now != nil {
		return s.cfg.Now().UTC()
	}
	return time.Now().UTC()
}

// EnsureSigningKey creates the first signing key on a database with none.
// Replicas starting together may each create one; all are published and
// the newest signs, so that race is harmless.
func (s *Service) EnsureSigningKey(ctx context.Context) error {
	n, err := s.cfg.Ent.OAuthSigningKey.Query().Count(ctx)
	if err != nil || n > 0 {
		return err
	}
	return s.change(ctx, func(tx *ent.Client) error {
		return newSigningKeyRow(ctx, tx, s.cfg.Keyring, s.now())
	})
}

// RotateSigningKey makes a new key the signing key. The keys it replaces
// keep verifying for MaxTokenLifetime, so no token in flight is refused.
func (s *Service) RotateSigningKey(ctx context.Context) (kid string, err error) {
	now := s.now()
	until := now.Add(MaxTokenLifetime)
	err = s.change(ctx, func(tx *ent.Client) error {
		if _, err := tx.OAuthSigningKey.Update().
			Where(oauthsigningkey.RetiredAtIsNil()).
			SetRetiredAt(now).SetVerifyUntil(until).Save(ctx); err != nil {
			return err
		}
		return newSigningKeyRow(ctx, tx, s.cfg.Keyring, now)
	})
	if err != nil {
		return "", err
	}
	keys, err := loadSigningKeys(ctx, s.cfg.Ent, s.cfg.Keyring, now)
	if err != nil || len(keys) == 0 {
		return "", err
	}
	return keys[0].id, nil
}

// change runs a write in one transaction with an increment of the OAuth
// epoch, so every replica sees it within auth.KeyChangeBound.
func (s *Service) change(ctx context.Context, fn func(tx *ent.Client) error) error {
	tx, err := s.cfg.Ent.Tx(ctx)
	if err != nil {
		return err
	}
	if err := fn(tx.Client()); err != nil {
		_ = tx.Rollback()
		return err
	}
	err = tx.KeyEpoch.Create().SetID(epochID).SetEpoch(1).
		OnConflictColumns(keyepoch.FieldID).AddEpoch(1).Exec(ctx)
	if err != nil {
		_ = tx.Rollback()
		return fmt.Errorf("bump OAuth epoch: %w", err)
	}
	if err := tx.Commit(); err != nil {
		return err
	}
	// This replica need not wait for its next poll (a command line, which
	// verifies nothing, has no state to refresh).
	if s.cfg.Keyring == nil {
		return nil
	}
	return s.Sync(ctx)
}

// Start loads the signing keys and revocations and polls for changes every
// interval (auth.DefaultKeyPollInterval when zero) until stop is called.
func (s *Service) Start(ctx context.Context, interval time.Duration) (stop func(), err error) {
	if s.cfg.Issuer == "" || s.cfg.Keyring == nil {
		return nil, errors.New("oauth: an issuer URL and a keyring are required to issue and verify tokens")
	}
	if interval <= 0 {
		interval = auth.DefaultKeyPollInterval
	}
	if err := s.Sync(ctx); err != nil {
		return nil, err
	}
	pollCtx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		t := time.NewTicker(interval)
		defer t.Stop()
		failing := false
		for {
			select {
			case <-pollCtx.Done():
				return
			case <-t.C:
			}
			c, cancelPoll := context.WithTimeout(pollCtx, auth.KeyChangeBound)
			err := s.Sync(c)
			cancelPoll()
			switch {
			case err != nil && pollCtx.Err() == nil && !failing:
				s.cfg.Log.Warn("cannot read the OAuth epoch; token revocations are read from the database until it can", "error", err)
				failing = true
			case err == nil && failing:
				s.cfg.Log.Info("OAuth epoch readable again")
				failing = false
			}
		}
	}()
	return func() { cancel(); <-done }, nil
}

// Sync reads the OAuth epoch and, when it moved, the signing keys and
// revocations. The poller calls it; tests call it to observe a change.
func (s *Service) Sync(ctx context.Context) error {
	s.refreshMu.Lock()
	defer s.refreshMu.Unlock()
	start := time.Now()
	epoch, err := s.epoch(ctx)
	if err != nil {
		return err
	}
	s.mu.RLock()
	cur := s.st
	s.mu.RUnlock()
	if cur != nil && cur.epoch == epoch && s.now().Before(cur.nextKeyExpiry()) {
		s.mu.Lock()
		if start.After(s.st.checked) {
			s.st.checked = start
		}
		s.mu.Unlock()
		return nil
	}
	next, err := s.load(ctx, epoch)
	if err != nil {
		return err
	}
	next.checked = start
	s.mu.Lock()
	s.st = next
	s.mu.Unlock()
	s.verified.drop()
	return nil
}

func (s *Service) epoch(ctx context.Context) (int64, error) {
	ep, err := s.reader().KeyEpoch.Query().Where(keyepoch.ID(epochID)).Only(ctx)
	if ent.IsNotFound(err) {
		return 0, nil
	}
	if err != nil {
		return 0, err
	}
	return ep.Epoch, nil
}

// load reads the state as of epoch. Rows committed after the epoch was read
// may be included; they only make the state newer.
func (s *Service) load(ctx context.Context, epoch int64) (*state, error) {
	now := s.now()
	keys, err := loadSigningKeys(ctx, s.reader(), s.cfg.Keyring, now)
	if err != nil {
		return nil, err
	}
	st := &state{epoch: epoch, keys: keys, byKID: map[string]*signingKey{}, revoked: map[string]bool{}, clients: map[string]bool{}}
	for _, k := range keys {
		st.byKID[k.id] = k
	}
	jtis, err := s.reader().OAuthRevocation.Query().Where(oauthrevocation.ExpiresAtGT(now)).
		Select(oauthrevocation.FieldID).Strings(ctx)
	if err != nil {
		return nil, err
	}
	for _, j := range jtis {
		st.revoked[j] = true
	}
	ids, err := s.reader().OAuthClient.Query().Where(oauthclient.RevokedAtNotNil()).
		Select(oauthclient.FieldID).Strings(ctx)
	if err != nil {
		return nil, err
	}
	for _, id := range ids {
		st.clients[id] = true
	}
	return st, nil
}

// nextKeyExpiry is when a retired key leaves the key set, so the state
// must be reloaded even though the epoch did not move.
func (st *state) nextKeyExpiry() time.Time {
	next := time.Now().Add(time.Hour)
	for _, k := range st.keys {
		if k.verifyUntil != nil && k.verifyUntil.Before(next) {
			next = *k.verifyUntil
		}
	}
	return next
}

// current returns the state and whether a poll confirmed it recently
// enough for revocations to be checked in memory.
func (s *Service) current() (*state, bool) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	if s.st == nil {
		return nil, false
	}
	return s.st, time.Since(s.st.checked) < auth.KeyChangeBound
}

// signer returns the newest key that is not retired.
func (st *state) signer() *signingKey {
	for _, k := range st.keys {
		if !k.retired {
			return k
		}
	}
	return nil
}
