package edge_test

import (
	"bufio"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/creativeops/creativeops/internal/testserver"
	"github.com/creativeops/creativeops/server"
	"github.com/creativeops/creativeops/server/edge"
)

// sendHeaders opens a connection and sends a POST's headers announcing a
// body of n bytes, then the first part of the body only.
func sendHeaders(t *testing.T, addr, path, key string, n int, part string) net.Conn {
	t.Helper()
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	auth := ""
	if key != "" {
		auth = "Authorization: Bearer " + key + "\r\n"
	}
	if _, err := fmt.Fprintf(c, "POST %s HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: %d\r\n%s\r\n%s", path, n, auth, part); err != nil {
		t.Fatal(err)
	}
	return c
}

func readResponse(t *testing.T, c net.Conn, within time.Duration) *http.Response {
	t.Helper()
	_ = c.SetReadDeadline(time.Now().Add(within))
	resp, err := http.ReadResponse(bufio.NewReader(c), nil)
	if err != nil {
		t.Fatalf("no response within %v: %v", within, err)
	}
	return resp
}

// An anonymous request is refused from its headers: the server neither
// waits for nor holds its body. Before this rule the body was read first,
// so a client trickling it kept the request (and its buffer) for the whole
// read timeout (30 s by default, longer than the deadline below).
func TestAnonymousBodiesAreRefusedBeforeReading(t *testing.T) {
	s := testserver.Start(t, testserver.Options{})
	addr := strings.TrimPrefix(s.URL, "http://")
	for _, path := range []string{"/v1/creators", "/creativeops.v1.CreatorsService/CreateCreator", "/v1/no-such-route"} {
		c := sendHeaders(t, addr, path, "", 1000, `{"display_name":`)
		resp := readResponse(t, c, 10*time.Second)
		body, _ := io.ReadAll(resp.Body)
		if resp.StatusCode != http.StatusUnauthorized || !strings.Contains(string(body), "UNAUTHENTICATED") {
			t.Fatalf("%s: %d %s", path, resp.StatusCode, body)
		}
	}
	// A credential that is present but not valid is refused the same way.
	for _, key := range []string{"x", "co_live_notakey"} {
		c := sendHeaders(t, addr, "/v1/creators", key, 1000, `{"name":`)
		if resp := readResponse(t, c, 10*time.Second); resp.StatusCode != http.StatusUnauthorized {
			t.Fatalf("key %q: %d", key, resp.StatusCode)
		}
	}
	// Outside the API (sign-in, OAuth, probes, unknown paths) bodies are
	// small: a larger one is refused from its headers.
	for _, path := range []string{"/dashboard/api/session", "/no-such-path"} {
		c := sendHeaders(t, addr, path, "", 100<<10, `{"api_key":`)
		if resp := readResponse(t, c, 10*time.Second); resp.StatusCode != http.StatusRequestEntityTooLarge {
			t.Fatalf("%s with a 100 KiB body: %d", path, resp.StatusCode)
		}
	}
	// With a key the body is awaited and decoded as before.
	if r := s.Do(t, "POST", "/v1/creators", s.AdminKey, map[string]any{"name": "Ada", "email": "ada@example.com", "vertical": "music"}); r.Status != 201 {
		t.Fatalf("with a key: %d %s", r.Status, r.Body)
	}
}

// The bodies held at once share one budget: while one request holds all of
// it, another waits briefly and then gets 503 SERVER_BUSY with Retry-After;
// once the first ends, requests pass again.
func TestBodyMemoryIsBounded(t *testing.T) {
	s := testserver.Start(t, testserver.Options{Configure: func(c *server.Config) { c.BodyMemory = edge.MaxBodyBytes }})
	other := s.NewKey(t, "globex", "*")
	// The hog's organization is past its share at once (429); another
	// organization waits for the budget, then gets 503.
	hog, r := holdBudget(t, s, `{"display_name":"`)
	if r.Header.Get("Retry-After") == "" {
		t.Fatalf("share: %d %v %s", r.Status, r.Header, r.Body)
	}
	if r := s.Do(t, "POST", "/v1/creators", other, map[string]any{"name": "Bo", "email": "bo@example.com", "vertical": "music"}); r.Status != http.StatusServiceUnavailable ||
		r.ErrorReason() != "SERVER_BUSY" || r.Header.Get("Retry-After") == "" {
		t.Fatalf("busy: %d %v %s", r.Status, r.Header, r.Body)
	}
	// A Connect call waits for the same budget and is refused in its own
	// protocol.
	r = s.Do(t, "POST", "/creativeops.v1.CreatorsService/GetCreator", other, map[string]any{"id": "cr_0"})
	if r.Status != http.StatusServiceUnavailable || r.JSON["code"] != "unavailable" || r.Header.Get("Retry-After") == "" {
		t.Fatalf("Connect call while busy: %d %v %s", r.Status, r.Header, r.Body)
	}
	// Requests without a body are not held back.
	if r := s.Do(t, "GET", "/v1/creators", s.AdminKey, nil); r.Status != 200 {
		t.Fatalf("GET while busy: %d %s", r.Status, r.Body)
	}
	// The hog finishes its (oversized, invalid) body and is answered; its
	// share returns to the budget.
	rest := strings.Repeat("a", edge.MaxBodyBytes-len(`{"display_name":"`))
	if _, err := io.WriteString(hog, rest); err != nil {
		t.Fatal(err)
	}
	if resp := readResponse(t, hog, 30*time.Second); resp.StatusCode != http.StatusBadRequest {
		t.Fatalf("hog: %d", resp.StatusCode)
	}
	if r := s.Do(t, "POST", "/v1/creators", s.AdminKey, map[string]any{"name": "Cy", "email": "cy@example.com", "vertical": "music"}); r.Status != 201 {
		t.Fatalf("after the hog: %d %s", r.Status, r.Body)
	}
}

// One organization holds at most an eighth of the budget: its slow bodies
// cannot keep another organization's requests out.
func TestBodyShareIsPerOrganization(t *testing.T) {
	s := testserver.Start(t, testserver.Options{Configure: func(c *server.Config) { c.BodyMemory = 8 * edge.MaxBodyBytes }})
	other := s.NewKey(t, "globex", "*")
	holdBudget(t, s, `{"name":"`)
	if r := s.Do(t, "POST", "/v1/creators", other, map[string]any{"name": "Di", "email": "di@example.com", "vertical": "music"}); r.Status != 201 {
		t.Fatalf("another organization: %d %s", r.Status, r.Body)
	}
}

// answerOf describes what a connection was answered, if anything.
func answerOf(c net.Conn) string {
	_ = c.SetReadDeadline(time.Now().Add(100 * time.Millisecond))
	resp, err := http.ReadResponse(bufio.NewReader(c), nil)
	if err != nil {
		return "no answer (" + err.Error() + ")"
	}
	body, _ := io.ReadAll(resp.Body)
	return fmt.Sprintf("%d %s", resp.StatusCode, body)
}

// holdBudget starts a request of the admin key's organization that sends
// the headers of a 1 MiB body and then only its first bytes, and waits
// until the server holds room for it: until another request of the same
// organization is refused past its share. A hog refused because that other
// request held the share first is started again.
func holdBudget(t *testing.T, s *testserver.Server, part string) (net.Conn, testserver.Response) {
	t.Helper()
	addr := strings.TrimPrefix(s.URL, "http://")
	hog := sendHeaders(t, addr, "/v1/creators", s.AdminKey, edge.MaxBodyBytes, part)
	deadline := time.Now().Add(20 * time.Second)
	for {
		time.Sleep(50 * time.Millisecond)
		r := s.Do(t, "POST", "/v1/creators", s.AdminKey, map[string]any{"name": "Bo", "email": "bo@example.com", "vertical": "music"})
		if r.Status == http.StatusTooManyRequests && r.ErrorReason() == "TOO_MANY_BODIES" {
			return hog, r
		}
		if time.Now().After(deadline) {
			t.Fatalf("the organization's share never filled: last %d %s; the hog: %s", r.Status, r.Body, answerOf(hog))
		}
		if answer := answerOf(hog); !strings.HasPrefix(answer, "no answer") {
			hog = sendHeaders(t, addr, "/v1/creators", s.AdminKey, edge.MaxBodyBytes, part)
		}
	}
}
