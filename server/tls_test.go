package server

import (
	"bytes"
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"io"
	"log/slog"
	"math/big"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials"
	"google.golang.org/grpc/metadata"

	"github.com/creativeops/creativeops/auth"
	creativeopsv1 "github.com/creativeops/creativeops/gen/creativeops/v1"
	"github.com/creativeops/creativeops/internal/testdb"
)

// selfSigned writes a self-signed certificate for 127.0.0.1 and its key to
// certFile and keyFile (through new files renamed over them, as
// certificate managers do) and returns the certificate.
func selfSigned(t *testing.T, certFile, keyFile, name string) *x509.Certificate {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	serial, _ := rand.Int(rand.Reader, big.NewInt(1<<62))
	tmpl := &x509.Certificate{
		SerialNumber: serial,
		Subject:      pkix.Name{CommonName: name},
		NotBefore:    time.Now().Add(-time.Hour),
		NotAfter:     time.Now().Add(time.Hour),
		IPAddresses:  []net.IP{net.IPv4(127, 0, 0, 1)},
		KeyUsage:     x509.KeyUsageDigitalSignature,
		ExtKeyUsage:  []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, key.Public(), key)
	if err != nil {
		t.Fatal(err)
	}
	pkcs8, err := x509.MarshalPKCS8PrivateKey(key)
	if err != nil {
		t.Fatal(err)
	}
	for path, block := range map[string]*pem.Block{certFile: {Type: "CERTIFICATE", Bytes: der}, keyFile: {Type: "PRIVATE KEY", Bytes: pkcs8}} {
		tmp := path + ".new"
		if err := os.WriteFile(tmp, pem.EncodeToMemory(block), 0o600); err != nil {
			t.Fatal(err)
		}
		if err := os.Rename(tmp, path); err != nil {
			t.Fatal(err)
		}
	}
	cert, err := x509.ParseCertificate(der)
	if err != nil {
		t.Fatal(err)
	}
	return cert
}

// REST (HTTP/1.1 and HTTP/2) and gRPC are served over TLS on one port, and
// a certificate replaced on disk is what the next connection gets.
// serveTLS starts a server of cfg on a SQLite database, serving behind its
// TLS listener on a loopback port until the test ends.
func serveTLS(t *testing.T, cfg Config) (*Server, net.Listener) {
	t.Helper()
	cfg.DatabaseURL = testdb.SQLiteURL(t)
	cfg.Logger = slog.New(slog.DiscardHandler)
	s, err := New(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	plain, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ln, err := s.TLSListener(plain)
	if err != nil {
		t.Fatal(err)
	}
	go func() { _ = s.Serve(ln) }()
	t.Cleanup(func() { _ = s.Shutdown(context.Background()) })
	return s, ln
}

func TestServeTLS(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	certFile, keyFile := filepath.Join(dir, "tls.crt"), filepath.Join(dir, "tls.key")
	first := selfSigned(t, certFile, keyFile, "first")
	s, ln := serveTLS(t, Config{
		DataDir:     dir,
		TLSCertFile: certFile,
		TLSKeyFile:  keyFile,
		RateLimit:   auth.RateLimit{RequestsPerSecond: 1e6, Burst: 1e6},
	})
	addr := ln.Addr().String()

	org, err := s.keys.EnsureOrganization(ctx, "acme")
	if err != nil {
		t.Fatal(err)
	}
	_, key, err := s.keys.CreateKey(ctx, auth.NewKeyParams{OrganizationID: org.ID, Name: "tls", Scopes: []string{"*"}})
	if err != nil {
		t.Fatal(err)
	}

	trusting := func(certs ...*x509.Certificate) *tls.Config {
		pool := x509.NewCertPool()
		for _, c := range certs {
			pool.AddCert(c)
		}
		return &tls.Config{RootCAs: pool}
	}
	// rest makes a REST call on a new connection and returns the
	// certificate the server presented.
	rest := func(cfg *tls.Config, http2 bool) *x509.Certificate {
		t.Helper()
		tr := &http.Transport{TLSClientConfig: cfg, ForceAttemptHTTP2: http2}
		defer tr.CloseIdleConnections()
		req, _ := http.NewRequest("GET", "https://"+addr+"/v1/creators", nil)
		req.Header.Set("Authorization", "Bearer "+key)
		resp, err := (&http.Client{Transport: tr, Timeout: 30 * time.Second}).Do(req)
		if err != nil {
			t.Fatalf("REST over TLS: %v", err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != 200 || resp.TLS == nil || (resp.ProtoMajor == 2) != http2 {
			t.Fatalf("REST over TLS: %s %d %s", resp.Proto, resp.StatusCode, body)
		}
		return resp.TLS.PeerCertificates[0]
	}
	if got := rest(trusting(first), false); !got.Equal(first) {
		t.Fatalf("HTTP/1.1 got certificate %s", got.Subject)
	}
	if got := rest(trusting(first), true); !got.Equal(first) {
		t.Fatalf("HTTP/2 got certificate %s", got.Subject)
	}

	grpcCall := func(addr string, cfg *tls.Config) {
		t.Helper()
		conn, err := grpc.NewClient(addr, grpc.WithTransportCredentials(credentials.NewTLS(cfg)))
		if err != nil {
			t.Fatal(err)
		}
		defer conn.Close()
		cctx, cancel := context.WithTimeout(metadata.AppendToOutgoingContext(ctx, "authorization", "Bearer "+key), 30*time.Second)
		defer cancel()
		if _, err := creativeopsv1.NewCreatorsServiceClient(conn).ListCreators(cctx, &creativeopsv1.ListCreatorsRequest{}); err != nil {
			t.Fatalf("gRPC over TLS: %v", err)
		}
	}
	grpcCall(addr, trusting(first))

	// The gRPC-only port is served over TLS too.
	plainGRPC, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	grpcLn, err := s.TLSListener(plainGRPC)
	if err != nil {
		t.Fatal(err)
	}
	go func() { _ = s.ServeGRPC(grpcLn) }()
	grpcCall(grpcLn.Addr().String(), trusting(first))

	// In the clear, the port serves nothing: net/http's 400 says why.
	if resp, err := http.Get("http://" + addr + "/healthz"); err == nil {
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != http.StatusBadRequest || !strings.Contains(string(body), "HTTPS") {
			t.Fatalf("plain HTTP on a TLS port answered %d %q", resp.StatusCode, body)
		}
	}

	second := selfSigned(t, certFile, keyFile, "second")
	if got := rest(trusting(first, second), false); !got.Equal(second) {
		t.Fatalf("after replacing the files a new connection got %s, want the new certificate", got.Subject)
	}
	grpcCall(addr, trusting(second))
}

// A certificate written before its key (a pair that does not match) leaves
// the previous certificate in service until the key follows.
func TestCertReloaderKeepsLastGoodPair(t *testing.T) {
	dir := t.TempDir()
	certFile, keyFile := filepath.Join(dir, "tls.crt"), filepath.Join(dir, "tls.key")
	first := selfSigned(t, certFile, keyFile, "first")
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
	second := selfSigned(t, certFile, keyFile, "second")
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
		if _, err := tlsConfig(files[0], files[1], slog.New(slog.DiscardHandler)); err == nil {
			t.Errorf("tlsConfig(%q, %q) accepted half a pair", files[0], files[1])
		}
	}
	if _, err := tlsConfig(filepath.Join(t.TempDir(), "missing.crt"), "missing.key", slog.New(slog.DiscardHandler)); err == nil {
		t.Error("missing files accepted")
	}
	if cfg, err := tlsConfig("", "", nil); cfg != nil || err != nil {
		t.Errorf("no files: %v, %v", cfg, err)
	}
}
