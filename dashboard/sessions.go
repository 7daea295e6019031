package dashboard

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"strconv"
	"strings"
	"time"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"

	"github.com/creativeops/creativeops/apierror"
	"github.com/creativeops/creativeops/audit"
	"github.com/creativeops/creativeops/auth"
	"github.com/creativeops/creativeops/ids"
	"github.com/creativeops/creativeops/oauth"
	"github.com/creativeops/creativeops/ratelimit"
	"github.com/creativeops/creativeops/server/edge"
)

// Dashboard sessions: a browser signs in with an API key once
// (POST /dashboard/api/session) and then calls the API with a cookie and
// the session's CSRF token instead of the key.
//
// The cookie is Secure and named __Host-creativeops_session (which a
// browser accepts only from a secure origin, Secure, for Path=/ and
// without Domain, so no sibling subdomain can set or shadow it) except in
// plain local development: see cookieSecure. There it is
// creativeops_session, and only a request that is itself local plaintext
// may authenticate with that name.
const (
	sessionCookie       = "creativeops_session"
	secureSessionCookie = "__Host-" + sessionCookie
	// CSRFHeader carries a session's CSRF token.
	CSRFHeader = "X-CSRF-Token"
	// SessionPath is the session API's path.
	SessionPath = "/dashboard/api/session"
)

// DefaultSignInLimit is how many failed sign-in attempts a client address
// may make, and how many may be made with one credential: bursts of 10,
// then one every 6 seconds. Sign-ins that succeed (or never test a key: a
// malformed body) do not count, and a right credential signs in from an
// address past its limit.
var DefaultSignInLimit = auth.RateLimit{RequestsPerSecond: 10.0 / 60, Burst: 10}

// Host is what the session API takes from the server it is mounted in:
// the API's error answers and the request's bookkeeping, which are the
// server's, so the dashboard answers and logs as every other route does.
type Host interface {
	// WriteError answers r with an API error.
	WriteError(w http.ResponseWriter, r *http.Request, st *status.Status)
	// Status maps an error of the domain to its API status, as the RPCs
	// map theirs.
	Status(ctx context.Context, err error) *status.Status
	// RequestID is the id of the request of ctx, for the audit log.
	RequestID(ctx context.Context) string
	// NoteKey records the key a request acted with, for its log line.
	NoteKey(ctx context.Context, keyID string)
}

// Sessions is the session API: it opens, describes and ends dashboard
// sessions, and authenticates the calls made with them.
type Sessions struct {
	keys        *auth.Store
	oauth       *oauth.Service
	limiter     *ratelimit.Limiter
	proxies     edge.Proxies
	host        Host
	signInLimit auth.RateLimit
	servesTLS   bool
}

// NewSessions builds the session API on the key store (the sessions
// themselves), the authorization server (sign-ins with client
// credentials), the limiter, which counts failed sign-ins by signInLimit,
// and the trusted proxies, which name the client's address. servesTLS
// says the server itself serves HTTPS, so every cookie is Secure.
func NewSessions(keys *auth.Store, oa *oauth.Service, limiter *ratelimit.Limiter, proxies edge.Proxies, host Host,
	signInLimit auth.RateLimit, servesTLS bool) *Sessions {
	return &Sessions{keys: keys, oauth: oa, limiter: limiter, proxies: proxies, host: host, signInLimit: signInLimit, servesTLS: servesTLS}
}

// Principal authenticates a call made with a dashboard session: the
// session cookie and, in X-CSRF-Token, the session's CSRF token. A cookie
// without the header is no credential (auth.ErrUnauthenticated), so a page
// of another site cannot make the browser call the API on its user's
// behalf.
func (s *Sessions) Principal(ctx context.Context, md metadata.MD) (*auth.Principal, error) {
	token := sessionToken(md.Get("cookie"), ctx.Value(plainCookieKey{}) != nil)
	csrf := md.Get(strings.ToLower(CSRFHeader))
	if token == "" || len(csrf) != 1 {
		return nil, auth.ErrUnauthenticated
	}
	return s.keys.AuthenticateSession(ctx, token, csrf[0])
}

// sessionToken finds the session cookie among Cookie header lines: the
// __Host- one, else, when plainOK, the one of local development.
func sessionToken(lines []string, plainOK bool) string {
	var plain string
	// Parsed leniently, as net/http's Request.Cookies does: one malformed
	// cookie of another application on the same site must not hide ours
	// (http.ParseCookie refuses the whole line for it).
	for _, c := range (&http.Request{Header: http.Header{"Cookie": lines}}).Cookies() {
		switch {
		case c.Name == secureSessionCookie && c.Value != "":
			return c.Value
		case c.Name == sessionCookie && plain == "":
			plain = c.Value
		}
	}
	if plainOK {
		return plain
	}
	return ""
}

// plainCookieKey marks the context of a request that is local plaintext
// and carries a creativeops_session cookie, which Principal then
// accepts.
type plainCookieKey struct{}

// WithCookiePolicy marks r with plainCookieKey when that applies.
// Requests without cookies, the most, pass untouched.
func (s *Sessions) WithCookiePolicy(r *http.Request) *http.Request {
	if len(r.Header["Cookie"]) == 0 || s.cookieSecure(r) {
		return r
	}
	if c, err := r.Cookie(sessionCookie); err != nil || c.Value == "" {
		return r
	}
	return r.WithContext(context.WithValue(r.Context(), plainCookieKey{}, true))
}

// cookieSecure reports whether the session cookie of a request is Secure
// (and __Host- named): always, but in plain local development, where the
// server serves plaintext, the request's Host is a loopback name or
// address, and no proxy says the browser's connection is HTTPS. Behind a
// TLS-terminating proxy a cookie without Secure would go out in the clear
// with the browser's first http:// request, and that cookie alone yields
// the CSRF token. The forwarded headers are honoured from anyone: all they
// can do is make the cookie stricter.
func (s *Sessions) cookieSecure(r *http.Request) bool {
	return r.TLS != nil || s.servesTLS || !loopbackHost(r.Host) || forwardedHTTPS(r.Header)
}

// loopbackHost reports whether a Host header names this machine:
// localhost, 127.0.0.0/8 or ::1, with or without a port.
func loopbackHost(hostport string) bool {
	host := hostport
	if strings.IndexByte(hostport, ':') >= 0 { // else SplitHostPort's error allocates
		if h, _, err := net.SplitHostPort(hostport); err == nil {
			host = h
		}
	}
	host = strings.TrimSuffix(strings.TrimPrefix(host, "["), "]")
	if strings.EqualFold(host, "localhost") {
		return true
	}
	if host == "" || (host[0] < '0' || host[0] > '9') && host[0] != ':' {
		return false // a name: spares ParseAddr's error, on every public request with a cookie
	}
	ip, err := netip.ParseAddr(host)
	return err == nil && ip.Unmap().IsLoopback()
}

// forwardedHTTPS reports whether a proxy says the client's connection is
// HTTPS: X-Forwarded-Proto: https, or proto=https in Forwarded (RFC 7239),
// in any element of either.
func forwardedHTTPS(h http.Header) bool {
	for _, v := range h.Values("X-Forwarded-Proto") {
		for p := range strings.SplitSeq(v, ",") {
			if strings.EqualFold(strings.TrimSpace(p), "https") {
				return true
			}
		}
	}
	for _, v := range h.Values("Forwarded") {
		for elem := range strings.SplitSeq(v, ",") {
			for pair := range strings.SplitSeq(elem, ";") {
				k, val, _ := strings.Cut(strings.TrimSpace(pair), "=")
				if strings.EqualFold(k, "proto") && strings.EqualFold(strings.Trim(val, `"`), "https") {
					return true
				}
			}
		}
	}
	return false
}

// sessionBody is the session API's JSON answer.
type sessionBody struct {
	KeyID          string   `json:"key_id"`
	ClientID       string   `json:"client_id,omitempty"` // a session of an OAuth client
	OrganizationID string   `json:"organization_id"`
	Scopes         []string `json:"scopes"`
	CSRFToken      string   `json:"csrf_token"`
	ExpiresAt      string   `json:"expires_at"`
}

func newSessionBody(sess *auth.Session) sessionBody {
	scopes := sess.Scopes
	if scopes == nil {
		scopes = []string{}
	}
	return sessionBody{KeyID: sess.KeyID, ClientID: sess.ClientID, OrganizationID: sess.OrganizationID, Scopes: scopes,
		CSRFToken: sess.CSRFToken, ExpiresAt: sess.ExpiresAt.UTC().Format(time.RFC3339Nano)}
}

var errNoSession = apierror.New(codes.Unauthenticated, "UNAUTHENTICATED",
	"no dashboard session: sign in with POST /dashboard/api/session")

// Mount adds the dashboard (the app and its session API) to mux.
func (s *Sessions) Mount(mux *http.ServeMux, app http.Handler) {
	// Handler sets the security headers on every /dashboard response; the
	// session API's answers are never cached.
	headers := func(h http.HandlerFunc) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Cache-Control", "no-store")
			h(w, r)
		})
	}
	mux.Handle("POST "+SessionPath, headers(s.signIn))
	mux.Handle("GET "+SessionPath, headers(s.getSession))
	mux.Handle("DELETE "+SessionPath, headers(s.signOut))
	mux.Handle("/dashboard/api/", headers(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == SessionPath {
			w.Header().Set("Allow", "GET, POST, DELETE")
			s.host.WriteError(w, r, apierror.New(codes.Unimplemented, "METHOD_NOT_ALLOWED", r.Method+" is not allowed on "+r.URL.Path).GRPCStatus())
			return
		}
		s.host.WriteError(w, r, apierror.New(codes.NotFound, "ROUTE_NOT_FOUND", "no route "+r.Method+" "+r.URL.Path).GRPCStatus())
	}))
	mux.Handle(Prefix, app)
	mux.Handle("/dashboard", http.RedirectHandler(Prefix, http.StatusMovedPermanently))
}

// IsPath reports whether a path is the dashboard's, whose every
// response carries SetSecurityHeaders.
func IsPath(path string) bool {
	return path == "/dashboard" || strings.HasPrefix(path, Prefix)
}

// signIn opens a session for an API key, POST {"api_key":"co_live_..."},
// or an OAuth client, POST {"client_id":"oc_...","client_secret":"co_oauth_..."}.
func (s *Sessions) signIn(w http.ResponseWriter, r *http.Request) {
	if crossSite(r) {
		s.host.WriteError(w, r, apierror.New(codes.PermissionDenied, "CROSS_SITE_REQUEST",
			"sign-in is only accepted from the dashboard's own origin").GRPCStatus())
		return
	}
	in, bad := decodeSignIn(r.Body)
	if bad != nil {
		s.host.WriteError(w, r, bad.GRPCStatus())
		return
	}
	// Failed attempts are counted twice: against the credential tried
	// (from this address) and against the client's address. Every attempt
	// takes a token of each before it is checked, so attempts in flight at
	// once cannot outrun the buckets; a sign-in that succeeds gives them
	// back.
	//
	// Past either bucket a wrong attempt is refused as throttled, but a
	// right one still signs in: behind a proxy every browser may share one
	// address, and an OAuth client's id is no secret (every token names
	// it), so anyone failing from that address or in that client's name
	// must not keep its owner out. Guessing is bounded all the same: a
	// wrong attempt is only ever told it was throttled once past the
	// buckets, and checking a credential costs what any request with a
	// key costs.
	lim := s.signInLimit
	address := "sign-in:" + s.proxies.RequestLimitKey(r)
	credential := in.credentialBucket(address)
	withCredential := ratelimit.Decision{Allowed: true}
	if credential != "" {
		withCredential = s.limiter.Take(r.Context(), credential, lim)
	}
	fromAddress := s.limiter.Take(r.Context(), address, lim)
	sess, token, err := s.openSession(r, in)
	if errors.Is(err, auth.ErrUnauthenticated) {
		if !withCredential.Allowed {
			s.host.WriteError(w, r, signInThrottled("with this credential", withCredential).GRPCStatus())
			return
		}
		if !fromAddress.Allowed {
			s.host.WriteError(w, r, signInThrottled("from this address", fromAddress).GRPCStatus())
			return
		}
		msg := "invalid API key: it is unknown, revoked or expired"
		if in.apiKey == "" {
			msg = "invalid OAuth client credentials: the client is unknown or revoked, or the secret is wrong or past its grace period"
		}
		s.host.WriteError(w, r, apierror.New(codes.Unauthenticated, "UNAUTHENTICATED", msg).GRPCStatus())
		return
	}
	// Not a wrong credential: nothing to count.
	if credential != "" && withCredential.Allowed {
		s.limiter.Refund(r.Context(), credential, lim)
	}
	if fromAddress.Allowed {
		s.limiter.Refund(r.Context(), address, lim)
	}
	if err != nil {
		s.host.WriteError(w, r, s.host.Status(r.Context(), err))
		return
	}
	s.host.NoteKey(r.Context(), sess.KeyID) // for the log line; sign-ins are not API usage
	secure := s.cookieSecure(r)
	if c, err := r.Cookie(secureSessionCookie); err == nil && !secure && c.Value != "" {
		// A __Host- cookie of an earlier session would be read before the
		// new one: drop it.
		http.SetCookie(w, s.cookie(true, "", true))
	}
	http.SetCookie(w, s.cookie(secure, token, false))
	writeJSON(w, http.StatusOK, newSessionBody(sess))
}

// signInBody is a sign-in: an API key, or an OAuth client's id and
// secret.
type signInBody struct {
	apiKey, clientID, clientSecret string
}

// credentialBucket is the limiter key of the credential a sign-in tries
// from address (the address's own bucket): the OAuth client's id there,
// or the API key's digest (a key has no id apart from itself, and only
// its holder can fail with it). "" for a credential malformed beyond any
// lookup, which is refused without one and counted against the address
// alone; so buckets are made only for credentials that could exist.
func (in signInBody) credentialBucket(address string) string {
	switch {
	case in.apiKey != "" && auth.WellFormed(in.apiKey):
		return "sign-in:key:" + auth.Hash(in.apiKey)[:32]
	case in.clientID != "" && ids.Valid(oauth.ClientIDPrefix, in.clientID):
		return "sign-in:client:" + in.clientID + ":" + address
	}
	return ""
}

// signInThrottled is the answer to a sign-in past a bucket of failed
// attempts; where says whose ("from this address").
func signInThrottled(where string, d ratelimit.Decision) *apierror.Error {
	retry := strconv.Itoa(max(1, ratelimit.CeilSeconds(d.RetryAfter)))
	e := apierror.New(codes.ResourceExhausted, "RATE_LIMITED",
		"too many failed sign-in attempts "+where+"; retry after "+retry+" s")
	e.Metadata = map[string]string{"retry_after_seconds": retry}
	return e
}

// openSession checks the credentials of a sign-in and opens its session.
// A client's secret is checked as the token endpoint checks
// client_secret_post, and the session acts as the client.
func (s *Sessions) openSession(r *http.Request, in signInBody) (*auth.Session, string, error) {
	if in.apiKey != "" {
		return s.keys.CreateSession(s.auditOrigin(r), in.apiKey)
	}
	p, until, err := s.oauth.SignIn(r.Context(), in.clientID, in.clientSecret)
	if err != nil {
		return nil, "", err
	}
	return s.keys.CreateClientSession(s.auditOrigin(r), *p, until)
}

const signInHint = `send {"api_key":"co_live_..."} or {"client_id":"oc_...","client_secret":"co_oauth_..."}`

// decodeSignIn reads the sign-in body, naming what is wrong with it:
// exactly one of api_key and the pair client_id, client_secret.
func decodeSignIn(body io.Reader) (signInBody, *apierror.Error) {
	var in struct {
		APIKey       *string `json:"api_key"`
		ClientID     *string `json:"client_id"`
		ClientSecret *string `json:"client_secret"`
	}
	dec := json.NewDecoder(body)
	dec.DisallowUnknownFields()
	if err := dec.Decode(&in); err != nil {
		if f, ok := strings.CutPrefix(err.Error(), "json: unknown field "); ok {
			f = strings.Trim(f, `"`)
			return signInBody{}, apierror.Invalid("UNKNOWN_FIELD", f, "invalid request body: unknown field "+strconv.Quote(f))
		}
		if errors.Is(err, io.EOF) {
			return signInBody{}, apierror.InvalidField("api_key", "is required: "+signInHint)
		}
		var te *json.UnmarshalTypeError
		if errors.As(err, &te) && te.Field != "" {
			return signInBody{}, apierror.Invalid("INVALID_ARGUMENT", te.Field, fmt.Sprintf("invalid request body: %s must be a %s", te.Field, te.Type))
		}
		return signInBody{}, apierror.New(codes.InvalidArgument, "MALFORMED_BODY", "malformed JSON body: "+err.Error())
	}
	if dec.More() {
		return signInBody{}, apierror.New(codes.InvalidArgument, "MALFORMED_BODY", "malformed JSON body: more than one JSON value")
	}
	set := func(p *string) bool { return p != nil && *p != "" }
	client := set(in.ClientID) || set(in.ClientSecret)
	switch {
	case set(in.APIKey) && client:
		return signInBody{}, apierror.InvalidField("api_key", "must not be sent with client_id and client_secret: "+signInHint)
	case set(in.APIKey):
		return signInBody{apiKey: *in.APIKey}, nil
	case !client:
		return signInBody{}, apierror.InvalidField("api_key", "is required: "+signInHint)
	case !set(in.ClientID):
		return signInBody{}, apierror.InvalidField("client_id", "is required with client_secret")
	case !set(in.ClientSecret):
		return signInBody{}, apierror.InvalidField("client_secret", "is required with client_id")
	}
	return signInBody{clientID: *in.ClientID, clientSecret: *in.ClientSecret}, nil
}

// getSession describes the session of the cookie, CSRF token included:
// the app reads it on every load (a page cannot read the HttpOnly cookie,
// nor, without CORS, another site this response).
func (s *Sessions) getSession(w http.ResponseWriter, r *http.Request) {
	token, _ := s.cookieToken(r)
	sess, _, err := s.keys.LookupSession(r.Context(), token)
	if errors.Is(err, auth.ErrUnauthenticated) {
		s.host.WriteError(w, r, errNoSession.GRPCStatus())
		return
	}
	if err != nil {
		s.host.WriteError(w, r, s.host.Status(r.Context(), err))
		return
	}
	s.host.NoteKey(r.Context(), sess.KeyID) // for the log line; sign-ins are not API usage
	writeJSON(w, http.StatusOK, newSessionBody(sess))
}

// signOut ends the session of the cookie; like any call made with a
// session it needs the CSRF token.
func (s *Sessions) signOut(w http.ResponseWriter, r *http.Request) {
	token, secure := s.cookieToken(r)
	if _, err := s.keys.AuthenticateSession(r.Context(), token, r.Header.Get(CSRFHeader)); err != nil {
		if errors.Is(err, auth.ErrUnauthenticated) {
			s.host.WriteError(w, r, errNoSession.GRPCStatus())
		} else {
			s.host.WriteError(w, r, s.host.Status(r.Context(), err))
		}
		return
	}
	sess, err := s.keys.EndSession(s.auditOrigin(r), token)
	if err != nil && !errors.Is(err, auth.ErrUnauthenticated) { // ended meanwhile: done too
		s.host.WriteError(w, r, s.host.Status(r.Context(), err))
		return
	}
	if sess != nil {
		s.host.NoteKey(r.Context(), sess.KeyID)
	}
	http.SetCookie(w, s.cookie(secure, "", true)) // the cookie signed out, by its name
	w.WriteHeader(http.StatusNoContent)
}

// auditOrigin is the request's context with where it came from, which the
// audit log records with a sign-in or sign-out (the actor is the session's
// key, which the domain sets).
func (s *Sessions) auditOrigin(r *http.Request) context.Context {
	o := audit.Origin{ClientIP: edge.AddrString(s.proxies.Request(r)), UserAgent: r.UserAgent(), RequestID: s.host.RequestID(r.Context()),
		Transport: audit.TransportREST}
	return audit.WithCaller(r.Context(), "", o)
}

// cookieToken is the request's session token: that of the __Host- cookie,
// else, in plain local development only, that of creativeops_session;
// secure tells which.
func (s *Sessions) cookieToken(r *http.Request) (token string, secure bool) {
	if c, err := r.Cookie(secureSessionCookie); err == nil && c.Value != "" {
		return c.Value, true
	}
	if s.cookieSecure(r) {
		return "", false
	}
	if c, err := r.Cookie(sessionCookie); err == nil {
		return c.Value, false
	}
	return "", false
}

// cookie is the session cookie (or, with clear, its removal): for every
// path, out of reach of scripts, never sent with a request another site
// starts, and, secure, over HTTPS only and by its __Host- name.
func (s *Sessions) cookie(secure bool, token string, clear bool) *http.Cookie {
	c := &http.Cookie{Name: sessionCookie, Value: token, Path: "/", HttpOnly: true, SameSite: http.SameSiteStrictMode}
	if secure {
		c.Name, c.Secure = secureSessionCookie, true
	}
	if clear {
		c.MaxAge = -1
	}
	return c
}

// crossSite reports whether the browser says another site sent the
// request: an Origin other than the request's own host, or
// Sec-Fetch-Site cross-site. Clients that are not browsers send neither.
func crossSite(r *http.Request) bool {
	if r.Header.Get("Sec-Fetch-Site") == "cross-site" {
		return true
	}
	origin := r.Header.Get("Origin")
	if origin == "" {
		return false
	}
	u, err := url.Parse(origin)
	if err != nil || u.Host == "" {
		return true // "null" (sandboxed frames, redirects) or garbage
	}
	return !strings.EqualFold(u.Host, r.Host)
}

func writeJSON(w http.ResponseWriter, code int, v any) {
	b, err := json.Marshal(v)
	if err != nil {
		http.Error(w, "internal error", http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(code)
	_, _ = w.Write(b)
}
