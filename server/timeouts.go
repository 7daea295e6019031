package server

import (
	"context"
	"errors"
	"net/http"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/keepalive"
	"google.golang.org/grpc/tap"
)

// httpServer is the HTTP side of the port (and of --debug-addr): every
// request is bounded in time from its first byte to its last, over
// HTTP/1.1 per connection and over HTTP/2 per stream, so a client trickling
// a body or never reading its response holds a connection or stream for
// at most those limits.
func (cfg Config) httpServer(h http.Handler) *http.Server {
	srv := &http.Server{
		Handler:           h,
		ReadHeaderTimeout: cfg.ReadHeaderTimeout,
		MaxHeaderBytes:    http.DefaultMaxHeaderBytes,
		ReadTimeout:       cfg.ReadTimeout,
		WriteTimeout:      cfg.WriteTimeout,
		IdleTimeout:       cfg.IdleTimeout,
		Protocols:         new(http.Protocols),
		HTTP2: &http.HTTP2Config{
			// A connection silent for a read timeout is pinged, and
			// closed if the ping is not answered; one whose writes make no
			// progress for a write timeout is closed.
			SendPingTimeout:      cfg.ReadTimeout,
			WriteByteTimeout:     cfg.WriteTimeout,
			MaxConcurrentStreams: maxConcurrentStreams,
		},
	}
	srv.Protocols.SetHTTP1(true)
	srv.Protocols.SetUnencryptedHTTP2(true)
	return srv
}

// maxConcurrentStreams is net/http's default for HTTP/2, applied to gRPC's
// own transport too.
const maxConcurrentStreams = 250

var (
	errRequestReadTimeout = errors.New("the request was not received within the read timeout")
	errCallTimeout        = errors.New("the call did not finish within the write timeout")
)

// grpcLimits are the same limits on grpc.Server's own transport: the
// handshake within the read-header timeout, headers and concurrent streams
// capped as on the HTTP server, idle connections closed after
// the idle timeout and quiet ones pinged, and, for each unary call, its
// request received within the read timeout of its headers and the whole
// call within the write timeout (a shorter grpc-timeout from the client
// still applies).
func (s *Server) grpcLimits() []grpc.ServerOption {
	return []grpc.ServerOption{
		grpc.ConnectionTimeout(s.cfg.ReadHeaderTimeout),
		// The HTTP server's defaults, which grpc-go's exceed (16 MiB of
		// headers, unlimited streams per connection).
		grpc.MaxHeaderListSize(http.DefaultMaxHeaderBytes),
		grpc.MaxConcurrentStreams(maxConcurrentStreams),
		grpc.KeepaliveParams(keepalive.ServerParameters{
			MaxConnectionIdle: s.cfg.IdleTimeout,
			Time:              s.cfg.ReadTimeout,
		}),
		grpc.InTapHandle(s.limitCall),
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
func (s *Server) limitCall(ctx context.Context, info *tap.Info) (context.Context, error) {
	if s.streamingMethods()[info.FullMethodName] {
		return ctx, nil
	}
	ctx, cancelRead := context.WithCancelCause(ctx)
	lim := &callLimits{read: time.AfterFunc(s.cfg.ReadTimeout, func() { cancelRead(errRequestReadTimeout) })}
	ctx, lim.cancel = context.WithTimeoutCause(ctx, s.cfg.WriteTimeout, errCallTimeout)
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

// streamingMethods are the registered methods with a client or server
// stream, by full name.
func (s *Server) streamingMethods() map[string]bool {
	s.streamingOnce.Do(func() {
		s.streaming = map[string]bool{}
		for svc, info := range s.grpc.GetServiceInfo() {
			for _, m := range info.Methods {
				if m.IsClientStream || m.IsServerStream {
					s.streaming["/"+svc+"/"+m.Name] = true
				}
			}
		}
	})
	return s.streaming
}

// serveGRPC hands a native gRPC call on the HTTP server to the gRPC
// server. The HTTP server bounds each HTTP/2 stream by the read and write
// timeouts from its headers, which are a unary call's limits as
// grpcLimits sets them on gRPC's own transport; streaming methods are
// long-lived by design and left to keepalive, there as here.
func (s *Server) serveGRPC(w http.ResponseWriter, r *http.Request) {
	if s.streamingMethods()[r.URL.Path] {
		rc := http.NewResponseController(w)
		_ = rc.SetReadDeadline(time.Time{})
		_ = rc.SetWriteDeadline(time.Time{})
	}
	s.grpc.ServeHTTP(w, r)
}
