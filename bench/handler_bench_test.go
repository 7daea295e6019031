package bench

import (
	"bytes"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"syscall"
	"testing"
	"time"

	"github.com/creativeops/creativeops/internal/testserver"
)

// BenchmarkGetCreatorHandler measures the CPU cost of one authenticated
// GET /v1/creators/{id} through the whole REST stack (middleware, gateway,
// interceptors, SQLite), without the network: ns/op and allocs/op are
// stable on a noisy machine, unlike latency under load.
func BenchmarkGetCreatorHandler(b *testing.B) {
	s := testserver.Start(b, testserver.Options{NoWorkers: true})
	r := s.Do(b, "POST", "/v1/creators", s.AdminKey, map[string]any{"name": "Nova Reyes", "email": "nova@example.com", "vertical": "music"})
	id := r.JSON["id"].(string)
	h := s.Handler()
	req := httptest.NewRequest("GET", "/v1/creators/"+id, nil)
	req.Header.Set("Authorization", "Bearer "+s.AdminKey)
	b.ReportAllocs()
	b.ResetTimer()
	cpu := cpuTime()
	for i := 0; i < b.N; i++ {
		w := httptest.NewRecorder()
		h.ServeHTTP(w, req)
		if w.Code != http.StatusOK {
			b.Fatalf("status %d", w.Code)
		}
	}
	b.ReportMetric(float64(cpuTime()-cpu)/float64(b.N), "cpu-ns/op")
}

// cpuTime is the CPU time the process has used (user and system). Per
// operation it is steadier than ns/op on a shared machine, where wall time
// includes waiting for a core; it includes the server's background work.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// BenchmarkSyncRunHandler measures the CPU cost of one synchronous
// release-strategy run through the REST stack (computed, stored with its
// event), without the network.
func BenchmarkSyncRunHandler(b *testing.B) {
	s := testserver.Start(b, testserver.Options{NoWorkers: true})
	h := s.Handler()
	body, _ := json.Marshal(releaseRun)
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		req := httptest.NewRequest("POST", "/v1/engine/run", bytes.NewReader(body))
		req.Header.Set("Authorization", "Bearer "+s.AdminKey)
		w := httptest.NewRecorder()
		h.ServeHTTP(w, req)
		if w.Code != http.StatusOK {
			b.Fatalf("status %d: %s", w.Code, w.Body)
		}
	}
}

// BenchmarkRateLimitedHandler measures the cost of refusing a request
// beyond its key's rate limit (a malformed creation, answered 429 without
// its body being read): what a flooding client costs the server per
// request once its limit is spent.
func BenchmarkRateLimitedHandler(b *testing.B) {
	s := testserver.Start(b, testserver.Options{NoWorkers: true})
	r := s.Do(b, "POST", "/v1/keys", s.AdminKey, map[string]any{"name": "flood", "scopes": []string{"*"},
		"rate_limit": map[string]any{"requests_per_second": 0.01, "burst": 1}})
	key := r.JSON["secret"].(string)
	h := s.Handler()
	body := []byte(`{"name": `)
	b.ReportAllocs()
	b.ResetTimer()
	cpu := cpuTime()
	for i := 0; i < b.N; i++ {
		req := httptest.NewRequest("POST", "/v1/creators", bytes.NewReader(body))
		req.Header.Set("Authorization", "Bearer "+key)
		req.Header.Set("Content-Type", "application/json")
		w := httptest.NewRecorder()
		h.ServeHTTP(w, req)
		if i > 0 && w.Code != http.StatusTooManyRequests {
			b.Fatalf("status %d", w.Code)
		}
	}
	b.ReportMetric(float64(cpuTime()-cpu)/float64(b.N), "cpu-ns/op")
}
