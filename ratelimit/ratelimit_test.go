package ratelimit

import (
	"math"
	"strings"
	"testing"
	"time"

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
			d = l.takeLocal("key", lim, 1)
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

// Refund gives back exactly the token Take spent, never more than the
// burst: a refunded bucket allows as many takes as a full one, no more.
func TestRefund(t *testing.T) {
	lim := auth.RateLimit{RequestsPerSecond: 0.001, Burst: 3}
	l := &Limiter{def: lim}
	ctx := t.Context()
	l.Refund(ctx, "fresh", lim) // no bucket yet: nothing to give back, nothing created
	for range 10 {
		if d := l.Take(ctx, "k", lim); !d.Allowed {
			t.Fatalf("take refunded each time refused: %+v", d)
		}
		l.Refund(ctx, "k", lim)
	}
	// Refunds into a full bucket do not raise it past the burst.
	l.Refund(ctx, "k", lim)
	l.Refund(ctx, "k", lim)
	for i := range 3 {
		if d := l.Take(ctx, "k", lim); !d.Allowed || d.Remaining != 2-i {
			t.Fatalf("take %d: %+v, want allowed with %d left", i+1, d, 2-i)
		}
	}
	if d := l.Take(ctx, "k", lim); d.Allowed {
		t.Fatalf("fourth take past a burst of 3 allowed after extra refunds: %+v", d)
	}
	l.Refund(ctx, "k", lim)
	if d := l.Take(ctx, "k", lim); !d.Allowed {
		t.Fatalf("take after a refund into an empty bucket refused: %+v", d)
	}
	if _, ok := l.buckets.Load("fresh"); ok {
		t.Error("Refund created a bucket")
	}
}

// RateLimit reads as the draft writes it.
func TestRateLimitHeaderFormat(t *testing.T) {
	for _, c := range []struct {
		d    Decision
		want string
	}{
		{Decision{Limit: auth.RateLimit{Burst: 200}, Remaining: 199, Reset: 10 * time.Millisecond}, "limit=200, remaining=199, reset=1"},
		{Decision{Limit: auth.RateLimit{Burst: 1}, Remaining: 0, Reset: 0}, "limit=1, remaining=0, reset=0"},
		{Decision{Limit: auth.RateLimit{Burst: 1e9}, Remaining: 123456789, Reset: 90 * time.Second}, "limit=1000000000, remaining=123456789, reset=90"},
	} {
		if got := Header(c.d); got != c.want {
			t.Errorf("Header(%+v) = %q, want %q", c.d, got, c.want)
		}
	}
}

// TakeN spends n tokens at once or none: a call costing more than is left
// is refused without spending, its Retry-After the time until n are back;
// a cost above the burst is charged as the burst, so a full bucket pays it.
func TestTakeN(t *testing.T) {
	lim := auth.RateLimit{RequestsPerSecond: 1, Burst: 30}
	l := &Limiter{def: lim}
	ctx := t.Context()
	if d := l.TakeN(ctx, "key", lim, 20); !d.Allowed || d.Remaining != 10 {
		t.Fatalf("20 of 30: allowed %t, %d left; want allowed, 10 left", d.Allowed, d.Remaining)
	}
	d := l.TakeN(ctx, "key", lim, 20)
	if d.Allowed || d.Remaining != 10 {
		t.Fatalf("20 more of 10: allowed %t, %d left; want refused, 10 left", d.Allowed, d.Remaining)
	}
	if s := CeilSeconds(d.RetryAfter); s != 10 {
		t.Fatalf("Retry-After %d s for 10 missing tokens at 1/s, want 10", s)
	}
	if d := l.TakeN(ctx, "other", lim, 1000); !d.Allowed || d.Remaining != 0 {
		t.Fatalf("1000 of a full bucket of 30: allowed %t, %d left; want the burst charged", d.Allowed, d.Remaining)
	}
}
