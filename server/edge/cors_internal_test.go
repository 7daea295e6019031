package edge

import (
	"net/http"
	"net/http/httptest"
	"testing"
)

// BenchmarkCORS is what --cors-allowed-origins adds to a request, beside a
// bare handler: go test ./server/edge -run '^$' -bench CORS -benchmem.
func BenchmarkCORS(b *testing.B) {
	bare := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(http.StatusOK) })
	wrapped := WithCORS([]string{"https://app.example.com"}, bare)
	request := func(method, origin string) *http.Request {
		r := httptest.NewRequest(method, "/v1/creators", nil)
		if origin != "" {
			r.Header.Set("Origin", origin)
		}
		if method == http.MethodOptions {
			r.Header.Set("Access-Control-Request-Method", "POST")
			r.Header.Set("Access-Control-Request-Headers", "authorization,content-type")
		}
		return r
	}
	for _, c := range []struct {
		name string
		h    http.Handler
		r    *http.Request
	}{
		{"bare", bare, request(http.MethodGet, "")},
		{"no-origin", wrapped, request(http.MethodGet, "")},
		{"allowed-origin", wrapped, request(http.MethodGet, "https://app.example.com")},
		{"other-origin", wrapped, request(http.MethodGet, "https://evil.example.com")},
		{"preflight", wrapped, request(http.MethodOptions, "https://app.example.com")},
	} {
		b.Run(c.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				w := httptest.NewRecorder()
				c.h.ServeHTTP(w, c.r)
			}
		})
	}
}
