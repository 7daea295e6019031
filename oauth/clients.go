package oauth

import (
	"context"
	"crypto/rand"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"slices"
	"strings"
	"time"

	jose "github.com/go-jose/go-jose/v4"
	"google.golang.org/grpc/codes"

	"github.com/creativeops/creativeops/apierror"
	"github.com/creativeops/creativeops/audit"
	"github.com/creativeops/creativeops/auth"
	"github.com/creativeops/creativeops/ent"
	"github.com/creativeops/creativeops/ent/oauthclient"
	"github.com/creativeops/creativeops/ent/session"
	"github.com/creativeops/creativeops/ids"
	"github.com/creativeops/creativeops/webhooks"
)

// ClientIDPrefix starts every client id.
const ClientIDPrefix = "oc"

// SecretPrefix starts every client secret, so secret scanners can find
// leaked ones.
const SecretPrefix = "co_oauth_"

// ErrNoSuchClient is returned for an id that names no active client of the
// organization.
var ErrNoSuchClient = errors.New("no such active OAuth client")

// Client is an OAuth client as the API shows it: never its secret.
type Client struct {
	ID             string
	OrganizationID string
	Name           string
	Scopes         []string
	// Prefix is the secret's first characters, to recognise it by.
	Prefix        string
	TokenLifetime time.Duration
	// JWKS or JWKSURI: the public keys of a private_key_jwt client.
	JWKS      string
	JWKSURI   string
	CreatedAt time.Time
	RevokedAt *time.Time
	// PreviousSecretExpiresAt is when the secret replaced by the last
	// rotation stops working; nil when none is in its grace period.
	PreviousSecretExpiresAt *time.Time
}

func toClient(c *ent.OAuthClient) *Client {
	out := &Client{
		ID: c.ID, OrganizationID: c.OrganizationID, Name: c.Name, Scopes: c.Scopes, Prefix: c.Prefix,
		TokenLifetime: time.Duration(c.TokenLifetimeSeconds) * time.Second,
		JWKS:          c.Jwks, JWKSURI: c.JwksURI, CreatedAt: c.CreatedAt, RevokedAt: c.RevokedAt,
	}
	if c.PreviousSecretHash != nil {
		out.PreviousSecretExpiresAt = c.PreviousSecretExpiresAt
	}
	return out
}

// NewClientParams describes a client to create.
type NewClientParams struct {
	// By, when set, is the caller; the client's scopes must be a subset of
	// its own. Unset for the CLI.
	By             *auth.Principal
	OrganizationID string
	Name           string
	Scopes         []string
	// TokenLifetime is zero for the server's default.
	TokenLifetime time.Duration
	// JWKS (a JSON JWK set) or JWKSURI (https URL of one) lets the client
	// authenticate with private_key_jwt.
	JWKS    string
	JWKSURI string
}

func newSecret() string { return SecretPrefix + rand.Text() }

func displayPrefix(secret string) string { return secret[:len(SecretPrefix)+4] }

// validate checks what the database cannot, naming the field at fault.
func (p *NewClientParams) validate(ctx context.Context, allowInsecure bool) error {
	if strings.TrimSpace(p.Name) == "" || len(p.Name) > 100 {
		return apierror.InvalidField("name", "must be 1 to 100 characters")
	}
	if len(p.Scopes) == 0 {
		return apierror.InvalidField("scopes", "must name at least one scope")
	}
	for _, sc := range p.Scopes {
		if !auth.ValidScope(sc) {
			return apierror.InvalidField("scopes", fmt.Sprintf("unknown scope %q", sc))
		}
	}
	if p.TokenLifetime < 0 || p.TokenLifetime > MaxTokenLifetime || (p.TokenLifetime > 0 && p.TokenLifetime < time.Minute) {
		return apierror.InvalidField("token_lifetime", fmt.Sprintf("must be between 60s and %ds", int(MaxTokenLifetime.Seconds())))
	}
	if p.JWKS != "" && p.JWKSURI != "" {
		return apierror.InvalidField("jwks_uri", "give jwks or jwks_uri, not both")
	}
	if p.JWKS != "" {
		if _, err := parseClientJWKS([]byte(p.JWKS)); err != nil {
			return apierror.InvalidField("jwks", err.Error())
		}
	}
	if p.JWKSURI != "" {
		if err := checkJWKSURI(ctx, p.JWKSURI, allowInsecure); err != nil {
			return apierror.InvalidField("jwks_uri", err.Error())
		}
	}
	return nil
}

// parseClientJWKS reads a client's JWK set: public signing keys only.
func parseClientJWKS(b []byte) (*jose.JSONWebKeySet, error) {
	var set jose.JSONWebKeySet
	if err := json.Unmarshal(b, &set); err != nil {
		return nil, fmt.Errorf("must be a JSON Web Key Set: %v", err)
	}
	if len(set.Keys) == 0 {
		return nil, errors.New("must hold at least one key")
	}
	for _, k := range set.Keys {
		if !k.Valid() || !k.IsPublic() {
			return nil, fmt.Errorf("key %q must be a valid public key", k.KeyID)
		}
		if k.Use != "" && k.Use != "sig" {
			return nil, fmt.Errorf("key %q must be for signing (use \"sig\")", k.KeyID)
		}
	}
	return &set, nil
}

// checkJWKSURI applies the webhooks' endpoint policy to a JWKS URL, the
// one outbound URL a client registers: https to a public host, where
// loopback, private, link-local and metadata addresses, numeric host
// forms ("127.1", "2130706433") and localhost are refused at once, and
// a name resolving to such an address too (unless the server runs with
// --allow-insecure-webhooks, which admits http and private networks).
// The dial-time guard of the fetch stays the last word.
func checkJWKSURI(ctx context.Context, raw string, allowInsecure bool) error {
	u, err := url.Parse(raw)
	if err == nil && u.Fragment != "" {
		return errors.New("must not have a fragment")
	}
	if err := webhooks.ValidateURL(raw, allowInsecure); err != nil {
		return urlReason(err)
	}
	if allowInsecure {
		return nil
	}
	return urlReason(webhooks.CheckResolved(ctx, raw, nil))
}

// urlReason is a webhooks URL refusal without its "invalid webhook URL"
// prefix, which would misname the field.
func urlReason(err error) error {
	if err == nil {
		return nil
	}
	return errors.New(strings.TrimPrefix(err.Error(), webhooks.ErrInvalidURL.Error()+": "))
}

// mayManage refuses an action on a client whose scopes the caller does not
// all hold, as for API keys.
func mayManage(by *auth.Principal, scopes []string, action string) error {
	if by == nil {
		return nil
	}
	missing := by.MissingScopes(scopes)
	if len(missing) == 0 {
		return nil
	}
	list := strings.Join(missing, ",")
	e := apierror.New(codes.PermissionDenied, "SCOPE_NOT_HELD",
		fmt.Sprintf("cannot %s an OAuth client with scopes the caller lacks: %s", action, list))
	e.Metadata = map[string]string{"missing_scopes": list}
	return e
}

// CreateClient stores a new client and returns it with its secret, which
// is not kept and cannot be shown again.
func (s *Service) CreateClient(ctx context.Context, p NewClientParams) (*Client, string, error) {
	if err := p.validate(ctx, s.cfg.AllowInsecureJWKS); err != nil {
		return nil, "", err
	}
	if err := mayManage(p.By, p.Scopes, "create"); err != nil {
		return nil, "", err
	}
	lifetime := p.TokenLifetime
	if lifetime == 0 {
		lifetime = s.cfg.DefaultLifetime
	}
	secret := newSecret()
	var row *ent.OAuthClient
	err := s.change(ctx, func(tx *ent.Client) error {
		var err error
		row, err = tx.OAuthClient.Create().
			SetID(ids.New(ClientIDPrefix)).
			SetOrganizationID(p.OrganizationID).
			SetName(p.Name).
			SetPrefix(displayPrefix(secret)).
			SetSecretHash(auth.Hash(secret)).
			SetScopes(p.Scopes).
			SetTokenLifetimeSeconds(int(lifetime / time.Second)).
			SetJwks(p.JWKS).
			SetJwksURI(p.JWKSURI).
			Save(ctx)
		if err != nil {
			return err
		}
		details := map[string]string{"name": row.Name, "scopes": audit.Scopes(row.Scopes), "lifetime": lifetime.String(), "auth_methods": "client_secret"}
		if p.JWKS != "" || p.JWKSURI != "" {
			details["auth_methods"] = "client_secret,private_key_jwt"
		}
		if u, err := url.Parse(p.JWKSURI); p.JWKSURI != "" && err == nil {
			// Scheme and host only, as for webhook endpoints: a path or
			// query may carry a token.
			details["jwks_uri"] = u.Scheme + "://" + u.Host
		}
		return audit.Record(ctx, tx, audit.Entry{
			OrganizationID: row.OrganizationID, Action: audit.OAuthClientCreated,
			TargetType: audit.TargetOAuthClient, TargetID: row.ID, Details: details,
		})
	})
	if err != nil {
		return nil, "", err
	}
	return toClient(row), secret, nil
}

// ListClients returns up to limit clients of the organization after the id
// after, newest first, revoked ones included.
func (s *Service) ListClients(ctx context.Context, orgID, after string, limit int) ([]*Client, error) {
	q := s.reader().OAuthClient.Query().Where(oauthclient.OrganizationID(orgID))
	if after != "" {
		q = q.Where(oauthclient.IDLT(after))
	}
	rows, err := q.Order(ent.Desc(oauthclient.FieldID)).Limit(limit).All(ctx)
	if err != nil {
		return nil, err
	}
	out := make([]*Client, len(rows))
	for i, c := range rows {
		out[i] = toClient(c)
	}
	return out, nil
}

// GetClient returns a client of the organization, revoked or not.
func (s *Service) GetClient(ctx context.Context, orgID, id string) (*Client, error) {
	c, err := s.reader().OAuthClient.Query().Where(oauthclient.ID(id), oauthclient.OrganizationID(orgID)).Only(ctx)
	if ent.IsNotFound(err) {
		return nil, ErrNoSuchClient
	}
	if err != nil {
		return nil, err
	}
	return toClient(c), nil
}

// RotateClient gives a client a new secret; the current one keeps working
// for the grace period. A secret already in its grace period is replaced,
// so at most two secrets are ever valid. The update is conditional on the
// secret read, so of two concurrent rotations neither is lost unseen.
func (s *Service) RotateClient(ctx context.Context, by *auth.Principal, orgID, id string, grace time.Duration) (*Client, string, error) {
	if grace < 0 || grace > 30*24*time.Hour {
		return nil, "", apierror.InvalidField("grace_period", "must be between 0s and 2592000s (30 days)")
	}
	const attempts = 5
	for range attempts {
		c, err := s.cfg.Ent.OAuthClient.Query().Where(oauthclient.ID(id), oauthclient.OrganizationID(orgID), oauthclient.RevokedAtIsNil()).Only(ctx)
		if ent.IsNotFound(err) {
			return nil, "", ErrNoSuchClient
		}
		if err != nil {
			return nil, "", err
		}
		if err := mayManage(by, c.Scopes, "rotate"); err != nil {
			return nil, "", err
		}
		secret := newSecret()
		var row *ent.OAuthClient
		n := 0
		err = s.change(ctx, func(tx *ent.Client) error {
			u := tx.OAuthClient.Update().
				Where(oauthclient.ID(id), oauthclient.SecretHash(c.SecretHash), oauthclient.RevokedAtIsNil()).
				SetSecretHash(auth.Hash(secret)).SetPrefix(displayPrefix(secret))
			if grace > 0 {
				u.SetPreviousSecretHash(c.SecretHash).SetPreviousSecretExpiresAt(s.now().Add(grace))
			} else {
				u.ClearPreviousSecretHash().ClearPreviousSecretExpiresAt()
			}
			var err error
			if n, err = u.Save(ctx); err != nil || n == 0 {
				return err // n == 0: rotated or revoked meanwhile, read it again
			}
			if row, err = tx.OAuthClient.Get(ctx, id); err != nil {
				return err
			}
			// Dashboard sessions signed in with the replaced secret end
			// when it does, as those of a rotated API key.
			end := s.now()
			if grace > 0 {
				end = *row.PreviousSecretExpiresAt
			}
			if _, err := tx.Session.Update().
				Where(session.KeyID(id), session.ExpiresAtGT(end)).
				SetExpiresAt(end).
				Save(ctx); err != nil {
				return err
			}
			return audit.Record(ctx, tx, audit.Entry{
				OrganizationID: orgID, Action: audit.OAuthClientRotated, TargetType: audit.TargetOAuthClient, TargetID: id,
				Details: map[string]string{"name": c.Name, "grace_period": grace.String()},
			})
		})
		if err != nil {
			return nil, "", err
		}
		if n == 1 {
			return toClient(row), secret, nil
		}
	}
	return nil, "", apierror.New(codes.Aborted, "CONCURRENT_ROTATION", "the client was rotated concurrently; try again")
}

// RevokeClient revokes a client: its secrets stop working at once and its
// access tokens within auth.KeyChangeBound.
func (s *Service) RevokeClient(ctx context.Context, by *auth.Principal, orgID, id string) error {
	c, err := s.cfg.Ent.OAuthClient.Query().Where(oauthclient.ID(id), oauthclient.OrganizationID(orgID), oauthclient.RevokedAtIsNil()).Only(ctx)
	if ent.IsNotFound(err) {
		return ErrNoSuchClient
	}
	if err != nil {
		return err
	}
	if err := mayManage(by, c.Scopes, "revoke"); err != nil {
		return err
	}
	return s.change(ctx, func(tx *ent.Client) error {
		n, err := tx.OAuthClient.Update().Where(oauthclient.ID(id), oauthclient.RevokedAtIsNil()).SetRevokedAt(s.now()).Save(ctx)
		if err != nil {
			return err
		}
		if n == 0 {
			return ErrNoSuchClient // revoked meanwhile
		}
		// Its dashboard sessions end with it.
		if _, err := tx.Session.Delete().Where(session.KeyID(id)).Exec(ctx); err != nil {
			return err
		}
		return audit.Record(ctx, tx, audit.Entry{
			OrganizationID: orgID, Action: audit.OAuthClientDeleted, TargetType: audit.TargetOAuthClient, TargetID: id,
			Details: map[string]string{"name": c.Name},
		})
	})
}

// clientBySecret authenticates a client by id and secret (the current one,
// or the previous one in its grace period).
func (s *Service) clientBySecret(ctx context.Context, id, secret string) (*ent.OAuthClient, error) {
	c, err := s.activeClient(ctx, id)
	if err != nil {
		return nil, err
	}
	h := auth.Hash(secret)
	switch {
	case auth.HashEqual(c.SecretHash, h):
		return c, nil
	case c.PreviousSecretHash != nil && auth.HashEqual(*c.PreviousSecretHash, h) &&
		c.PreviousSecretExpiresAt != nil && s.now().Before(*c.PreviousSecretExpiresAt):
		return c, nil
	}
	return nil, errBadCredentials
}

var errBadCredentials = errors.New("unknown client or wrong credentials")

// SignIn authenticates a client by id and secret as the token endpoint
// does for client_secret_post, for a dashboard sign-in: it returns the
// principal a bearer token of the client would carry, with all its
// allowed scopes, and, when the secret is the previous one in its grace
// period, when that ends. Unknown, revoked or wrong credentials are
// auth.ErrUnauthenticated.
func (s *Service) SignIn(ctx context.Context, id, secret string) (*auth.Principal, *time.Time, error) {
	c, err := s.clientBySecret(ctx, id, secret)
	if errors.Is(err, errBadCredentials) {
		return nil, nil, auth.ErrUnauthenticated
	}
	if err != nil {
		return nil, nil, err
	}
	var until *time.Time
	if !auth.HashEqual(c.SecretHash, auth.Hash(secret)) {
		until = c.PreviousSecretExpiresAt
	}
	return clientPrincipal(c), until, nil
}

// SessionClient is the principal of an active client, for a dashboard
// session opened with it (auth.ClientSource); unknown or revoked is
// auth.ErrUnauthenticated.
func (s *Service) SessionClient(ctx context.Context, id string) (*auth.Principal, error) {
	c, err := s.activeClient(ctx, id)
	if errors.Is(err, errBadCredentials) {
		return nil, auth.ErrUnauthenticated
	}
	if err != nil {
		return nil, err
	}
	return clientPrincipal(c), nil
}

// clientPrincipal is the principal of a client as Verify builds it for
// its tokens, with every scope the client is allowed.
func clientPrincipal(c *ent.OAuthClient) *auth.Principal {
	return &auth.Principal{KeyID: c.ID, ClientID: c.ID, OrganizationID: c.OrganizationID, Scopes: slices.Clone(c.Scopes)}
}

func (s *Service) activeClient(ctx context.Context, id string) (*ent.OAuthClient, error) {
	if !ids.Valid(ClientIDPrefix, id) {
		return nil, errBadCredentials
	}
	c, err := s.cfg.Ent.OAuthClient.Query().Where(oauthclient.ID(id), oauthclient.RevokedAtIsNil()).Only(ctx)
	if ent.IsNotFound(err) {
		return nil, errBadCredentials
	}
	return c, err
}
