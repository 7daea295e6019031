package server

import (
	"context"
	"io"
	"log/slog"
	"testing"

	"buf.build/go/protovalidate"
	"google.golang.org/grpc"
	"google.golang.org/grpc/metadata"

	"github.com/creativeops/creativeops/auth"
	creativeopsv1 "github.com/creativeops/creativeops/gen/creativeops/v1"
	"github.com/creativeops/creativeops/ratelimit"
)

// fixedCreators answers GetCreator from memory.
type fixedCreators struct {
	creativeopsv1.UnimplementedCreatorsServiceServer
}

func (fixedCreators) GetCreator(_ context.Context, req *creativeopsv1.GetCreatorRequest) (*creativeopsv1.Creator, error) {
	return &creativeopsv1.Creator{Id: req.GetId(), Name: "Nova Reyes"}, nil
}

// BenchmarkInProcessChain measures what a REST GetCreator costs between
// the gateway and the service: the in-process call and the interceptor
// chain, for a request admission already authenticated and charged, with
// the service answering from memory. Nothing else runs, so ns/op and
// allocs/op are the chain's own.
func BenchmarkInProcessChain(b *testing.B) {
	v, err := protovalidate.New()
	if err != nil {
		b.Fatal(err)
	}
	s := &Server{log: slog.New(slog.NewTextHandler(io.Discard, nil)), validator: v, metrics: &metrics{}}
	c := newInProcess(chainUnary(s.interceptorChain()...))
	creativeopsv1.RegisterCreatorsServiceServer(c, fixedCreators{})
	p := &auth.Principal{KeyID: "key_1", OrganizationID: "org_1", Scopes: []string{auth.ScopeAll}}
	a := admitted{p: p, charged: true, charge: rateCharge{d: ratelimit.Decision{Allowed: true}}}
	// What the gateway sends as outgoing metadata.
	md := metadata.Pairs("authorization", "Bearer key", "x-forwarded-host", "api.example.com", "x-forwarded-for", "192.0.2.1")
	req := &creativeopsv1.GetCreatorRequest{Id: "cr_0123456789abcdef"}
	b.ReportAllocs()
	for b.Loop() {
		ctx := withRequestInfo(context.Background(), &requestInfo{id: "req_1", clientIP: "192.0.2.1"})
		ctx = context.WithValue(ctx, admittedKey{}, a)
		ctx = metadata.NewOutgoingContext(ctx, md)
		var header, trailer metadata.MD
		var resp creativeopsv1.Creator
		if err := c.Invoke(ctx, "/creativeops.v1.CreatorsService/GetCreator", req, &resp, grpc.Header(&header), grpc.Trailer(&trailer)); err != nil {
			b.Fatal(err)
		}
	}
}
