package main

import (
	"context"
	"net/http"
	"strings"
	"testing"

	"golang.org/x/oauth2/clientcredentials"

	"github.com/creativeops/creativeops/internal/testdb"
	"github.com/creativeops/creativeops/internal/testserver"
	"github.com/creativeops/creativeops/oauth"
)

// An OAuth client made on the command line obtains tokens from a running
// server; rotation keeps the old secret for its grace period, revocation
// stops the client and its tokens; the signing key rotates without
// refusing tokens in flight.
func TestOAuthClientsCommands(t *testing.T) {
	url := testdb.SQLiteURL(t)
	s := testserver.Start(t, testserver.Options{DatabaseURL: url})
	ctx := context.Background()

	code, out, errOut := cli(t, "oauth-clients", "create", "--database-url", url, "--org", "acme", "--scopes", "creators:read", "--name", "erp", "--token-lifetime", "10m")
	lines := strings.Fields(out)
	if code != 0 || len(lines) != 2 || !strings.HasPrefix(lines[0], "oc_") || !strings.HasPrefix(lines[1], oauth.SecretPrefix) {
		t.Fatalf("create: exit %d, %q, %q", code, out, errOut)
	}
	id, secret := lines[0], lines[1]
	token := func(secret string) (string, error) {
		tok, err := (&clientcredentials.Config{ClientID: id, ClientSecret: secret, TokenURL: s.URL + oauth.TokenPath}).Token(ctx)
		if err != nil {
			return "", err
		}
		return tok.AccessToken, nil
	}
	tok, err := token(secret)
	if err != nil {
		t.Fatal(err)
	}
	if r := s.Do(t, "GET", "/v1/creators", tok, nil); r.Status != http.StatusOK {
		t.Fatalf("token of a CLI client: %d", r.Status)
	}
	if code, out, _ := cli(t, "oauth-clients", "list", "--database-url", url, "--org", "acme"); code != 0 || !strings.Contains(out, id) || !strings.Contains(out, "10m0s") || strings.Contains(out, secret) {
		t.Fatalf("list: exit %d\n%s", code, out)
	}

	code, out, errOut = cli(t, "oauth-clients", "rotate", "--database-url", url, "--org", "acme", "--id", id, "--grace-period", "1h")
	rotated := strings.TrimSpace(out)
	if code != 0 || !strings.HasPrefix(rotated, oauth.SecretPrefix) || rotated == secret || !strings.Contains(errOut, "previous secret works until") {
		t.Fatalf("rotate: exit %d, %q, %q", code, out, errOut)
	}
	for _, sec := range []string{secret, rotated} {
		if _, err := token(sec); err != nil {
			t.Fatalf("secret within grace: %v", err)
		}
	}

	// Signing key rotation: the token issued before still works.
	code, out, errOut = cli(t, "oauth", "rotate-signing-key", "--database-url", url, "--master-key-file", testserver.MasterKeyFile(t))
	if code != 0 || !strings.Contains(out, "now signed with key") {
		t.Fatalf("rotate-signing-key: exit %d, %q, %q", code, out, errOut)
	}
	if err := s.OAuth().Sync(ctx); err != nil {
		t.Fatal(err)
	}
	if r := s.Do(t, "GET", "/v1/creators", tok, nil); r.Status != http.StatusOK {
		t.Fatalf("token signed before the key rotation: %d", r.Status)
	}
	if n := len(s.OAuth().KeySet().Keys); n != 2 {
		t.Fatalf("%d keys published after the rotation, want 2", n)
	}

	if code, _, errOut := cli(t, "oauth-clients", "revoke", "--database-url", url, "--org", "acme", "--id", id); code != 0 || !strings.Contains(errOut, "revoked") {
		t.Fatalf("revoke: exit %d, %q", code, errOut)
	}
	if err := s.OAuth().Sync(ctx); err != nil {
		t.Fatal(err)
	}
	if r := s.Do(t, "GET", "/v1/creators", tok, nil); r.Status != http.StatusUnauthorized {
		t.Fatalf("token of a revoked client: %d", r.Status)
	}
	if _, err := token(rotated); err == nil {
		t.Fatal("a revoked client obtained a token")
	}
	for _, args := range [][]string{
		{"oauth-clients", "create", "--org", "acme", "--scopes", "root"},
		{"oauth-clients", "create", "--org", "acme"},
		{"oauth-clients", "create", "--org", "acme", "--scopes", "*", "--token-lifetime", "48h"},
		{"oauth-clients", "revoke", "--org", "acme"},
	} {
		if code, _, _ := cli(t, append(args, "--database-url", url)...); code != 2 {
			t.Errorf("%s: exit %d, want 2", strings.Join(args, " "), code)
		}
	}
	if code, _, errOut := cli(t, "oauth-clients", "revoke", "--database-url", url, "--org", "acme", "--id", id); code != 1 || !strings.Contains(errOut, "no active OAuth client") {
		t.Fatalf("second revoke: exit %d, %q", code, errOut)
	}
}
