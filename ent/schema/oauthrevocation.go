package schema

import (
	"entgo.io/ent"
	"entgo.io/ent/schema/field"
	"entgo.io/ent/schema/index"
)

// OAuthRevocation is a revoked access token (RFC 7009), kept until the
// token would have expired anyway.
type OAuthRevocation struct{ ent.Schema }

func (OAuthRevocation) Fields() []ent.Field {
	return []ent.Field{
		field.String("id").Immutable().NotEmpty().MaxLen(128), // the token's jti
		field.String("client_id").Immutable(),
		field.Time("expires_at").Immutable(),
		field.Time("created_at").Immutable(),
	}
}

func (OAuthRevocation) Indexes() []ent.Index {
	return []ent.Index{index.Fields("expires_at")}
}
