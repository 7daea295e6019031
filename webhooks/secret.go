package webhooks

import (
	"fmt"
	"strings"
	"unicode/utf8"
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
