package server

import (
	"context"
	"net/http"
	"sync"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"

	"github.com/creativeops/creativeops/dashboard"
)

// observeHTTP counts a REST request once its response is written: always in
// the Prometheus metrics, and in the usage analytics when it was
// authenticated (its organization is known).
func (s *Server) observeHTTP(r *http.Request, ri *requestInfo, code int, start time.Time) {
	if code == 0 {
		code = http.StatusOK
	}
	method, route := restRoute(r, ri)
	s.count("rest", method, route, ri.route.Template != "", ri, code, start)
}

// restRoute names a REST request for metrics and traces: by its API
// method and route template, or outside the API by a bounded set of names.
func restRoute(r *http.Request, ri *requestInfo) (method, route string) {
	if ri.route.Template != "" {
		return ri.route.Method, ri.route.Template
	}
	return r.Method, unroutedPath(r.URL.Path)
}

// count records a finished request in the metrics under its transport,
// method and route and, when it was an API method (api) of a known
// organization, in that organization's usage.
func (s *Server) count(transport, method, route string, api bool, ri *requestInfo, code int, start time.Time) {
	d := time.Since(start)
	s.metrics.observe(transport, method, route, code, d)
	if s.usage != nil && api && ri != nil && ri.orgID != "" {
		s.usage.Record(start, ri.orgID, ri.keyID, method, route, code, d)
	}
}

// unroutedPath names requests outside the API methods without letting
// arbitrary paths become metric labels.
func unroutedPath(path string) string {
	switch path {
	case "/healthz", "/readyz", "/metrics", "/v1/openapi.json", webhooksOpenAPIPath, dashboard.SessionPath:
		return path
	}
	if dashboard.IsPath(path) {
		return dashboard.Prefix // the app: its files and client-side routes
	}
	return "unmatched"
}

// observeRefusedCall counts a Connect or gRPC-Web call refused before it
// reached the interceptors (see admit and edge.Bodies.Admit), as observeCalls
// would have.
func (s *Server) observeRefusedCall(ri *requestInfo, code int, start time.Time) {
	method, route := ri.route.Method, ri.route.Template
	if route == "" {
		method, route = "POST", "other"
	}
	s.count("grpc", method, route, ri.route.Template != "", ri, code, start)
}

// observeCalls is the metrics interceptor for native gRPC calls; calls
// through the REST gateway are counted by observeHTTP with their final
// HTTP status instead, so every request is counted once.
func (s *Server) observeCalls(ctx context.Context, req any, info *grpc.UnaryServerInfo, handler grpc.UnaryHandler) (any, error) {
	ri := requestInfoFrom(ctx)
	if cameViaGateway(ri) {
		return handler(ctx, req)
	}
	start := time.Now()
	m := methodOfCall(ri, info.FullMethod)
	rt := routeOfMethod(m)
	// Only a method that may queue its work has a status of its own for a
	// handler that did (markAccepted): the other methods' headers need
	// no watching.
	var hc *headerCapture
	if m != nil && m.AcceptedStatus != 0 {
		ctx, hc = captureHeaders(ctx)
	}
	resp, err := handler(ctx, req)
	code := http.StatusOK
	if err != nil {
		code = httpStatus(status.Convert(err))
	} else {
		code = successStatus(info.FullMethod, hc.wasAccepted())
	}
	method, route := rt.Method, rt.Template
	if route == "" {
		// Health checks and reflection: registered methods, a closed set.
		method, route = "POST", "other"
		if publicMethods[info.FullMethod] {
			route = info.FullMethod
		}
	}
	s.count("grpc", method, route, rt.Template != "", ri, code, start)
	return resp, err
}

// headerCapture passes response headers on while remembering whether a
// handler queued its work (markAccepted) and the location it gave.
type headerCapture struct {
	grpc.ServerTransportStream
	mu       sync.Mutex
	accepted bool
	location string
}

func captureHeaders(ctx context.Context) (context.Context, *headerCapture) {
	c := &headerCapture{ServerTransportStream: grpc.ServerTransportStreamFromContext(ctx)}
	if c.ServerTransportStream == nil {
		return ctx, c
	}
	return grpc.NewContextWithServerTransportStream(ctx, c), c
}

func (c *headerCapture) note(md metadata.MD) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(md.Get(headerAccepted)) > 0 {
		c.accepted = true
	}
	if v := md.Get(headerLocation); len(v) > 0 {
		c.location = v[0]
	}
}

// wasAccepted is false of the nil capture of calls whose headers were not
// watched.
func (c *headerCapture) wasAccepted() bool {
	if c == nil {
		return false
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.accepted
}

func (c *headerCapture) locationHeader() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.location
}

func (c *headerCapture) SetHeader(md metadata.MD) error {
	c.note(md)
	return c.ServerTransportStream.SetHeader(md)
}

func (c *headerCapture) SendHeader(md metadata.MD) error {
	c.note(md)
	return c.ServerTransportStream.SendHeader(md)
}
