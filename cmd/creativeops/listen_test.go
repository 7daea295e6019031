package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	standardwebhooks "github.com/standard-webhooks/standard-webhooks/libraries/go"

	"github.com/creativeops/creativeops/internal/testserver"
	"github.com/creativeops/creativeops/webhooks"
)

// handler is a local webhook handler for listen: it verifies each request
// with the secret, acknowledges it (204) and records it, unless told to
// hold the next one.
type handler struct {
	t        *testing.T
	verifier *standardwebhooks.Webhook
	mu       sync.Mutex
	acked    []string // event ids, in the order acknowledged
	holdNth  int      // hold the n-th request (1-based; 0: none)
	n        int
	held     chan string   // the held request's event id
	release  chan struct{} // answers the held request 503
}

func (h *handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	if err := h.verifier.Verify(body, r.Header); err != nil {
		h.t.Errorf("listen's request does not verify: %v", err)
		w.WriteHeader(http.StatusUnauthorized)
		return
	}
	var ev struct{ ID, Type string }
	if err := json.Unmarshal(body, &ev); err != nil || ev.ID != r.Header.Get("webhook-id") {
		h.t.Errorf("body %s, webhook-id %s", body, r.Header.Get("webhook-id"))
	}
	h.mu.Lock()
	h.n++
	hold := h.n == h.holdNth
	h.mu.Unlock()
	if hold {
		h.held <- ev.ID
		<-h.release
		w.WriteHeader(http.StatusServiceUnavailable)
		return
	}
	h.mu.Lock()
	h.acked = append(h.acked, ev.ID)
	h.mu.Unlock()
	w.WriteHeader(http.StatusNoContent)
}

func (h *handler) ackedIDs() []string {
	h.mu.Lock()
	defer h.mu.Unlock()
	return slices.Clone(h.acked)
}

// startListen runs "creativeops listen" in a child process.
func startListen(t *testing.T, args string) (*exec.Cmd, *bytes.Buffer) {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), childArgsEnv+"=listen "+args)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
		if t.Failed() {
			t.Logf("listen's output:\n%s", out.String())
		}
	})
	return cmd, &out
}

func createCreators(t *testing.T, s *testserver.Server, n int, tag string) {
	t.Helper()
	for i := range n {
		r := s.Do(t, "POST", "/v1/creators", s.AdminKey, map[string]any{
			"name": "Nova", "email": fmt.Sprintf("%s-%d@example.com", tag, i), "vertical": "music",
		})
		if r.Status != http.StatusCreated {
			t.Fatalf("create creator: %d %s", r.Status, r.Body)
		}
	}
}

func readState(t *testing.T, path string) listenState {
	t.Helper()
	var st listenState
	if b, err := os.ReadFile(path); err == nil {
		_ = json.Unmarshal(b, &st)
	}
	return st
}

// listen forwards the events that happen after it starts, each signed
// with its secret, in order; killed (SIGKILL) while the handler holds an
// event and started again with its state file, it sends that unanswered
// event again and goes on: every event is acknowledged exactly once,
// those of the time it was down included.
func TestListenKilledAndRestarted(t *testing.T) {
	s := testserver.Start(t, testserver.Options{})
	key := s.NewKey(t, "acme", "events:read")
	secret := webhooks.GenerateSecret()
	verifier, err := standardwebhooks.NewWebhook(secret)
	if err != nil {
		t.Fatal(err)
	}
	h := &handler{t: t, verifier: verifier, holdNth: 3, held: make(chan string, 1), release: make(chan struct{})}
	rc := httptest.NewServer(h)
	t.Cleanup(rc.Close)

	createCreators(t, s, 2, "before") // before listen starts: not forwarded
	before := s.Do(t, "GET", "/v1/events?page_size=1", key, nil).JSON["events"].([]any)[0].(map[string]any)["id"].(string)
	state := filepath.Join(t.TempDir(), "listen.json")
	args := fmt.Sprintf("--api-key %s --url %s --forward-to %s/hooks --state %s --secret %s --interval 50ms --events creator.created",
		key, s.URL, rc.URL, state, secret)
	cmd, _ := startListen(t, args)
	for deadline := time.Now().Add(30 * time.Second); readState(t, state).After != before; time.Sleep(20 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("listen did not start after %s: state %+v", before, readState(t, state))
		}
	}

	createCreators(t, s, 5, "first")
	var held string
	select {
	case held = <-h.held:
	case <-time.After(30 * time.Second):
		t.Fatal("the third event never reached the handler")
	}
	// Killed while the handler holds the third event, unanswered.
	if err := cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	_ = cmd.Wait()
	close(h.release)
	if got := h.ackedIDs(); len(got) != 2 {
		t.Fatalf("acknowledged before the kill: %v", got)
	}
	if st := readState(t, state); st.After != h.ackedIDs()[1] || st.Secret != secret {
		t.Fatalf("state after the kill: %+v, want after %s", st, h.ackedIDs()[1])
	}
	createCreators(t, s, 3, "down") // while no listener runs

	startListen(t, fmt.Sprintf("--api-key %s --url %s --forward-to %s/hooks --state %s --interval 50ms --events creator.created",
		key, s.URL, rc.URL, state))
	var want []string
	for _, ev := range s.Do(t, "GET", "/v1/events?type=creator.created&after="+before, key, nil).JSON["events"].([]any) {
		want = append(want, ev.(map[string]any)["id"].(string))
	}
	if len(want) != 8 || want[2] != held {
		t.Fatalf("events after the start: %v (held %s)", want, held)
	}
	for deadline := time.Now().Add(30 * time.Second); len(h.ackedIDs()) < len(want); time.Sleep(20 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("acknowledged %v, want %v", h.ackedIDs(), want)
		}
	}
	time.Sleep(300 * time.Millisecond) // nothing more comes
	if got := h.ackedIDs(); !slices.Equal(got, want) {
		t.Fatalf("acknowledged %v\nwant         %v", got, want)
	}
}

// listen refuses what it cannot act on, before doing anything.
func TestListenUsage(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--forward-to", "http://localhost:3000/hooks"}, "--api-key"},
		{[]string{"--api-key", "k"}, "--forward-to"},
		{[]string{"--api-key", "k", "--forward-to", "localhost:3000"}, "--forward-to"},
		{[]string{"--api-key", "k", "--forward-to", "http://localhost:3000", "--secret", "short"}, "--secret"},
	} {
		var out bytes.Buffer
		err := run(t.Context(), append([]string{"listen"}, c.args...), &out, &out)
		if err == nil || !strings.Contains(err.Error(), c.want) || exitCode(err, io.Discard) != 2 {
			t.Errorf("listen %v: %v, want a usage error naming %s", c.args, err, c.want)
		}
	}
	// A key without events:read stops it at once, saying why.
	s := testserver.Start(t, testserver.Options{})
	var out bytes.Buffer
	err := run(t.Context(), []string{"listen", "--api-key", s.NewKey(t, "acme", "creators:read"), "--url", s.URL,
		"--forward-to", "http://127.0.0.1:1/hooks"}, &out, &out)
	if err == nil || !strings.Contains(err.Error(), "403") {
		t.Fatalf("listen with a key without events:read: %v\n%s", err, out.String())
	}
}
