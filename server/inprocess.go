package server

import (
	"context"
	"reflect"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/proto"
)

// inProcess lets the REST gateway call the gRPC services without a network
// hop while still running the full unary interceptor chain (auth, limits,
// validation). Registering the gateway with RegisterXHandlerServer instead
// would skip the interceptors. It is both a grpc.ServiceRegistrar (services
// register into it) and a grpc.ClientConnInterface (the gateway calls it).
type inProcess struct {
	methods     map[string]inProcessMethod
	interceptor grpc.UnaryServerInterceptor
}

type inProcessMethod struct {
	impl    any
	handler grpc.MethodHandler
}

func newInProcess(interceptor grpc.UnaryServerInterceptor) *inProcess {
	return &inProcess{methods: map[string]inProcessMethod{}, interceptor: interceptor}
}

func (c *inProcess) RegisterService(desc *grpc.ServiceDesc, impl any) {
	for _, m := range desc.Methods {
		c.methods["/"+desc.ServiceName+"/"+m.MethodName] = inProcessMethod{impl: impl, handler: m.Handler}
	}
}

// cameViaGateway reports whether a call, whose requestInfo is ri (nil for
// none), came through the REST gateway, so that per-request logging and
// counting happen once, in the HTTP layer.
func cameViaGateway(ri *requestInfo) bool { return ri != nil && ri.viaGateway }

func (c *inProcess) Invoke(ctx context.Context, method string, args, reply any, opts ...grpc.CallOption) error {
	m, ok := c.methods[method]
	if !ok {
		return status.Errorf(codes.Unimplemented, "method %s not implemented", method)
	}
	md, _ := metadata.FromOutgoingContext(ctx)
	ctx = metadata.NewIncomingContext(ctx, md)
	stream := &inProcessStream{method: method}
	ctx = grpc.NewContextWithServerTransportStream(ctx, stream)
	// The HTTP layer gave the request its requestInfo (restMiddleware),
	// which the call marks; a call made without it gets one.
	if ri := requestInfoFrom(ctx); ri != nil {
		ri.viaGateway = true
	} else {
		ctx = withRequestInfo(ctx, &requestInfo{id: newRequestID(), viaGateway: true})
	}
	dec := func(v any) error {
		moveMessage(v, args)
		return nil
	}
	resp, err := m.handler(m.impl, ctx, dec, c.interceptor)
	for _, o := range opts {
		switch o := o.(type) {
		case grpc.HeaderCallOption:
			*o.HeaderAddr = stream.header
		case grpc.TrailerCallOption:
			*o.TrailerAddr = stream.trailer
		}
	}
	if err != nil {
		return err
	}
	moveMessage(reply, resp)
	return nil
}

// moveMessage hands the contents of src to dst. Both sides of an
// in-process call are fresh messages that the other side never touches
// again, so a shallow copy does what proto.Merge would at none of its cost
// (a deep copy of a large plan result was a tenth of a synchronous run).
func moveMessage(dst, src any) {
	dv, sv := reflect.ValueOf(dst), reflect.ValueOf(src)
	if dv.Type() == sv.Type() && dv.Kind() == reflect.Pointer && !sv.IsNil() {
		dv.Elem().Set(sv.Elem())
		return
	}
	proto.Merge(dst.(proto.Message), src.(proto.Message))
}

func (c *inProcess) NewStream(context.Context, *grpc.StreamDesc, string, ...grpc.CallOption) (grpc.ClientStream, error) {
	return nil, status.Error(codes.Unimplemented, "streaming is not served in process")
}

// inProcessStream collects the headers and trailers handlers set with
// grpc.SetHeader, which the gateway turns into HTTP headers.
type inProcessStream struct {
	method          string
	header, trailer metadata.MD
}

func (s *inProcessStream) Method() string { return s.method }
func (s *inProcessStream) SetHeader(md metadata.MD) error {
	s.header = metadata.Join(s.header, md)
	return nil
}
func (s *inProcessStream) SendHeader(md metadata.MD) error { return s.SetHeader(md) }
func (s *inProcessStream) SetTrailer(md metadata.MD) error {
	s.trailer = metadata.Join(s.trailer, md)
	return nil
}

// chainUnary composes interceptors the way grpc.ChainUnaryInterceptor does,
// so the in-process path runs exactly the gRPC server's chain (which is
// this one too). grpc.ChainUnaryInterceptor, like the closures this
// replaced, built a handler for every interceptor on every call: ten
// allocations a call before any of them ran. Here a call costs one
// chainCall and its next handler, which every interceptor gets and which
// walks on to the interceptor after the one that calls it.
func chainUnary(interceptors ...grpc.UnaryServerInterceptor) grpc.UnaryServerInterceptor {
	return func(ctx context.Context, req any, info *grpc.UnaryServerInfo, handler grpc.UnaryHandler) (any, error) {
		c := &chainCall{interceptors: interceptors, info: info, handler: handler}
		c.next = c.run
		return c.run(ctx, req)
	}
}

// chainCall is one call's walk through the interceptors: at is the
// interceptor its next handler runs. The interceptors call their handler
// in turn, each from within the one before, so at is restored when an
// interceptor returns: one that called its handler again (a retry) would
// run the rest of the chain again, as with closures.
type chainCall struct {
	interceptors []grpc.UnaryServerInterceptor
	info         *grpc.UnaryServerInfo
	handler      grpc.UnaryHandler
	next         grpc.UnaryHandler // c.run, made once per call
	at           int
}

func (c *chainCall) run(ctx context.Context, req any) (any, error) {
	i := c.at
	if i == len(c.interceptors) {
		return c.handler(ctx, req)
	}
	c.at = i + 1
	resp, err := c.interceptors[i](ctx, req, c.info, c.next)
	c.at = i
	return resp, err
}
