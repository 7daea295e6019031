package ratelimit

import (
	"bufio"
	"bytes"
	"encoding/json"
	"log/slog"
	"net"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/creativeops/creativeops/auth"
)

// syncBuffer is a log destination read while go-redis may still write.
type syncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// lines parses every log line as JSON, failing on any other.
func (b *syncBuffer) lines(t *testing.T) []map[string]any {
	t.Helper()
	var out []map[string]any
	sc := bufio.NewScanner(strings.NewReader(b.String()))
	for sc.Scan() {
		var m map[string]any
		if err := json.Unmarshal(sc.Bytes(), &m); err != nil {
			t.Fatalf("a log line is not JSON: %q", sc.Text())
		}
		out = append(out, m)
	}
	return out
}

// An unreachable Redis is reported when the limiter starts, with its
// address, and go-redis's own messages reach the JSON log as JSON; the
// limiter then keeps limiting on its own.
func TestUnreachableRedisIsReportedAtStart(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close() // nothing listens there now
	var logs syncBuffer
	l, err := New(auth.RateLimit{RequestsPerSecond: 1, Burst: 2}, "redis://"+addr+"/0", slog.New(slog.NewJSONHandler(&logs, nil)))
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	var warned bool
	for _, m := range logs.lines(t) {
		warned = warned || m["level"] == "WARN" && m["redis_addr"] == addr && strings.Contains(m["msg"].(string), "Redis is unreachable")
	}
	if !warned {
		t.Fatalf("no warning naming %s when the limiter started: %s", addr, logs.String())
	}
	// go-redis says it could not dial, in the service's log.
	deadline := time.Now().Add(10 * time.Second)
	for !strings.Contains(logs.String(), "failed to dial") {
		if time.Now().After(deadline) {
			t.Fatalf("go-redis's message did not reach the service log: %s", logs.String())
		}
		time.Sleep(50 * time.Millisecond)
	}
	for _, m := range logs.lines(t) {
		if strings.Contains(m["msg"].(string), "failed to dial") && m["component"] != "redis" {
			t.Errorf("go-redis line without its component: %v", m)
		}
	}
	for i := range 2 {
		if d := l.Take(t.Context(), "key_1", auth.RateLimit{RequestsPerSecond: 1, Burst: 2}); !d.Allowed {
			t.Fatalf("request %d of the burst refused with Redis down", i+1)
		}
	}
	if d := l.Take(t.Context(), "key_1", auth.RateLimit{RequestsPerSecond: 1, Burst: 2}); d.Allowed {
		t.Fatal("past the burst with Redis down: allowed")
	}
}

// A reachable Redis starts the limiter without a warning.
func TestReachableRedisStartsQuietly(t *testing.T) {
	u := os.Getenv("CREATIVEOPS_TEST_REDIS_URL")
	if u == "" {
		u = "redis://127.0.0.1:6379/0"
	}
	host, _, _ := strings.Cut(strings.TrimPrefix(u, "redis://"), "/")
	if c, err := net.DialTimeout("tcp", host[strings.LastIndex(host, "@")+1:], time.Second); err != nil {
		t.Skipf("Redis at %s unreachable: %v", u, err)
	} else {
		c.Close()
	}
	var logs syncBuffer
	l, err := New(auth.RateLimit{RequestsPerSecond: 1, Burst: 2}, u, slog.New(slog.NewJSONHandler(&logs, nil)))
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	if strings.Contains(logs.String(), "WARN") {
		t.Fatalf("warned with Redis up: %s", logs.String())
	}
}
