package server

import (
	"context"
	"net/http"
	"strings"

	"go.opentelemetry.io/contrib/instrumentation/google.golang.org/grpc/otelgrpc"
	"go.opentelemetry.io/contrib/instrumentation/net/http/otelhttp"
	"go.opentelemetry.io/otel/attribute"
	metricnoop "go.opentelemetry.io/otel/metric/noop"
	"go.opentelemetry.io/otel/propagation"
	"go.opentelemetry.io/otel/trace"
	"google.golang.org/grpc"
	"google.golang.org/grpc/stats"

	"github.com/creativeops/creativeops/internal/rpcrule"
)

// Span attributes naming the caller and the request, beside the
// OpenTelemetry HTTP and RPC conventions' own (http.route, rpc.method).
const (
	attrOrganization = "creativeops.organization_id"
	attrRequestID    = "creativeops.request_id"
)

// traceContext is the propagation every transport reads: W3C traceparent
// and tracestate, as HTTP headers or gRPC metadata.
var traceContext propagation.TraceContext

// traceHTTP gives every HTTP request but native gRPC a server span: REST,
// Connect, gRPC-Web, the dashboard and OAuth. Native gRPC calls get theirs
// from the gRPC server's stats handler (grpcTracing), whichever way they
// arrive, so they are left out here rather than traced twice. Probes and
// scrapes, every few seconds from every orchestrator, are not traced.
// The span is named by the method alone until the route is known
// (traceRoute): naming it by the path would make one name per resource.
func (s *Server) traceHTTP(next http.Handler) http.Handler {
	if s.cfg.TracerProvider == nil {
		return next
	}
	return otelhttp.NewHandler(next, "http",
		otelhttp.WithTracerProvider(s.cfg.TracerProvider),
		otelhttp.WithPropagators(traceContext),
		// The service's metrics are Prometheus's (GET /metrics).
		otelhttp.WithMeterProvider(metricnoop.NewMeterProvider()),
		otelhttp.WithFilter(func(r *http.Request) bool {
			if r.ProtoMajor == 2 && isNativeGRPC(r.Header.Get("Content-Type")) {
				return false
			}
			switch r.URL.Path {
			case "/healthz", "/readyz", "/metrics":
				return false
			}
			return true
		}),
		otelhttp.WithSpanNameFormatter(func(_ string, r *http.Request) string { return r.Method }),
	)
}

// continueTrace makes a Connect or gRPC-Web call's HTTP span the parent of
// the gRPC server's span of the call: the transcoder hands the request's
// headers to the gRPC server as metadata, whose traceparent would
// otherwise still name the client's span.
func (s *Server) continueTrace(r *http.Request) {
	if s.cfg.TracerProvider != nil {
		traceContext.Inject(r.Context(), propagation.HeaderCarrier(r.Header))
	}
}

// grpcTracing is the gRPC server's stats handler giving every native gRPC
// call (and every Connect and gRPC-Web call, which reach the gRPC server
// transcoded) a span named by its full method. Health checks are not
// traced.
func (s *Server) grpcTracing() []grpc.ServerOption {
	if s.cfg.TracerProvider == nil {
		return nil
	}
	return []grpc.ServerOption{grpc.StatsHandler(otelgrpc.NewServerHandler(
		otelgrpc.WithTracerProvider(s.cfg.TracerProvider),
		otelgrpc.WithPropagators(traceContext),
		otelgrpc.WithMeterProvider(metricnoop.NewMeterProvider()),
		otelgrpc.WithFilter(func(info *stats.RPCTagInfo) bool {
			return !strings.HasPrefix(info.FullMethodName, "/grpc.health.v1.")
		}),
	))}
}

// traceRoute names a REST request's span by its route ("GET
// /v1/creators/{creator_id}") and records who made it, once both are
// known: the route when the gateway matched it, the organization after
// authentication.
func (s *Server) traceRoute(r *http.Request, ri *requestInfo) {
	if s.cfg.TracerProvider == nil {
		return
	}
	span := trace.SpanFromContext(r.Context())
	if !span.IsRecording() {
		return
	}
	method, route := restRoute(r, ri)
	span.SetName(method + " " + route)
	span.SetAttributes(attribute.String("http.route", route))
	annotate(span, ri)
}

// traceRPCRoute names a Connect or gRPC-Web request's HTTP span by the RPC
// it calls (the call's own span, under it, is the gRPC server's).
func (s *Server) traceRPCRoute(r *http.Request, ri *requestInfo) {
	if s.cfg.TracerProvider == nil {
		return
	}
	span := trace.SpanFromContext(r.Context())
	if !span.IsRecording() {
		return
	}
	route := "unmatched"
	if _, known := rpcrule.Lookup(r.URL.Path); known || publicMethods[r.URL.Path] {
		route = r.URL.Path
	}
	span.SetName(r.Method + " " + route)
	span.SetAttributes(attribute.String("http.route", route))
	annotate(span, ri)
}

// traceCall records who made a call on its span: the gRPC server's span of
// a native gRPC, Connect or gRPC-Web call, the HTTP span of a REST call
// (which traceRoute annotates too, also when the call never reached the
// interceptors).
func (s *Server) traceCall(ctx context.Context, ri *requestInfo) {
	if s.cfg.TracerProvider == nil {
		return
	}
	if span := trace.SpanFromContext(ctx); span.IsRecording() {
		annotate(span, ri)
	}
}

func annotate(span trace.Span, ri *requestInfo) {
	if ri == nil {
		return
	}
	if ri.id != "" {
		span.SetAttributes(attribute.String(attrRequestID, ri.id))
	}
	if ri.orgID != "" {
		span.SetAttributes(attribute.String(attrOrganization, ri.orgID))
	}
}
