package bench

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"strconv"
	"testing"
	"time"

	"github.com/creativeops/creativeops/internal/testserver"
)

// loadSeconds is how long each fixed-rate run lasts (BENCH_SECONDS).
func loadSeconds() time.Duration {
	if s, err := strconv.Atoi(os.Getenv("BENCH_SECONDS")); err == nil && s > 0 {
		return time.Duration(s) * time.Second
	}
	return 5 * time.Second
}

func report(b *testing.B, r Result) {
	b.ReportMetric(r.Throughput(), "req/s")
	b.ReportMetric(float64(r.P50.Microseconds())/1000, "p50-ms")
	b.ReportMetric(float64(r.P99.Microseconds())/1000, "p99-ms")
	b.ReportMetric(float64(r.Errors), "errors")
	b.Logf("sent %d ok %d errors %d in %v: %.0f req/s, p50 %v p95 %v p99 %v max %v",
		r.Sent, r.OK, r.Errors, r.Elapsed.Round(time.Millisecond), r.Throughput(), r.P50, r.P95, r.P99, r.Max)
}

func get(client *http.Client, url, key string) func(context.Context) error {
	return func(ctx context.Context) error {
		req, _ := http.NewRequestWithContext(ctx, "GET", url, nil)
		if key != "" {
			req.Header.Set("Authorization", "Bearer "+key)
		}
		resp, err := client.Do(req)
		if err != nil {
			return err
		}
		_, _ = io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		if resp.StatusCode != 200 {
			return fmt.Errorf("status %d", resp.StatusCode)
		}
		return nil
	}
}

// BenchmarkGetCreator: GET /v1/creators/{id} over REST with auth on SQLite at
// a fixed 1,000 requests/s, beside a bare net/http handler returning the same
// JSON at the same rate on the same machine.
func BenchmarkGetCreator(b *testing.B) {
	s := testserver.Start(b, testserver.Options{NoWorkers: os.Getenv("BENCH_NO_WORKERS") != ""})
	r := s.Do(b, "POST", "/v1/creators", s.AdminKey, map[string]any{"name": "Nova Reyes", "email": "nova@example.com", "vertical": "music", "metadata": map[string]any{"label": "Night Owl"}})
	id := r.JSON["id"].(string)
	body := r.Body
	client := Client()

	bare := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write(body)
	})}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		b.Fatal(err)
	}
	go func() { _ = bare.Serve(ln) }()
	defer bare.Close()
	var check map[string]any
	if err := json.Unmarshal(body, &check); err != nil {
		b.Fatal(err)
	}

	for _, rps := range []int{1000} {
		b.Run(fmt.Sprintf("service/rps=%d", rps), func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				report(b, Rate(context.Background(), rps, loadSeconds(), 64, get(client, s.URL+"/v1/creators/"+id, s.AdminKey)))
			}
		})
		b.Run(fmt.Sprintf("bare-nethttp/rps=%d", rps), func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				report(b, Rate(context.Background(), rps, loadSeconds(), 64, get(client, "http://"+ln.Addr().String()+"/", "")))
			}
		})
	}
}
