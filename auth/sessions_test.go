package auth_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/creativeops/creativeops/auth"
	"github.com/creativeops/creativeops/ent/keyepoch"
	"github.com/creativeops/creativeops/internal/testdb"
)

// sessionStore opens a migrated database with an organization and returns
// a store on it (with the cache started when cached) and its clock.
func sessionStore(t *testing.T, url string, cached bool, pol auth.SessionPolicy) (*auth.Store, *clock, string) {
	t.Helper()
	ctx := context.Background()
	st := open(t, url)
	clk := &clock{t: time.Now().UTC()}
	s := &auth.Store{Ent: st.Ent, Now: clk.now, Sessions: pol}
	if cached {
		stop := s.StartCache(time.Hour, nil)
		t.Cleanup(stop)
		if err := s.SyncKeys(ctx); err != nil {
			t.Fatal(err)
		}
	}
	org, err := s.EnsureOrganization(ctx, "acme")
	if err != nil {
		t.Fatal(err)
	}
	return s, clk, org.ID
}

func eachSessionStore(t *testing.T, fn func(t *testing.T, url string, cached bool)) {
	for _, b := range testdb.Backends(t) {
		for _, cached := range []bool{false, true} {
			name := b.Name
			if cached {
				name += "/cached"
			}
			t.Run(name, func(t *testing.T) { fn(t, b.URL(t), cached) })
		}
	}
}

func TestSessionLifetimes(t *testing.T) {
	eachSessionStore(t, func(t *testing.T, url string, cached bool) {
		ctx := context.Background()
		pol := auth.SessionPolicy{Idle: time.Hour, Max: 3 * time.Hour}
		s, clk, orgID := sessionStore(t, url, cached, pol)
		_, secret, err := s.CreateKey(ctx, auth.NewKeyParams{OrganizationID: orgID, Name: "k", Scopes: []string{"creators:read"}})
		if err != nil {
			t.Fatal(err)
		}
		sess, token, err := s.CreateSession(ctx, secret)
		if err != nil {
			t.Fatal(err)
		}
		if !sess.ExpiresAt.Equal(sess.CreatedAt.Add(pol.Idle)) || len(token) < 40 || sess.CSRFToken == "" {
			t.Fatalf("new session: expires %v (created %v), token %q", sess.ExpiresAt, sess.CreatedAt, token)
		}
		use := func(want error) {
			t.Helper()
			_, p, err := s.LookupSession(ctx, token)
			if !errors.Is(err, want) {
				t.Fatalf("at +%v: %v, want %v", clk.now().Sub(sess.CreatedAt), err, want)
			}
			if want == nil && (p.KeyID != sess.KeyID || !p.Allows("creators:read") || p.Allows("creators:write")) {
				t.Fatalf("principal %+v", p)
			}
		}
		// Each use within the idle lifetime extends it...
		for range 3 {
			clk.add(50 * time.Minute)
			use(nil)
		}
		// ...up to the absolute end (3 h).
		clk.add(50 * time.Minute)
		use(auth.ErrUnauthenticated)

		// Idle past the lifetime ends a session.
		_, token, err = s.CreateSession(ctx, secret)
		if err != nil {
			t.Fatal(err)
		}
		clk.add(time.Hour)
		use(auth.ErrUnauthenticated)

		// The wrong CSRF token is refused and is not a use.
		_, token, err = s.CreateSession(ctx, secret)
		if err != nil {
			t.Fatal(err)
		}
		got, _, err := s.LookupSession(ctx, token)
		if err != nil {
			t.Fatal(err)
		}
		if p, err := s.AuthenticateSession(ctx, token, got.CSRFToken); err != nil || p.KeyID != got.KeyID {
			t.Fatalf("right CSRF: %v %v", p, err)
		}
		clk.add(50 * time.Minute)
		if _, err := s.AuthenticateSession(ctx, token, got.CSRFToken+"x"); !errors.Is(err, auth.ErrUnauthenticated) {
			t.Fatalf("wrong CSRF: %v", err)
		}
		if _, err := s.AuthenticateSession(ctx, token, ""); !errors.Is(err, auth.ErrUnauthenticated) {
			t.Fatalf("no CSRF: %v", err)
		}
		clk.add(20 * time.Minute)
		if _, err := s.AuthenticateSession(ctx, token, got.CSRFToken); !errors.Is(err, auth.ErrUnauthenticated) {
			t.Fatalf("70 min after the last accepted call: %v, want idle", err)
		}

		// The janitor's delete keeps live sessions only.
		_, token, err = s.CreateSession(ctx, secret)
		if err != nil {
			t.Fatal(err)
		}
		clk.add(30 * time.Minute)
		n, err := s.DeleteExpiredSessions(ctx, clk.now())
		if err != nil || n != 3 {
			t.Fatalf("deleted %d (%v), want the 3 expired", n, err)
		}
		use(nil)
	})
}

// A session never outlives its key: not its expiry, not its revocation,
// not the grace period of a rotated secret it was opened with.
func TestSessionBoundByKey(t *testing.T) {
	eachSessionStore(t, func(t *testing.T, url string, cached bool) {
		ctx := context.Background()
		s, clk, orgID := sessionStore(t, url, cached, auth.SessionPolicy{})
		exp := clk.now().Add(2 * time.Hour).Truncate(time.Microsecond)
		k, secret, err := s.CreateKey(ctx, auth.NewKeyParams{OrganizationID: orgID, Name: "k", Scopes: []string{"*"}, ExpiresAt: &exp})
		if err != nil {
			t.Fatal(err)
		}
		sess, token, err := s.CreateSession(ctx, secret)
		if err != nil {
			t.Fatal(err)
		}
		if !sess.ExpiresAt.Equal(exp) {
			t.Errorf("session of a key expiring at %v expires at %v", exp, sess.ExpiresAt)
		}
		clk.add(2 * time.Hour)
		if _, _, err := s.LookupSession(ctx, token); !errors.Is(err, auth.ErrUnauthenticated) {
			t.Fatalf("session of an expired key: %v", err)
		}

		// Rotation: the old secret opens a session ending with its grace.
		k, secret, err = s.CreateKey(ctx, auth.NewKeyParams{OrganizationID: orgID, Name: "r", Scopes: []string{"*"}})
		if err != nil {
			t.Fatal(err)
		}
		if _, _, err := s.RotateKey(ctx, nil, orgID, k.ID, time.Hour); err != nil {
			t.Fatal(err)
		}
		sess, _, err = s.CreateSession(ctx, secret)
		if err != nil {
			t.Fatal(err)
		}
		if want := clk.now().Add(time.Hour).Truncate(time.Microsecond); !sess.ExpiresAt.Equal(want) {
			t.Errorf("session of a secret in its grace period expires at %v, want %v", sess.ExpiresAt, want)
		}

		// Rotation ends the sessions already open with the old secret when
		// its grace period ends: a session opened with a stolen key does
		// not survive the key's rotation.
		k, secret, err = s.CreateKey(ctx, auth.NewKeyParams{OrganizationID: orgID, Name: "s", Scopes: []string{"*"}})
		if err != nil {
			t.Fatal(err)
		}
		_, token, err = s.CreateSession(ctx, secret)
		if err != nil {
			t.Fatal(err)
		}
		if _, _, err := s.RotateKey(ctx, nil, orgID, k.ID, time.Minute); err != nil {
			t.Fatal(err)
		}
		if err := s.SyncKeys(ctx); err != nil {
			t.Fatal(err)
		}
		if _, _, err := s.LookupSession(ctx, token); err != nil {
			t.Fatalf("session within the rotation's grace period: %v", err)
		}
		clk.add(time.Minute + time.Second)
		if _, _, err := s.LookupSession(ctx, token); !errors.Is(err, auth.ErrUnauthenticated) {
			t.Fatalf("session opened with a rotated secret, after its grace period: %v", err)
		}

		// Revocation deletes the key's sessions.
		_, secret, err = s.CreateKey(ctx, auth.NewKeyParams{OrganizationID: orgID, Name: "v", Scopes: []string{"*"}})
		if err != nil {
			t.Fatal(err)
		}
		sess, token, err = s.CreateSession(ctx, secret)
		if err != nil {
			t.Fatal(err)
		}
		if _, _, err := s.LookupSession(ctx, token); err != nil {
			t.Fatal(err)
		}
		if err := s.RevokeKey(ctx, nil, orgID, sess.KeyID); err != nil {
			t.Fatal(err)
		}
		if _, _, err := s.LookupSession(ctx, token); !errors.Is(err, auth.ErrUnauthenticated) {
			t.Fatalf("session of a revoked key: %v", err)
		}
		if _, _, err := s.CreateSession(ctx, secret); !errors.Is(err, auth.ErrUnauthenticated) {
			t.Fatalf("sign-in with a revoked key: %v", err)
		}
		if _, err := s.EndSession(ctx, token); !errors.Is(err, auth.ErrUnauthenticated) {
			t.Fatalf("ending a session its key's revocation deleted: %v", err)
		}
	})
}

// BenchmarkAuthenticateSessionCached is a call made with a dashboard
// session on a replica whose cache holds it: no database read, like
// BenchmarkAuthenticateCached for a key.
func BenchmarkAuthenticateSessionCached(b *testing.B) {
	admin, replica, orgID, _ := replicas(b, testdb.SQLiteURL(b))
	_, secret := newKey(b, admin, orgID, nil)
	benchSession(b, replica, secret)
}

// BenchmarkAuthenticateSessionUncached reads the session and its key from
// the database on every call.
func BenchmarkAuthenticateSessionUncached(b *testing.B) {
	st := open(b, testdb.SQLiteURL(b))
	s := &auth.Store{Ent: st.Ent, Read: st.Read}
	org, err := s.EnsureOrganization(context.Background(), "acme")
	if err != nil {
		b.Fatal(err)
	}
	_, secret := newKey(b, s, org.ID, nil)
	benchSession(b, s, secret)
}

func benchSession(b *testing.B, s *auth.Store, secret string) {
	ctx := context.Background()
	_, token, err := s.CreateSession(ctx, secret)
	if err != nil {
		b.Fatal(err)
	}
	sess, _, err := s.LookupSession(ctx, token) // warm-up
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := s.AuthenticateSession(ctx, token, sess.CSRFToken); err != nil {
			b.Fatal(err)
		}
	}
}

// fakeClients is an auth.ClientSource with one client, counting lookups.
type fakeClients struct {
	p       auth.Principal
	revoked bool
	calls   int
}

func (f *fakeClients) SessionClient(_ context.Context, id string) (*auth.Principal, error) {
	f.calls++
	if f.revoked || id != f.p.ClientID {
		return nil, auth.ErrUnauthenticated
	}
	p := f.p
	return &p, nil
}

// A session of an OAuth client acts as the client; cached, its lookups
// ask the client source (a database read) once; it ends no later than the
// secret it was opened with, and when the source says the client is gone.
func TestClientSession(t *testing.T) {
	eachSessionStore(t, func(t *testing.T, url string, cached bool) {
		ctx := context.Background()
		s, clk, orgID := sessionStore(t, url, cached, auth.SessionPolicy{})
		clients := &fakeClients{p: auth.Principal{KeyID: "oc_1", ClientID: "oc_1", OrganizationID: orgID, Scopes: []string{"creators:read"}}}
		s.Clients = clients
		until := clk.now().Add(time.Hour)
		sess, token, err := s.CreateClientSession(ctx, clients.p, &until)
		if err != nil {
			t.Fatal(err)
		}
		if sess.KeyID != "oc_1" || sess.ClientID != "oc_1" || !sess.ExpiresAt.Equal(until.Truncate(time.Microsecond)) {
			t.Fatalf("session %+v, want the client's, ending at %v", sess, until)
		}
		for range 3 {
			p, err := s.AuthenticateSession(ctx, token, sess.CSRFToken)
			if err != nil || p.ClientID != "oc_1" || p.OrganizationID != orgID || !p.Allows("creators:read") || p.Allows("creators:write") {
				t.Fatalf("principal %+v, %v", p, err)
			}
		}
		if want := map[bool]int{false: 3, true: 1}[cached]; clients.calls != want {
			t.Errorf("%d client lookups for 3 uses, want %d", clients.calls, want)
		}
		// The client's revocation increments the OAuth row of key_epoch,
		// which the cache's poll sees.
		clients.revoked = true
		if cached {
			if _, err := s.AuthenticateSession(ctx, token, sess.CSRFToken); err != nil {
				t.Fatalf("cached before the epoch moved: %v", err)
			}
		}
		if err := s.Ent.KeyEpoch.Create().SetID(2).SetEpoch(1).OnConflictColumns(keyepoch.FieldID).AddEpoch(1).Exec(ctx); err != nil {
			t.Fatal(err)
		}
		if err := s.SyncKeys(ctx); err != nil {
			t.Fatal(err)
		}
		if _, err := s.AuthenticateSession(ctx, token, sess.CSRFToken); !errors.Is(err, auth.ErrUnauthenticated) {
			t.Errorf("session of a revoked client: %v", err)
		}
		// A secret past its grace opens nothing; a session never outlives it.
		clients.revoked = false
		past := clk.now()
		if _, _, err := s.CreateClientSession(ctx, clients.p, &past); !errors.Is(err, auth.ErrUnauthenticated) {
			t.Errorf("session with a secret past its grace: %v", err)
		}
		_, token, err = s.CreateClientSession(ctx, clients.p, &until)
		if err != nil {
			t.Fatal(err)
		}
		clk.add(time.Hour)
		if _, _, err := s.LookupSession(ctx, token); !errors.Is(err, auth.ErrUnauthenticated) {
			t.Errorf("session past its secret's grace: %v", err)
		}
	})
}
