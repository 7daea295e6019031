package edge

import (
	"context"
	"errors"
	"testing"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/health"
	healthpb "google.golang.org/grpc/health/grpc_health_v1"
	"google.golang.org/grpc/tap"
)

func limitedServer(read, write time.Duration) Timeouts {
	srv := grpc.NewServer()
	healthpb.RegisterHealthServer(srv, health.NewServer())
	return Timeouts{Read: read, Write: write, Streaming: StreamingMethods(func() *grpc.Server { return srv })}
}

// A unary call whose message never arrives is canceled by its read timer,
// with the cause saying so; the call as a whole has the write timeout as
// its deadline.
func TestLimitCallReadTimeout(t *testing.T) {
	s := limitedServer(10*time.Millisecond, time.Hour)
	parent, cancel := context.WithCancel(context.Background())
	defer cancel()
	ctx, err := s.limitCall(parent, &tap.Info{FullMethodName: "/grpc.health.v1.Health/Check"})
	if err != nil {
		t.Fatal(err)
	}
	if d, ok := ctx.Deadline(); !ok || time.Until(d) > time.Hour {
		t.Fatalf("call deadline %v %v, want within the write timeout", d, ok)
	}
	<-ctx.Done()
	if !errors.Is(context.Cause(ctx), errRequestReadTimeout) {
		t.Fatalf("cause %v", context.Cause(ctx))
	}
}

// Once the message is in (the outermost interceptor runs), the read timer
// is stopped; the call's end releases the call's context.
func TestLimitCallStopsReadTimerOnReceipt(t *testing.T) {
	s := limitedServer(time.Hour, time.Hour)
	parent, cancel := context.WithCancel(context.Background())
	ctx, err := s.limitCall(parent, &tap.Info{FullMethodName: "/grpc.health.v1.Health/Check"})
	if err != nil {
		t.Fatal(err)
	}
	timer := ctx.Value(callLimitsKey{}).(*callLimits).read
	_, _ = requestReceived(ctx, nil, &grpc.UnaryServerInfo{}, func(ctx context.Context, _ any) (any, error) { return nil, nil })
	if timer.Stop() {
		t.Fatal("the read timer was still running after the request arrived")
	}
	cancel()
	<-ctx.Done()
	if errors.Is(context.Cause(ctx), errRequestReadTimeout) || errors.Is(context.Cause(ctx), errCallTimeout) {
		t.Fatalf("a finished call was ended by a timer: %v", context.Cause(ctx))
	}
}

// Streaming methods are long-lived by design: no read or call limit.
func TestLimitCallLeavesStreamsAlone(t *testing.T) {
	s := limitedServer(time.Millisecond, time.Millisecond)
	ctx, err := s.limitCall(context.Background(), &tap.Info{FullMethodName: "/grpc.health.v1.Health/Watch"})
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := ctx.Deadline(); ok || ctx.Value(callLimitsKey{}) != nil {
		t.Fatal("a streaming method got call limits")
	}
}
