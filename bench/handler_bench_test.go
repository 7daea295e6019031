package bench

import (
	"bytes"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"testing"

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
	for i := 0; i < b.N; i++ {
		w := httptest.NewRecorder()
		h.ServeHTTP(w, req)
		if w.Code != http.StatusOK {
			b.Fatalf("status %d", w.Code)
		}
	}
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
