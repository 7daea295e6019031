package schema

import (
	"entgo.io/ent"
	"entgo.io/ent/schema/field"
	"entgo.io/ent/schema/index"
)

// OAuthAssertion records a private_key_jwt client assertion that was used,
// so that the same assertion (client and jti) is refused if replayed. Rows
// are kept until the assertion expires.
type OAuthAssertion struct{ ent.Schema }

func (OAuthAssertion) Fields() []ent.Field {
	return []ent.Field{
		// client id and jti, joined by ":" (client ids have none): unique
		// across clients.
		field.String("id").Immutable().NotEmpty().MaxLen(400),
		field.Time("expires_at").Immutable(),
	}
}

func (OAuthAssertion) Indexes() []ent.Index {
	return []ent.Index{index.Fields("expires_at")}
}
