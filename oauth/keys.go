package oauth

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/sha256"
	"crypto/x509"
	"encoding/base64"
	"fmt"
	"time"

	jose "github.com/go-jose/go-jose/v4"

	"github.com/creativeops/creativeops/ent"
	"github.com/creativeops/creativeops/ent/oauthsigningkey"
	"github.com/creativeops/creativeops/secrets"
)

// signingAlgorithm is what access tokens are signed with.
const signingAlgorithm = jose.ES256

// acceptedAlgorithms are the only algorithms a presented access token may
// name: "none", HMAC (a public key used as a shared secret) and anything
// else are refused before any key is looked at.
var acceptedAlgorithms = []jose.SignatureAlgorithm{jose.ES256, jose.EdDSA}

func privateKeyAAD(kid string) []byte { return []byte("creativeops oauth signing key\x00" + kid) }

// signingKey is a loaded key: the private half when it may still sign.
type signingKey struct {
	id          string
	private     *ecdsa.PrivateKey
	public      jose.JSONWebKey
	createdAt   time.Time
	retired     bool
	verifyUntil *time.Time
}

// newSigningKeyRow creates a P-256 key, sealed under the keyring.
func newSigningKeyRow(ctx context.Context, tx *ent.Client, keyring *secrets.Keyring, now time.Time) error {
	priv, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return err
	}
	der, err := x509.MarshalPKCS8PrivateKey(priv)
	if err != nil {
		return err
	}
	pubDER, err := x509.MarshalPKIXPublicKey(&priv.PublicKey)
	if err != nil {
		return err
	}
	// The kid is the SHA-256 of the public key: stable, and the same on
	// every replica.
	sum := sha256.Sum256(pubDER)
	kid := base64.RawURLEncoding.EncodeToString(sum[:16])
	keyID, sealed := keyring.Seal(der, privateKeyAAD(kid))
	return tx.OAuthSigningKey.Create().
		SetID(kid).SetAlgorithm(string(signingAlgorithm)).
		SetPrivateKey(sealed).SetPrivateKeyKeyID(keyID).
		SetCreatedAt(now).Exec(ctx)
}

func openSigningKey(keyring *secrets.Keyring, row *ent.OAuthSigningKey) (*signingKey, error) {
	der, err := keyring.Open(row.PrivateKeyKeyID, row.PrivateKey, privateKeyAAD(row.ID))
	if err != nil {
		return nil, fmt.Errorf("OAuth signing key %s: %w", row.ID, err)
	}
	k, err := x509.ParsePKCS8PrivateKey(der)
	if err != nil {
		return nil, fmt.Errorf("OAuth signing key %s: %w", row.ID, err)
	}
	priv, ok := k.(*ecdsa.PrivateKey)
	if !ok || row.Algorithm != string(jose.ES256) {
		return nil, fmt.Errorf("OAuth signing key %s: unsupported %s key", row.ID, row.Algorithm)
	}
	return &signingKey{
		id:          row.ID,
		private:     priv,
		public:      jose.JSONWebKey{Key: &priv.PublicKey, KeyID: row.ID, Algorithm: row.Algorithm, Use: "sig"},
		createdAt:   row.CreatedAt,
		retired:     row.RetiredAt != nil,
		verifyUntil: row.VerifyUntil,
	}, nil
}

// loadSigningKeys reads every key still usable for verification, newest
// first.
func loadSigningKeys(ctx context.Context, db *ent.Client, keyring *secrets.Keyring, now time.Time) ([]*signingKey, error) {
	rows, err := db.OAuthSigningKey.Query().
		Where(oauthsigningkey.Or(oauthsigningkey.VerifyUntilIsNil(), oauthsigningkey.VerifyUntilGT(now))).
		Order(ent.Desc(oauthsigningkey.FieldCreatedAt), ent.Desc(oauthsigningkey.FieldID)).
		All(ctx)
	if err != nil {
		return nil, err
	}
	out := make([]*signingKey, 0, len(rows))
	for _, row := range rows {
		k, err := openSigningKey(keyring, row)
		if err != nil {
			return nil, err
		}
		out = append(out, k)
	}
	return out, nil
}

// SealingKeyIDs lists the master keys the OAuth signing keys are sealed
// under.
func SealingKeyIDs(ctx context.Context, db *ent.Client) ([]string, error) {
	return db.OAuthSigningKey.Query().Unique(true).Select(oauthsigningkey.FieldPrivateKeyKeyID).Strings(ctx)
}

// ResealKeys seals under keyring's newest master key every signing key
// sealed under an older one, and returns how many it rewrote. A row is
// rewritten only if it still has the master key it was read with, so
// replicas starting together agree.
func ResealKeys(ctx context.Context, db *ent.Client, keyring *secrets.Keyring) (int, error) {
	current := keyring.SealingKeyID()
	rows, err := db.OAuthSigningKey.Query().Where(oauthsigningkey.PrivateKeyKeyIDNEQ(current)).All(ctx)
	if err != nil {
		return 0, fmt.Errorf("find OAuth signing keys to seal: %w", err)
	}
	n := 0
	for _, row := range rows {
		der, err := keyring.Open(row.PrivateKeyKeyID, row.PrivateKey, privateKeyAAD(row.ID))
		if err != nil {
			return n, fmt.Errorf("OAuth signing key %s: %w", row.ID, err)
		}
		keyID, sealed := keyring.Seal(der, privateKeyAAD(row.ID))
		k, err := db.OAuthSigningKey.Update().
			Where(oauthsigningkey.ID(row.ID), oauthsigningkey.PrivateKeyKeyID(row.PrivateKeyKeyID)).
			SetPrivateKey(sealed).SetPrivateKeyKeyID(keyID).
			Save(ctx)
		if err != nil {
			return n, fmt.Errorf("seal OAuth signing key %s: %w", row.ID, err)
		}
		n += k
	}
	return n, nil
}
