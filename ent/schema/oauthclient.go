package schema

import (
	"entgo.io/ent"
	"entgo.io/ent/schema/field"
	"entgo.io/ent/schema/index"
)

// OAuthClient is a machine-to-machine OAuth 2.0 client of an organization
// (client credentials grant). Like API keys, only SHA-256 digests of its
// secrets are kept, and a rotated secret keeps working for a grace period.
// A client that authenticates with private_key_jwt registers its public
// keys as a JWK set or the URL of one.
type OAuthClient struct{ ent.Schema }

func (OAuthClient) Mixin() []ent.Mixin { return []ent.Mixin{prefixedID{}, timestamps{}} }

func (OAuthClient) Fields() []ent.Field {
	return []ent.Field{
		field.String("organization_id").Immutable(),
		field.String("name").MaxLen(100),
		field.String("prefix").MaxLen(32),
		field.String("secret_hash").Unique().Sensitive(),
		field.String("previous_secret_hash").Optional().Nillable().Unique().Sensitive(),
		field.Time("previous_secret_expires_at").Optional().Nillable(),
		field.Strings("scopes"),
		field.Int("token_lifetime_seconds"),
		field.Text("jwks").Optional(),
		field.String("jwks_uri").Optional().MaxLen(2048),
		field.Time("revoked_at").Optional().Nillable(),
	}
}

func (OAuthClient) Indexes() []ent.Index {
	return []ent.Index{index.Fields("organization_id", "id")}
}
