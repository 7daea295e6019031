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
	// PerClient bounds the failed authentications naming one client id
	// from one address: past it a wrong credential is refused as
	// throttled, and the right one is still accepted, so nobody can keep a
	// client out by failing in its name (see spendClient); a request that
	// authenticates gives its token back, so a busy client is never
	// throttled for success.
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
	spent  ratelimit.Decision
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

// spendClient spends a token of the bucket of failed authentications of
// the client the request names (by Basic user, client_id or an
// assertion's subject: whichever authentication will read) from the
// request's address, before the credentials are checked, so attempts in
// flight at once cannot outrun it. The caller settles it once it knows
// whether the client failed to authenticate.
//
// A client id is no secret (every token names it), so its failures must
// not keep the client out: the bucket is the client's at one address, so
// failures from elsewhere never touch it, and a request past it is still
// checked, so the right credentials pass even where others failed (behind
// one proxy address, say). Only a wrong one is refused as throttled:
// guessing is bounded by the address's own budget (PerAddress), and a
// secret is checked at the cost of any request with a key (a lookup and
// a SHA-256).
func (s *Service) spendClient(r *http.Request, form url.Values) *tokenBudget {
	b := &tokenBudget{s: s, r: r, spent: ratelimit.Decision{Allowed: true}}
	if s.cfg.Limiter == nil {
		return b
	}
	id := namedClient(r, form)
	if !ids.Valid(ClientIDPrefix, id) {
		return b // refused without a lookup; the address pays
	}
	b.client = "oauth-token:client:" + id + ":addr:" + s.clientAddress(r)
	b.spent = s.cfg.Limiter.Take(r.Context(), b.client, s.cfg.TokenLimits.PerClient)
	return b
}

// settle gives the client's token back unless its authentication failed;
// a failure past the budget is answered 429 here, and settle returns
// false: the request is over.
func (b *tokenBudget) settle(w http.ResponseWriter, failed bool) bool {
	switch {
	case b.client == "":
	case !failed && b.spent.Allowed:
		b.s.cfg.Limiter.Refund(b.r.Context(), b.client, b.s.cfg.TokenLimits.PerClient)
	case failed && !b.spent.Allowed:
		writeThrottled(w, b.spent, "too many failed authentications of this client from this address")
		return false
	}
	return true
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
