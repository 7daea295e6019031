package server

import (
	"context"
	"strings"
	"time"

	"google.golang.org/protobuf/types/known/timestamppb"

	"github.com/creativeops/creativeops/analytics"
	"github.com/creativeops/creativeops/apierror"
	creativeopsv1 "github.com/creativeops/creativeops/gen/creativeops/v1"
	"github.com/creativeops/creativeops/storage"
)

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

// CleanUp deletes expired idempotency keys and usage past its retention
// now (tests and administration; the server does it every 10 minutes).
func (s *Server) CleanUp(ctx context.Context) error { return s.janitor.CleanUp(ctx) }

// FlushAnalytics writes the buffered usage aggregates now (tests and
// administration; the flusher does it every AnalyticsFlushInterval).
func (s *Server) FlushAnalytics(ctx context.Context) error {
	if s.flusher == nil {
		return nil
	}
	return s.flusher.Flush(ctx)
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
