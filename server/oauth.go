package server

import (
	"context"

	"github.com/creativeops/creativeops/auth"
	"github.com/creativeops/creativeops/oauth"
	"github.com/creativeops/creativeops/secrets"
	"github.com/creativeops/creativeops/storage"
	"github.com/creativeops/creativeops/webhooks"
)

// newOAuth builds the authorization server and makes sure it has a signing
// key. Clients' JWKS URLs are fetched through the webhooks' SSRF-guarded
// client, under the same development switch. The token endpoint is
// budgeted with the server's limiter, by the client address every other
// per-address limit uses.
func newOAuth(ctx context.Context, s *Server, store *storage.Store, keyring *secrets.Keyring) (*oauth.Service, error) {
	cfg := s.cfg
	svc, err := oauth.New(oauth.Config{
		Issuer:            cfg.PublicURL,
		Ent:               store.Ent,
		Read:              store.Read,
		Keyring:           keyring,
		DefaultLifetime:   cfg.OAuthTokenLifetime,
		JWKSClient:        webhooks.NewClient(cfg.AllowInsecureWebhooks, cfg.WebhookTimeout),
		AllowInsecureJWKS: cfg.AllowInsecureWebhooks,
		Log:               s.log,
		Limiter:           s.limiter,
		ClientAddress:     s.proxies.RequestLimitKey,
		TokenLimits:       cfg.OAuthTokenLimits,
	})
	if err != nil {
		return nil, err
	}
	if err := svc.EnsureSigningKey(ctx); err != nil {
		return nil, err
	}
	return svc, nil
}

// resolveBearer turns a bearer credential into its principal: an OAuth
// access token (a JWT) or an API key. Both fail with auth.ErrUnauthenticated
// for anything they refuse.
func (s *Server) resolveBearer(ctx context.Context, token string) (*auth.Principal, error) {
	if oauth.LooksLikeJWT(token) {
		return s.oauth.Verify(ctx, token)
	}
	return s.keys.Authenticate(ctx, token)
}

// OAuth is the authorization server (for tests and the CLI's admin paths).
func (s *Server) OAuth() *oauth.Service { return s.oauth }
