package server_test

import (
	"bytes"
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	standardwebhooks "github.com/standard-webhooks/standard-webhooks/libraries/go"

	"github.com/creativeops/creativeops/ent"
	"github.com/creativeops/creativeops/internal/testdb"
	"github.com/creativeops/creativeops/internal/testserver"
	"github.com/creativeops/creativeops/ipreg"
	"github.com/creativeops/creativeops/secrets"
	"github.com/creativeops/creativeops/server"
	"github.com/creativeops/creativeops/storage"
)

// checkSealed fails unless every secret at rest is sealed under keyID and
// none of plain appears in the database.
func checkSealed(t *testing.T, st *storage.Store, keyID string, plain ...string) {
	t.Helper()
	ctx := context.Background()
	hooks, err := st.Ent.Webhook.Query().All(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for _, wh := range hooks {
		if wh.SecretKeyID != keyID {
			t.Errorf("webhook %s secret sealed under %q, want %s", wh.ID, wh.SecretKeyID, keyID)
		}
		for _, p := range plain {
			if strings.Contains(wh.Secret, p) || strings.Contains(wh.Secret, strings.TrimPrefix(p, "whsec_")) {
				t.Errorf("webhook %s: the database holds its secret", wh.ID)
			}
		}
	}
	keys, err := st.Ent.SigningKey.Query().All(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for _, k := range keys {
		if k.MaterialKeyID != keyID || bytes.Contains(k.Material, []byte("PRIVATE KEY")) {
			t.Errorf("IP registry keys of %s stored under %q (want %s) or in the clear", k.Origin, k.MaterialKeyID, keyID)
		}
	}
	if len(keys) == 0 {
		t.Error("no IP registry keys stored")
	}
}

// What the database holds is not the secrets. An upgrade from a version
// that stored them in the clear loses nothing: the first start creates
// <data-dir>/master.key, seals them, keeps signing deliveries with the same
// secrets and certificates with the same keys. A wrong master key fails
// the start, naming the file.
func TestSecretsAtRest(t *testing.T) {
	for _, b := range testdb.Backends(t) {
		t.Run(b.Name, func(t *testing.T) {
			ctx := context.Background()
			dbURL := b.URL(t)
			rc := newReceiver(t, nil)
			const ownSecret = "a customer's own secret, ünïcode too"

			s1 := testserver.Start(t, testserver.Options{DatabaseURL: dbURL})
			generated := createWebhook(t, s1, s1.AdminKey, rc.URL+"/generated", []string{"creator.created"}, "")
			own := createWebhook(t, s1, s1.AdminKey, rc.URL+"/own", []string{"creator.created"}, ownSecret)
			generatedSecret := generated["secret"].(string)
			testKey, err := secrets.ReadKeyFile(testserver.MasterKeyFile(t))
			if err != nil {
				t.Fatal(err)
			}
			checkSealed(t, s1.Store, secrets.KeyID(testKey), generatedSecret, ownSecret)
			adminKey := s1.AdminKey
			if err := s1.Shutdown(ctx); err != nil {
				t.Logf("shutdown: %v", err)
			}

			// Back to what an earlier version wrote: secrets in the clear,
			// no master key id.
			st, err := storage.Open(ctx, dbURL)
			if err != nil {
				t.Fatal(err)
			}
			for id, secret := range map[string]string{generated["id"].(string): generatedSecret, own["id"].(string): ownSecret} {
				if err := st.Ent.Webhook.UpdateOneID(id).SetSecret(secret).SetSecretKeyID("").Exec(ctx); err != nil {
					t.Fatal(err)
				}
			}
			if _, err := st.Ent.SigningKey.Delete().Exec(ctx); err != nil {
				t.Fatal(err)
			}
			if _, err := st.Ent.OAuthSigningKey.Delete().Exec(ctx); err != nil {
				t.Fatal(err)
			}
			legacy, err := ipreg.GenerateKeys("creativeops.dev/ip-log/legacy", time.Now())
			if err != nil {
				t.Fatal(err)
			}
			material, err := legacy.MarshalBinary()
			if err != nil {
				t.Fatal(err)
			}
			err = st.Tx(ctx, func(ctx context.Context, tx *ent.Client, _ *sql.Tx) error {
				if err := tx.SigningKey.Create().SetOrigin(legacy.Origin()).SetMaterial(material).SetVerifierKey(legacy.VerifierKey()).
					SetTsaRootPem(string(legacy.RootPEM())).SetTsaCertPem(string(legacy.TSACertPEM())).Exec(ctx); err != nil {
					return err
				}
				return tx.LogState.Create().SetOrigin(legacy.Origin()).Exec(ctx)
			})
			if err != nil {
				t.Fatal(err)
			}
			// The schema too: the columns naming the master key are gone,
			// and the next start's migration adds them back, empty.
			for _, stmt := range []string{"ALTER TABLE webhooks DROP COLUMN secret_key_id", "ALTER TABLE signing_keys DROP COLUMN material_key_id"} {
				if _, err := st.DB.ExecContext(ctx, stmt); err != nil {
					t.Fatalf("%s: %v", stmt, err)
				}
			}
			st.Close()

			// The upgrade: no --master-key-file, so the data directory's.
			dataDir := t.TempDir()
			s2 := testserver.Start(t, testserver.Options{DatabaseURL: dbURL, Configure: func(c *server.Config) {
				c.MasterKeyFiles, c.DataDir = nil, dataDir
			}})
			s2.AdminKey = adminKey
			keyFile := filepath.Join(dataDir, secrets.DefaultKeyFile)
			fi, err := os.Stat(keyFile)
			if err != nil || fi.Mode().Perm() != 0o600 {
				t.Fatalf("master key file after the upgrade: %v, %v", fi, err)
			}
			dataKey, err := secrets.ReadKeyFile(keyFile)
			if err != nil {
				t.Fatal(err)
			}
			checkSealed(t, s2.Store, secrets.KeyID(dataKey), generatedSecret, ownSecret)

			// Deliveries are signed with the secrets the customers hold.
			createCreator(t, s2, s2.AdminKey)
			got := rc.wait(t, 2, 15*time.Second)
			genVerifier, err := standardwebhooks.NewWebhook(generatedSecret)
			if err != nil {
				t.Fatal(err)
			}
			ownVerifier, err := standardwebhooks.NewWebhookRaw([]byte(ownSecret))
			if err != nil {
				t.Fatal(err)
			}
			verified := 0
			for _, g := range got {
				if genVerifier.Verify(g.Body, g.Header) == nil {
					verified++
				}
				if ownVerifier.Verify(g.Body, g.Header) == nil {
					verified += 10
				}
			}
			if verified != 11 {
				t.Fatalf("after the upgrade, deliveries verify with the generated secret %d times and with the customer's %d times, want once each", verified%10, verified/10)
			}

			// Certificates are still signed by the keys of the legacy log.
			r := s2.Do(t, "POST", "/v1/creators", s2.AdminKey, map[string]any{"name": "W", "email": "w@example.com", "vertical": "music"})
			sum := sha256.Sum256([]byte("upgrade"))
			reg := s2.Do(t, "POST", "/v1/ip/register", s2.AdminKey, map[string]any{"creator_id": r.JSON["id"], "title": "upgrade", "type": "song", "content_hash": hex.EncodeToString(sum[:])})
			if reg.Status != 201 {
				t.Fatalf("register after the upgrade: %d %s", reg.Status, reg.Body)
			}
			if cp := s2.Do(t, "GET", "/v1/ip/log/checkpoint", s2.AdminKey, nil).JSON; cp["origin"] != legacy.Origin() {
				t.Fatalf("after the upgrade the log is %v, want the legacy log %s", cp["origin"], legacy.Origin())
			}
			if err := s2.Shutdown(ctx); err != nil {
				t.Logf("shutdown: %v", err)
			}

			// Another master key: the start fails and says which file.
			wrong := testserver.MasterKeyFile(t)
			_, err = server.New(ctx, server.Config{DatabaseURL: dbURL, DataDir: t.TempDir(), MasterKeyFiles: []string{wrong}, Logger: slog.New(slog.DiscardHandler)})
			if err == nil || !strings.Contains(err.Error(), wrong) || !strings.Contains(err.Error(), "--master-key-file") {
				t.Fatalf("start with a wrong master key: %v", err)
			}
		})
	}
}

// With neither a key file nor a data directory there is nowhere to keep a
// master key: the start fails rather than leave one in the working
// directory.
func TestMasterKeyNeedsAPlace(t *testing.T) {
	_, err := server.New(context.Background(), server.Config{DatabaseURL: testdb.SQLiteURL(t), Logger: slog.New(slog.DiscardHandler)})
	if err == nil || !strings.Contains(err.Error(), "--master-key-file") {
		t.Fatalf("start without a master key or data directory: %v", err)
	}
	if _, err := os.Stat(secrets.DefaultKeyFile); err == nil {
		t.Fatal("a master key was created in the working directory")
	}
}

// A master key file others can read is served with, and warned about.
func TestMasterKeyFileModeWarning(t *testing.T) {
	path := filepath.Join(t.TempDir(), "master.key")
	if err := os.WriteFile(path, secrets.EncodeKey(secrets.GenerateKey()), 0o644); err != nil {
		t.Fatal(err)
	}
	var logs bytes.Buffer
	s, err := server.New(context.Background(), server.Config{DatabaseURL: testdb.SQLiteURL(t), DataDir: t.TempDir(), MasterKeyFiles: []string{path}, Logger: slog.New(slog.NewTextHandler(&logs, nil))})
	if err != nil {
		t.Fatal(err)
	}
	_ = s.Shutdown(context.Background())
	if !strings.Contains(logs.String(), "readable by other users") || !strings.Contains(logs.String(), path) {
		t.Fatalf("no warning about a 0644 master key file:\n%s", logs.String())
	}
}
