package ratelimit

import (
	"math"
	"strings"
	"testing"

	"github.com/creativeops/creativeops/auth"
)

// The RateLimit header's arithmetic saturates: a rate stored before the
// API enforced its range (1e-300/s read reset=-9223372036) cannot make it
// negative or wrap.
func TestRateLimitHeaderNeverOverflows(t *testing.T) {
	for _, rps := range []float64{1e-300, 1e-12, 0.01, 1, 100000, math.SmallestNonzeroFloat64} {
		lim := auth.RateLimit{RequestsPerSecond: rps, Burst: 1}
		l := &Limiter{def: lim}
		var d Decision
		for range 2 {
			d = l.takeLocal("key", lim)
		}
		if d.Reset < 0 || d.RetryAfter < 0 || CeilSeconds(d.Reset) < 0 || CeilSeconds(d.RetryAfter) < 0 {
			t.Fatalf("%g/s: reset %v retry after %v", rps, d.Reset, d.RetryAfter)
		}
		if h := Header(d); strings.Contains(h, "-") {
			t.Fatalf("%g/s: %s", rps, h)
		}
	}
	if got := secondsToDuration(1e300); got != maxWait {
		t.Errorf("secondsToDuration(1e300) = %v", got)
	}
	if got := CeilSeconds(math.MaxInt64); got != int(maxWait.Seconds()) {
		t.Errorf("CeilSeconds(max) = %d", got)
	}
}
