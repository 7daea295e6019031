package server_test

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/creativeops/creativeops/internal/testserver"
	"github.com/creativeops/creativeops/server"
	"github.com/creativeops/creativeops/webhooks"
)

// End to end, on River's real workers: organization A's many subscriptions
// to a receiver that hangs do not hold the delivery workers, so organization
// B's delivery goes out while A's attempts are still stuck.
func TestSlowReceiverDoesNotDelayOtherOrganizations(t *testing.T) {
	unblock := make(chan struct{})
	var slowRequests atomic.Int32
	slowArrived := make(chan struct{}, 100)
	slow := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		slowRequests.Add(1)
		slowArrived <- struct{}{}
		select {
		case <-unblock:
		case <-r.Context().Done():
		}
	}))
	t.Cleanup(slow.Close)
	fastArrived := make(chan struct{}, 10)
	fast := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fastArrived <- struct{}{}
	}))
	t.Cleanup(fast.Close)

	s := testserver.Start(t, testserver.Options{Configure: func(c *server.Config) {
		c.WebhookWorkers = 4 // A may hold 2, the slow host 1
		c.WebhookTimeout = 10 * time.Minute
		c.WebhookSchedule = webhooks.Schedule{0}
	}})
	t.Cleanup(func() { close(unblock) }) // runs before the server stops

	for range 10 {
		if r := s.Do(t, "POST", "/v1/webhooks", s.AdminKey, map[string]any{"url": slow.URL + "/a", "events": []string{"creator.created"}}); r.Status != 201 {
			t.Fatalf("A's webhook: %d %s", r.Status, r.Body)
		}
	}
	other := s.NewKey(t, "globex", "*")
	// Another host name for the same loopback machine: another receiver.
	fastURL := strings.Replace(fast.URL, "127.0.0.1", "localhost", 1)
	if r := s.Do(t, "POST", "/v1/webhooks", other, map[string]any{"url": fastURL + "/b", "events": []string{"creator.created"}}); r.Status != 201 {
		t.Fatalf("B's webhook: %d %s", r.Status, r.Body)
	}
	for i := range 3 {
		if r := s.Do(t, "POST", "/v1/creators", s.AdminKey, map[string]any{"name": "A", "email": fmt.Sprintf("a%d@example.com", i), "vertical": "music"}); r.Status != 201 {
			t.Fatal(r.Status)
		}
	}
	// 30 deliveries of A are queued; one is stuck at the receiver.
	waitFor(t, slowArrived, "A's first delivery")
	if r := s.Do(t, "POST", "/v1/creators", other, map[string]any{"name": "B", "email": "b@example.com", "vertical": "music"}); r.Status != 201 {
		t.Fatal(r.Status)
	}
	waitFor(t, fastArrived, "B's delivery, while A's are stuck")
	if n := slowRequests.Load(); n != 1 {
		t.Fatalf("%d attempts in flight to the slow receiver, want 1 (a quarter of 4 workers)", n)
	}
}

// waitFor fails the test if what it waits for has not happened long after
// it should have; it is a guard against hanging, not a speed assertion.
func waitFor(t *testing.T, c <-chan struct{}, what string) {
	t.Helper()
	select {
	case <-c:
	case <-time.After(60 * time.Second):
		t.Fatalf("%s never arrived", what)
	}
}
