package server

import (
	"context"
	"fmt"
	"maps"
	"net/http"
	"strconv"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/metadata"

	"github.com/creativeops/creativeops/apierror"
	"github.com/creativeops/creativeops/auth"
	"github.com/creativeops/creativeops/ratelimit"
)

// rateCharge is a key's token spent for one request: its limit and the
// limiter's decision.
type rateCharge struct {
	lim auth.RateLimit
	d   ratelimit.Decision
}

// chargeRate spends a token of p's key.
func (s *Server) chargeRate(ctx context.Context, p *auth.Principal) rateCharge {
	lim := s.cfg.RateLimit
	if p.RateLimit != nil && p.RateLimit.RequestsPerSecond > 0 && p.RateLimit.Burst > 0 {
		lim = *p.RateLimit
	}
	return rateCharge{lim: lim, d: s.limiter.Take(ctx, p.KeyID, lim)}
}

// rateHeaders are the headers that report a charge, as gRPC metadata keys
// and as canonical HTTP names: an HTTP response's are set directly, since
// going through metadata (a map, and each name canonicalized) cost every
// REST call four allocations.
var rateHeaders = [...]struct{ key, name string }{
	{"ratelimit-policy", "Ratelimit-Policy"},
	{"ratelimit", "Ratelimit"},
	{"retry-after", "Retry-After"},
}

// values are the charge's first n header values, in rateHeaders' order: a
// charge that was allowed has no Retry-After.
func (c rateCharge) values() (v [len(rateHeaders)]string, n int) {
	v[0], v[1], n = ratelimit.PolicyHeader(c.lim), ratelimit.Header(c.d), 2
	if !c.d.Allowed {
		v[2], n = strconv.Itoa(c.retryAfter()), 3
	}
	return v, n
}

// headers are the response headers that report the charge.
func (c rateCharge) headers() metadata.MD {
	v, n := c.values()
	md := make(metadata.MD, n)
	for i := range n {
		md[rateHeaders[i].key] = []string{v[i]}
	}
	return md
}

// setHeaders writes the headers that report the charge on an HTTP
// response (a route answered before the gateway or the interceptors).
func (c rateCharge) setHeaders(h http.Header) {
	v, n := c.values()
	for i := range n {
		h[rateHeaders[i].name] = []string{v[i]}
	}
}

func (c rateCharge) retryAfter() int { return max(1, ratelimit.CeilSeconds(c.d.RetryAfter)) }

// refusal is the error of a request beyond its key's limit.
func (c rateCharge) refusal(keyID string) *apierror.Error {
	return c.exceeded("this API key may make %s requests per second", map[string]string{"key_id": keyID})
}

// exceeded is the error of a request beyond the limit the charge spent:
// allowance says who may do how much (a %s for the rate); metadata joins
// the retry delay in the error's details.
func (c rateCharge) exceeded(allowance string, metadata map[string]string) *apierror.Error {
	retry := c.retryAfter()
	e := apierror.New(codes.ResourceExhausted, "RATE_LIMITED", fmt.Sprintf(
		"rate limit exceeded: "+allowance+" (bursts of %d); retry after %d s",
		strconv.FormatFloat(c.lim.RequestsPerSecond, 'f', -1, 64), c.lim.Burst, retry))
	e.Metadata = map[string]string{"retry_after_seconds": strconv.Itoa(retry)}
	maps.Copy(e.Metadata, metadata)
	return e
}

// limitRate runs after authentication: every authenticated call spends a
// token of its key (unless it spent it over HTTP before its body was read:
// see admit), and every response says how many are left.
func (s *Server) limitRate(ctx context.Context, req any, info *grpc.UnaryServerInfo, handler grpc.UnaryHandler) (any, error) {
	p, ok := auth.FromContext(ctx)
	if !ok {
		return handler(ctx, req)
	}
	a, _ := admittedFrom(ctx)
	c := a.charge
	if !a.charged {
		c = s.chargeRate(ctx, p)
		// A charge made at admission wrote its headers on the HTTP
		// response already: the gateway and the transcoder would add
		// these to them, and clients joined the two copies into one
		// malformed value.
		_ = grpc.SetHeader(ctx, c.headers())
	}
	if c.d.Allowed {
		return handler(ctx, req)
	}
	s.metrics.rateLimited.Inc()
	return nil, c.refusal(p.KeyID)
}
