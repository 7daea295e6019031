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
	"github.com/creativeops/creativeops/internal/rpcrule"
	"github.com/creativeops/creativeops/ratelimit"
)

// rateCharge is a key's token spent for one request: its limit and the
// limiter's decision.
type rateCharge struct {
	lim  auth.RateLimit
	d    ratelimit.Decision
	cost int // tokens spent (or refused)
}

// chargeRate spends cost tokens of p's key.
func (s *Server) chargeRate(ctx context.Context, p *auth.Principal, cost int) rateCharge {
	lim := s.cfg.RateLimit
	if p.RateLimit != nil && p.RateLimit.RequestsPerSecond > 0 && p.RateLimit.Burst > 0 {
		lim = *p.RateLimit
	}
	return rateCharge{lim: lim, d: s.limiter.TakeN(ctx, p.KeyID, lim, cost), cost: cost}
}

// A call costs one token, as one request; a list costs one token per
// basicItemsPerToken items it asks for (page_size, or its default), or per
// fullItemsPerToken in its full view: a page of 200 whole plans was a
// thousand reads' worth of bytes and CPU. The cost is what the call asks
// for, as GitHub's GraphQL API charges a query by the nodes it may return,
// so it is known before the call runs and refused before it does work.
const (
	basicItemsPerToken = 50
	fullItemsPerToken  = 10
)

func listCost(size int32, view string) int {
	per := basicItemsPerToken
	if view == viewFull {
		per = fullItemsPerToken
	}
	return (pageSize(size) + per - 1) / per
}

// callCost is the tokens a decoded request costs.
func callCost(req any) int {
	r, ok := req.(pagedRequest)
	if !ok {
		return 1
	}
	var view string
	if v, ok := req.(interface{ GetView() string }); ok {
		view = v.GetView()
	}
	return listCost(r.GetPageSize(), view)
}

// queryCost is callCost of a REST call, read from its query before the
// gateway decodes it (admission charges the call before that). A
// page_size that is not a number costs the default page: the validator
// refuses the call anyway.
func queryCost(m rpcrule.Method, r *http.Request) int {
	if m.HTTPMethod != http.MethodGet || m.Descriptor == nil || m.Descriptor.Input().Fields().ByName("page_size") == nil {
		return 1
	}
	q := r.URL.Query()
	size := q.Get("page_size")
	if size == "" {
		size = q.Get("pageSize")
	}
	n, _ := strconv.ParseInt(size, 10, 32)
	return listCost(int32(n), q.Get("view"))
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
	allowance := "this API key may make %s requests per second"
	if c.cost > 1 {
		allowance = "this call costs " + strconv.Itoa(c.cost) + " requests' worth of the limit, and this API key may make %s requests per second"
	}
	return c.exceeded(allowance, map[string]string{"key_id": keyID, "cost": strconv.Itoa(max(c.cost, 1))})
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

// limitRate runs after authentication: every authenticated call spends its
// cost in tokens of its key (unless it spent them over HTTP before its
// body was read: see admit), and every response says how many are left.
func (s *Server) limitRate(ctx context.Context, req any, info *grpc.UnaryServerInfo, handler grpc.UnaryHandler) (any, error) {
	p, ok := auth.FromContext(ctx)
	if !ok {
		return handler(ctx, req)
	}
	a, _ := admittedFrom(ctx)
	c := a.charge
	cost := callCost(req)
	if a.charged && c.d.Allowed && cost > c.cost {
		// A Connect or gRPC-Web list, admitted at one token before its
		// body said how much it asks for, pays the rest now. The headers
		// admission wrote stay: they reported the bucket when they were
		// written.
		c = s.chargeRate(ctx, p, cost-c.cost)
		c.cost = cost // what a refusal says the call costs
	}
	if !a.charged {
		c = s.chargeRate(ctx, p, cost)
	}
	// A charge made at admission wrote its headers on the HTTP response
	// already, but for native gRPC: the gateway and the transcoder would
	// add these to them, and clients joined the two copies into one
	// malformed value.
	if !a.charged || a.headersLater {
		_ = grpc.SetHeader(ctx, c.headers())
	}
	if c.d.Allowed {
		return handler(ctx, req)
	}
	s.metrics.rateLimited.Inc()
	return nil, c.refusal(p.KeyID)
}
