package server

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"io"
	"log/slog"
	"net"
	"net/http"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials"
	"google.golang.org/grpc/metadata"

	"github.com/creativeops/creativeops/auth"
	creativeopsv1 "github.com/creativeops/creativeops/gen/creativeops/v1"
	"github.com/creativeops/creativeops/internal/testcert"
	"github.com/creativeops/creativeops/internal/testdb"
)

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
	first := testcert.SelfSigned(t, certFile, keyFile, "first")
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

	second := testcert.SelfSigned(t, certFile, keyFile, "second")
	if got := rest(trusting(first, second), false); !got.Equal(second) {
		t.Fatalf("after replacing the files a new connection got %s, want the new certificate", got.Subject)
	}
	grpcCall(addr, trusting(second))
}
