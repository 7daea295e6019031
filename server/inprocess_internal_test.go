package server

import (
	"context"
	"slices"
	"sync"
	"testing"

	"google.golang.org/grpc"
)

// chainUnary runs its interceptors as grpc.ChainUnaryInterceptor does:
// in order, each around the rest of the chain, with the call's info; an
// interceptor that calls its handler twice runs the rest twice.
func TestChainUnaryRunsInterceptorsInOrder(t *testing.T) {
	var trace []string
	around := func(name string, times int) grpc.UnaryServerInterceptor {
		return func(ctx context.Context, req any, info *grpc.UnaryServerInfo, handler grpc.UnaryHandler) (resp any, err error) {
			trace = append(trace, name+">"+info.FullMethod)
			for range times {
				resp, err = handler(ctx, req)
			}
			trace = append(trace, "<"+name)
			return resp, err
		}
	}
	handler := func(_ context.Context, req any) (any, error) {
		trace = append(trace, "handler")
		return req.(string) + " done", nil
	}
	info := &grpc.UnaryServerInfo{FullMethod: "/t.S/M"}

	chain := chainUnary(around("a", 1), around("b", 2), around("c", 1))
	resp, err := chain(context.Background(), "req", info, handler)
	want := []string{"a>/t.S/M", "b>/t.S/M", "c>/t.S/M", "handler", "<c", "c>/t.S/M", "handler", "<c", "<b", "<a"}
	if resp != "req done" || err != nil || !slices.Equal(trace, want) {
		t.Errorf("got %v, %v after %v; want req done after %v", resp, err, trace, want)
	}

	trace = nil
	if resp, _ := chainUnary()(context.Background(), "req", info, handler); resp != "req done" || !slices.Equal(trace, []string{"handler"}) {
		t.Errorf("an empty chain: %v after %v", resp, trace)
	}
}

// Each call walks the chain on its own: concurrent calls do not share
// their place in it.
func TestChainUnaryCallsAreIndependent(t *testing.T) {
	pass := func(ctx context.Context, req any, _ *grpc.UnaryServerInfo, handler grpc.UnaryHandler) (any, error) {
		return handler(ctx, req.(int)+1)
	}
	chain := chainUnary(pass, pass, pass, pass)
	info := &grpc.UnaryServerInfo{FullMethod: "/t.S/M"}
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Go(func() {
			for i := range 1000 {
				resp, _ := chain(context.Background(), g*1000+i, info, func(_ context.Context, req any) (any, error) { return req, nil })
				if resp != g*1000+i+4 {
					t.Errorf("call %d went through %d interceptors, want 4", g*1000+i, resp.(int)-g*1000-i)
					return
				}
			}
		})
	}
	wg.Wait()
}
