package server

import (
	"bytes"
	"context"
	"log/slog"
	"strings"
	"testing"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"
)

// A handler that panics answers Internal over either transport; the panic
// is logged with the request's id and counted.
func TestPanicsAreLoggedWithTheirRequestID(t *testing.T) {
	var logs bytes.Buffer
	s := &Server{
		log:     slog.New(slog.NewJSONHandler(&logs, nil)),
		metrics: &metrics{panics: prometheus.NewCounter(prometheus.CounterOpts{Name: "p"})},
	}
	chain := chainUnary(s.identify, s.recoverPanics)
	info := &grpc.UnaryServerInfo{FullMethod: "/creativeops.v1.CreatorsService/GetCreator"}
	boom := func(context.Context, any) (any, error) { panic("boom") }

	// Native gRPC: the id comes from the client's x-request-id.
	ctx := metadata.NewIncomingContext(context.Background(), metadata.Pairs("x-request-id", "client-id-1"))
	ctx = grpc.NewContextWithServerTransportStream(ctx, &inProcessStream{method: info.FullMethod})
	if _, err := chain(ctx, nil, info, boom); status.Code(err) != codes.Internal {
		t.Fatalf("gRPC panic answered %v, want Internal", err)
	}
	// REST: the id is the HTTP layer's.
	ctx = withRequestInfo(context.Background(), &requestInfo{id: "req_rest", viaGateway: true})
	ctx = grpc.NewContextWithServerTransportStream(ctx, &inProcessStream{method: info.FullMethod})
	if _, err := chain(ctx, nil, info, boom); status.Code(err) != codes.Internal {
		t.Fatalf("REST panic answered %v, want Internal", err)
	}

	lines := strings.Split(strings.TrimSpace(logs.String()), "\n")
	if len(lines) != 2 {
		t.Fatalf("want two panic lines, got %q", logs.String())
	}
	for i, id := range []string{"client-id-1", "req_rest"} {
		if !strings.Contains(lines[i], `"msg":"panic"`) || !strings.Contains(lines[i], `"request_id":"`+id+`"`) {
			t.Errorf("panic line %d lacks request id %s: %s", i, id, lines[i])
		}
	}
	if n := testutil.ToFloat64(s.metrics.panics); n != 2 {
		t.Errorf("panics counted %v, want 2", n)
	}
}
