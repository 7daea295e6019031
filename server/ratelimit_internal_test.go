package server

import (
	"net/http"
	"reflect"
	"testing"
	"time"

	"github.com/creativeops/creativeops/auth"
	"github.com/creativeops/creativeops/ratelimit"
)

// A charge reports itself alike on HTTP responses and in gRPC metadata:
// setHeaders writes headers() directly.
func TestRateChargeHeadersAgree(t *testing.T) {
	lim := auth.RateLimit{RequestsPerSecond: 2.5, Burst: 10}
	for _, d := range []ratelimit.Decision{
		{Allowed: true, Limit: lim, Remaining: 7, Reset: 1200 * time.Millisecond},
		{Allowed: false, Limit: lim, Remaining: 0, Reset: 4 * time.Second, RetryAfter: 1500 * time.Millisecond},
	} {
		c := rateCharge{lim: lim, d: d}
		want := http.Header{}
		for k, v := range c.headers() {
			want[http.CanonicalHeaderKey(k)] = v
		}
		got := http.Header{}
		c.setHeaders(got)
		if !reflect.DeepEqual(got, want) {
			t.Errorf("allowed %v: setHeaders wrote %v; headers() are %v", d.Allowed, got, want)
		}
	}
}
