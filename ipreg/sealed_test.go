package ipreg

import (
	"bytes"
	"context"
	"errors"
	"log/slog"
	"testing"
	"time"

	"github.com/creativeops/creativeops/ent/signingkey"
	"github.com/creativeops/creativeops/events"
	"github.com/creativeops/creativeops/internal/testdb"
	"github.com/creativeops/creativeops/internal/teststore"
	"github.com/creativeops/creativeops/secrets"
)

// The registry's private keys are stored sealed under the master key.
// Keys an earlier version stored in the clear are sealed by the first
// start and keep signing; a rotated master key seals every origin's keys
// again, retired ones included; a wrong master key fails the start.
func TestSigningKeysSealedAtRest(t *testing.T) {
	for _, b := range testdb.Backends(t) {
		t.Run(b.Name, func(t *testing.T) {
			ctx := context.Background()
			st := teststore.Open(t, b)
			// The row as an earlier version wrote it: the material in the
			// clear, no master key id.
			legacy, err := GenerateKeys(newOrigin(), time.Now())
			if err != nil {
				t.Fatal(err)
			}
			plain, err := legacy.MarshalBinary()
			if err != nil {
				t.Fatal(err)
			}
			if err := st.Ent.SigningKey.Create().SetOrigin(legacy.Origin()).SetMaterial(plain).SetVerifierKey(legacy.VerifierKey()).
				SetTsaRootPem(string(legacy.RootPEM())).SetTsaCertPem(string(legacy.TSACertPEM())).Exec(ctx); err != nil {
				t.Fatal(err)
			}
			if err := st.Ent.LogState.Create().SetOrigin(legacy.Origin()).Exec(ctx); err != nil {
				t.Fatal(err)
			}

			oldKey, newKey := secrets.GenerateKey(), secrets.GenerateKey()
			open := func(keys ...[]byte) (*Registry, error) {
				kr, err := secrets.NewKeyring(keys...)
				if err != nil {
					t.Fatal(err)
				}
				return OpenRegistry(ctx, st, kr, &events.Emitter{}, slog.New(slog.DiscardHandler))
			}
			stored := func(wantKey []byte) {
				t.Helper()
				rows, err := st.Ent.SigningKey.Query().All(ctx)
				if err != nil {
					t.Fatal(err)
				}
				for _, row := range rows {
					if row.MaterialKeyID != secrets.KeyID(wantKey) {
						t.Errorf("%s sealed under %q, want %s", row.Origin, row.MaterialKeyID, secrets.KeyID(wantKey))
					}
					if bytes.Contains(row.Material, []byte("PRIVATE KEY")) || bytes.Contains(row.Material, []byte(legacy.noteSKey)) {
						t.Errorf("%s: the database holds the private keys", row.Origin)
					}
				}
			}

			r, err := open(oldKey)
			if err != nil {
				t.Fatal(err)
			}
			if r.Keys().Origin() != legacy.Origin() || r.Keys().RootFingerprint() != legacy.RootFingerprint() {
				t.Fatalf("after the upgrade the registry signs as %s, not %s", r.Keys().Origin(), legacy.Origin())
			}
			r.Close()
			stored(oldKey)

			// A new log origin's keys are sealed as they are created.
			kr, _ := secrets.NewKeyring(oldKey)
			rotated, err := RotateKeys(ctx, st, kr)
			if err != nil {
				t.Fatal(err)
			}
			stored(oldKey)

			// A new master key, the old one second: everything moves to it.
			r, err = open(newKey, oldKey)
			if err != nil {
				t.Fatal(err)
			}
			if r.Keys().Origin() != rotated.Origin() {
				t.Fatalf("registry signs as %s, want %s", r.Keys().Origin(), rotated.Origin())
			}
			r.Close()
			stored(newKey)
			if n, err := st.Ent.SigningKey.Query().Where(signingkey.MaterialKeyID(secrets.KeyID(newKey))).Count(ctx); err != nil || n != 2 {
				t.Fatalf("%d origins under the new key (%v), want 2", n, err)
			}
			r, err = open(newKey)
			if err != nil {
				t.Fatalf("the new key alone after resealing: %v", err)
			}
			r.Close()

			if _, err := open(oldKey); !errors.Is(err, secrets.ErrUnknownKey) {
				t.Fatalf("start with a master key the keys are not sealed under: %v", err)
			}
		})
	}
}
