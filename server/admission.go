package server

import (
	"context"
	"errors"
	"net/http"
	"net/textproto"
	"strings"
	"time"

	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"
	"google.golang.org/grpc/tap"

	"github.com/creativeops/creativeops/auth"
	"github.com/creativeops/creativeops/dashboard"
	"github.com/creativeops/creativeops/internal/rpcrule"
	"github.com/creativeops/creativeops/server/edge"
)

// Admission: a request over HTTP (REST, Connect, gRPC-Web) is
// authenticated from its headers, its method's scope checked and its
// key's rate-limit token spent before a byte of its body is read or
// decoded, and before the gateway parses its path and query. The
// interceptors would check the same things, but only once the request had
// been decoded: a body or a query parameter the decoder refuses (bad JSON,
// nesting too deep, invalid UTF-8, a number out of range) was answered 400
// before the limiter saw it, so a key could send such requests without
// limit, each costing the server its decoding. Now a key past its limit
// gets 429 whatever it sends, and a request outside its scopes 403, without
// the server reading it. The interceptors then reuse the principal and the
// spent token (admitted) instead of finding them again. Native gRPC calls
// are admitted from their headers too, before grpc-go reads their
// messages: on the API port by admit, on the gRPC port by admitStream.

// admitted is what admission learned of a request: its caller, and the
// token it spent when the method was known.
type admitted struct {
	p       *auth.Principal
	charge  rateCharge
	charged bool
	// headersLater: the charge's headers are for the interceptor to set
	// (a native gRPC call's, whose list may pay more once its message is
	// read: its response metadata must report the bucket after that).
	headersLater bool
}

type admittedKey struct{}

// admittedFrom is what admission learned of the request ctx serves: a REST
// request carries it in its requestInfo (one context value less per
// request), a Connect or gRPC-Web call, whose requestInfo the gRPC server
// does not see, in a value of its own (withAdmitted).
func admittedFrom(ctx context.Context) (admitted, bool) {
	if ri := requestInfoFrom(ctx); ri != nil && ri.admitted.p != nil {
		return ri.admitted, true
	}
	a, ok := ctx.Value(admittedKey{}).(admitted)
	return a, ok
}

// withAdmitted passes what admission learned of a Connect or gRPC-Web call
// on to the interceptors.
func withAdmitted(r *http.Request, a admitted) *http.Request {
	if a.p == nil {
		return r
	}
	return r.WithContext(context.WithValue(r.Context(), admittedKey{}, a))
}

// methodOf is the API method a request calls: by its gRPC name over
// Connect and gRPC-Web, by its REST route otherwise.
func methodOf(r *http.Request) (rpcrule.Method, bool) {
	if isRPCPath(r.URL.Path) {
		return rpcrule.Lookup(r.URL.Path)
	}
	return rpcrule.Match(r.Method, r.URL.Path)
}

// admit admits an API request before its body is read. When it refuses
// the request it answers through refuse (in the caller's protocol) and
// returns false; otherwise it returns what it learned, for the caller to
// pass on to the interceptors: the caller (nil when the request needs no
// credential, or when it has neither a body nor a route the gateway would
// serve: the gateway answers those as before) and the token it spent.
// What it learns of the caller (key, organization, route) goes into ri.
func (s *Server) admit(w http.ResponseWriter, r *http.Request, ri *requestInfo, refuse func(*status.Status)) (admitted, bool) {
	hasBody := r.Body != nil && r.Body != http.NoBody
	m, known := methodOf(r)
	if !needsCredential(r.URL.Path) || !hasBody && !known || publicCheckpoint(r) {
		return admitted{}, true
	}
	if known {
		// Logs and metrics name even a refused request by its route.
		ri.route = route{m.HTTPMethod, m.Template}
	}
	// A refused request's body is not read; a small body of declared
	// length beyond the rate limit is drained by net/http, so a client
	// that keeps to its limit after a 429 keeps its connection. Any other
	// refused body closes it (see edge.Closing), but over HTTP/2, where
	// net/http resets the refused stream and drains nothing: a native gRPC
	// client keeps its connection, as on the gRPC port.
	drain := refuse
	if hasBody && !isNativeGRPCRequest(r) {
		refuse = edge.Closing(w, refuse)
	}
	p, st := s.authorize(r.Context(), headerMetadata(r.Header), m, known)
	if p != nil {
		// Usage and logs name the caller of a request refused its scope.
		ri.keyID, ri.orgID = p.KeyID, p.OrganizationID
	}
	if st != nil {
		refuse(st)
		return admitted{}, false
	}
	a := admitted{p: p}
	// A method no key may call is left to the interceptors to refuse.
	if known && m.Scope != "" {
		a.charge, a.charged = s.chargeRate(r.Context(), p, queryCost(m, r)), true
		a.headersLater = isNativeGRPCRequest(r) && a.charge.d.Allowed
		if !a.headersLater {
			a.charge.setHeaders(w.Header())
		}
		if !a.charge.d.Allowed {
			s.metrics.rateLimited.Inc()
			if !hasBody || r.ContentLength >= 0 && r.ContentLength <= edge.SmallBodyBytes {
				refuse = drain
			}
			refuse(a.charge.refusal(p.KeyID).GRPCStatus())
			return admitted{}, false
		}
	}
	return a, true
}

// authorize finds the caller of a call to m from the call's headers and
// checks that it may call m (known says whether m is an API method), for
// admission over HTTP (admit) and on the gRPC port (admitStream). A
// caller outside m's scope is returned with the refusal.
func (s *Server) authorize(ctx context.Context, md metadata.MD, m rpcrule.Method, known bool) (*auth.Principal, *status.Status) {
	p, err := s.principal(ctx, md)
	if err != nil {
		if errors.Is(err, auth.ErrUnauthenticated) {
			return nil, errUnauthenticated.GRPCStatus()
		}
		// As the interceptors' error mapping would answer it: a failure
		// of the key store is logged, and the client told only that it
		// was internal.
		return nil, status.Convert(toStatusError(ctx, s.log, err))
	}
	if known && m.Scope != "" && !p.Allows(m.Scope) {
		return p, missingScope(m.Scope).GRPCStatus()
	}
	return p, nil
}

// streamAdmissionTimeout bounds finding a gRPC-port caller (a key or a
// token the caches do not hold is read from the database) while the
// connection's frames wait.
const streamAdmissionTimeout = 5 * time.Second

// admitStream is admission on the gRPC port: grpc-go calls it (its tap
// handle) when a call's headers arrive, before a byte of the call's
// message is read, so a call without a valid credential, or outside its
// key's scopes, is refused without being buffered, as admit refuses one
// over HTTP. The caller it finds is passed on to the interceptors. The
// rate-limit token is still spent by the interceptors: the tap runs on
// the connection's reader, which a shared limiter's round trip would hold
// up.
func (s *Server) admitStream(ctx context.Context, info *tap.Info) (context.Context, error) {
	if !needsCredential(info.FullMethodName) {
		return ctx, nil
	}
	m, known := rpcrule.Lookup(info.FullMethodName)
	actx, cancel := context.WithTimeout(ctx, streamAdmissionTimeout)
	defer cancel()
	p, st := s.authorize(actx, info.Header, m, known)
	if st != nil {
		return ctx, st.Err()
	}
	return context.WithValue(ctx, admittedKey{}, admitted{p: p}), nil
}

// needsCredential reports whether a request or a call, by its path,
// goes to a method that requires authentication: every REST route under
// /v1/ but the API descriptions, and every call (native gRPC, Connect or
// gRPC-Web) to the creativeops services. The others are probes, discovery
// (health, reflection), the dashboard, OAuth, the plan calendar and the
// public transparency log's tiles (the current log's checkpoint depends
// on the request: publicCheckpoint).
func needsCredential(path string) bool {
	return strings.HasPrefix(path, "/v1/") && path != "/v1/openapi.json" && path != webhooksOpenAPIPath && !publicLogPath(path) ||
		strings.HasPrefix(path, "/creativeops.v1.")
}

// credentialHeaders are the headers authentication reads, by their
// canonical name and their metadata key: spelled out once rather than
// canonicalized and lowercased (each a copy) for every request.
var credentialHeaders = [...]struct{ name, key string }{
	{"Authorization", "authorization"},
	{"Cookie", "cookie"},
	{textproto.CanonicalMIMEHeaderKey(dashboard.CSRFHeader), strings.ToLower(dashboard.CSRFHeader)},
}

// headerMetadata is the part of an HTTP request's headers that
// authentication reads, as the interceptors see it.
func headerMetadata(h http.Header) metadata.MD {
	md := make(metadata.MD, len(credentialHeaders))
	for _, c := range credentialHeaders {
		if v := h[c.name]; len(v) > 0 {
			md[c.key] = v
		}
	}
	return md
}
