package edge

import (
	"bytes"
	"crypto/x509"
	"log/slog"
	"os"
	"path/filepath"
	"testing"

	"github.com/creativeops/creativeops/internal/testcert"
)

// A certificate written before its key (a pair that does not match) leaves
// the previous certificate in service until the key follows.
func TestCertReloaderKeepsLastGoodPair(t *testing.T) {
	dir := t.TempDir()
	certFile, keyFile := filepath.Join(dir, "tls.crt"), filepath.Join(dir, "tls.key")
	first := testcert.SelfSigned(t, certFile, keyFile, "first")
	var logs bytes.Buffer
	r := &certReloader{certFile: certFile, keyFile: keyFile, log: slog.New(slog.NewTextHandler(&logs, nil))}
	if err := r.load(); err != nil {
		t.Fatal(err)
	}
	serving := func() *x509.Certificate {
		c, err := r.certificate(nil)
		if err != nil || c == nil {
			t.Fatalf("certificate: %v", err)
		}
		return c.Leaf
	}
	if !serving().Equal(first) {
		t.Fatal("not serving the first certificate")
	}

	oldKey, _ := os.ReadFile(keyFile)
	second := testcert.SelfSigned(t, certFile, keyFile, "second")
	newKey, _ := os.ReadFile(keyFile)
	if err := os.WriteFile(keyFile, oldKey, 0o600); err != nil {
		t.Fatal(err)
	}
	for range 2 {
		if !serving().Equal(first) {
			t.Fatal("a mismatched pair replaced the certificate")
		}
	}
	if n := bytes.Count(logs.Bytes(), []byte("do not load")); n != 1 {
		t.Fatalf("the mismatched pair was logged %d times, want once:\n%s", n, logs.String())
	}
	if err := os.WriteFile(keyFile+".new", newKey, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(keyFile+".new", keyFile); err != nil {
		t.Fatal(err)
	}
	if !serving().Equal(second) {
		t.Fatal("the completed pair is not served")
	}
}

func TestTLSConfigNeedsBothFiles(t *testing.T) {
	for _, files := range [][2]string{{"a.crt", ""}, {"", "a.key"}} {
		if _, err := TLSConfig(files[0], files[1], slog.New(slog.DiscardHandler)); err == nil {
			t.Errorf("TLSConfig(%q, %q) accepted half a pair", files[0], files[1])
		}
	}
	if _, err := TLSConfig(filepath.Join(t.TempDir(), "missing.crt"), "missing.key", slog.New(slog.DiscardHandler)); err == nil {
		t.Error("missing files accepted")
	}
	if cfg, err := TLSConfig("", "", nil); cfg != nil || err != nil {
		t.Errorf("no files: %v, %v", cfg, err)
	}
}
