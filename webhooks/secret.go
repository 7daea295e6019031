package webhooks

import (
	"context"
	"database/sql"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/creativeops/creativeops/audit"
	"github.com/creativeops/creativeops/ent"
	"github.com/creativeops/creativeops/ent/webhook"
	"github.com/creativeops/creativeops/secrets"
	"github.com/creativeops/creativeops/storage"
)

// Bounds of a secret a customer supplies. A raw secret shorter than 16
// characters is too easy to guess for an HMAC key; a whsec_ key is held to
// the same 16 bytes.
const (
	MinSecretLength = 16
	MaxSecretLength = 256
)

// ValidateSecret checks a secret a customer supplies at registration: a
// whsec_ secret whose base64 key decodes to at least MinSecretLength bytes,
// or any other string of MinSecretLength to MaxSecretLength characters,
// used as its raw UTF-8 bytes.
func ValidateSecret(secret string) error {
	if len(secret) > MaxSecretLength {
		return fmt.Errorf("%w: longer than %d characters", ErrInvalidSecret, MaxSecretLength)
	}
	if strings.HasPrefix(secret, SecretPrefix) {
		key, err := KeyBytes(secret)
		if err != nil {
			return err
		}
		if len(key) < MinSecretLength {
			return fmt.Errorf("%w: a %s key must decode to at least %d bytes, not %d", ErrInvalidSecret, SecretPrefix, MinSecretLength, len(key))
		}
		return nil
	}
	if !utf8.ValidString(secret) {
		return fmt.Errorf("%w: not valid UTF-8", ErrInvalidSecret)
	}
	if n := utf8.RuneCountInString(secret); n < MinSecretLength {
		return fmt.Errorf("%w: at least %d characters are required, not %d", ErrInvalidSecret, MinSecretLength, n)
	}
	return nil
}

// secretAAD binds a sealed secret to its webhook: a sealed value copied to
// another webhook's row does not open there.
func secretAAD(webhookID string) string { return "creativeops webhook secret\x00" + webhookID }

// SealSecret returns the stored form of a webhook's signing secret: sealed
// under the keyring's newest master key, and that key's id.
func SealSecret(kr *secrets.Keyring, webhookID, secret string) (keyID, sealed string) {
	return kr.SealString(secret, secretAAD(webhookID))
}

// OpenSecret returns the signing secret of a stored webhook. A secret
// stored in the clear by a version that did not seal secrets (no key id)
// is returned as it is, until ResealSecrets seals it.
func OpenSecret(kr *secrets.Keyring, wh *ent.Webhook) (string, error) {
	if wh.SecretKeyID == "" {
		return wh.Secret, nil
	}
	s, err := kr.OpenString(wh.SecretKeyID, wh.Secret, secretAAD(wh.ID))
	if err != nil {
		return "", fmt.Errorf("webhooks: secret of %s: %w", wh.ID, err)
	}
	return s, nil
}

// SealingKeyIDs lists the master keys webhook secrets are sealed under
// ("" for secrets an earlier version stored in the clear).
func SealingKeyIDs(ctx context.Context, store *storage.Store) ([]string, error) {
	ids, err := store.Ent.Webhook.Query().Unique(true).Select(webhook.FieldSecretKeyID).Strings(ctx)
	if err != nil {
		return nil, err
	}
	prev, err := store.Ent.Webhook.Query().Where(webhook.PreviousSecretNEQ("")).
		Unique(true).Select(webhook.FieldPreviousSecretKeyID).Strings(ctx)
	if err != nil {
		return nil, err
	}
	for _, id := range prev {
		if !slices.Contains(ids, id) {
			ids = append(ids, id)
		}
	}
	return ids, nil
}

// resealBatch bounds the rows one reseal transaction rewrites.
const resealBatch = 200

// ResealSecrets seals again under the keyring's newest master key every
// webhook secret stored in the clear (written before secrets were sealed)
// or under an older key, deleted webhooks included, and returns how many
// it rewrote. Each row is rewritten only if it still has the key it was
// read with, so replicas doing the same at once agree. A secret sealed
// under a key the keyring lacks is an error: the master key files are not
// those the database was written with.
func ResealSecrets(ctx context.Context, store *storage.Store, kr *secrets.Keyring) (int, error) {
	current := kr.SealingKeyID()
	total := 0
	after := ""
	for {
		rows, err := store.Ent.Webhook.Query().
			Where(webhook.Or(
				webhook.SecretKeyIDNEQ(current),
				webhook.And(webhook.PreviousSecretNEQ(""), webhook.PreviousSecretKeyIDNEQ(current)),
			), webhook.IDGT(after)).
			Order(ent.Asc(webhook.FieldID)).
			Limit(resealBatch).
			Select(webhook.FieldID, webhook.FieldSecret, webhook.FieldSecretKeyID,
				webhook.FieldPreviousSecret, webhook.FieldPreviousSecretKeyID, webhook.FieldPreviousSecretExpiresAt).
			All(ctx)
		if err != nil {
			return total, fmt.Errorf("webhooks: find secrets to seal: %w", err)
		}
		if len(rows) == 0 {
			return total, nil
		}
		after = rows[len(rows)-1].ID
		type resealed struct{ id, oldKey, sealed, oldPrevKey, prevSealed string }
		batch := make([]resealed, len(rows))
		for i, wh := range rows {
			secret, err := OpenSecret(kr, wh)
			if err != nil {
				return total, err
			}
			_, sealed := SealSecret(kr, wh.ID, secret)
			batch[i] = resealed{id: wh.ID, oldKey: wh.SecretKeyID, sealed: sealed, oldPrevKey: wh.PreviousSecretKeyID}
			if wh.PreviousSecret != "" {
				// A secret past its grace period is opened all the same:
				// its sealed bytes stay until the next rotation.
				prev := *wh
				far := time.Unix(1<<40, 0)
				prev.PreviousSecretExpiresAt = &far
				_, old, err := SigningSecrets(kr, &prev, time.Time{})
				if err != nil {
					return total, err
				}
				_, batch[i].prevSealed = sealPrevious(kr, wh.ID, old[0])
			}
		}
		n := 0
		err = store.Tx(ctx, func(ctx context.Context, tx *ent.Client, _ *sql.Tx) error {
			n = 0
			for _, r := range batch {
				upd := tx.Webhook.Update().
					Where(webhook.ID(r.id), webhook.SecretKeyID(r.oldKey), webhook.PreviousSecretKeyID(r.oldPrevKey)).
					SetSecret(r.sealed).
					SetSecretKeyID(current)
				if r.prevSealed != "" {
					upd.SetPreviousSecret(r.prevSealed).SetPreviousSecretKeyID(current)
				}
				k, err := upd.Save(ctx)
				if err != nil {
					return err
				}
				n += k
			}
			if n == 0 {
				return nil
			}
			return audit.Record(ctx, tx, audit.Entry{
				Action: audit.SecretsResealed, TargetType: audit.TargetMasterKey, TargetID: current,
				Details: map[string]string{"kind": "webhook signing secrets", "count": strconv.Itoa(n)},
			})
		})
		if err != nil {
			return total, fmt.Errorf("webhooks: seal secrets: %w", err)
		}
		total += n
	}
}
