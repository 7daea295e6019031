package main

import (
	"bytes"
	"context"
	"strings"
	"sync"
	"testing"

	"github.com/creativeops/creativeops/auth"
	"github.com/creativeops/creativeops/internal/testdb"
)

func TestKeysCreatePrintsOnlyTheKey(t *testing.T) {
	for _, b := range testdb.Backends(t) {
		t.Run(b.Name, func(t *testing.T) {
			url := b.URL(t)
			var out, errOut bytes.Buffer
			if err := run(context.Background(), []string{"migrate", "--database-url", url}, &out, &errOut); err != nil {
				t.Fatalf("migrate: %v (%s)", err, errOut.String())
			}
			if err := run(context.Background(), []string{"orgs", "create", "--database-url", url, "acme"}, &out, &errOut); err != nil {
				t.Fatalf("orgs create: %v (%s)", err, errOut.String())
			}
			out.Reset()
			if err := run(context.Background(), []string{"keys", "create", "--org", "acme", "--scopes", "creators:read, engine:run", "--name", "ci", "--database-url", url}, &out, &errOut); err != nil {
				t.Fatalf("keys create: %v (%s)", err, errOut.String())
			}
			key := strings.TrimSuffix(out.String(), "\n")
			if strings.Contains(key, "\n") || !auth.WellFormed(key) {
				t.Fatalf("stdout is not exactly one key: %q", out.String())
			}
			// A second key goes to the same organization.
			out.Reset()
			if err := run(context.Background(), []string{"keys", "create", "--org", "acme", "--scopes", "*", "--database-url", url}, &out, &errOut); err != nil {
				t.Fatal(err)
			}
			out.Reset()
			if err := run(context.Background(), []string{"keys", "list", "--org", "acme", "--database-url", url}, &out, &errOut); err != nil {
				t.Fatal(err)
			}
			if n := strings.Count(out.String(), "key_"); n != 2 {
				t.Fatalf("keys list shows %d keys, want 2:\n%s", n, out.String())
			}
			if strings.Contains(out.String(), key) {
				t.Fatal("keys list prints a secret")
			}
			if err := run(context.Background(), []string{"keys", "create", "--org", "acme", "--scopes", "creators:nope", "--database-url", url}, &out, &errOut); err == nil {
				t.Fatal("unknown scope accepted")
			}
		})
	}
}

// syncBuffer is written by the server goroutine and read by the test.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}
func (s *syncBuffer) String() string { s.mu.Lock(); defer s.mu.Unlock(); return s.b.String() }
