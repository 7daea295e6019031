package auth_test

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/creativeops/creativeops/audit"
	"github.com/creativeops/creativeops/auth"
	"github.com/creativeops/creativeops/internal/testdb"
	"github.com/creativeops/creativeops/internal/teststore"
)

// Two rotations that both read the key before either writes must not lose
// one: each returned secret has to authenticate.
func TestConcurrentRotationsKeepEverySecret(t *testing.T) {
	for _, b := range testdb.Backends(t) {
		t.Run(b.Name, func(t *testing.T) {
			ctx := context.Background()
			st := teststore.Open(t, b)
			// The store reads the clock between reading the key and writing
			// its new secret: hold the first two rotations there until both
			// have read, which is the interleaving that lost updates.
			var mu sync.Mutex
			arrived := 0
			bothRead := make(chan struct{})
			keys := &auth.Store{Ent: st.Ent, Now: func() time.Time {
				mu.Lock()
				arrived++
				if arrived == 2 {
					close(bothRead)
				}
				n := arrived
				mu.Unlock()
				if n <= 2 {
					<-bothRead
				}
				return time.Now()
			}}
			org, err := keys.EnsureOrganization(ctx, "acme")
			if err != nil {
				t.Fatal(err)
			}
			k, original, err := (&auth.Store{Ent: st.Ent}).CreateKey(ctx, auth.NewKeyParams{OrganizationID: org.ID, Name: "k", Scopes: []string{"ip:read"}})
			if err != nil {
				t.Fatal(err)
			}
			secrets := make([]string, 2)
			var wg sync.WaitGroup
			for i := range secrets {
				wg.Go(func() {
					_, secret, err := keys.RotateKey(ctx, nil, org.ID, k.ID, time.Hour)
					if err != nil {
						t.Errorf("rotate: %v", err)
					}
					secrets[i] = secret
				})
			}
			wg.Wait()
			plain := &auth.Store{Ent: st.Ent}
			for i, s := range secrets {
				if _, err := plain.Authenticate(ctx, s); err != nil {
					t.Errorf("secret returned by rotation %d does not work: %v", i, err)
				}
			}
			// Two rotations: the original secret is out.
			if _, err := plain.Authenticate(ctx, original); err == nil {
				t.Errorf("the original secret survived two rotations")
			}
		})
	}
}

// The first start's bootstrap is audited as the service's own change, in
// its transaction: a bootstrap whose key cannot be kept leaves neither the
// organization, the key, nor an entry.
func TestBootstrapIsAudited(t *testing.T) {
	for _, b := range testdb.Backends(t) {
		t.Run(b.Name, func(t *testing.T) {
			ctx := context.Background()
			st := teststore.Open(t, b)
			keys := &auth.Store{Ent: st.Ent}
			lost := errors.New("disk full")
			if _, _, err := keys.Bootstrap(ctx, func(string) error { return lost }); !errors.Is(err, lost) {
				t.Fatalf("want the keeper's error, got %v", err)
			}
			if n := st.Ent.AuditEvent.Query().CountX(ctx) + st.Ent.Organization.Query().CountX(ctx); n != 0 {
				t.Fatalf("a failed bootstrap left %d rows", n)
			}
			orgID, secret, err := keys.Bootstrap(ctx, func(string) error { return nil })
			if err != nil {
				t.Fatal(err)
			}
			evs, err := audit.List(ctx, st.Ent, audit.Filter{OrganizationID: orgID})
			if err != nil {
				t.Fatal(err)
			}
			if len(evs) != 2 || evs[0].Action != audit.KeyCreated || evs[1].Action != audit.OrganizationCreated {
				t.Fatalf("want key.created then organization.created, got %+v", evs)
			}
			for _, e := range evs {
				if e.Actor != audit.ActorSystem || e.Origin.Transport != audit.TransportSystem {
					t.Errorf("%s by %q over %q, want the system", e.Action, e.Actor, e.Origin.Transport)
				}
				for _, v := range e.Details {
					if strings.Contains(v, secret) {
						t.Errorf("%s details hold the secret", e.Action)
					}
				}
			}
			if evs[0].Details["scopes"] != "*" || evs[0].Details["name"] != "bootstrap" {
				t.Errorf("key.created details %v", evs[0].Details)
			}
		})
	}
}
