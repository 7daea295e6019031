package secrets

import (
	"bytes"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestSealOpen(t *testing.T) {
	kr, err := NewKeyring(GenerateKey())
	if err != nil {
		t.Fatal(err)
	}
	secret := []byte("whsec_c2VjcmV0IHNpZ25pbmcga2V5IGJ5dGVz")
	id, sealed := kr.Seal(secret, []byte("webhook wh_1"))
	if id != kr.SealingKeyID() {
		t.Fatalf("sealed under %s, not the newest key %s", id, kr.SealingKeyID())
	}
	if bytes.Contains(sealed, secret) || bytes.Contains(sealed, secret[6:]) {
		t.Fatal("the sealed value contains the secret")
	}
	got, err := kr.Open(id, sealed, []byte("webhook wh_1"))
	if err != nil || !bytes.Equal(got, secret) {
		t.Fatalf("Open = %q, %v", got, err)
	}
	// Two seals of one secret differ (random nonces): equal secrets do
	// not show as equal rows.
	if _, again := kr.Seal(secret, []byte("webhook wh_1")); bytes.Equal(again, sealed) {
		t.Fatal("sealing twice gave the same value")
	}
	// Bound to its row: a value copied to another row does not open.
	if _, err := kr.Open(id, sealed, []byte("webhook wh_2")); err == nil {
		t.Fatal("a value sealed for one row opened for another")
	}
	altered := bytes.Clone(sealed)
	altered[len(altered)-1] ^= 1
	if _, err := kr.Open(id, altered, []byte("webhook wh_1")); err == nil {
		t.Fatal("an altered value opened")
	}
	if _, err := kr.Open(id, sealed[:10], []byte("webhook wh_1")); err == nil {
		t.Fatal("a truncated value opened")
	}
}

func TestSealString(t *testing.T) {
	kr, _ := NewKeyring(GenerateKey())
	id, sealed := kr.SealString("a customer's own secret", "aad")
	if strings.Contains(sealed, "customer") {
		t.Fatal("sealed string holds the secret")
	}
	if got, err := kr.OpenString(id, sealed, "aad"); err != nil || got != "a customer's own secret" {
		t.Fatalf("OpenString = %q, %v", got, err)
	}
	if _, err := kr.OpenString(id, "not base64!", "aad"); err == nil {
		t.Fatal("OpenString accepted a value that is not base64")
	}
}

// Rotation: a keyring of the new key and the old one opens what the old
// one sealed and seals under the new one; a keyring without the old key
// says which key is missing.
func TestRotation(t *testing.T) {
	oldKey, newKey := GenerateKey(), GenerateKey()
	old, _ := NewKeyring(oldKey)
	id, sealed := old.Seal([]byte("s"), nil)

	both, err := NewKeyring(newKey, oldKey)
	if err != nil {
		t.Fatal(err)
	}
	if both.SealingKeyID() == id || both.SealingKeyID() != KeyID(newKey) {
		t.Fatalf("newest key %s, old %s", both.SealingKeyID(), id)
	}
	if !both.Holds(id) {
		t.Fatal("keyring does not hold its second key")
	}
	if got, err := both.Open(id, sealed, nil); err != nil || string(got) != "s" {
		t.Fatalf("Open with the old key second: %q, %v", got, err)
	}

	onlyNew, _ := NewKeyring(newKey)
	_, err = onlyNew.Open(id, sealed, nil)
	if !errors.Is(err, ErrUnknownKey) || !strings.Contains(err.Error(), id) {
		t.Fatalf("Open under a missing key: %v", err)
	}
}

func TestKeyFiles(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "master.key")
	if err := CreateKeyFile(path); err != nil {
		t.Fatal(err)
	}
	st, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if st.Mode().Perm() != 0o600 {
		t.Fatalf("key file mode %v, want 0600", st.Mode().Perm())
	}
	if err := CreateKeyFile(path); !errors.Is(err, fs.ErrExist) {
		t.Fatalf("CreateKeyFile over an existing key: %v", err)
	}
	kr, err := LoadKeyFiles(path)
	if err != nil {
		t.Fatal(err)
	}
	key, _ := ReadKeyFile(path)
	if kr.SealingKeyID() != KeyID(key) || !strings.Contains(kr.Describe(), path) {
		t.Fatalf("keyring %s from %s", kr.Describe(), path)
	}

	bad := filepath.Join(dir, "bad.key")
	os.WriteFile(bad, []byte("c2hvcnQ=\n"), 0o600)
	missing := filepath.Join(dir, "missing.key")
	for _, p := range []string{bad, missing} {
		if _, err := LoadKeyFiles(path, p); err == nil || !strings.Contains(err.Error(), p) {
			t.Errorf("LoadKeyFiles(%s): %v, want an error naming the file", p, err)
		}
	}
	if _, err := LoadKeyFiles(path, path); err == nil {
		t.Error("the same key twice was accepted")
	}
	// Whitespace around the base64, as editors and `openssl rand` leave it.
	spaced := filepath.Join(dir, "spaced.key")
	os.WriteFile(spaced, append([]byte("  "), EncodeKey(GenerateKey())...), 0o600)
	if _, err := LoadKeyFiles(spaced); err != nil {
		t.Errorf("key file with surrounding whitespace: %v", err)
	}
}

// Without key files the server makes one for the data directory on its
// first start, written only when the caller says the start will succeed,
// and reads the same one afterwards.
func TestOpenDefault(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, DefaultKeyFile)
	kr, pending, err := Open(nil, dir)
	if err != nil {
		t.Fatal(err)
	}
	if pending == nil || pending.Path != path {
		t.Fatalf("pending %+v", pending)
	}
	if _, err := os.Stat(path); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("the key file exists before Write: %v", err)
	}
	if err := pending.Write(); err != nil {
		t.Fatal(err)
	}
	again, pending2, err := Open(nil, dir)
	if err != nil {
		t.Fatal(err)
	}
	if pending2 != nil || again.SealingKeyID() != kr.SealingKeyID() {
		t.Fatalf("second start: pending %+v, key %s then %s", pending2, kr.SealingKeyID(), again.SealingKeyID())
	}
	// Never over an existing file.
	if err := pending.Write(); !errors.Is(err, fs.ErrExist) {
		t.Fatalf("second Write: %v", err)
	}
	other := filepath.Join(t.TempDir(), "other.key")
	if err := CreateKeyFile(other); err != nil {
		t.Fatal(err)
	}
	configured, pending3, err := Open([]string{other}, dir)
	if err != nil || pending3 != nil || configured.SealingKeyID() == kr.SealingKeyID() {
		t.Fatalf("configured file: %v, pending %+v", err, pending3)
	}
	_, missing, err := Open(nil, filepath.Join(dir, "no", "such", "dir"))
	if err != nil || missing == nil {
		t.Fatalf("a missing data directory: %v %+v", err, missing)
	}
	if err := missing.Write(); err == nil {
		t.Fatal("wrote a key file in a missing data directory")
	}
}

// BenchmarkOpenString is what every webhook delivery attempt adds to open
// its secret.
func BenchmarkOpenString(b *testing.B) {
	kr, _ := NewKeyring(GenerateKey())
	id, sealed := kr.SealString("whsec_c2VjcmV0IHNpZ25pbmcga2V5IGJ5dGVz", "creativeops webhook secret\x00wh_01k0000000000000000000000")
	b.ReportAllocs()
	for b.Loop() {
		if _, err := kr.OpenString(id, sealed, "creativeops webhook secret\x00wh_01k0000000000000000000000"); err != nil {
			b.Fatal(err)
		}
	}
}
