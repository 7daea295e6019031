// Package auth defines API keys, scopes and the authenticated principal.
package auth

import (
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/hex"
	"hash/crc32"
	"math/big"
	"strings"
)

// KeyPrefix starts every API key, so secret scanners can find leaked keys.
const KeyPrefix = "co_live_"

const (
	base62       = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
	randomLen    = 32
	checksumLen  = 6
	keyLen       = len(KeyPrefix) + randomLen + checksumLen
	displayChars = len(KeyPrefix) + 4
)

// NewKey returns a fresh API key: the prefix, 32 random base62 characters and
// a 6-character base62 CRC32 of those characters. The checksum lets scanners
// and the server reject typos and fakes without a database lookup.
func NewKey() (string, error) {
	var b strings.Builder
	b.Grow(keyLen)
	b.WriteString(KeyPrefix)
	max := big.NewInt(int64(len(base62)))
	random := make([]byte, randomLen)
	for i := range random {
		n, err := rand.Int(rand.Reader, max)
		if err != nil {
			return "", err
		}
		random[i] = base62[n.Int64()]
	}
	b.Write(random)
	b.WriteString(checksum(random))
	return b.String(), nil
}

func checksum(random []byte) string {
	sum := crc32.ChecksumIEEE(random)
	out := make([]byte, checksumLen)
	for i := checksumLen - 1; i >= 0; i-- {
		out[i] = base62[sum%62]
		sum /= 62
	}
	return string(out)
}

// WellFormed checks a key's shape and checksum.
func WellFormed(key string) bool {
	if len(key) != keyLen || !strings.HasPrefix(key, KeyPrefix) {
		return false
	}
	body := key[len(KeyPrefix):]
	for i := 0; i < len(body); i++ {
		if strings.IndexByte(base62, body[i]) < 0 {
			return false
		}
	}
	want := checksum([]byte(body[:randomLen]))
	return subtle.ConstantTimeCompare([]byte(want), []byte(body[randomLen:])) == 1
}

// Hash is what the database stores of a key.
func Hash(key string) string {
	sum := sha256.Sum256([]byte(key))
	return hex.EncodeToString(sum[:])
}

// HashEqual compares digests in constant time.
func HashEqual(a, b string) bool { return subtle.ConstantTimeCompare([]byte(a), []byte(b)) == 1 }

// DisplayPrefix is the part of a key safe to show in listings.
func DisplayPrefix(key string) string { return key[:displayChars] }
