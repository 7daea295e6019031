package ipreg

import (
	"context"
	"slices"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/trace"
)

// startSealSpan starts the span of a batch's sealing (ipreg.seal_batch),
// whose children are the batch's statements. A batch seals the
// registrations of several requests at once: its span is a child of the
// first traced request whose trace is sampled (else of the first traced
// one) and links to the others, so every request's trace leads to the
// batch that sealed its record. A batch of untraced requests has no span.
func startSealSpan(ctx context.Context, batch []*pending) (context.Context, trace.Span) {
	var parent trace.Span
	links := make([]trace.Link, 0, len(batch))
	for _, p := range batch {
		if p.traced == nil {
			continue
		}
		sc := p.traced.SpanContext()
		if !sc.IsValid() {
			continue
		}
		if parent == nil || !parent.SpanContext().IsSampled() && sc.IsSampled() {
			parent = p.traced
		}
		links = append(links, trace.Link{SpanContext: sc})
	}
	if parent == nil {
		return ctx, trace.SpanFromContext(ctx) // the sequencer's: a no-op
	}
	// The parent is no link of its own.
	links = slices.DeleteFunc(links, func(l trace.Link) bool { return l.SpanContext.Equal(parent.SpanContext()) })
	tracer := parent.TracerProvider().Tracer("github.com/creativeops/creativeops/ipreg")
	return tracer.Start(trace.ContextWithSpanContext(ctx, parent.SpanContext()), "ipreg.seal_batch",
		trace.WithLinks(links...),
		trace.WithAttributes(attribute.Int("ipreg.batch.records", len(batch))))
}

// endSealSpan ends a batch's span with its outcome: err is the batch's
// transaction's; a failed batch is sealed again one record at a time, so
// some of its records may still have been sealed.
func endSealSpan(span trace.Span, batch []*pending, err error) {
	defer span.End()
	if !span.IsRecording() {
		return
	}
	failed := 0
	for _, p := range batch {
		if p.err != nil {
			failed++
		}
	}
	span.SetAttributes(attribute.Int("ipreg.batch.failed", failed))
	if err != nil {
		span.RecordError(err)
		span.SetStatus(codes.Error, err.Error())
	}
}
