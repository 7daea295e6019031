package server

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"net/http"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/creativeops/creativeops/auth"
	"github.com/creativeops/creativeops/internal/testcert"
)

// Served over TLS, the session cookie is Secure: a browser never sends it
// in the clear.
func TestSessionCookieSecureOverTLS(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	certFile, keyFile := filepath.Join(dir, "tls.crt"), filepath.Join(dir, "tls.key")
	cert := testcert.SelfSigned(t, certFile, keyFile, "dashboard")
	s, ln := serveTLS(t, Config{DataDir: dir, TLSCertFile: certFile, TLSKeyFile: keyFile})
	org, err := s.keys.EnsureOrganization(ctx, "acme")
	if err != nil {
		t.Fatal(err)
	}
	_, key, err := s.keys.CreateKey(ctx, auth.NewKeyParams{OrganizationID: org.ID, Name: "tls", Scopes: []string{"*"}})
	if err != nil {
		t.Fatal(err)
	}
	pool := x509.NewCertPool()
	pool.AddCert(cert)
	tr := &http.Transport{TLSClientConfig: &tls.Config{RootCAs: pool}}
	defer tr.CloseIdleConnections()
	client := &http.Client{Transport: tr, Timeout: 30 * time.Second}
	resp, err := client.Post("https://"+ln.Addr().String()+"/dashboard/api/session", "application/json",
		strings.NewReader(`{"api_key":"`+key+`"}`))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("sign in over TLS: %d", resp.StatusCode)
	}
	sc := resp.Header.Get("Set-Cookie")
	for _, want := range []string{"__Host-creativeops_session=", "Path=/", "HttpOnly", "Secure", "SameSite=Strict"} {
		if !strings.Contains(sc, want) {
			t.Errorf("Set-Cookie %q lacks %s", sc, want)
		}
	}
}
