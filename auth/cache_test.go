package auth_test

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/creativeops/creativeops/auth"
	"github.com/creativeops/creativeops/internal/testdb"
	"github.com/creativeops/creativeops/storage"
)

// clock is a settable time source for expiry and grace periods.
type clock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *clock) now() time.Time      { c.mu.Lock(); defer c.mu.Unlock(); return c.t }
func (c *clock) add(d time.Duration) { c.mu.Lock(); defer c.mu.Unlock(); c.t = c.t.Add(d) }

func open(t testing.TB, url string) *storage.Store {
	t.Helper()
	st, err := storage.Open(context.Background(), url)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	if err := st.Migrate(context.Background()); err != nil {
		t.Fatal(err)
	}
	return st
}

// replicas returns the store of an administrator (the CLI: no cache) and
// the store of a serving replica with its cache started, each on its own
// connection to one database, sharing a clock.
func replicas(t testing.TB, url string) (admin, replica *auth.Store, orgID string, c *clock) {
	t.Helper()
	c = &clock{t: time.Now().UTC()}
	a := open(t, url)
	admin = &auth.Store{Ent: a.Ent, Now: c.now}
	b := open(t, url)
	replica = &auth.Store{Ent: b.Ent, Read: b.Read, Now: c.now}
	stop := replica.StartCache(0, nil)
	t.Cleanup(stop)
	org, err := admin.EnsureOrganization(context.Background(), "acme")
	if err != nil {
		t.Fatal(err)
	}
	poll(t, replica)
	return admin, replica, org.ID, c
}

func poll(t testing.TB, s *auth.Store) {
	t.Helper()
	if err := s.SyncKeys(context.Background()); err != nil {
		t.Fatal(err)
	}
}

func accepts(t testing.TB, s *auth.Store, secret, what string) {
	t.Helper()
	if _, err := s.Authenticate(context.Background(), secret); err != nil {
		t.Fatalf("%s: refused: %v", what, err)
	}
}

func refuses(t testing.TB, s *auth.Store, secret, what string) {
	t.Helper()
	if _, err := s.Authenticate(context.Background(), secret); !errors.Is(err, auth.ErrUnauthenticated) {
		t.Fatalf("%s: want ErrUnauthenticated, got %v", what, err)
	}
}

func newKey(t testing.TB, s *auth.Store, orgID string, expires *time.Time) (id, secret string) {
	t.Helper()
	k, secret, err := s.CreateKey(context.Background(), auth.NewKeyParams{OrganizationID: orgID, Name: "t", Scopes: []string{auth.ScopeCreatorsRead}, ExpiresAt: expires})
	if err != nil {
		t.Fatal(err)
	}
	return k.ID, secret
}

// A key revoked by another process (here the CLI's path: a Store on its own
// connection, no cache) is refused by a caching replica once the replica
// has polled, although the replica had it cached.
func TestCacheRevokedElsewhere(t *testing.T) {
	for _, be := range testdb.Backends(t) {
		t.Run(be.Name, func(t *testing.T) {
			ctx := context.Background()
			admin, replica, orgID, _ := replicas(t, be.URL(t))
			id, secret := newKey(t, admin, orgID, nil)
			poll(t, replica)
			accepts(t, replica, secret, "new key")

			// The cache answers: a write that skips the key epoch (never
			// done by the service) is not seen...
			if err := admin.Ent.APIKey.UpdateOneID(id).SetRevokedAt(time.Now()).Exec(ctx); err != nil {
				t.Fatal(err)
			}
			poll(t, replica)
			accepts(t, replica, secret, "cached key, epoch unchanged")
			if err := admin.Ent.APIKey.UpdateOneID(id).ClearRevokedAt().Exec(ctx); err != nil {
				t.Fatal(err)
			}

			// ...but a revocation through the Store moves the epoch.
			if err := admin.RevokeKey(ctx, nil, orgID, id); err != nil {
				t.Fatal(err)
			}
			poll(t, replica)
			refuses(t, replica, secret, "revoked key after the replica's poll")
		})
	}
}

// Two caching replicas: a revocation through one is refused by the other
// after its poll, and by the first at once.
func TestCacheRevokedByOtherReplica(t *testing.T) {
	for _, be := range testdb.Backends(t) {
		t.Run(be.Name, func(t *testing.T) {
			ctx := context.Background()
			url := be.URL(t)
			admin, b, orgID, c := replicas(t, url)
			st := open(t, url)
			a := &auth.Store{Ent: st.Ent, Read: st.Read, Now: c.now}
			t.Cleanup(a.StartCache(0, nil))
			poll(t, a)
			id, secret := newKey(t, admin, orgID, nil)
			poll(t, a)
			poll(t, b)
			accepts(t, a, secret, "replica a")
			accepts(t, b, secret, "replica b")
			if err := a.RevokeKey(ctx, nil, orgID, id); err != nil {
				t.Fatal(err)
			}
			refuses(t, a, secret, "replica a, which revoked it, before any poll")
			poll(t, b)
			refuses(t, b, secret, "replica b after its poll")
		})
	}
}

// Expiry and the rotation grace period are checked against the cached
// entry on every use.
func TestCacheRotationAndExpiry(t *testing.T) {
	for _, be := range testdb.Backends(t) {
		t.Run(be.Name, func(t *testing.T) {
			ctx := context.Background()
			admin, replica, orgID, c := replicas(t, be.URL(t))
			expires := c.now().Add(time.Hour)
			_, expiring := newKey(t, admin, orgID, &expires)
			id, old := newKey(t, admin, orgID, nil)
			poll(t, replica)
			accepts(t, replica, expiring, "key before its expiry")
			accepts(t, replica, old, "key before rotation")

			_, fresh, err := admin.RotateKey(ctx, nil, orgID, id, 10*time.Minute)
			if err != nil {
				t.Fatal(err)
			}
			poll(t, replica)
			accepts(t, replica, old, "old secret during the grace period")
			accepts(t, replica, fresh, "new secret")
			accepts(t, replica, old, "old secret during the grace period, cached")

			c.add(10 * time.Minute)
			refuses(t, replica, old, "old secret after the grace period")
			accepts(t, replica, fresh, "new secret after the grace period")

			c.add(50 * time.Minute)
			poll(t, replica)
			refuses(t, replica, expiring, "expired key")
		})
	}
}

// BenchmarkAuthenticateCached is a cache hit: the cost every request pays
// for its API key while the cache is current.
func BenchmarkAuthenticateCached(b *testing.B) {
	admin, replica, orgID, _ := replicas(b, testdb.SQLiteURL(b))
	_, secret := newKey(b, admin, orgID, nil)
	accepts(b, replica, secret, "warm-up")
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		if _, err := replica.Authenticate(ctx, secret); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkAuthenticateUncached reads the database on every call, as every
// request did before the cache.
func BenchmarkAuthenticateUncached(b *testing.B) {
	st := open(b, testdb.SQLiteURL(b))
	s := &auth.Store{Ent: st.Ent, Read: st.Read}
	org, err := s.EnsureOrganization(context.Background(), "acme")
	if err != nil {
		b.Fatal(err)
	}
	_, secret := newKey(b, s, org.ID, nil)
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		if _, err := s.Authenticate(ctx, secret); err != nil {
			b.Fatal(err)
		}
	}
}

// The cache's poll of the key epoch reads through Poll (the background
// store on a replica): with every connection of the requests' pool taken,
// as in a burst of requests, it still reads the epoch within the cache's
// bound instead of queueing behind the requests, and the cache stays valid.
func TestCachePollWhileRequestsHoldEveryConnection(t *testing.T) {
	st := open(t, testdb.PostgresURL(t))
	replica := &auth.Store{Ent: st.Ent, Read: st.Read, Poll: st.Background.Read}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	for range st.Pool.Config().MaxConns {
		c, err := st.DB.Conn(ctx)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { c.Close() })
	}
	pollCtx, cancelPoll := context.WithTimeout(ctx, auth.KeyChangeBound)
	defer cancelPoll()
	if err := replica.SyncKeys(pollCtx); err != nil {
		t.Fatalf("key epoch poll with every request connection taken: %v", err)
	}
}
