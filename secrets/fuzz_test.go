package secrets

import (
	"bytes"
	"encoding/base64"
	"os"
	"path/filepath"
	"testing"
)

// fuzzKey is a fixed master key, so that the seed corpus holds values
// sealed under it.
var fuzzKey = bytes.Repeat([]byte{7}, KeySize)

// Opening what the database holds never panics, and accepts nothing but
// what Seal produced for that key and row: a value that opens seals back
// to itself under the same nonce.
func FuzzOpen(f *testing.F) {
	kr, err := NewKeyring(fuzzKey)
	if err != nil {
		f.Fatal(err)
	}
	_, sealed := kr.SealString("whsec_c2VjcmV0IHNpZ25pbmcga2V5IGJ5dGVz", "row")
	f.Add(kr.SealingKeyID(), sealed, "row")
	f.Add(kr.SealingKeyID(), "", "row")
	f.Add("0000000000000000", sealed, "row")
	f.Add(kr.SealingKeyID(), "AAAA", "")
	f.Fuzz(func(t *testing.T, keyID, value, aad string) {
		plain, err := kr.OpenString(keyID, value, aad)
		if err != nil {
			return
		}
		raw, _ := base64.StdEncoding.DecodeString(value)
		k, _ := kr.key(keyID)
		n := k.aead.NonceSize()
		if again := k.aead.Seal(raw[:n:n], raw[:n], []byte(plain), []byte(aad)); !bytes.Equal(again, raw) {
			t.Fatalf("opened %q from a value Seal would not produce", plain)
		}
	})
}

// Reading a master key file never panics and yields a key of KeySize or
// an error naming the file.
func FuzzReadKeyFile(f *testing.F) {
	f.Add(EncodeKey(fuzzKey))
	f.Add([]byte("  " + base64.StdEncoding.EncodeToString(fuzzKey) + "\r\n"))
	f.Add([]byte("c2hvcnQ=\n"))
	f.Add([]byte{})
	dir := f.TempDir()
	f.Fuzz(func(t *testing.T, data []byte) {
		path := filepath.Join(dir, "master.key")
		if err := os.WriteFile(path, data, 0o600); err != nil {
			t.Fatal(err)
		}
		key, err := ReadKeyFile(path)
		switch {
		case err != nil && !bytes.Contains([]byte(err.Error()), []byte(path)):
			t.Fatalf("error does not name the file: %v", err)
		case err == nil && len(key) != KeySize:
			t.Fatalf("%d-byte key accepted", len(key))
		}
	})
}
