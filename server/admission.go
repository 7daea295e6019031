package server

import (
	"context"
	"errors"
	"net/http"
	"net/textproto"
	"strings"

	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"

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
// spent token (admitted) instead of finding them again; native gRPC calls,
// whose messages are decoded by grpc-go before any of this code runs, are
// checked by the interceptors alone.

// admitted is what admission learned of a request: its caller, and the
// token it spent when the method was known.
type admitted struct {
	p       *auth.Principal
	charge  rateCharge
	charged bool
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
	if !needsCredential(r) || !hasBody && !known {
		return admitted{}, true
	}
	if known {
		// Logs and metrics name even a refused request by its route.
		ri.route = route{m.HTTPMethod, m.Template}
	}
	// A refused request's body is not read; a small body of declared
	// length beyond the rate limit is drained by net/http, so a client
	// that keeps to its limit after a 429 keeps its connection. Any other
	// refused body closes it (see edge.Closing).
	drain := refuse
	if hasBody {
		refuse = edge.Closing(w, refuse)
	}
	p, err := s.principal(r.Context(), headerMetadata(r.Header))
	if err != nil {
		if errors.Is(err, auth.ErrUnauthenticated) {
			refuse(errUnauthenticated.GRPCStatus())
		} else {
			// As the interceptors' error mapping would answer it: a
			// failure of the key store is logged, and the client told
			// only that it was internal.
			refuse(status.Convert(toStatusError(r.Context(), s.log, err)))
		}
		return admitted{}, false
	}
	ri.keyID, ri.orgID = p.KeyID, p.OrganizationID
	a := admitted{p: p}
	// A method no key may call is left to the interceptors to refuse.
	if known && m.Scope != "" {
		if !p.Allows(m.Scope) {
			refuse(missingScope(m.Scope).GRPCStatus())
			return admitted{}, false
		}
		a.charge, a.charged = s.chargeRate(r.Context(), p, queryCost(m, r)), true
		a.charge.setHeaders(w.Header())
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

// needsCredential reports whether a request goes to a method that requires
// authentication: every REST route under /v1/ but the API description, and
// every Connect or gRPC-Web call to the creativeops services.
func needsCredential(r *http.Request) bool {
	p := r.URL.Path
	return strings.HasPrefix(p, "/v1/") && p != "/v1/openapi.json" && p != webhooksOpenAPIPath || strings.HasPrefix(p, "/creativeops.v1.")
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
