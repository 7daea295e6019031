package auth

import (
	"context"
	"slices"
)

// Scopes a key can hold. "*" grants all of them.
const (
	ScopeAll           = "*"
	ScopeEngineRun     = "engine:run"
	ScopeEngineRead    = "engine:read"
	ScopeCreatorsRead  = "creators:read"
	ScopeCreatorsWrite = "creators:write"
	// ScopeCreatorsAdmin erases and exports creators: data-subject
	// requests, which reach past the creator record into plans, jobs, IP
	// records and webhook deliveries (docs/privacy.md).
	ScopeCreatorsAdmin = "creators:admin"
	ScopeIPRead        = "ip:read"
	ScopeIPWrite       = "ip:write"
	ScopeWebhooksRead  = "webhooks:read"
	ScopeWebhooksWrite = "webhooks:write"
	ScopeEventsRead    = "events:read"
	ScopeAnalyticsRead = "analytics:read"
	ScopeKeysAdmin     = "keys:admin"
	ScopePlansRead     = "plans:read"
	ScopePlansWrite    = "plans:write"
)

// AllScopes lists every scope a key can be given.
var AllScopes = []string{ScopeAll, ScopeEngineRun, ScopeEngineRead, ScopeCreatorsRead, ScopeCreatorsWrite, ScopeCreatorsAdmin,
	ScopeIPRead, ScopeIPWrite, ScopeWebhooksRead, ScopeWebhooksWrite, ScopeEventsRead, ScopeAnalyticsRead, ScopeKeysAdmin,
	ScopePlansRead, ScopePlansWrite}

// ValidScope reports whether s is a known scope.
func ValidScope(s string) bool { return slices.Contains(AllScopes, s) }

// RateLimit overrides the default per-key request rate.
type RateLimit struct {
	RequestsPerSecond float64
	Burst             int
}

// Principal is the caller behind a request: an API key, or an OAuth
// client presenting one of its access tokens.
type Principal struct {
	// KeyID identifies the caller for rate limits, analytics and logs: the
	// API key's id, or the OAuth client's id.
	KeyID string
	// ClientID is set when the caller is an OAuth client.
	ClientID       string
	OrganizationID string
	Scopes         []string
	RateLimit      *RateLimit
}

// Allows reports whether the principal holds the scope.
func (p *Principal) Allows(scope string) bool {
	return slices.Contains(p.Scopes, ScopeAll) || slices.Contains(p.Scopes, scope)
}

type principalKey struct{}

// WithPrincipal attaches the caller to a context.
func WithPrincipal(ctx context.Context, p *Principal) context.Context {
	return context.WithValue(ctx, principalKey{}, p)
}

// FromContext returns the caller; handlers behind the auth interceptor
// always have one.
func FromContext(ctx context.Context) (*Principal, bool) {
	p, ok := ctx.Value(principalKey{}).(*Principal)
	return p, ok
}

// MissingScopes returns the scopes of want that the principal does not hold.
// A key may only create, rotate or revoke keys whose scopes are a subset of
// its own: keys:admin lets a key manage keys, not widen its own reach by
// minting or taking over a broader one. "*" covers every scope, and only "*"
// covers "*".
func (p *Principal) MissingScopes(want []string) []string {
	if slices.Contains(p.Scopes, ScopeAll) {
		return nil
	}
	var missing []string
	for _, s := range want {
		if !slices.Contains(p.Scopes, s) && !slices.Contains(missing, s) {
			missing = append(missing, s)
		}
	}
	return missing
}
