// Package tracing builds the OpenTelemetry tracer provider of `creativeops
// serve` from the standard OTEL_* environment variables. Tracing is off
// unless OTEL_TRACES_EXPORTER=otlp: the OpenTelemetry default (otlp) would
// make every installation send spans to a collector it does not have.
//
// What the SDK reads itself it is left to: the exporters read
// OTEL_EXPORTER_OTLP_* (endpoint, headers, timeout, compression,
// certificates), the provider OTEL_TRACES_SAMPLER(_ARG), the batch
// processor OTEL_BSP_*, the resource OTEL_SERVICE_NAME and
// OTEL_RESOURCE_ATTRIBUTES. This package only chooses the exporter and
// its protocol, and turns what the SDK would merely log (a misspelt
// sampler, which it replaces by sampling everything) into an error that
// names the variable.
package tracing

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"strings"
	"sync"

	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracegrpc"
	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracehttp"
	"go.opentelemetry.io/otel/sdk/resource"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/trace"
)

// ServiceName is service.name unless OTEL_SERVICE_NAME or
// OTEL_RESOURCE_ATTRIBUTES says otherwise.
const ServiceName = "creativeops"

// Protocols of OTEL_EXPORTER_OTLP_PROTOCOL (and its _TRACES_ form).
const (
	ProtocolHTTP = "http/protobuf"
	ProtocolGRPC = "grpc"
)

// Provider is a configured tracer provider and its shutdown, which sends
// the spans still buffered.
type Provider struct {
	trace.TracerProvider
	Shutdown func(context.Context) error
	// Exporter and Protocol describe where spans go, for the start log.
	Exporter, Protocol string
}

// FromEnv builds the tracer provider the environment describes, or returns
// nil when tracing is off. version is the service.version attribute.
// Errors the SDK reports later (an export that failed) go to log.
func FromEnv(ctx context.Context, version string, log *slog.Logger) (*Provider, error) {
	getenv := os.Getenv // the SDK reads the process's environment too
	if strings.EqualFold(strings.TrimSpace(getenv("OTEL_SDK_DISABLED")), "true") {
		return nil, nil
	}
	switch exp := strings.TrimSpace(getenv("OTEL_TRACES_EXPORTER")); exp {
	case "", "none":
		return nil, nil
	case "otlp":
	default:
		return nil, fmt.Errorf("OTEL_TRACES_EXPORTER: want otlp or none, not %q", exp)
	}
	protocol := firstSet(getenv, "OTEL_EXPORTER_OTLP_TRACES_PROTOCOL", "OTEL_EXPORTER_OTLP_PROTOCOL")
	if protocol == "" {
		protocol = ProtocolHTTP
	}

	handler := &errorHandler{log: log}
	otel.SetErrorHandler(handler)

	var (
		exporter sdktrace.SpanExporter
		err      error
	)
	switch protocol {
	case ProtocolHTTP:
		exporter, err = otlptracehttp.New(ctx)
	case ProtocolGRPC:
		exporter, err = otlptracegrpc.New(ctx)
	default:
		return nil, fmt.Errorf("OTEL_EXPORTER_OTLP_PROTOCOL: want %s or %s, not %q", ProtocolHTTP, ProtocolGRPC, protocol)
	}
	if err != nil {
		return nil, fmt.Errorf("OTLP trace exporter: %w", err)
	}
	// Later detectors win: the environment's service.name over ours.
	res, err := resource.New(ctx,
		resource.WithTelemetrySDK(),
		resource.WithAttributes(attribute.String("service.name", ServiceName), attribute.String("service.version", version)),
		resource.WithFromEnv(),
	)
	if err != nil {
		return nil, errors.Join(fmt.Errorf("OTEL_RESOURCE_ATTRIBUTES: %w", err), exporter.Shutdown(ctx))
	}
	// The provider reports a sampler it cannot use through the global
	// error handler, and samples everything instead; here that is a
	// configuration error.
	handler.begin()
	tp := sdktrace.NewTracerProvider(sdktrace.WithBatcher(exporter), sdktrace.WithResource(res))
	if err := handler.done(); err != nil {
		variable := "OTEL_TRACES_SAMPLER_ARG"
		if !samplers[strings.TrimSpace(getenv("OTEL_TRACES_SAMPLER"))] {
			variable = "OTEL_TRACES_SAMPLER"
		}
		return nil, errors.Join(fmt.Errorf("%s: %w", variable, err), tp.Shutdown(ctx))
	}
	return &Provider{TracerProvider: tp, Shutdown: tp.Shutdown, Exporter: "otlp", Protocol: protocol}, nil
}

// samplers are the OTEL_TRACES_SAMPLER values the SDK knows: with one of
// them, what it reports is about the argument.
var samplers = map[string]bool{
	"always_on": true, "always_off": true, "traceidratio": true,
	"parentbased_always_on": true, "parentbased_always_off": true, "parentbased_traceidratio": true,
}

func firstSet(getenv func(string) string, names ...string) string {
	for _, n := range names {
		if v := strings.TrimSpace(getenv(n)); v != "" {
			return v
		}
	}
	return ""
}

// errorHandler collects the SDK's errors while the provider is built and
// logs them otherwise (failed exports, dropped spans).
type errorHandler struct {
	log      *slog.Logger
	mu       sync.Mutex
	building bool
	errs     []error
}

func (h *errorHandler) Handle(err error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.building {
		h.errs = append(h.errs, err)
		return
	}
	h.log.Warn("tracing", "error", err)
}

// begin starts collecting.
func (h *errorHandler) begin() {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.building = true
}

// done ends the build and returns what went wrong during it.
func (h *errorHandler) done() error {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.building = false
	return errors.Join(h.errs...)
}
