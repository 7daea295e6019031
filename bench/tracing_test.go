package bench

import (
	"context"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"sync/atomic"
	"testing"

	coltracepb "go.opentelemetry.io/proto/otlp/collector/trace/v1"
	"google.golang.org/protobuf/proto"

	"github.com/creativeops/creativeops/internal/tracing"
)

// benchTracing is the tracer provider the OTEL_* variables describe, as
// serve builds it, or nil. Without an endpoint the spans go to a receiver
// in this process, which counts them; the count is logged when the
// benchmark ends, to show what the sampler let through.
func benchTracing(b *testing.B, log *slog.Logger) *tracing.Provider {
	b.Helper()
	var spans atomic.Int64
	if os.Getenv("OTEL_TRACES_EXPORTER") == "otlp" && os.Getenv("OTEL_EXPORTER_OTLP_ENDPOINT") == "" {
		sink := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			body, _ := io.ReadAll(r.Body)
			var req coltracepb.ExportTraceServiceRequest
			if proto.Unmarshal(body, &req) == nil {
				for _, rs := range req.GetResourceSpans() {
					for _, ss := range rs.GetScopeSpans() {
						spans.Add(int64(len(ss.GetSpans())))
					}
				}
			}
			out, _ := proto.Marshal(&coltracepb.ExportTraceServiceResponse{})
			w.Header().Set("Content-Type", "application/x-protobuf")
			_, _ = w.Write(out)
		}))
		b.Cleanup(sink.Close)
		b.Setenv("OTEL_EXPORTER_OTLP_ENDPOINT", sink.URL)
		b.Setenv("OTEL_EXPORTER_OTLP_PROTOCOL", tracing.ProtocolHTTP)
	}
	tp, err := tracing.FromEnv(context.Background(), "bench", log)
	if err != nil {
		b.Fatal(err)
	}
	if tp == nil {
		return nil
	}
	b.Cleanup(func() {
		_ = tp.Shutdown(context.Background())
		b.Logf("tracing on: %d spans exported", spans.Load())
	})
	return tp
}
