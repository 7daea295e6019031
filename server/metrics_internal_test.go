package server

import (
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"
)

// Requests of the same labels are counted in one series, whichever
// request found it first; other labels get their own.
func TestObserveKeepsSeries(t *testing.T) {
	m := testRequestMetrics()
	for range 3 {
		m.observe("rest", "GET", "/v1/creators/{id}", 200, time.Millisecond)
	}
	m.observe("rest", "GET", "/v1/creators/{id}", 404, time.Millisecond)
	m.observe("rest", "BREW", "unmatched", 404, time.Millisecond)
	for _, c := range []struct {
		labels []string
		want   float64
	}{
		{[]string{"rest", "GET", "/v1/creators/{id}", "200"}, 3},
		{[]string{"rest", "GET", "/v1/creators/{id}", "404"}, 1},
		{[]string{"rest", "other", "unmatched", "404"}, 1},
	} {
		if got := testutil.ToFloat64(m.requests.WithLabelValues(c.labels...)); got != c.want {
			t.Errorf("%v: %v requests, want %v", c.labels, got, c.want)
		}
	}
	if n := testutil.CollectAndCount(m.latency); n != 3 {
		t.Errorf("%d latency series, want 3", n)
	}
}

// What counting a request costs (it was two WithLabelValues lookups).
func BenchmarkObserve(b *testing.B) {
	m := testRequestMetrics()
	b.ReportAllocs()
	for b.Loop() {
		m.observe("rest", "GET", "/v1/creators/{id}", 200, 1500*time.Microsecond)
	}
}

func testRequestMetrics() *metrics {
	labels := []string{"transport", "method", "route", "code"}
	return &metrics{
		requests: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "requests_total"}, labels),
		latency:  prometheus.NewHistogramVec(prometheus.HistogramOpts{Name: "request_duration_seconds", Buckets: latencyBuckets}, labels),
	}
}
