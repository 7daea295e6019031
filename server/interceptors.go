package server

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"runtime/debug"
	"strconv"
	"strings"
	"time"

	"buf.build/go/protovalidate"
	"github.com/grpc-ecosystem/grpc-gateway/v2/runtime"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/proto"

	"github.com/creativeops/creativeops/apierror"
	"github.com/creativeops/creativeops/auth"
	"github.com/creativeops/creativeops/internal/rpcrule"
	"github.com/creativeops/creativeops/server/edge"
)

// interceptorChain is the ordered list every call runs through, over gRPC
// and over REST (through the in-process gateway) alike.
func (s *Server) interceptorChain() []grpc.UnaryServerInterceptor {
	return []grpc.UnaryServerInterceptor{
		s.identify,      // request id and route, so everything below can name the request
		deprecations,    // a deprecated method's Deprecation and Sunset headers, errors included
		s.recoverPanics, // a panic is an Internal error, logged with its request id and counted
		s.logRequests,   // one log line per native gRPC call (REST calls are logged by the HTTP layer)
		s.observeCalls,  // metrics and usage analytics (likewise)
		s.mapErrors,     // domain errors become API errors
		s.authenticate,  // API key → principal, and the method's declared scope
		s.limitRate,     // the key's token bucket
		s.validate,      // buf.validate rules of the request message
		s.idempotent,    // Idempotency-Key on POSTs
	}
}

// identify gives native gRPC calls a request id (the client's
// x-request-id when valid) and names the route and the API method of
// every call; calls through the gateway already carry the HTTP layer's id.
func (s *Server) identify(ctx context.Context, req any, info *grpc.UnaryServerInfo, handler grpc.UnaryHandler) (any, error) {
	m := rpcrule.Find(info.FullMethod)
	rt := routeOfMethod(m)
	ri := requestInfoFrom(ctx)
	if ri != nil {
		ri.route, ri.method = rt, m
	} else {
		ri = &requestInfo{id: incomingRequestID(ctx), route: rt, method: m, clientIP: edge.AddrString(s.proxies.Call(ctx))}
		ctx = withRequestInfo(ctx, ri)
		_ = grpc.SetHeader(ctx, metadata.Pairs("x-request-id", ri.id))
	}
	// The organization is known once the call is authenticated, below.
	defer s.traceCall(ctx, ri)
	return handler(ctx, req)
}

// methodOfCall is the API method a call runs, nil outside the API: the
// one identify found and carries in the call's requestInfo, or else found
// now. Each interceptor's own rpcrule.Lookup copied the method's whole
// declaration out again, five times a call.
func methodOfCall(ri *requestInfo, fullMethod string) *rpcrule.Method {
	if ri != nil && ri.method != nil && ri.method.FullMethod == fullMethod {
		return ri.method
	}
	return rpcrule.Find(fullMethod)
}

// deprecations sends a deprecated method's Deprecation (RFC 9745),
// Sunset (RFC 8594) and Link headers on each of its responses, so a client
// hears of it on every call (docs/versioning.md). The gateway forwards them
// over REST; Connect and gRPC send them as they are.
var deprecations = announceDeprecation(rpcrule.Lookup)

func announceDeprecation(lookup func(fullMethod string) (rpcrule.Method, bool)) grpc.UnaryServerInterceptor {
	return func(ctx context.Context, req any, info *grpc.UnaryServerInfo, handler grpc.UnaryHandler) (any, error) {
		if m, ok := lookup(info.FullMethod); ok && m.Deprecated {
			_ = grpc.SetHeader(ctx, deprecationHeaders(m.Deprecation))
		}
		return handler(ctx, req)
	}
}

// deprecationHeaders are the headers announcing d: Deprecation as an RFC
// 9651 date ("@1799971200"), Sunset as an HTTP date.
func deprecationHeaders(d rpcrule.Deprecation) metadata.MD {
	md := metadata.Pairs(headerDeprecation, "@"+strconv.FormatInt(d.Since.Unix(), 10))
	if !d.Sunset.IsZero() {
		md.Append(headerSunset, d.Sunset.UTC().Format(http.TimeFormat))
	}
	if d.Link != "" {
		md.Append(headerLink, "<"+d.Link+`>; rel="deprecation"`)
	}
	return md
}

func (s *Server) recoverPanics(ctx context.Context, req any, info *grpc.UnaryServerInfo, handler grpc.UnaryHandler) (resp any, err error) {
	defer func() {
		if r := recover(); r != nil {
			s.log.ErrorContext(ctx, "panic", "method", info.FullMethod, "request_id", requestIDFrom(ctx), "panic", fmt.Sprint(r), "stack", string(debug.Stack()))
			s.metrics.panics.Inc()
			err = status.Error(codes.Internal, "internal error")
		}
	}()
	return handler(ctx, req)
}

// logRequests writes one line per native gRPC call; calls through the
// gateway are logged by the HTTP layer with their final HTTP status.
func (s *Server) logRequests(ctx context.Context, req any, info *grpc.UnaryServerInfo, handler grpc.UnaryHandler) (any, error) {
	ri := requestInfoFrom(ctx)
	if cameViaGateway(ri) {
		return handler(ctx, req)
	}
	start := time.Now()
	resp, err := handler(ctx, req)
	latency := time.Since(start)
	code := status.Code(err)
	o := edge.OutcomeOf(runtime.HTTPStatusFromCode(code))
	if log, unlogged := s.reqLog.Wants(ri.orgID, o, latency); log {
		attrs := []any{"transport", "grpc", "request_id", ri.id, "method", info.FullMethod,
			"route", ri.route.Template, "code", code.String(), "latency_ms", ms(latency), "key_id", ri.keyID, "client_ip", ri.clientIP}
		if unlogged > 0 {
			attrs = append(attrs, edge.UnloggedAttr(o), unlogged)
		}
		s.log.InfoContext(ctx, "request", attrs...)
	}
	return resp, err
}

func incomingRequestID(ctx context.Context) string {
	// Not FromIncomingContext, which copies every header.
	if v := metadata.ValueFromIncomingContext(ctx, "x-request-id"); len(v) > 0 && validRequestID(v[0]) {
		return v[0]
	}
	return newRequestID()
}

func (s *Server) mapErrors(ctx context.Context, req any, info *grpc.UnaryServerInfo, handler grpc.UnaryHandler) (any, error) {
	resp, err := handler(ctx, req)
	if err != nil {
		return nil, toStatusError(ctx, s.log, err)
	}
	return resp, nil
}

var errUnauthenticated = apierror.New(codes.Unauthenticated, "UNAUTHENTICATED",
	"missing or invalid API key or access token: send Authorization: Bearer <key or token>")

// principal resolves the caller from a request's credentials: the API key
// or OAuth access token in Authorization, or with no Authorization header
// a dashboard session
// (its cookie and CSRF token); an explicit header always wins over a
// cookie. The HTTP layer calls it too, to refuse a body before reading it.
func (s *Server) principal(ctx context.Context, md metadata.MD) (*auth.Principal, error) {
	v := md.Get("authorization")
	if len(v) == 0 {
		return s.sessions.Principal(ctx, md)
	}
	return s.bearerPrincipal(ctx, v[0])
}

// callPrincipal is principal of a native gRPC call's metadata.
func (s *Server) callPrincipal(ctx context.Context) (*auth.Principal, error) {
	// Not FromIncomingContext, which copies every header, when the call
	// has the Authorization header, all that principal then reads.
	if v := metadata.ValueFromIncomingContext(ctx, "authorization"); len(v) > 0 {
		return s.bearerPrincipal(ctx, v[0])
	}
	md, _ := metadata.FromIncomingContext(ctx)
	return s.principal(ctx, md)
}

// bearerPrincipal resolves an Authorization header: "Bearer " and an API
// key or an OAuth access token.
func (s *Server) bearerPrincipal(ctx context.Context, authorization string) (*auth.Principal, error) {
	scheme, rest, ok := strings.Cut(authorization, " ")
	token := strings.TrimSpace(rest)
	if !ok || !strings.EqualFold(scheme, "bearer") || token == "" {
		return nil, auth.ErrUnauthenticated
	}
	return s.resolveBearer(ctx, token)
}

func (s *Server) authenticate(ctx context.Context, req any, info *grpc.UnaryServerInfo, handler grpc.UnaryHandler) (any, error) {
	ri := requestInfoFrom(ctx)
	m := methodOfCall(ri, info.FullMethod)
	// The public methods are gRPC's own, none of the API's.
	if m == nil && publicMethods[info.FullMethod] {
		return handler(ctx, req)
	}
	// Over HTTP the principal was found before the body was read (admit).
	a, _ := admittedFrom(ctx)
	p := a.p
	if p == nil {
		var err error
		if p, err = s.callPrincipal(ctx); errors.Is(err, auth.ErrUnauthenticated) {
			return nil, errUnauthenticated
		} else if err != nil {
			return nil, err
		}
	}
	if ri != nil {
		ri.keyID, ri.orgID = p.KeyID, p.OrganizationID
	}
	if m == nil || m.Scope == "" {
		return nil, apierror.New(codes.PermissionDenied, "METHOD_NOT_AVAILABLE", "this method is not available to API keys")
	}
	if !p.Allows(m.Scope) {
		return nil, missingScope(m.Scope)
	}
	return handler(withAuditContext(auth.WithPrincipal(ctx, p), ri, p.KeyID), req)
}

func missingScope(scope string) *apierror.Error {
	e := apierror.New(codes.PermissionDenied, "MISSING_SCOPE", fmt.Sprintf("the API key lacks the %s scope", scope))
	e.Metadata = map[string]string{"scope": scope}
	return e
}

func (s *Server) validate(ctx context.Context, req any, info *grpc.UnaryServerInfo, handler grpc.UnaryHandler) (any, error) {
	msg, ok := req.(proto.Message)
	if !ok {
		return handler(ctx, req)
	}
	if err := edge.CheckText(msg); err != nil {
		return nil, err
	}
	if err := s.validator.Validate(msg); err != nil {
		var ve *protovalidate.ValidationError
		if !errors.As(err, &ve) {
			return nil, err
		}
		violations := make([]apierror.FieldViolation, 0, len(ve.Violations))
		parts := make([]string, 0, len(ve.Violations))
		for _, v := range ve.Violations {
			field := protovalidate.FieldPathString(v.Proto.GetField())
			violations = append(violations, apierror.FieldViolation{Field: field, Description: v.Proto.GetMessage()})
			parts = append(parts, field+": "+v.Proto.GetMessage())
		}
		return nil, apierror.InvalidFields("invalid request: "+strings.Join(parts, "; "), violations)
	}
	return handler(ctx, req)
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

// principal returns the authenticated caller; every handler runs behind the
// auth interceptor, so a missing one is a wiring bug.
func principal(ctx context.Context) *auth.Principal {
	p, ok := auth.FromContext(ctx)
	if !ok {
		panic("server: handler called without an authenticated principal")
	}
	return p
}
