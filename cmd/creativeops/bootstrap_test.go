package main

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/creativeops/creativeops/auth"
	"github.com/creativeops/creativeops/server"
	"github.com/creativeops/creativeops/storage"
)

var keyRe = regexp.MustCompile(`co_live_[0-9A-Za-z]{38}`)

// startServe runs "creativeops serve" in-process on a free loopback port
// and returns its address and a stop function that waits for it to end.
func startServe(t *testing.T, stderr io.Writer, args ...string) (addr string, stop func()) {
	t.Helper()
	addr = freeAddr(t)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		done <- run(ctx, append([]string{"serve", "--http-addr", addr}, args...), io.Discard, stderr)
	}()
	stopped := false
	stop = func() {
		if stopped {
			return
		}
		stopped = true
		cancel()
		if err := <-done; err != nil {
			t.Errorf("serve: %v", err)
		}
	}
	t.Cleanup(stop)
	return addr, stop
}

// waitFor polls cond until it holds; the deadline only keeps a broken
// server from hanging the test.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	for deadline := time.Now().Add(30 * time.Second); !cond(); time.Sleep(20 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("gave up waiting for %s", what)
		}
	}
}

func get(addr, path, key string) int {
	req, _ := http.NewRequest("GET", "http://"+addr+path, nil)
	if key != "" {
		req.Header.Set("Authorization", "Bearer "+key)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return 0
	}
	resp.Body.Close()
	return resp.StatusCode
}

// Without a terminal on stderr the first key goes to a file of the data
// directory that only its owner can read; the log stays JSON lines and
// says where the key is without containing it. A later start with no
// usable key says how to make one.
func TestBootstrapKeyFileWithoutATerminal(t *testing.T) {
	dataDir := t.TempDir()
	keyFile := filepath.Join(dataDir, server.BootstrapKeyFile)
	var logs syncBuffer
	addr, stop := startServe(t, &logs, "--data-dir", dataDir)
	waitFor(t, "the bootstrap key file", func() bool { _, err := os.Stat(keyFile); return err == nil })
	waitFor(t, "readiness", func() bool { return get(addr, "/readyz", "") == 200 })
	b, err := os.ReadFile(keyFile)
	if err != nil {
		t.Fatal(err)
	}
	key := strings.TrimSuffix(string(b), "\n")
	if !auth.WellFormed(key) {
		t.Fatalf("%s holds %q, not a key", keyFile, b)
	}
	if fi, err := os.Stat(keyFile); err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("%s: mode %v (%v), want 0600", keyFile, fi.Mode().Perm(), err)
	}
	if code := get(addr, "/v1/creators", key); code != 200 {
		t.Fatalf("the bootstrap key gets %d", code)
	}
	// The default database follows --data-dir.
	if _, err := os.Stat(filepath.Join(dataDir, "creativeops.db")); err != nil {
		t.Fatalf("no database in the data directory: %v", err)
	}
	stop()
	var pointer bool
	for _, line := range strings.Split(strings.TrimSpace(logs.String()), "\n") {
		var rec map[string]any
		if err := json.Unmarshal([]byte(line), &rec); err != nil {
			t.Errorf("log line is not JSON: %q", line)
		}
		if strings.Contains(line, key) {
			t.Errorf("the key is in the log: %q", line)
		}
		pointer = pointer || rec["key_file"] == keyFile
	}
	if !pointer {
		t.Fatalf("no log line names the key file:\n%s", logs.String())
	}

	// Revoke every key: the next start shows no key and tells the
	// operator how to make one.
	var out, errOut bytes.Buffer
	if err := run(context.Background(), []string{"keys", "list", "--org", "default", "--data-dir", dataDir}, &out, &errOut); err != nil {
		t.Fatal(err, errOut.String())
	}
	id := regexp.MustCompile(`key_[0-9a-z]+`).FindString(out.String())
	if err := run(context.Background(), []string{"keys", "revoke", "--org", "default", "--id", id, "--data-dir", dataDir}, &out, &errOut); err != nil {
		t.Fatal(err, errOut.String())
	}
	if err := os.Remove(keyFile); err != nil {
		t.Fatal(err)
	}
	var logs2 syncBuffer
	_, stop = startServe(t, &logs2, "--data-dir", dataDir)
	waitFor(t, "the warning", func() bool { return strings.Contains(logs2.String(), "no active API key") })
	stop()
	if !strings.Contains(logs2.String(), `creativeops keys create --org NAME --scopes '*'`) {
		t.Fatalf("the warning does not say how to create a key:\n%s", logs2.String())
	}
	if _, err := os.Stat(keyFile); !os.IsNotExist(err) {
		t.Fatalf("a second start wrote a key file (%v)", err)
	}
	if keyRe.MatchString(logs2.String()) {
		t.Fatal("a second start printed a key")
	}
}

// A key that cannot be saved is not created: the start fails, saying
// why, and leaves the database without organizations, so that the next
// start bootstraps again.
func TestBootstrapKeyFileUnwritable(t *testing.T) {
	dataDir := t.TempDir()
	// A directory in the key file's place cannot be replaced by the file.
	if err := os.MkdirAll(filepath.Join(dataDir, server.BootstrapKeyFile, "x"), 0o750); err != nil {
		t.Fatal(err)
	}
	url := "sqlite://" + filepath.Join(dataDir, "creativeops.db")
	err := run(context.Background(), []string{"serve", "--http-addr", freeAddr(t), "--data-dir", dataDir}, io.Discard, io.Discard)
	if err == nil || !strings.Contains(err.Error(), "bootstrap key file") {
		t.Fatalf("serve: %v, want a bootstrap key file error", err)
	}
	st, err := storage.Open(context.Background(), url)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	if n, err := st.Ent.Organization.Query().Count(context.Background()); err != nil || n != 0 {
		t.Fatalf("%d organizations (%v) after a failed bootstrap, want 0", n, err)
	}
}
