package oauth

import (
	"net/http"
	"net/url"
	"strconv"

	"github.com/go-jose/go-jose/v4/jwt"

	"github.com/creativeops/creativeops/auth"
	"github.com/creativeops/creativeops/ids"
	"github.com/creativeops/creativeops/ratelimit"
)

// TokenLimits budget the token endpoint, which anyone may call and which
// costs a lookup, a hash and, for private_key_jwt, possibly a fetch of the
// client's JWKS URL.
type TokenLimits struct {
	// PerAddress bounds every token request from one client address.
	PerAddress auth.RateLimit
	// PerClient bounds the failed authentications naming one client id;
	// a request that authenticates gives its token back, so a client
	// under attack still gets its tokens once the attacker's addresses
	// are throttled, and a busy client is never throttled for success.
	PerClient auth.RateLimit
}

// DefaultTokenLimits: a client needs a token an hour (DefaultTokenLifetime)
// per process; 10 a second from one address, after a burst of 50, leaves
// a fleet restarting behind one NAT room, and 20 failures per client
// id, then one a second, leaves its owner room for a misconfiguration.
var DefaultTokenLimits = TokenLimits{
	PerAddress: auth.RateLimit{RequestsPerSecond: 10, Burst: 50},
	PerClient:  auth.RateLimit{RequestsPerSecond: 1, Burst: 20},
}

// WithDefaults fills the limits left zero from DefaultTokenLimits.
func (l TokenLimits) WithDefaults() TokenLimits {
	if l.PerAddress.RequestsPerSecond <= 0 || l.PerAddress.Burst <= 0 {
		l.PerAddress = DefaultTokenLimits.PerAddress
	}
	if l.PerClient.RequestsPerSecond <= 0 || l.PerClient.Burst <= 0 {
		l.PerClient = DefaultTokenLimits.PerClient
	}
	return l
}

// tokenBudget is the limiter's view of one token request.
type tokenBudget struct {
	s      *Service
	r      *http.Request
	client string // the client bucket spent, "" for none
}

// admitAddress spends a token of the request's address; past the budget
// it answers 429 and returns false.
func (s *Service) admitAddress(w http.ResponseWriter, r *http.Request) bool {
	if s.cfg.Limiter == nil {
		return true
	}
	d := s.cfg.Limiter.Take(r.Context(), "oauth-token:addr:"+s.clientAddress(r), s.cfg.TokenLimits.PerAddress)
	if d.Allowed {
		return true
	}
	writeThrottled(w, d, "too many token requests from this address")
	return false
}

// admitClient spends a token of the bucket of failed authentications of
// the client the request names (by Basic user, client_id or an
// assertion's subject: whichever authentication will read). Past the
// budget it answers 429 and returns false; otherwise the caller settles
// the spent token with done once it knows whether the client failed to
// authenticate.
func (s *Service) admitClient(w http.ResponseWriter, r *http.Request, form url.Values) (*tokenBudget, bool) {
	b := &tokenBudget{s: s, r: r}
	if s.cfg.Limiter == nil {
		return b, true
	}
	id := namedClient(r, form)
	if !ids.Valid(ClientIDPrefix, id) {
		return b, true // refused without a lookup; the address pays
	}
	b.client = "oauth-token:client:" + id
	d := s.cfg.Limiter.Take(r.Context(), b.client, s.cfg.TokenLimits.PerClient)
	if d.Allowed {
		return b, true
	}
	writeThrottled(w, d, "too many failed authentications of this client")
	return nil, false
}

// done gives the client's token back unless its authentication failed.
func (b *tokenBudget) done(failed bool) {
	if b.client != "" && !failed {
		b.s.cfg.Limiter.Refund(b.r.Context(), b.client, b.s.cfg.TokenLimits.PerClient)
	}
}

// namedClient is the client id a token request names, unverified.
func namedClient(r *http.Request, form url.Values) string {
	if user, _, ok := r.BasicAuth(); ok {
		id, _ := url.QueryUnescape(user)
		return id
	}
	if id := form.Get("client_id"); id != "" {
		return id
	}
	if a := form.Get("client_assertion"); a != "" {
		if tok, err := jwt.ParseSigned(a, assertionAlgorithms); err == nil {
			var c jwt.Claims
			if tok.UnsafeClaimsWithoutVerification(&c) == nil {
				return c.Subject
			}
		}
	}
	return ""
}

func (s *Service) clientAddress(r *http.Request) string {
	if s.cfg.ClientAddress != nil {
		return s.cfg.ClientAddress(r)
	}
	return r.RemoteAddr
}

// writeThrottled answers 429 with Retry-After and an RFC 6749 section 5.2
// error body; temporarily_unavailable is the registered error for a
// server declining for now (RFC 6749 section 4.1.2.1).
func writeThrottled(w http.ResponseWriter, d ratelimit.Decision, desc string) {
	retry := max(1, ratelimit.CeilSeconds(d.RetryAfter))
	w.Header().Set("Retry-After", strconv.Itoa(retry))
	writeJSON(w, http.StatusTooManyRequests, oauthError("temporarily_unavailable", "%s; retry after %d s", desc, retry))
}
