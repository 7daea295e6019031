package jobs

import (
	"context"
	"encoding/json"
	"strconv"

	"github.com/riverqueue/river"
	"github.com/riverqueue/river/rivertype"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/propagation"
	"go.opentelemetry.io/otel/trace"
)

// Tracing is River middleware that traces the queue's jobs: at insert it
// writes the inserting span's W3C trace context (traceparent, tracestate)
// into the job's metadata, and each attempt to work the job is a span
// (river.work/<kind>) linked to that span. A link rather than a parent: a
// job may run long after the request that queued it has answered, or be
// retried hours later, and belongs to a trace of its own. The statements
// and deliveries of the job are children of its span.
//
// (rivercontrib/otelriver does the same from River 0.41 on.)
type Tracing struct {
	river.MiddlewareDefaults
	tracer trace.Tracer
}

// NewTracing returns the middleware, tracing with tp.
func NewTracing(tp trace.TracerProvider) *Tracing {
	return &Tracing{tracer: tp.Tracer("github.com/creativeops/creativeops/jobs")}
}

var traceContext propagation.TraceContext

// InsertMany records the caller's trace context in each job's metadata.
func (t *Tracing) InsertMany(ctx context.Context, manyParams []*rivertype.JobInsertParams, doInner func(context.Context) ([]*rivertype.JobInsertResult, error)) ([]*rivertype.JobInsertResult, error) {
	if trace.SpanContextFromContext(ctx).IsValid() {
		carrier := propagation.MapCarrier{}
		traceContext.Inject(ctx, carrier)
		for _, p := range manyParams {
			p.Metadata = withTraceContext(p.Metadata, carrier)
		}
	}
	return doInner(ctx)
}

// withTraceContext adds carrier's keys to a job's metadata (a JSON
// object; River may have put keys of its own in it).
func withTraceContext(metadata []byte, carrier propagation.MapCarrier) []byte {
	fields := map[string]json.RawMessage{}
	if len(metadata) > 0 {
		if err := json.Unmarshal(metadata, &fields); err != nil {
			return metadata // not ours to repair; the job runs untraced
		}
	}
	for k, v := range carrier {
		b, _ := json.Marshal(v)
		fields[k] = b
	}
	out, err := json.Marshal(fields)
	if err != nil {
		return metadata
	}
	return out
}

// Work runs an attempt inside its span.
func (t *Tracing) Work(ctx context.Context, job *rivertype.JobRow, doInner func(context.Context) error) error {
	opts := []trace.SpanStartOption{
		trace.WithSpanKind(trace.SpanKindConsumer),
		trace.WithAttributes(
			attribute.String("messaging.system", "river"),
			attribute.String("messaging.destination.name", job.Queue),
			attribute.String("river.job.kind", job.Kind),
			attribute.String("river.job.id", strconv.FormatInt(job.ID, 10)),
			attribute.Int("river.job.attempt", job.Attempt),
		),
	}
	if enqueuer := enqueuedBy(job.Metadata); enqueuer.IsValid() {
		opts = append(opts, trace.WithLinks(trace.Link{SpanContext: enqueuer}))
	}
	ctx, span := t.tracer.Start(ctx, "river.work/"+job.Kind, opts...)
	defer span.End()
	err := doInner(ctx)
	if err != nil {
		span.RecordError(err)
		span.SetStatus(codes.Error, err.Error())
	}
	return err
}

// enqueuedBy is the span context InsertMany recorded, if any.
func enqueuedBy(metadata []byte) trace.SpanContext {
	var fields map[string]json.RawMessage
	if json.Unmarshal(metadata, &fields) != nil {
		return trace.SpanContext{}
	}
	carrier := propagation.MapCarrier{}
	for _, k := range traceContext.Fields() {
		var v string
		if raw, ok := fields[k]; ok && json.Unmarshal(raw, &v) == nil {
			carrier[k] = v
		}
	}
	return trace.SpanContextFromContext(traceContext.Extract(context.Background(), carrier))
}
