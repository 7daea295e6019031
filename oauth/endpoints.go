package oauth

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strings"

	jose "github.com/go-jose/go-jose/v4"

	"github.com/creativeops/creativeops/auth"
	"github.com/creativeops/creativeops/ent"
)

// Paths of the authorization server's endpoints.
const (
	TokenPath      = "/oauth/token"
	IntrospectPath = "/oauth/introspect"
	RevokePath     = "/oauth/revoke"
	MetadataPath   = "/.well-known/oauth-authorization-server"
	JWKSPath       = "/.well-known/jwks.json"
)

// maxFormBytes bounds a request to the endpoints: their forms are small.
const maxFormBytes = 64 << 10

// Register adds the endpoints to mux.
func (s *Service) Register(mux *http.ServeMux) {
	mux.HandleFunc("POST "+TokenPath, s.handleToken)
	mux.HandleFunc("POST "+IntrospectPath, s.handleIntrospect)
	mux.HandleFunc("POST "+RevokePath, s.handleRevoke)
	mux.HandleFunc("GET "+MetadataPath, s.handleMetadata)
	mux.HandleFunc("GET "+JWKSPath, s.handleJWKS)
}

// Metadata is the RFC 8414 document.
func (s *Service) Metadata() *AuthorizationServerMetadata {
	algs := make([]string, len(assertionAlgorithms))
	for i, a := range assertionAlgorithms {
		algs[i] = string(a)
	}
	return &AuthorizationServerMetadata{
		Issuer:                            s.cfg.Issuer,
		TokenEndpoint:                     s.cfg.Issuer + TokenPath,
		IntrospectionEndpoint:             s.cfg.Issuer + IntrospectPath,
		RevocationEndpoint:                s.cfg.Issuer + RevokePath,
		JwksURI:                           s.cfg.Issuer + JWKSPath,
		ScopesSupported:                   slices.Clone(auth.AllScopes),
		GrantTypesSupported:               []string{grantClientCredentials},
		TokenEndpointAuthMethodsSupported: authMethods,
		TokenEndpointAuthSigningAlgValuesSupported:         algs,
		IntrospectionEndpointAuthMethodsSupported:          authMethods,
		IntrospectionEndpointAuthSigningAlgValuesSupported: algs,
		RevocationEndpointAuthMethodsSupported:             authMethods,
		RevocationEndpointAuthSigningAlgValuesSupported:    algs,
		ServiceDocumentation:                               "https://github.com/creativeops/creativeops/blob/main/docs/oauth.md",
	}
}

func (s *Service) handleMetadata(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Cache-Control", "public, max-age=3600")
	writeJSON(w, http.StatusOK, s.Metadata())
}

// KeySet is the public keys tokens are verified with, retired ones still
// in their overlap included.
func (s *Service) KeySet() jose.JSONWebKeySet {
	st, _ := s.current()
	var set jose.JSONWebKeySet
	if st == nil {
		return set
	}
	for _, k := range st.keys {
		set.Keys = append(set.Keys, k.public)
	}
	return set
}

func (s *Service) handleJWKS(w http.ResponseWriter, r *http.Request) {
	// Short enough that a verifier elsewhere picks up a new key well
	// within the overlap a rotated key is kept for.
	w.Header().Set("Cache-Control", "public, max-age=300")
	writeJSON(w, http.StatusOK, s.KeySet())
}

// handleToken is the token endpoint (RFC 6749 section 4.4): the client
// credentials grant only.
func (s *Service) handleToken(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Cache-Control", "no-store")
	w.Header().Set("Pragma", "no-cache")
	if !s.admitAddress(w, r) {
		return
	}
	form, err := readForm(w, r)
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	budget := s.spendClient(r, form)
	c, err := s.authenticateClient(r, form)
	var failed clientAuthError
	if !budget.settle(w, errors.As(err, &failed)) {
		return
	}
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	switch gt := form.Get("grant_type"); gt {
	case grantClientCredentials:
	case "":
		s.writeError(w, r, oauthError("invalid_request", "grant_type is required"))
		return
	default:
		s.writeError(w, r, oauthError("unsupported_grant_type", "only client_credentials is supported"))
		return
	}
	scopes, err := narrowScopes(strings.Fields(form.Get("scope")), c.Scopes)
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	tok, err := s.issue(r.Context(), c, scopes)
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, &tokenResponse{
		AccessToken: tok.AccessToken,
		TokenType:   "Bearer",
		ExpiresIn:   uint64(tok.ExpiresIn.Seconds()),
		Scope:       strings.Join(tok.Scopes, " "),
	})
}

// narrowScopes is what a token is issued with: the requested scopes the
// client is allowed, or all it is allowed when none is requested. A scope
// this server does not know, or a request of which nothing is allowed, is
// invalid_scope (RFC 6749 section 5.2).
func narrowScopes(requested, allowed []string) ([]string, error) {
	if len(requested) == 0 {
		return slices.Clone(allowed), nil
	}
	var out []string
	for _, sc := range requested {
		if !auth.ValidScope(sc) {
			return nil, oauthError("invalid_scope", "unknown scope %q", sc)
		}
		p := auth.Principal{Scopes: allowed}
		if p.Allows(sc) && !slices.Contains(out, sc) {
			out = append(out, sc)
		}
	}
	if len(out) == 0 {
		return nil, oauthError("invalid_scope", "none of the requested scopes is allowed to this client")
	}
	return out, nil
}

// introspection is the RFC 7662 response.
type introspection struct {
	Active    bool     `json:"active"`
	Scope     string   `json:"scope,omitempty"`
	ClientID  string   `json:"client_id,omitempty"`
	TokenType string   `json:"token_type,omitempty"`
	Exp       int64    `json:"exp,omitempty"`
	Iat       int64    `json:"iat,omitempty"`
	Nbf       int64    `json:"nbf,omitempty"`
	Sub       string   `json:"sub,omitempty"`
	Aud       []string `json:"aud,omitempty"`
	Iss       string   `json:"iss,omitempty"`
	Jti       string   `json:"jti,omitempty"`
}

// tokenRequest reads what introspection and revocation both take: the form,
// the calling client (authenticated as at the token endpoint) and the
// token. It answers the request itself and returns false when one is
// missing or wrong.
func (s *Service) tokenRequest(w http.ResponseWriter, r *http.Request) (form url.Values, caller *ent.OAuthClient, raw string, ok bool) {
	form, err := readForm(w, r)
	if err != nil {
		s.writeError(w, r, err)
		return nil, nil, "", false
	}
	if caller, err = s.authenticateClient(r, form); err != nil {
		s.writeError(w, r, err)
		return nil, nil, "", false
	}
	if raw = form.Get("token"); raw == "" {
		s.writeError(w, r, oauthError("invalid_request", "token is required"))
		return nil, nil, "", false
	}
	return form, caller, raw, true
}

// handleIntrospect answers whether a token is active (RFC 7662). The caller
// authenticates as a client; a token of another organization is reported
// inactive, as is any token that would be refused by the API.
func (s *Service) handleIntrospect(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Cache-Control", "no-store")
	_, caller, raw, ok := s.tokenRequest(w, r)
	if !ok {
		return
	}
	if _, err := s.Verify(r.Context(), raw); err != nil {
		if !errors.Is(err, auth.ErrUnauthenticated) {
			s.writeError(w, r, err)
			return
		}
		writeJSON(w, http.StatusOK, introspection{})
		return
	}
	st, _ := s.current()
	c, err := s.parse(st, raw)
	if err != nil || c.OrgID != caller.OrganizationID {
		writeJSON(w, http.StatusOK, introspection{})
		return
	}
	out := introspection{
		Active: true, Scope: c.Scope, ClientID: c.ClientID, TokenType: "Bearer",
		Exp: c.Expiry.Time().Unix(), Sub: c.Subject, Aud: c.Audience, Iss: c.Issuer, Jti: c.ID,
	}
	if c.IssuedAt != nil {
		out.Iat = c.IssuedAt.Time().Unix()
	}
	if c.NotBefore != nil {
		out.Nbf = c.NotBefore.Time().Unix()
	}
	writeJSON(w, http.StatusOK, out)
}

// handleRevoke revokes an access token (RFC 7009). Only the client it was
// issued to may revoke it; a token that is invalid, expired or already
// revoked is answered 200 like a successful revocation.
func (s *Service) handleRevoke(w http.ResponseWriter, r *http.Request) {
	form, caller, raw, ok := s.tokenRequest(w, r)
	if !ok {
		return
	}
	if hint := form.Get("token_type_hint"); hint != "" && hint != "access_token" {
		s.writeError(w, r, oauthError("unsupported_token_type", "only access tokens can be revoked"))
		return
	}
	st, _ := s.current()
	c, err := s.parse(st, raw)
	if err != nil {
		w.WriteHeader(http.StatusOK)
		return
	}
	if c.ClientID != caller.ID {
		s.writeError(w, r, oauthError("unauthorized_client", "the token was issued to another client"))
		return
	}
	if err := s.revoke(r.Context(), c); err != nil {
		s.writeError(w, r, err)
		return
	}
	w.WriteHeader(http.StatusOK)
}

// readForm reads an application/x-www-form-urlencoded body. A parameter
// given twice is invalid_request (RFC 6749 section 3.2).
func readForm(w http.ResponseWriter, r *http.Request) (url.Values, error) {
	ct := r.Header.Get("Content-Type")
	if mt, _, _ := strings.Cut(ct, ";"); !strings.EqualFold(strings.TrimSpace(mt), "application/x-www-form-urlencoded") {
		return nil, oauthError("invalid_request", "the body must be application/x-www-form-urlencoded")
	}
	r.Body = http.MaxBytesReader(w, r.Body, maxFormBytes)
	if err := r.ParseForm(); err != nil {
		return nil, oauthError("invalid_request", "cannot read the form: %v", err)
	}
	for name, v := range r.PostForm {
		if len(v) > 1 {
			return nil, oauthError("invalid_request", "%s is given more than once", name)
		}
	}
	return r.PostForm, nil
}

// authenticateClient authenticates the client of a request by exactly one
// of client_secret_basic, client_secret_post and private_key_jwt.
func (s *Service) authenticateClient(r *http.Request, form url.Values) (*ent.OAuthClient, error) {
	basicID, basicSecret, basic := r.BasicAuth()
	postSecret := form.Get("client_secret")
	assertion := form.Get("client_assertion")
	methods := 0
	for _, used := range []bool{basic, postSecret != "", assertion != ""} {
		if used {
			methods++
		}
	}
	if methods > 1 {
		return nil, oauthError("invalid_request", "use one client authentication method")
	}
	var c *ent.OAuthClient
	var err error
	switch {
	case basic:
		// RFC 6749 section 2.3.1: both are form-encoded before Basic.
		id, err1 := url.QueryUnescape(basicID)
		secret, err2 := url.QueryUnescape(basicSecret)
		if err1 != nil || err2 != nil {
			return nil, invalidClient(r, "malformed Basic credentials")
		}
		if fid := form.Get("client_id"); fid != "" && fid != id {
			return nil, oauthError("invalid_request", "client_id differs from the Basic credentials")
		}
		c, err = s.clientBySecret(r.Context(), id, secret)
	case postSecret != "":
		c, err = s.clientBySecret(r.Context(), form.Get("client_id"), postSecret)
	case assertion != "":
		if form.Get("client_assertion_type") != AssertionType {
			return nil, oauthError("invalid_request", "client_assertion_type must be %s", AssertionType)
		}
		c, err = s.clientByAssertion(r.Context(), form.Get("client_id"), assertion)
	default:
		return nil, invalidClient(r, "client authentication is required")
	}
	var refused assertionRefused
	if errors.As(err, &refused) {
		s.cfg.Log.InfoContext(r.Context(), "oauth client assertion refused", "client_id", form.Get("client_id"), "reason", refused.reason)
		return nil, invalidClient(r, "client authentication failed: "+refused.reason)
	}
	if errors.Is(err, errBadCredentials) {
		return nil, invalidClient(r, "client authentication failed")
	}
	return c, err
}

// clientAuthError is invalid_client with the challenge RFC 6749 section
// 5.2 asks for.
type clientAuthError struct{ e *protocolError }

func (c clientAuthError) Error() string { return c.e.Error() }

func invalidClient(_ *http.Request, desc string) error {
	return clientAuthError{e: oauthError("invalid_client", "%s", desc)}
}

// writeError answers with the RFC 6749 section 5.2 error: 401 with a
// WWW-Authenticate challenge for invalid_client, 500 for a fault of ours
// (logged, not described), 400 otherwise.
func (s *Service) writeError(w http.ResponseWriter, r *http.Request, err error) {
	var cae clientAuthError
	var oe *protocolError
	switch {
	case errors.As(err, &cae):
		w.Header().Set("WWW-Authenticate", fmt.Sprintf(`Basic realm=%q`, s.cfg.Issuer))
		writeJSON(w, http.StatusUnauthorized, cae.e)
	case errors.As(err, &oe):
		writeJSON(w, http.StatusBadRequest, oe)
	default:
		s.cfg.Log.ErrorContext(r.Context(), "oauth endpoint failed", "path", r.URL.Path, "error", err)
		writeJSON(w, http.StatusInternalServerError, oauthError("server_error", "internal error"))
	}
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}
