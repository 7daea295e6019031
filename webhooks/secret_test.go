package webhooks

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/creativeops/creativeops/ent"
	"github.com/creativeops/creativeops/events"
	"github.com/creativeops/creativeops/ids"
	"github.com/creativeops/creativeops/internal/testdb"
	"github.com/creativeops/creativeops/internal/teststore"
	"github.com/creativeops/creativeops/secrets"
	"github.com/creativeops/creativeops/storage"
)

// storedSecrets reads the secret columns as the database holds them.
func storedSecrets(t *testing.T, st *storage.Store) map[string][2]string {
	t.Helper()
	rows, err := st.DB.QueryContext(context.Background(), "SELECT id, secret, secret_key_id FROM webhooks")
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	out := map[string][2]string{}
	for rows.Next() {
		var id, secret, keyID string
		if err := rows.Scan(&id, &secret, &keyID); err != nil {
			t.Fatal(err)
		}
		out[id] = [2]string{secret, keyID}
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// Secrets written in the clear by an earlier version are sealed by the
// first start, deleted webhooks' included; a rotation seals them again
// under the new key; a keyring without their key fails, naming it.
func TestResealSecrets(t *testing.T) {
	for _, b := range testdb.Backends(t) {
		t.Run(b.Name, func(t *testing.T) {
			ctx := context.Background()
			st := teststore.Open(t, b)
			plain := map[string]string{}
			for i, secret := range []string{GenerateSecret(), "a customer's own secret", GenerateSecret()} {
				id := ids.New(ids.Webhook)
				c := st.Ent.Webhook.Create().SetID(id).SetOrganizationID("org_a").
					SetURL("https://hooks.example.com/" + strconv.Itoa(i)).SetEvents([]string{"*"}).SetSecret(secret)
				if i == 2 {
					c.SetDeletedAt(time.Now())
				}
				if err := c.Exec(ctx); err != nil {
					t.Fatal(err)
				}
				plain[id] = secret
			}

			oldKey, newKey := secrets.GenerateKey(), secrets.GenerateKey()
			kr, _ := secrets.NewKeyring(oldKey)
			n, err := ResealSecrets(ctx, st, kr)
			if err != nil || n != len(plain) {
				t.Fatalf("ResealSecrets = %d, %v; want %d", n, err, len(plain))
			}
			check := func(kr *secrets.Keyring) {
				t.Helper()
				for id, row := range storedSecrets(t, st) {
					secret := plain[id]
					if row[1] != kr.SealingKeyID() {
						t.Errorf("%s sealed under %q, want %s", id, row[1], kr.SealingKeyID())
					}
					if strings.Contains(row[0], secret) || strings.Contains(row[0], strings.TrimPrefix(secret, SecretPrefix)) {
						t.Errorf("%s: the database holds the secret: %q", id, row[0])
					}
					wh, err := st.Ent.Webhook.Get(ctx, id)
					if err != nil {
						t.Fatal(err)
					}
					if got, err := OpenSecret(kr, wh); err != nil || got != secret {
						t.Errorf("%s: OpenSecret = %q, %v; want %q", id, got, err, secret)
					}
				}
			}
			check(kr)
			if n, err := ResealSecrets(ctx, st, kr); err != nil || n != 0 {
				t.Fatalf("second ResealSecrets = %d, %v; want nothing to do", n, err)
			}

			rotated, _ := secrets.NewKeyring(newKey, oldKey)
			if n, err := ResealSecrets(ctx, st, rotated); err != nil || n != len(plain) {
				t.Fatalf("ResealSecrets after rotation = %d, %v; want %d", n, err, len(plain))
			}
			onlyNew, _ := secrets.NewKeyring(newKey)
			check(onlyNew)

			wrong, _ := secrets.NewKeyring(secrets.GenerateKey())
			if _, err := ResealSecrets(ctx, st, wrong); !errors.Is(err, secrets.ErrUnknownKey) {
				t.Fatalf("ResealSecrets with a wrong key: %v", err)
			}
		})
	}
}

// A delivery is signed with the secret itself, not with its sealed form.
func TestWorkerSignsWithSealedSecret(t *testing.T) {
	f := newFixture(t)
	type received struct {
		h    http.Header
		body []byte
	}
	got := make(chan received, 1)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		got <- received{r.Header.Clone(), body}
	}))
	t.Cleanup(srv.Close)
	ctx := context.Background()
	id, secret := ids.New(ids.Webhook), GenerateSecret()
	keyID, sealed := SealSecret(f.keyring, id, secret)
	if err := f.store.Ent.Webhook.Create().SetID(id).SetOrganizationID("org_a").SetURL(srv.URL).
		SetEvents([]string{"*"}).SetSecret(sealed).SetSecretKeyID(keyID).Exec(ctx); err != nil {
		t.Fatal(err)
	}
	f.emit(t, "org_a", events.CreatorCreated)
	ds := f.deliveries(t)
	if len(ds) != 1 {
		t.Fatalf("%d deliveries", len(ds))
	}
	if err := work(t, f.worker, ds[0].ID, 0); err != nil {
		t.Fatal(err)
	}
	r := <-got
	ts, err := strconv.ParseInt(r.h.Get(HeaderTimestamp), 10, 64)
	if err != nil {
		t.Fatal(err)
	}
	want, err := Sign(secret, r.h.Get(HeaderID), time.Unix(ts, 0), r.body)
	if err != nil {
		t.Fatal(err)
	}
	if r.h.Get(HeaderSignature) != want {
		t.Fatalf("signature %q, want %q (signed with the secret)", r.h.Get(HeaderSignature), want)
	}

	// A worker whose keyring lacks the key fails the job (River retries
	// it) rather than signing with anything else.
	other, _ := secrets.NewKeyring(secrets.GenerateKey())
	w := &Worker{Store: f.store, Dispatcher: f.disp, Client: f.worker.Client, Keyring: other}
	f.emit(t, "org_a", events.CreatorCreated)
	ds = f.deliveries(t)
	if err := work(t, w, ds[1].ID, 0); !errors.Is(err, secrets.ErrUnknownKey) {
		t.Fatalf("delivery under a wrong master key: %v", err)
	}
}

// A sealed secret opens only in the row it was sealed for: one copied to
// another webhook's row (by a bug, or by someone with write access to the
// table but not the master key) does not open there, so it can never sign
// another customer's deliveries.
func TestSealedSecretIsBoundToItsWebhook(t *testing.T) {
	kr, err := secrets.NewKeyring(secrets.GenerateKey())
	if err != nil {
		t.Fatal(err)
	}
	const secret = "whsec_c2VjcmV0IHNpZ25pbmcga2V5IGJ5dGVz"
	keyID, sealed := SealSecret(kr, "wh_01k0000000000000000000000a", secret)
	own := &ent.Webhook{ID: "wh_01k0000000000000000000000a", Secret: sealed, SecretKeyID: keyID}
	if got, err := OpenSecret(kr, own); err != nil || got != secret {
		t.Fatalf("in its own row: %q, %v", got, err)
	}
	copied := &ent.Webhook{ID: "wh_01k0000000000000000000000b", Secret: sealed, SecretKeyID: keyID}
	if got, err := OpenSecret(kr, copied); err == nil || !strings.Contains(err.Error(), copied.ID) {
		t.Fatalf("copied to another row: %q, %v; want an error naming the row", got, err)
	}
}
