package server

import (
	"context"
	"fmt"
	"strconv"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/metadata"

	"github.com/creativeops/creativeops/apierror"
	"github.com/creativeops/creativeops/auth"
	"github.com/creativeops/creativeops/ratelimit"
)

// limitRate runs after authentication: every authenticated call spends a
// token of its key, and every response says how many are left.
func (s *Server) limitRate(ctx context.Context, req any, info *grpc.UnaryServerInfo, handler grpc.UnaryHandler) (any, error) {
	p, ok := auth.FromContext(ctx)
	if !ok {
		return handler(ctx, req)
	}
	lim := s.cfg.RateLimit
	if p.RateLimit != nil && p.RateLimit.RequestsPerSecond > 0 && p.RateLimit.Burst > 0 {
		lim = *p.RateLimit
	}
	d := s.limiter.Take(ctx, p.KeyID, lim)
	md := metadata.Pairs("ratelimit-policy", ratelimit.PolicyHeader(lim), "ratelimit", ratelimit.Header(d))
	if d.Allowed {
		_ = grpc.SetHeader(ctx, md)
		return handler(ctx, req)
	}
	retry := max(1, ratelimit.CeilSeconds(d.RetryAfter))
	md.Set("retry-after", strconv.Itoa(retry))
	_ = grpc.SetHeader(ctx, md)
	s.metrics.rateLimited.Inc()
	e := apierror.New(codes.ResourceExhausted, "RATE_LIMITED", fmt.Sprintf(
		"rate limit exceeded: this API key may make %s requests per second (bursts of %d); retry after %d s",
		strconv.FormatFloat(lim.RequestsPerSecond, 'f', -1, 64), lim.Burst, retry))
	e.Metadata = map[string]string{"retry_after_seconds": strconv.Itoa(retry), "key_id": p.KeyID}
	return nil, e
}
