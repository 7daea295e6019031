package auth

import (
	"context"
	"log/slog"
	"sync"
	"time"

	"github.com/creativeops/creativeops/ent"
)

// KeyChangeBound is the longest a committed key change (revocation,
// rotation, a new scope) can take to reach a replica that caches keys. The
// cache serves a key only while a poll of the key epoch that started less
// than this long ago confirmed it current; past that (the database is slow
// or unreachable) every request reads the database again.
const KeyChangeBound = time.Second

// DefaultKeyPollInterval is how often a caching replica reads the key
// epoch: four cheap primary-key reads a second, well inside KeyChangeBound.
const DefaultKeyPollInterval = 250 * time.Millisecond

// maxKeyAge is how long an entry is used before the key is read again
// whatever the epoch says. It bounds what the epoch cannot see: a change
// written by something that does not increment it (a replica of a version
// before the cache, during a rolling upgrade, or a hand-written UPDATE).
const maxKeyAge = time.Minute

// maxCachedKeys bounds the memory of the cache; when it is full the cache
// starts over, which costs one database read per active key.
const maxCachedKeys = 10_000

// keyEpochID is the row of key_epoch that API key changes increment (the
// OAuth service increments its own).
const keyEpochID = 1

// cachedKey is what Authenticate learned of a key from the database, kept
// so that time-based checks (expiry, the end of a rotation's grace period)
// run on every use and need no invalidation.
type cachedKey struct {
	read              time.Time // when it was read from the database
	p                 Principal
	previous          bool // the secret is the key's previous one (rotation grace)
	previousExpiresAt *time.Time
	expiresAt         *time.Time
	revoked           bool
}

func newCachedKey(k *ent.APIKey, previous bool) *cachedKey {
	e := &cachedKey{
		read:              time.Now(),
		p:                 Principal{KeyID: k.ID, OrganizationID: k.OrganizationID, Scopes: k.Scopes},
		previous:          previous,
		previousExpiresAt: k.PreviousSecretExpiresAt,
		expiresAt:         k.ExpiresAt,
		revoked:           k.RevokedAt != nil,
	}
	if k.RateLimitRps != nil && k.RateLimitBurst != nil {
		e.p.RateLimit = &RateLimit{RequestsPerSecond: *k.RateLimitRps, Burst: *k.RateLimitBurst}
	}
	return e
}

// principal checks the key at now and returns a copy of its principal.
func (e *cachedKey) principal(now time.Time) (*Principal, error) {
	if e.revoked || (e.expiresAt != nil && !now.Before(*e.expiresAt)) {
		return nil, ErrUnauthenticated
	}
	if e.previous && (e.previousExpiresAt == nil || !now.Before(*e.previousExpiresAt)) {
		return nil, ErrUnauthenticated
	}
	p := e.p
	return &p, nil
}

// keyCache maps the SHA-256 of presented secrets to what the database said
// of them. Entries are dropped all at once whenever the key epoch moves.
//
// gen makes the drop safe against a lookup in flight: a request notes gen
// before it reads the database and stores its result only if gen is
// unchanged, so a row read before a change can never be cached after the
// drop that change caused.
type keyCache struct {
	mu       sync.RWMutex
	entries  map[[32]byte]*cachedKey
	sessions map[[32]byte]*cachedSession // by the SHA-256 of session tokens
	gen      uint64
	epoch    int64
	known    bool      // epoch has been read at least once
	checked  time.Time // start of the latest poll that read the epoch
}

func newKeyCache() *keyCache {
	return &keyCache{entries: map[[32]byte]*cachedKey{}, sessions: map[[32]byte]*cachedSession{}}
}

// lookupSession is lookup for session tokens.
func (c *keyCache) lookupSession(sum [32]byte) (e *cachedSession, gen uint64, cacheable bool) {
	return cacheLookup(c, &c.sessions, sum)
}

func (c *keyCache) storeSession(sum [32]byte, e *cachedSession, gen uint64) {
	cacheStore(c, &c.sessions, sum, e, gen)
}

// lookup returns the entry for sum when the cache is current, and whether
// (with which gen) a database result may be stored.
func (c *keyCache) lookup(sum [32]byte) (e *cachedKey, gen uint64, cacheable bool) {
	return cacheLookup(c, &c.entries, sum)
}

func (c *keyCache) store(sum [32]byte, e *cachedKey, gen uint64) {
	cacheStore(c, &c.entries, sum, e, gen)
}

// cacheEntry is what the cache keeps: a key or a session, as read from the
// database at readAt.
type cacheEntry interface {
	*cachedKey | *cachedSession
	readAt() time.Time
}

func (e *cachedKey) readAt() time.Time     { return e.read }
func (e *cachedSession) readAt() time.Time { return e.read }

// cacheLookup is lookup in one of c's maps (read under c.mu: a drop
// replaces them).
func cacheLookup[E cacheEntry](c *keyCache, m *map[[32]byte]E, sum [32]byte) (e E, gen uint64, cacheable bool) {
	c.mu.RLock()
	defer c.mu.RUnlock()
	if !c.known || time.Since(c.checked) >= KeyChangeBound {
		return nil, 0, false
	}
	e = (*m)[sum]
	if e != nil && time.Since(e.readAt()) >= maxKeyAge {
		e = nil
	}
	return e, c.gen, true
}

// cacheStore stores e in one of c's maps unless the cache was dropped
// since gen.
func cacheStore[E cacheEntry](c *keyCache, m *map[[32]byte]E, sum [32]byte, e E, gen uint64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if gen != c.gen {
		return
	}
	if len(*m) >= maxCachedKeys {
		*m = map[[32]byte]E{}
	}
	(*m)[sum] = e
}

func (c *keyCache) drop() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.dropLocked()
}

func (c *keyCache) dropLocked() {
	c.entries = map[[32]byte]*cachedKey{}
	c.sessions = map[[32]byte]*cachedSession{}
	c.gen++
}

// observe records an epoch read by a poll that started at start.
func (c *keyCache) observe(epoch int64, start time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if !c.known || epoch != c.epoch {
		c.dropLocked()
		c.epoch, c.known = epoch, true
	}
	if start.After(c.checked) {
		c.checked = start
	}
}

// StartCache turns on the cache of verified keys and polls the key epoch
// every interval (DefaultKeyPollInterval when zero) until stop is called.
// Until the first poll succeeds, and whenever polls fail for longer than
// KeyChangeBound, Authenticate reads the database as without a cache.
// Call it once, before the store is used concurrently.
func (s *Store) StartCache(interval time.Duration, log *slog.Logger) (stop func()) {
	if interval <= 0 {
		interval = DefaultKeyPollInterval
	}
	if log == nil {
		log = slog.Default()
	}
	s.cache = newKeyCache()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		t := time.NewTicker(interval)
		defer t.Stop()
		failing := false
		for {
			pollCtx, cancelPoll := context.WithTimeout(ctx, KeyChangeBound)
			err := s.SyncKeys(pollCtx)
			cancelPoll()
			switch {
			case err != nil && ctx.Err() == nil && !failing:
				log.Warn("cannot read the key epoch; API keys are read from the database until it can", "error", err)
				failing = true
			case err == nil && failing:
				log.Info("key epoch readable again; API keys are cached")
				failing = false
			}
			select {
			case <-ctx.Done():
				return
			case <-t.C:
			}
		}
	}()
	return func() {
		cancel()
		<-done
	}
}

// SyncKeys reads the key epoch now and drops the cache if it moved. The
// cache's poller calls it every interval; tests call it to observe a
// change deterministically. Without a cache it only reads the epoch.
func (s *Store) SyncKeys(ctx context.Context) error {
	start := time.Now()
	epoch, err := s.Epoch(ctx)
	if err != nil {
		return err
	}
	if s.cache != nil {
		s.cache.observe(epoch, start)
	}
	return nil
}

// Epoch is the number of key changes committed so far: those of API keys
// and, since dashboard sessions may act as OAuth clients, those of OAuth
// clients (every row of key_epoch counts; each only ever grows, so their
// sum moves whenever one does).
func (s *Store) Epoch(ctx context.Context) (int64, error) {
	reader := s.Reader()
	if s.Poll != nil {
		reader = s.Poll
	}
	rows, err := reader.KeyEpoch.Query().All(ctx)
	if err != nil {
		return 0, err
	}
	var sum int64
	for _, r := range rows {
		sum += r.Epoch
	}
	return sum, nil
}
