package webhooks

import (
	"context"
	"net/url"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/propagation"
	"go.opentelemetry.io/otel/trace"
)

var traceContext propagation.TraceContext

// startDeliverySpan starts an attempt's span with the tracer of the span
// in ctx (the delivery job's), so an untraced caller pays for no more
// than a no-op. The endpoint's host is recorded, not its URL: receivers
// put tokens in paths and queries.
func startDeliverySpan(ctx context.Context, endpoint string, ev Event) (context.Context, trace.Span) {
	tracer := trace.SpanFromContext(ctx).TracerProvider().Tracer("github.com/creativeops/creativeops/webhooks")
	ctx, span := tracer.Start(ctx, "webhook.deliver", trace.WithSpanKind(trace.SpanKindClient))
	if span.IsRecording() {
		span.SetAttributes(
			attribute.String("http.request.method", "POST"),
			attribute.String("webhook.event.id", ev.ID),
			attribute.String("webhook.event.type", ev.Type),
		)
		if u, err := url.Parse(endpoint); err == nil {
			span.SetAttributes(attribute.String("server.address", u.Hostname()))
		}
	}
	return ctx, span
}

func endDeliverySpan(span trace.Span, a Attempt) {
	if !span.IsRecording() {
		span.End()
		return
	}
	span.SetAttributes(attribute.String("webhook.outcome", string(a.Outcome)))
	if a.StatusCode != 0 {
		span.SetAttributes(attribute.Int("http.response.status_code", a.StatusCode))
	}
	if a.Outcome != Succeeded {
		span.SetStatus(codes.Error, a.Err)
	}
	span.End()
}
