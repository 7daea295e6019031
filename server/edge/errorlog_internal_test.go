package edge

import (
	"bytes"
	"context"
	"encoding/json"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"
)

// syncBuffer is a bytes.Buffer a summary written from a timer may share.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) lines(t *testing.T) []map[string]any {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []map[string]any
	for l := range strings.SplitSeq(strings.TrimSpace(s.b.String()), "\n") {
		if l == "" {
			continue
		}
		var m map[string]any
		if err := json.Unmarshal([]byte(l), &m); err != nil {
			t.Fatalf("log line %q: %v", l, err)
		}
		out = append(out, m)
	}
	return out
}

type orgKey struct{}

// A flood of server errors writes a burst of ERROR lines per organization,
// then a summary of those left out; other levels are not budgeted.
func TestErrorLinesAreBudgeted(t *testing.T) {
	var buf syncBuffer
	h := newErrorLog(slog.NewJSONHandler(&buf, nil), func(ctx context.Context) string {
		org, _ := ctx.Value(orgKey{}).(string)
		return org
	})
	h.b.after = 20 * time.Millisecond
	log := slog.New(h).With("component", "test")
	orgA := context.WithValue(context.Background(), orgKey{}, "org_a")
	orgB := context.WithValue(context.Background(), orgKey{}, "org_b")
	const flood = 3000
	for range flood {
		log.ErrorContext(orgA, "oauth endpoint failed", "error", "sql: no rows in result set")
	}
	log.ErrorContext(orgB, "internal error")
	for range 10 {
		log.InfoContext(orgA, "request")
	}
	deadline := time.Now().Add(5 * time.Second)
	var summary map[string]any
	for summary == nil && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
		for _, l := range buf.lines(t) {
			if l["msg"] == "error lines suppressed" {
				summary = l
			}
		}
	}
	errorsA, errorsB, infos := 0, 0, 0
	for _, l := range buf.lines(t) {
		switch {
		case l["level"] == "ERROR" && l["msg"] == "oauth endpoint failed":
			errorsA++
		case l["level"] == "ERROR":
			errorsB++
		case l["level"] == "INFO":
			infos++
		}
	}
	// The flood takes far less than the tenth of a second a refill needs
	// on any machine; a few more lines are allowed for a slow one.
	if errorsA < ErrorLineBurst || errorsA > ErrorLineBurst+ErrorLinesPerSecond {
		t.Fatalf("%d ERROR lines of %d, want about %d", errorsA, flood, ErrorLineBurst)
	}
	if errorsB != 1 || infos != 10 {
		t.Fatalf("other organization's errors %d (want 1), INFO lines %d (want 10)", errorsB, infos)
	}
	if summary == nil {
		t.Fatal("no summary of the suppressed ERROR lines")
	}
	if n := summary["suppressed_errors"].(float64); int(n) != flood-errorsA || summary["level"] != "WARN" ||
		summary["organization_id"] != "org_a" || summary["last_message"] != "oauth endpoint failed" {
		t.Fatalf("summary %v, want %d suppressed of org_a", summary, flood-errorsA)
	}
}
