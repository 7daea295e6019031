package auth

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"
	"encoding/hex"
	"strings"
	"sync/atomic"
	"time"

	"github.com/creativeops/creativeops/audit"
	"github.com/creativeops/creativeops/ent"
	"github.com/creativeops/creativeops/ent/apikey"
	"github.com/creativeops/creativeops/ent/session"
	"github.com/creativeops/creativeops/ids"
)

// Default lifetimes of a dashboard session.
const (
	DefaultSessionIdle = 12 * time.Hour
	DefaultSessionMax  = 7 * 24 * time.Hour
)

// maxSessionTouch is the longest a used session's last_seen_at lags
// behind its use: the idle clock is written at most this often per
// session, never once per request.
const maxSessionTouch = time.Minute

// SessionPolicy is how long dashboard sessions live: Idle after their last
// use, Max after they were opened, whichever ends first.
type SessionPolicy struct {
	Idle, Max time.Duration
}

func (p SessionPolicy) withDefaults() SessionPolicy {
	if p.Idle <= 0 {
		p.Idle = DefaultSessionIdle
	}
	if p.Max <= 0 {
		p.Max = DefaultSessionMax
	}
	return p
}

// touchEvery is how stale last_seen_at may get before a use writes it.
func (p SessionPolicy) touchEvery() time.Duration { return min(maxSessionTouch, p.Idle/4) }

// Session is a dashboard sign-in as the dashboard shows it.
type Session struct {
	ID string
	// KeyID is the id of the API key, or of the OAuth client, the session
	// acts as; ClientID is set when it is a client.
	KeyID          string
	ClientID       string
	OrganizationID string
	Scopes         []string
	CSRFToken      string
	CreatedAt      time.Time
	LastSeenAt     time.Time
	// ExpiresAt is when the session ends unless it is used again: its last
	// use plus the idle lifetime, or its absolute end if sooner.
	ExpiresAt time.Time
}

// inTx runs fn in one transaction of c.
func inTx(ctx context.Context, c *ent.Client, fn func(tx *ent.Client) error) error {
	tx, err := c.Tx(ctx)
	if err != nil {
		return err
	}
	if err := fn(tx.Client()); err != nil {
		_ = tx.Rollback()
		return err
	}
	return tx.Commit()
}

// sessionTokenBytes is the entropy of session and CSRF tokens.
const sessionTokenBytes = 32

func randomToken() string {
	b := make([]byte, sessionTokenBytes)
	_, _ = rand.Read(b) // crypto/rand.Read never fails (Go 1.24+)
	return base64.RawURLEncoding.EncodeToString(b)
}

// sessionPolicy is the store's policy with its defaults.
func (s *Store) sessionPolicy() SessionPolicy { return s.Sessions.withDefaults() }

// CreateSession signs in with an API key: it returns a new session acting
// as that key and the session's token, which only the caller (the cookie)
// keeps. The session never outlives the key: it ends at the key's expiry,
// and a secret in its rotation grace period opens a session that ends with
// the grace period. An invalid, revoked or expired key is ErrUnauthenticated.
func (s *Store) CreateSession(ctx context.Context, secret string) (*Session, string, error) {
	e, err := s.verify(ctx, secret)
	if err != nil {
		return nil, "", err
	}
	now := s.now().Truncate(time.Microsecond)
	if _, err := e.principal(now); err != nil {
		return nil, "", err
	}
	end := now.Add(s.sessionPolicy().Max)
	if e.expiresAt != nil && e.expiresAt.Before(end) {
		end = *e.expiresAt
	}
	if e.previous && e.previousExpiresAt != nil && e.previousExpiresAt.Before(end) {
		end = *e.previousExpiresAt
	}
	return s.openSession(ctx, e, now, end)
}

// ClientSource resolves OAuth clients for dashboard sessions: the
// principal a bearer token of the client would carry (KeyID and ClientID
// the client's id, its organization, all its allowed scopes), or
// ErrUnauthenticated when the client is unknown or revoked. Its changes
// must increment a row of key_epoch (see Epoch) so cached sessions follow
// them within KeyChangeBound.
type ClientSource interface {
	SessionClient(ctx context.Context, clientID string) (*Principal, error)
}

// CreateClientSession signs in as an OAuth client whose credentials the
// caller has checked: p is the client's principal (ClientID set), and
// until, when set, the end of the secret it signed in with (a secret in
// its rotation grace period). The session is stored with the client's id
// as its key_id; the client's revocation deletes it and a rotation brings
// its end forward to the grace end, as for keys.
func (s *Store) CreateClientSession(ctx context.Context, p Principal, until *time.Time) (*Session, string, error) {
	if p.ClientID == "" || p.KeyID != p.ClientID {
		return nil, "", ErrUnauthenticated
	}
	t := s.now()
	if until != nil && !t.Before(*until) {
		return nil, "", ErrUnauthenticated
	}
	now := t.Truncate(time.Microsecond)
	end := now.Add(s.sessionPolicy().Max)
	if until != nil {
		end = minTime(end, *until)
	}
	return s.openSession(ctx, &cachedKey{read: time.Now(), p: p}, now, end)
}

func minTime(a, b time.Time) time.Time {
	if b.Before(a) {
		return b
	}
	return a
}

// openSession stores a new session of the key (or client) e, ending at
// end, and returns it with its token.
func (s *Store) openSession(ctx context.Context, e *cachedKey, now, end time.Time) (*Session, string, error) {
	p := e.p
	pol := s.sessionPolicy()
	token := randomToken()
	// The key signing in is who opens the session.
	ctx = audit.WithCaller(ctx, p.KeyID, audit.OriginFrom(ctx))
	var row *ent.Session
	err := inTx(ctx, s.Ent, func(tx *ent.Client) error {
		var err error
		row, err = tx.Session.Create().
			SetID(ids.New(ids.Session)).
			SetTokenHash(Hash(token)).
			SetCsrfToken(randomToken()).
			SetKeyID(p.KeyID).
			SetOrganizationID(p.OrganizationID).
			SetCreatedAt(now).
			SetLastSeenAt(now).
			SetExpiresAt(end.UTC().Truncate(time.Microsecond)).
			Save(ctx)
		if err != nil {
			return err
		}
		return audit.Record(ctx, tx, audit.Entry{
			OrganizationID: p.OrganizationID, Action: audit.SessionCreated,
			TargetType: audit.TargetSession, TargetID: row.ID,
			Details: map[string]string{"key_id": p.KeyID, "expires_at": row.ExpiresAt.UTC().Format(time.RFC3339)},
		})
	})
	if err != nil {
		return nil, "", err
	}
	c := newCachedSession(row, e)
	return c.session(pol), token, nil
}

// cachedSession is what LookupSession learned of a session and its key.
// lastSeen moves forward as the session is used; the rest is as read.
type cachedSession struct {
	read      time.Time
	id        string
	csrf      string
	createdAt time.Time
	expiresAt time.Time
	lastSeen  atomic.Int64 // Unix nanoseconds of the last recorded use
	key       *cachedKey
}

func newCachedSession(row *ent.Session, key *cachedKey) *cachedSession {
	c := &cachedSession{read: time.Now(), id: row.ID, csrf: row.CsrfToken, createdAt: row.CreatedAt,
		expiresAt: row.ExpiresAt, key: key}
	c.lastSeen.Store(row.LastSeenAt.UnixNano())
	return c
}

func (c *cachedSession) session(pol SessionPolicy) *Session {
	last := time.Unix(0, c.lastSeen.Load()).UTC()
	exp := last.Add(pol.Idle)
	if c.expiresAt.Before(exp) {
		exp = c.expiresAt
	}
	return &Session{
		ID: c.id, KeyID: c.key.p.KeyID, ClientID: c.key.p.ClientID, OrganizationID: c.key.p.OrganizationID,
		Scopes: c.key.p.Scopes, CSRFToken: c.csrf, CreatedAt: c.createdAt, LastSeenAt: last, ExpiresAt: exp,
	}
}

// idle reports whether the session, by what this entry knows of its last
// use, has been idle for the policy's lifetime.
func (c *cachedSession) idle(now time.Time, pol SessionPolicy) bool {
	return !now.Before(time.Unix(0, c.lastSeen.Load()).Add(pol.Idle))
}

// LookupSession resolves a session cookie's token to the session and the
// principal of its key, and records the use. A session that is unknown,
// ended, idle past its lifetime, past its absolute end, or whose key is
// revoked or expired is ErrUnauthenticated. With the key cache started the
// session is served from memory like a key, and an ended session (or a key
// change) reaches every replica within KeyChangeBound.
func (s *Store) LookupSession(ctx context.Context, token string) (*Session, *Principal, error) {
	c, now, err := s.findSession(ctx, token)
	if err != nil {
		return nil, nil, err
	}
	p, err := s.useSession(ctx, c, now)
	if err != nil {
		return nil, nil, err
	}
	return c.session(s.sessionPolicy()), p, nil
}

// AuthenticateSession is LookupSession for a call made with the session:
// the CSRF token sent with it must be the session's (compared in constant
// time), or the call is ErrUnauthenticated and not recorded as a use.
func (s *Store) AuthenticateSession(ctx context.Context, token, csrf string) (*Principal, error) {
	c, now, err := s.findSession(ctx, token)
	if err != nil {
		return nil, err
	}
	if csrf == "" || subtle.ConstantTimeCompare([]byte(csrf), []byte(c.csrf)) != 1 {
		return nil, ErrUnauthenticated
	}
	return s.useSession(ctx, c, now)
}

// findSession returns what is known of the session with the token, from
// the cache when it is current, and the time to check it at.
func (s *Store) findSession(ctx context.Context, token string) (*cachedSession, time.Time, error) {
	now := s.now()
	if token == "" || len(token) > 256 {
		return nil, now, ErrUnauthenticated
	}
	sum := sha256.Sum256([]byte(token))
	pol := s.sessionPolicy()
	gen, cacheable := uint64(0), false
	if s.cache != nil {
		var c *cachedSession
		c, gen, cacheable = s.cache.lookupSession(sum)
		// An entry that looks idle is read again: another replica may have
		// recorded a later use.
		if c != nil && !c.idle(now, pol) {
			return c, now, nil
		}
	}
	row, err := s.Reader().Session.Query().Where(session.TokenHash(hex.EncodeToString(sum[:]))).Only(ctx)
	if ent.IsNotFound(err) {
		return nil, now, ErrUnauthenticated
	}
	if err != nil {
		return nil, now, err
	}
	var key *cachedKey
	if strings.HasPrefix(row.KeyID, ids.Key+"_") {
		k, err := s.Reader().APIKey.Query().Where(apikey.ID(row.KeyID)).Only(ctx)
		if ent.IsNotFound(err) {
			return nil, now, ErrUnauthenticated
		}
		if err != nil {
			return nil, now, err
		}
		key = newCachedKey(k, false)
	} else {
		// A session opened with OAuth client credentials.
		if s.Clients == nil {
			return nil, now, ErrUnauthenticated
		}
		p, err := s.Clients.SessionClient(ctx, row.KeyID)
		if err != nil {
			return nil, now, err
		}
		key = &cachedKey{read: time.Now(), p: *p}
	}
	c := newCachedSession(row, key)
	if cacheable {
		s.cache.storeSession(sum, c, gen)
	}
	return c, now, nil
}

// useSession checks the session at now and records its use, writing
// last_seen_at only when it is more than touchEvery old.
func (s *Store) useSession(ctx context.Context, c *cachedSession, now time.Time) (*Principal, error) {
	pol := s.sessionPolicy()
	if !now.Before(c.expiresAt) || c.idle(now, pol) {
		return nil, ErrUnauthenticated
	}
	p, err := c.key.principal(now)
	if err != nil {
		return nil, err
	}
	last := c.lastSeen.Load()
	if now.Sub(time.Unix(0, last)) >= pol.touchEvery() && c.lastSeen.CompareAndSwap(last, now.UnixNano()) {
		// One request per session and interval writes; the others go on.
		// A failed write only leaves the idle clock where it was: the
		// next use past the interval tries again.
		at := now.UTC().Truncate(time.Microsecond)
		_ = s.Ent.Session.Update().
			Where(session.ID(c.id), session.LastSeenAtLT(at)).
			SetLastSeenAt(at).
			Exec(ctx)
	}
	return p, nil
}

// EndSession signs a session out: its row is deleted and, like a key
// change, every replica stops accepting its token within KeyChangeBound.
// It returns the ended session; an unknown token is ErrUnauthenticated.
func (s *Store) EndSession(ctx context.Context, token string) (*Session, error) {
	h := Hash(token)
	var ended *ent.Session
	err := s.change(ctx, func(tx *ent.Client) error {
		row, err := tx.Session.Query().Where(session.TokenHash(h)).Only(ctx)
		if ent.IsNotFound(err) {
			return ErrUnauthenticated
		}
		if err != nil {
			return err
		}
		if err := tx.Session.DeleteOneID(row.ID).Exec(ctx); err != nil {
			return err
		}
		ended = row
		return audit.Record(audit.WithCaller(ctx, row.KeyID, audit.OriginFrom(ctx)), tx, audit.Entry{
			OrganizationID: row.OrganizationID, Action: audit.SessionEnded,
			TargetType: audit.TargetSession, TargetID: row.ID,
			Details: map[string]string{"key_id": row.KeyID, "reason": "sign-out"},
		})
	})
	if err != nil {
		return nil, err
	}
	return &Session{ID: ended.ID, KeyID: ended.KeyID, OrganizationID: ended.OrganizationID,
		CreatedAt: ended.CreatedAt, LastSeenAt: ended.LastSeenAt, ExpiresAt: ended.ExpiresAt}, nil
}

// DeleteExpiredSessions deletes the sessions past their absolute end or
// idle past the idle lifetime at now. Requests already refuse them; this
// only keeps the table small.
func (s *Store) DeleteExpiredSessions(ctx context.Context, now time.Time) (int, error) {
	pol := s.sessionPolicy()
	return s.Ent.Session.Delete().Where(session.Or(
		session.ExpiresAtLTE(now),
		session.LastSeenAtLTE(now.Add(-pol.Idle)),
	)).Exec(ctx)
}
