package main

import (
	"bytes"
	"context"
	"net"
	"net/http"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/creativeops/creativeops/auth"
	"github.com/creativeops/creativeops/internal/testdb"
)

func TestKeysCreatePrintsOnlyTheKey(t *testing.T) {
	for _, b := range testdb.Backends(t) {
		t.Run(b.Name, func(t *testing.T) {
			url := b.URL(t)
			var out, errOut bytes.Buffer
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

func TestFirstServeBootstrapsAKey(t *testing.T) {
	url := testdb.SQLiteURL(t)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	dataDir := t.TempDir()
	ctx, cancel := context.WithCancel(context.Background())
	var stderr syncBuffer
	done := make(chan error, 1)
	go func() {
		done <- run(ctx, []string{"serve", "--http-addr", addr, "--database-url", url, "--data-dir", dataDir, "--log-format", "text"}, &bytes.Buffer{}, &stderr)
	}()
	keyRe := regexp.MustCompile(`co_live_[0-9A-Za-z]{38}`)
	var key string
	for deadline := time.Now().Add(20 * time.Second); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
		if key = keyRe.FindString(stderr.String()); key != "" {
			break
		}
	}
	if key == "" {
		cancel()
		t.Fatalf("no bootstrap key printed:\n%s", stderr.String())
	}
	var resp *http.Response
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
		req, _ := http.NewRequest("GET", "http://"+addr+"/v1/creators", nil)
		req.Header.Set("Authorization", "Bearer "+key)
		if resp, err = http.DefaultClient.Do(req); err == nil {
			resp.Body.Close()
			break
		}
	}
	if resp == nil || resp.StatusCode != 200 {
		t.Fatalf("bootstrap key does not work: %v %v", resp, err)
	}
	cancel()
	if err := <-done; err != nil {
		t.Fatalf("serve exited with %v", err)
	}
	// A second start on the same database prints no new key.
	ctx2, cancel2 := context.WithCancel(context.Background())
	var stderr2 syncBuffer
	go func() {
		done <- run(ctx2, []string{"serve", "--http-addr", addr, "--database-url", url, "--data-dir", dataDir}, &bytes.Buffer{}, &stderr2)
	}()
	time.Sleep(time.Second)
	cancel2()
	<-done
	if keyRe.MatchString(stderr2.String()) {
		t.Fatal("second start printed another key")
	}
}
