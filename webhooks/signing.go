package webhooks

import (
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// SecretPrefix marks a secret whose key is base64-encoded, as in Standard
// Webhooks and Svix.
const SecretPrefix = "whsec_"

// secretBytes is 24 because a multiple of 3 base64-encodes without "="
// padding, which is easily lost when customers copy and paste the secret,
// and because it matches Svix's secrets; 192 bits is far beyond brute force.
const secretBytes = 24

// UserAgent identifies our deliveries so receivers can allow-list them and
// so we can change the format behind a version bump.
const UserAgent = "creativeops-webhooks/1"

// Header names from the Standard Webhooks specification.
const (
	HeaderID        = "webhook-id"
	HeaderTimestamp = "webhook-timestamp"
	HeaderSignature = "webhook-signature"
)

// ErrInvalidSecret is wrapped by every secret error so that callers can
// map it to a client error without matching on text.
var ErrInvalidSecret = errors.New("invalid webhook secret")

// GenerateSecret returns a new random whsec_ secret.
func GenerateSecret() string {
	b := make([]byte, secretBytes)
	// crypto/rand.Read never fails since Go 1.24: it crashes the program
	// instead of handing out a predictable key.
	_, _ = rand.Read(b)
	return SecretPrefix + base64.StdEncoding.EncodeToString(b)
}

// KeyBytes returns the HMAC key of secret. A whsec_ secret must decode:
// silently falling back to its raw bytes would sign with a key that the
// customer's verifier (which decodes it) does not have.
func KeyBytes(secret string) ([]byte, error) {
	if secret == "" {
		return nil, fmt.Errorf("%w: empty", ErrInvalidSecret)
	}
	enc, ok := strings.CutPrefix(secret, SecretPrefix)
	if !ok {
		return []byte(secret), nil
	}
	key, err := base64.StdEncoding.DecodeString(enc)
	if err != nil {
		return nil, fmt.Errorf("%w: %s secret is not valid base64: %v", ErrInvalidSecret, SecretPrefix, err)
	}
	if len(key) == 0 {
		return nil, fmt.Errorf("%w: %s secret has an empty key", ErrInvalidSecret, SecretPrefix)
	}
	return key, nil
}

// Sign returns the v1 webhook-signature value for one message.
func Sign(secret, msgID string, ts time.Time, body []byte) (string, error) {
	key, err := KeyBytes(secret)
	if err != nil {
		return "", err
	}
	if msgID == "" {
		// Verifiers reject a missing webhook-id, so signing one is a bug.
		return "", errors.New("webhooks: empty message id")
	}
	mac := hmac.New(sha256.New, key)
	mac.Write([]byte(msgID))
	mac.Write([]byte{'.'})
	mac.Write(strconv.AppendInt(nil, ts.Unix(), 10))
	mac.Write([]byte{'.'})
	mac.Write(body)
	return "v1," + base64.StdEncoding.EncodeToString(mac.Sum(nil)), nil
}

// Headers returns every header a delivery needs, signature included.
// Each of previous adds its own signature after the secret's, separated by
// a space as Standard Webhooks allows: during a secret rotation's grace
// period a receiver verifies with the old secret or the new one, and
// either matches one of them.
func Headers(secret, msgID string, ts time.Time, body []byte, previous ...string) (http.Header, error) {
	sig, err := Sign(secret, msgID, ts, body)
	if err != nil {
		return nil, err
	}
	for _, p := range previous {
		old, err := Sign(p, msgID, ts, body)
		if err != nil {
			return nil, err
		}
		sig += " " + old
	}
	h := make(http.Header, 5)
	h.Set(HeaderID, msgID)
	h.Set(HeaderTimestamp, strconv.FormatInt(ts.Unix(), 10))
	h.Set(HeaderSignature, sig)
	h.Set("Content-Type", "application/json")
	h.Set("User-Agent", UserAgent)
	return h, nil
}
