package edge

import (
	"context"
	"errors"
	"net/http"
	"sync"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/keepalive"
	"google.golang.org/grpc/tap"
)

// Timeouts are the time limits of the port (server.Config's
// ReadHeaderTimeout, ReadTimeout, WriteTimeout and IdleTimeout), applied
// alike by the HTTP server and by gRPC's own transport.
type Timeouts struct {
	ReadHeader, Read, Write, Idle time.Duration
	// Streaming reports whether a gRPC method, by full name, has a
	// client or server stream (see StreamingMethods).
	Streaming func(fullMethod string) bool
}

// HTTPServer is the HTTP side of the port (and of --debug-addr): every
// request is bounded in time from its first byte to its last, over
// HTTP/1.1 per connection and over HTTP/2 per stream, so a client trickling
// a body or never reading its response holds a connection or stream for
// at most those limits.
func (t Timeouts) HTTPServer(h http.Handler) *http.Server {
	srv := &http.Server{
		Handler:           h,
		ReadHeaderTimeout: t.ReadHeader,
		MaxHeaderBytes:    http.DefaultMaxHeaderBytes,
		ReadTimeout:       t.Read,
		WriteTimeout:      t.Write,
		IdleTimeout:       t.Idle,
		Protocols:         new(http.Protocols),
		HTTP2: &http.HTTP2Config{
			// A connection silent for a read timeout is pinged, and
			// closed if the ping is not answered; one whose writes make no
			// progress for a write timeout is closed.
			SendPingTimeout:      t.Read,
			WriteByteTimeout:     t.Write,
			MaxConcurrentStreams: maxConcurrentStreams,
		},
	}
	srv.Protocols.SetHTTP1(true)
	srv.Protocols.SetUnencryptedHTTP2(true)
	return srv
}

// maxConcurrentStreams is net/http's default for HTTP/2 (the gRPC port's
// is GRPCStreamsPerConnection).
const maxConcurrentStreams = 250

var (
	errRequestReadTimeout = errors.New("the request was not received within the read timeout")
	errCallTimeout        = errors.New("the call did not finish within the write timeout")
)

// GRPCOptions are the same limits on grpc.Server's own transport: the
// handshake within the read-header timeout, headers capped as on the HTTP
// server, idle connections closed after the idle timeout and quiet ones
// pinged, and, for each unary call, its request received within the read
// timeout of its headers and the whole call within the write timeout (a
// shorter grpc-timeout from the client still applies). admit, when not
// nil, runs first when a call's headers arrive (grpc-go takes one tap
// handle): a call it refuses is answered with its error.
func (t Timeouts) GRPCOptions(admit tap.ServerInHandle) []grpc.ServerOption {
	limitCall := t.limitCall
	if admit != nil {
		limitCall = func(ctx context.Context, info *tap.Info) (context.Context, error) {
			ctx, err := admit(ctx, info)
			if err != nil {
				return ctx, err
			}
			return t.limitCall(ctx, info)
		}
	}
	return []grpc.ServerOption{
		grpc.ConnectionTimeout(t.ReadHeader),
		// The HTTP server's default, which grpc-go's exceeds (16 MiB of
		// headers).
		grpc.MaxHeaderListSize(http.DefaultMaxHeaderBytes),
		grpc.KeepaliveParams(keepalive.ServerParameters{
			MaxConnectionIdle: t.Idle,
			Time:              t.Read,
		}),
		grpc.InTapHandle(limitCall),
		grpc.ChainUnaryInterceptor(requestReceived),
	}
}

type callLimitsKey struct{}

// callLimits are one unary call's timers: read is stopped when the
// request is in; cancel ends the write-timeout context early, though the
// stream's end (which cancels its parent) releases it anyway.
type callLimits struct {
	read   *time.Timer
	cancel context.CancelFunc
}

// limitCall runs when a call's headers arrive, before its message.
// Streaming methods (health Watch, reflection) are long-lived by design
// and left to keepalive. Nothing here waits for the call to end: a read
// timer that outlives an aborted call fires into an ended context.
func (t Timeouts) limitCall(ctx context.Context, info *tap.Info) (context.Context, error) {
	if t.Streaming(info.FullMethodName) {
		return ctx, nil
	}
	ctx, cancelRead := context.WithCancelCause(ctx)
	lim := &callLimits{read: time.AfterFunc(t.Read, func() { cancelRead(errRequestReadTimeout) })}
	ctx, lim.cancel = context.WithTimeoutCause(ctx, t.Write, errCallTimeout)
	return context.WithValue(ctx, callLimitsKey{}, lim), nil
}

// requestReceived is outermost on the gRPC server: a unary interceptor runs
// once the request message is in, which ends its read timeout.
func requestReceived(ctx context.Context, req any, _ *grpc.UnaryServerInfo, handler grpc.UnaryHandler) (any, error) {
	if lim, ok := ctx.Value(callLimitsKey{}).(*callLimits); ok {
		lim.read.Stop()
	}
	return handler(ctx, req)
}

// StreamingMethods is a Timeouts.Streaming for the gRPC server srv
// returns: its registered methods with a client or server stream, read at
// the first call, once every service is registered.
func StreamingMethods(srv func() *grpc.Server) func(fullMethod string) bool {
	streaming := sync.OnceValue(func() map[string]bool {
		m := map[string]bool{}
		for svc, info := range srv().GetServiceInfo() {
			for _, method := range info.Methods {
				if method.IsClientStream || method.IsServerStream {
					m["/"+svc+"/"+method.Name] = true
				}
			}
		}
		return m
	})
	return func(fullMethod string) bool { return streaming()[fullMethod] }
}
