package bench

import (
	"context"
	"os"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/creativeops/creativeops/internal/testserver"
	"github.com/creativeops/creativeops/server"
)

// benchRounds is how many alternating on/off runs are made (BENCH_ROUNDS).
func benchRounds() int {
	if n, err := strconv.Atoi(os.Getenv("BENCH_ROUNDS")); err == nil && n > 0 {
		return n
	}
	return 3
}

// BenchmarkAnalyticsOverhead: the most GET /v1/creators/{id} requests/s
// (closed loop, 32 clients, REST with auth, SQLite) with usage recording on
// and off, in alternating runs so that drift on a shared machine hits both;
// on/off is the median of the per-round ratios. The target is a
// ratio above 0.95.
func BenchmarkAnalyticsOverhead(b *testing.B) {
	modes := []string{"off", "on"}
	servers := map[string]*testserver.Server{
		"off": testserver.Start(b, testserver.Options{NoWorkers: true, Configure: func(c *server.Config) { c.DisableAnalytics = true }}),
		"on":  testserver.Start(b, testserver.Options{NoWorkers: true}),
	}
	client := Client()
	do := map[string]func(context.Context, int) error{}
	for _, m := range modes {
		s := servers[m]
		r := s.Do(b, "POST", "/v1/creators", s.AdminKey, map[string]any{"name": "Nova Reyes", "email": "nova@example.com", "vertical": "music", "metadata": map[string]any{"label": "Night Owl"}})
		get := get(client, s.URL+"/v1/creators/"+r.JSON["id"].(string), s.AdminKey)
		do[m] = func(ctx context.Context, _ int) error { return get(ctx) }
		Closed(context.Background(), 32, time.Second, 1_000_000, do[m]) // warm up
	}
	const concurrency, limit = 32, 10_000_000
	for i := 0; i < b.N; i++ {
		through := map[string][]float64{}
		var ratios []float64
		for round := range benchRounds() {
			order := modes
			if round%2 == 1 {
				order = []string{"on", "off"}
			}
			results := map[string]Result{}
			for _, m := range order {
				r := Closed(context.Background(), concurrency, loadSeconds(), limit, do[m])
				if r.Errors > 0 {
					b.Fatalf("recording %s: %d errors", m, r.Errors)
				}
				results[m] = r
				through[m] = append(through[m], r.Throughput())
			}
			// Runs of one round are back to back: their ratio is the least
			// disturbed by load elsewhere on the machine.
			ratios = append(ratios, through["on"][round]/through["off"][round])
			b.Logf("round %d: off %.0f req/s (p50 %v, p99 %v), on %.0f req/s (p50 %v, p99 %v): on/off %.3f", round+1,
				through["off"][round], results["off"].P50.Round(10*time.Microsecond), results["off"].P99.Round(10*time.Microsecond),
				through["on"][round], results["on"].P50.Round(10*time.Microsecond), results["on"].P99.Round(10*time.Microsecond), ratios[round])
		}
		off, on, ratio := median(through["off"]), median(through["on"]), median(ratios)
		b.ReportMetric(off, "off-req/s")
		b.ReportMetric(on, "on-req/s")
		b.ReportMetric(ratio, "on/off")
		b.Logf("median: off %.0f req/s, on %.0f req/s; median of the rounds' on/off ratios %.3f (%+.1f%%)",
			off, on, ratio, 100*(ratio-1))
	}
	if err := servers["on"].FlushAnalytics(context.Background()); err != nil {
		b.Fatal(err)
	}
}

func median(v []float64) float64 {
	s := slices.Clone(v)
	slices.Sort(s)
	if n := len(s); n%2 == 1 {
		return s[n/2]
	} else if n > 0 {
		return (s[n/2-1] + s[n/2]) / 2
	}
	return 0
}
