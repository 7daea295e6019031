// Package secrets keeps secrets at rest sealed under a master key: webhook
// signing secrets and the IP registry's private keys are stored as
// AES-256-GCM ciphertexts, never as the secrets themselves, so a copy of the
// database (a backup, a replica, a leaked dump) gives none of them away
// without the master key file.
//
// A Keyring holds one or more master keys, newest first. The newest seals
// everything written; the others only open what they sealed before, until
// every row is sealed again under the newest (a rotation). Each sealed
// value is stored with the id of the key that sealed it, derived from the
// key itself, so a wrong key file is told apart from a corrupted value.
package secrets

import (
	"bytes"
	"crypto/aes"
	"crypto/cipher"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// KeySize is the length of a master key: AES-256.
const KeySize = 32

// DefaultKeyFile is the name of the master key file created in the data
// directory when none is configured.
const DefaultKeyFile = "master.key"

// ErrUnknownKey is wrapped when a value was sealed under a master key the
// keyring does not hold: the key files given are not the ones the database
// was written with.
var ErrUnknownKey = errors.New("sealed with a master key that is not loaded")

// Keyring seals and opens secrets. It is immutable and safe for concurrent
// use.
type Keyring struct {
	keys []masterKey // newest (sealing) first
}

type masterKey struct {
	id   string
	file string // where it was read from; "" for keys given in memory
	aead cipher.AEAD
}

// NewKeyring makes a keyring of raw keys, newest first (for tests and
// tools that hold keys in memory).
func NewKeyring(keys ...[]byte) (*Keyring, error) {
	if len(keys) == 0 {
		return nil, errors.New("secrets: a keyring needs at least one master key")
	}
	kr := &Keyring{}
	for i, k := range keys {
		mk, err := newMasterKey(k, "")
		if err != nil {
			return nil, fmt.Errorf("secrets: master key %d: %w", i+1, err)
		}
		kr.keys = append(kr.keys, mk)
	}
	return kr, nil
}

func newMasterKey(key []byte, file string) (masterKey, error) {
	if len(key) != KeySize {
		return masterKey{}, fmt.Errorf("must be %d bytes, not %d", KeySize, len(key))
	}
	block, err := aes.NewCipher(key)
	if err != nil {
		return masterKey{}, err
	}
	aead, err := cipher.NewGCM(block)
	if err != nil {
		return masterKey{}, err
	}
	return masterKey{id: KeyID(key), file: file, aead: aead}, nil
}

// KeyID names a master key without revealing it: the first 8 bytes of a
// SHA-256 of the key under a fixed label, in hex.
func KeyID(key []byte) string {
	h := sha256.New()
	h.Write([]byte("creativeops master key id\x00"))
	h.Write(key)
	return hex.EncodeToString(h.Sum(nil)[:8])
}

// GenerateKey returns a new random master key.
func GenerateKey() []byte {
	k := make([]byte, KeySize)
	if _, err := rand.Read(k); err != nil {
		panic(err) // crypto/rand never fails on supported platforms
	}
	return k
}

// EncodeKey is the content of a master key file: the key in standard
// base64 and a newline, as `openssl rand -base64 32` writes it.
func EncodeKey(key []byte) []byte {
	return []byte(base64.StdEncoding.EncodeToString(key) + "\n")
}

// CreateKeyFile writes a new random master key to path, readable by its
// owner only. It never overwrites: an existing file is an error
// (fs.ErrExist), since replacing a master key loses every secret sealed
// under it.
func CreateKeyFile(path string) error {
	return writeKeyFile(path, GenerateKey())
}

func writeKeyFile(path string, key []byte) error {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return fmt.Errorf("secrets: create master key file: %w", err)
	}
	if _, err := f.Write(EncodeKey(key)); err != nil {
		f.Close()
		os.Remove(path)
		return fmt.Errorf("secrets: write master key file %s: %w", path, err)
	}
	if err := f.Sync(); err != nil {
		f.Close()
		os.Remove(path)
		return fmt.Errorf("secrets: write master key file %s: %w", path, err)
	}
	return f.Close()
}

// ReadKeyFile reads one master key file: 32 bytes in base64, surrounding
// whitespace ignored. Errors name the file.
func ReadKeyFile(path string) ([]byte, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("master key file: %w", err)
	}
	key, err := base64.StdEncoding.DecodeString(string(bytes.TrimSpace(data)))
	if err != nil || len(key) != KeySize {
		return nil, fmt.Errorf("master key file %s: must hold %d random bytes in base64 (as `openssl rand -base64 %d` writes)", path, KeySize, KeySize)
	}
	return key, nil
}

// LoadKeyFiles makes a keyring of key files, newest first.
func LoadKeyFiles(paths ...string) (*Keyring, error) {
	if len(paths) == 0 {
		return nil, errors.New("secrets: no master key file")
	}
	kr := &Keyring{}
	seen := map[string]string{}
	for _, p := range paths {
		key, err := ReadKeyFile(p)
		if err != nil {
			return nil, err
		}
		mk, err := newMasterKey(key, p)
		if err != nil {
			return nil, fmt.Errorf("master key file %s: %w", p, err)
		}
		if other, ok := seen[mk.id]; ok {
			return nil, fmt.Errorf("master key files %s and %s hold the same key", other, p)
		}
		seen[mk.id] = p
		kr.keys = append(kr.keys, mk)
	}
	return kr, nil
}

// Open loads the keyring a server starts with: the given key files, newest
// first, or when there are none the file DefaultKeyFile in dataDir. When
// that file does not exist yet, the keyring holds a new key that is not
// written: pending is that key's file, for the caller to Write once the
// rest of its start is known to succeed, and before anything is sealed
// under the key. A start that fails first leaves no key file behind.
func Open(files []string, dataDir string) (kr *Keyring, pending *PendingKeyFile, err error) {
	if len(files) > 0 {
		kr, err := LoadKeyFiles(files...)
		return kr, nil, err
	}
	path := filepath.Join(dataDir, DefaultKeyFile)
	if _, err := os.Stat(path); errors.Is(err, fs.ErrNotExist) {
		key := GenerateKey()
		mk, err := newMasterKey(key, path)
		if err != nil {
			return nil, nil, err
		}
		return &Keyring{keys: []masterKey{mk}}, &PendingKeyFile{Path: path, key: key}, nil
	}
	kr, err = LoadKeyFiles(path)
	return kr, nil, err
}

// PendingKeyFile is a new master key not yet written to its file.
type PendingKeyFile struct {
	Path string
	key  []byte
}

// Write writes the key to its file (0600), never over an existing file.
func (p *PendingKeyFile) Write() error { return writeKeyFile(p.Path, p.key) }

// SealingKeyID is the id of the newest key, the one Seal uses.
func (kr *Keyring) SealingKeyID() string { return kr.keys[0].id }

// Holds says whether the keyring can open values sealed under keyID.
func (kr *Keyring) Holds(keyID string) bool {
	_, ok := kr.key(keyID)
	return ok
}

func (kr *Keyring) key(id string) (masterKey, bool) {
	for _, k := range kr.keys {
		if k.id == id {
			return k, true
		}
	}
	return masterKey{}, false
}

// Describe lists the keyring's keys (their ids and files) for messages.
func (kr *Keyring) Describe() string {
	parts := make([]string, len(kr.keys))
	for i, k := range kr.keys {
		parts[i] = k.id
		if k.file != "" {
			parts[i] = k.file + " (" + k.id + ")"
		}
	}
	return strings.Join(parts, ", ")
}

// Seal encrypts plaintext under the newest key. aad (additional
// authenticated data) binds the value to where it is stored, such as a row
// id, so a sealed value copied to another row does not open there. The
// result is the nonce followed by the ciphertext and tag.
func (kr *Keyring) Seal(plaintext, aad []byte) (keyID string, sealed []byte) {
	k := kr.keys[0]
	nonce := make([]byte, k.aead.NonceSize(), k.aead.NonceSize()+len(plaintext)+k.aead.Overhead())
	if _, err := rand.Read(nonce); err != nil {
		panic(err)
	}
	return k.id, k.aead.Seal(nonce, nonce, plaintext, aad)
}

// Open decrypts a value Seal returned under keyID with the same aad.
func (kr *Keyring) Open(keyID string, sealed, aad []byte) ([]byte, error) {
	k, ok := kr.key(keyID)
	if !ok {
		return nil, fmt.Errorf("%w: key %s is not among %s", ErrUnknownKey, keyID, kr.Describe())
	}
	n := k.aead.NonceSize()
	if len(sealed) < n+k.aead.Overhead() {
		return nil, errors.New("secrets: sealed value is truncated")
	}
	out, err := k.aead.Open(nil, sealed[:n], sealed[n:], aad)
	if err != nil {
		return nil, fmt.Errorf("secrets: sealed value does not open under key %s: altered, or stored for another row", keyID)
	}
	return out, nil
}

// SealString seals a text secret for a text column: the sealed value in
// standard base64.
func (kr *Keyring) SealString(plaintext, aad string) (keyID, sealed string) {
	id, b := kr.Seal([]byte(plaintext), []byte(aad))
	return id, base64.StdEncoding.EncodeToString(b)
}

// OpenString opens what SealString returned.
func (kr *Keyring) OpenString(keyID, sealed, aad string) (string, error) {
	b, err := base64.StdEncoding.DecodeString(sealed)
	if err != nil {
		return "", errors.New("secrets: sealed value is not base64")
	}
	out, err := kr.Open(keyID, b, []byte(aad))
	return string(out), err
}
