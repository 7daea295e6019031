package server

import (
	"context"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/types/known/timestamppb"

	"github.com/creativeops/creativeops/analytics"
	"github.com/creativeops/creativeops/apierror"
	creativeopsv1 "github.com/creativeops/creativeops/gen/creativeops/v1"
	"github.com/creativeops/creativeops/storage"
)

// startAnalytics sets up usage recording (unless disabled) and its
// periodic flush to the database.
func (s *Server) startAnalytics() {
	if s.cfg.DisableAnalytics {
		return
	}
	s.usage = analytics.NewRecorder()
	s.flusher = &analytics.Flusher{Recorder: s.usage, Store: s.store, Interval: s.cfg.AnalyticsFlushInterval, Log: s.log}
	s.flusher.Start()
}

// stopAnalytics writes what is still buffered; it runs once requests have
// finished and before the database closes.
func (s *Server) stopAnalytics(ctx context.Context) error {
	if s.flusher == nil {
		return nil
	}
	if ctx.Err() != nil {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
	}
	return s.flusher.Stop(ctx)
}

// FlushAnalytics writes the buffered usage aggregates now (tests and
// administration; the flusher does it every AnalyticsFlushInterval).
func (s *Server) FlushAnalytics(ctx context.Context) error {
	if s.flusher == nil {
		return nil
	}
	return s.flusher.Flush(ctx)
}

// observeHTTP counts a REST request once its response is written: always in
// the Prometheus metrics, and in the usage analytics when it was
// authenticated (its organization is known).
func (s *Server) observeHTTP(r *http.Request, ri *requestInfo, code int, start time.Time) {
	d := time.Since(start)
	if code == 0 {
		code = http.StatusOK
	}
	method, route := ri.route.Method, ri.route.Template
	if route == "" {
		method, route = r.Method, unroutedPath(r.URL.Path)
	}
	s.metrics.observe("rest", method, route, code, d)
	if s.usage != nil && ri.orgID != "" && ri.route.Template != "" {
		s.usage.Record(start, ri.orgID, ri.keyID, method, route, code, d)
	}
}

// unroutedPath names requests outside the API methods without letting
// arbitrary paths become metric labels.
func unroutedPath(path string) string {
	switch path {
	case "/healthz", "/readyz", "/metrics", "/v1/openapi.json":
		return path
	}
	return "unmatched"
}

// observeCalls is the metrics interceptor for native gRPC calls; calls
// through the REST gateway are counted by observeHTTP with their final
// HTTP status instead, so every request is counted once.
func (s *Server) observeCalls(ctx context.Context, req any, info *grpc.UnaryServerInfo, handler grpc.UnaryHandler) (any, error) {
	if cameViaGateway(ctx) {
		return handler(ctx, req)
	}
	start := time.Now()
	ctx, hc := captureHeaders(ctx)
	resp, err := handler(ctx, req)
	code := http.StatusOK
	if err != nil {
		code = httpStatus(status.Convert(err))
	} else if c := hc.status(); c != 0 {
		code = c
	}
	d := time.Since(start)
	rt := s.routes[info.FullMethod]
	method, route := rt.Method, rt.Template
	if route == "" {
		// Health checks and reflection: registered methods, a closed set.
		method, route = "POST", "other"
		if publicMethods[info.FullMethod] {
			route = info.FullMethod
		}
	}
	s.metrics.observe("grpc", method, route, code, d)
	if ri := requestInfoFrom(ctx); s.usage != nil && ri != nil && ri.orgID != "" && rt.Template != "" {
		s.usage.Record(start, ri.orgID, ri.keyID, method, route, code, d)
	}
	return resp, err
}

// headerCapture passes response headers on while remembering the HTTP
// status and location a handler asked the REST facade for.
type headerCapture struct {
	grpc.ServerTransportStream
	mu       sync.Mutex
	httpCode int
	location string
}

func captureHeaders(ctx context.Context) (context.Context, *headerCapture) {
	c := &headerCapture{ServerTransportStream: grpc.ServerTransportStreamFromContext(ctx)}
	if c.ServerTransportStream == nil {
		return ctx, c
	}
	return grpc.NewContextWithServerTransportStream(ctx, c), c
}

func (c *headerCapture) note(md metadata.MD) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if v := md.Get(headerHTTPCode); len(v) > 0 {
		if n, err := strconv.Atoi(v[0]); err == nil {
			c.httpCode = n
		}
	}
	if v := md.Get(headerLocation); len(v) > 0 {
		c.location = v[0]
	}
}

func (c *headerCapture) status() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.httpCode
}

func (c *headerCapture) locationHeader() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.location
}

func (c *headerCapture) SetHeader(md metadata.MD) error {
	c.note(md)
	return c.ServerTransportStream.SetHeader(md)
}

func (c *headerCapture) SendHeader(md metadata.MD) error {
	c.note(md)
	return c.ServerTransportStream.SendHeader(md)
}

// analyticsService serves GET /v1/analytics/usage.
type analyticsService struct {
	creativeopsv1.UnimplementedAnalyticsServiceServer
	store *storage.Store
}

func (a *analyticsService) GetUsage(ctx context.Context, req *creativeopsv1.GetUsageRequest) (*creativeopsv1.UsageReport, error) {
	p := principal(ctx)
	to := time.Now().UTC()
	if req.GetTo() != nil {
		to = req.GetTo().AsTime()
	}
	from := to.Add(-24 * time.Hour)
	if req.GetFrom() != nil {
		from = req.GetFrom().AsTime()
	}
	gran := analytics.Granularity(strings.ToLower(req.GetGranularity()))
	if gran == "" {
		gran = analytics.Hour
	}
	q := analytics.Query{Org: p.OrganizationID, KeyID: req.GetKeyId(), From: from, To: to, Granularity: gran}
	if field, problem := q.Check(); field != "" {
		return nil, apierror.InvalidField(field, problem)
	}
	rep, err := analytics.Usage(ctx, a.store, q)
	if err != nil {
		return nil, err
	}
	out := &creativeopsv1.UsageReport{
		From:        timestamppb.New(from),
		To:          timestamppb.New(to),
		Granularity: string(gran),
		Totals: &creativeopsv1.UsageTotals{
			Requests:  rep.Totals.Requests,
			Errors:    rep.Totals.Errors,
			ErrorRate: rep.Totals.ErrorRate(),
			P50Ms:     rep.Totals.Latency.QuantileMillis(0.50),
			P95Ms:     rep.Totals.Latency.QuantileMillis(0.95),
			P99Ms:     rep.Totals.Latency.QuantileMillis(0.99),
		},
		Endpoints: make([]*creativeopsv1.EndpointUsage, len(rep.Endpoints)),
		Series:    make([]*creativeopsv1.UsagePoint, len(rep.Series)),
		Jobs: &creativeopsv1.JobStats{
			Queued:        rep.Jobs.Queued,
			Processing:    rep.Jobs.Processing,
			Completed:     rep.Jobs.Completed,
			Failed:        rep.Jobs.Failed,
			Canceled:      rep.Jobs.Canceled,
			AvgDurationMs: rep.Jobs.AvgDurationMS,
		},
	}
	for i, e := range rep.Endpoints {
		out.Endpoints[i] = &creativeopsv1.EndpointUsage{
			Method: e.Method, Route: e.Route, Requests: e.Requests, Errors: e.Errors,
			P50Ms: e.Latency.QuantileMillis(0.50), P95Ms: e.Latency.QuantileMillis(0.95), P99Ms: e.Latency.QuantileMillis(0.99),
		}
	}
	for i, pt := range rep.Series {
		out.Series[i] = &creativeopsv1.UsagePoint{
			Start: timestamppb.New(pt.Start), Requests: pt.Requests, Errors: pt.Errors, P99Ms: pt.Latency.QuantileMillis(0.99),
		}
	}
	return out, nil
}
