package main

import (
	"context"
	"encoding/hex"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	coltracepb "go.opentelemetry.io/proto/otlp/collector/trace/v1"
	commonpb "go.opentelemetry.io/proto/otlp/common/v1"
	tracepb "go.opentelemetry.io/proto/otlp/trace/v1"
	"google.golang.org/grpc"
	"google.golang.org/protobuf/proto"

	"github.com/creativeops/creativeops/server"
)

// collector is an OTLP receiver: what it was sent, by resource.
type collector struct {
	mu    sync.Mutex
	spans []*tracepb.ResourceSpans
}

func (c *collector) add(req *coltracepb.ExportTraceServiceRequest) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.spans = append(c.spans, req.GetResourceSpans()...)
}

// receivedSpan is a span as the collector got it, with its resource.
type receivedSpan struct {
	*tracepb.Span
	resource map[string]string
}

func (c *collector) received() []receivedSpan {
	c.mu.Lock()
	defer c.mu.Unlock()
	var out []receivedSpan
	for _, rs := range c.spans {
		res := attrs(rs.GetResource().GetAttributes())
		for _, ss := range rs.GetScopeSpans() {
			for _, s := range ss.GetSpans() {
				out = append(out, receivedSpan{s, res})
			}
		}
	}
	return out
}

func attrs(kvs []*commonpb.KeyValue) map[string]string {
	m := map[string]string{}
	for _, kv := range kvs {
		m[kv.GetKey()] = kv.GetValue().GetStringValue()
	}
	return m
}

// otlpHTTP is an OTLP/HTTP receiver (binary protobuf on /v1/traces).
func otlpHTTP(t *testing.T) (*collector, string) {
	c := &collector{}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, err := io.ReadAll(r.Body)
		var req coltracepb.ExportTraceServiceRequest
		if r.URL.Path != "/v1/traces" || r.Header.Get("Content-Type") != "application/x-protobuf" || err != nil || proto.Unmarshal(body, &req) != nil {
			t.Errorf("OTLP receiver: %s %s %s: %v", r.Method, r.URL.Path, r.Header.Get("Content-Type"), err)
			http.Error(w, "bad export", http.StatusBadRequest)
			return
		}
		c.add(&req)
		b, _ := proto.Marshal(&coltracepb.ExportTraceServiceResponse{})
		w.Header().Set("Content-Type", "application/x-protobuf")
		_, _ = w.Write(b)
	}))
	t.Cleanup(srv.Close)
	return c, srv.URL
}

// otlpGRPC is an OTLP/gRPC receiver (the TraceService).
type otlpGRPC struct {
	coltracepb.UnimplementedTraceServiceServer
	*collector
}

func (g otlpGRPC) Export(_ context.Context, req *coltracepb.ExportTraceServiceRequest) (*coltracepb.ExportTraceServiceResponse, error) {
	g.add(req)
	return &coltracepb.ExportTraceServiceResponse{}, nil
}

func startOTLPGRPC(t *testing.T) (*collector, string) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	c := &collector{}
	srv := grpc.NewServer()
	coltracepb.RegisterTraceServiceServer(srv, otlpGRPC{collector: c})
	go func() { _ = srv.Serve(ln) }()
	t.Cleanup(srv.Stop)
	return c, "http://" + ln.Addr().String()
}

// `creativeops serve`, configured by the standard OTEL_* variables only,
// sends its spans to a real OTLP receiver over either protocol: with its
// resource (service name and attributes from the environment), sampled as
// OTEL_TRACES_SAMPLER says, and flushed at shutdown.
func TestServeExportsTracesOverOTLP(t *testing.T) {
	for _, protocol := range []string{"http/protobuf", "grpc"} {
		t.Run(protocol, func(t *testing.T) {
			var (
				c        *collector
				endpoint string
			)
			if protocol == "grpc" {
				c, endpoint = startOTLPGRPC(t)
			} else {
				c, endpoint = otlpHTTP(t)
			}
			t.Setenv("OTEL_TRACES_EXPORTER", "otlp")
			t.Setenv("OTEL_EXPORTER_OTLP_PROTOCOL", protocol)
			t.Setenv("OTEL_EXPORTER_OTLP_ENDPOINT", endpoint)
			t.Setenv("OTEL_SERVICE_NAME", "creativeops-ci")
			t.Setenv("OTEL_RESOURCE_ATTRIBUTES", "deployment.environment.name=ci")
			// 1 %: only the caller's decision makes a request's trace.
			t.Setenv("OTEL_TRACES_SAMPLER", "parentbased_traceidratio")
			t.Setenv("OTEL_TRACES_SAMPLER_ARG", "0.01")

			dataDir := t.TempDir()
			var logs syncBuffer
			addr, stop := startServe(t, &logs, "--data-dir", dataDir)
			keyFile := filepath.Join(dataDir, server.BootstrapKeyFile)
			waitFor(t, "the bootstrap key file", func() bool { _, err := os.Stat(keyFile); return err == nil })
			// The file exists before its key is written into it and
			// committed (server.Bootstrap); the server answers once both are
			// done: on a busy machine the key read at once was cut short.
			waitFor(t, "readiness", func() bool { return get(addr, "/readyz", "") == 200 })
			b, err := os.ReadFile(keyFile)
			if err != nil {
				t.Fatal(err)
			}
			key := strings.TrimSpace(string(b))

			const (
				sampledTrace   = "5ca1ab1e000000000000000000000001"
				unsampledTrace = "5ca1ab1e000000000000000000000002"
				clientSpan     = "00f067aa0ba902b7"
			)
			call := func(traceID, flags string) string {
				req, _ := http.NewRequest("GET", "http://"+addr+"/v1/creators", nil)
				req.Header.Set("Authorization", "Bearer "+key)
				req.Header.Set("Traceparent", "00-"+traceID+"-"+clientSpan+"-"+flags)
				resp, err := http.DefaultClient.Do(req)
				if err != nil {
					t.Fatal(err)
				}
				resp.Body.Close()
				if resp.StatusCode != http.StatusOK {
					t.Fatalf("GET /v1/creators: %d", resp.StatusCode)
				}
				return resp.Header.Get("X-Request-Id")
			}
			requestID := call(sampledTrace, "01")
			call(unsampledTrace, "00")
			stop() // flushes the batch of spans

			if !strings.Contains(logs.String(), `"protocol":"`+protocol+`"`) {
				t.Errorf("the start log does not say tracing is on:\n%s", logs.String())
			}
			var request *receivedSpan
			byParent := map[string][]receivedSpan{}
			for _, s := range c.received() {
				id := hex.EncodeToString(s.GetTraceId())
				if id == unsampledTrace {
					t.Errorf("span %s of the trace the caller did not sample was exported", s.GetName())
				}
				if id != sampledTrace {
					continue
				}
				byParent[hex.EncodeToString(s.GetParentSpanId())] = append(byParent[hex.EncodeToString(s.GetParentSpanId())], s)
				if s.GetName() == "GET /v1/creators" {
					request = &s
				}
			}
			if request == nil {
				t.Fatalf("no span of the request among %d received", len(c.received()))
			}
			if got := hex.EncodeToString(request.GetParentSpanId()); got != clientSpan {
				t.Errorf("the request's span has parent %s, want the caller's %s", got, clientSpan)
			}
			if request.GetKind() != tracepb.Span_SPAN_KIND_SERVER {
				t.Errorf("kind %v", request.GetKind())
			}
			a := attrs(request.GetAttributes())
			if a["creativeops.request_id"] != requestID || !strings.HasPrefix(a["creativeops.organization_id"], "org_") || a["http.route"] != "/v1/creators" {
				t.Errorf("request span attributes %v (request id %s)", a, requestID)
			}
			if r := request.resource; r["service.name"] != "creativeops-ci" || r["deployment.environment.name"] != "ci" || r["telemetry.sdk.language"] != "go" {
				t.Errorf("resource %v", r)
			}
			var statements int
			for _, s := range byParent[hex.EncodeToString(request.GetSpanId())] {
				if strings.HasPrefix(s.GetName(), "sql.") {
					statements++
				}
			}
			if statements == 0 {
				t.Errorf("no statement spans under the request")
			}
		})
	}
}
