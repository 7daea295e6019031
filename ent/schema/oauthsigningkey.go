package schema

import (
	"entgo.io/ent"
	"entgo.io/ent/schema/field"
)

// OAuthSigningKey is a key the authorization server signs access tokens
// with. Every replica reads the same rows, so any replica verifies what any
// other signed. The private key is sealed under the master keys; the newest
// key signs, older ones keep verifying until verify_until so that tokens in
// flight when a key is rotated stay valid.
type OAuthSigningKey struct{ ent.Schema }

func (OAuthSigningKey) Fields() []ent.Field {
	return []ent.Field{
		field.String("id").Immutable().NotEmpty().MaxLen(64), // the JWK "kid"
		field.String("algorithm").Immutable(),
		field.Bytes("private_key").Sensitive(),
		// private_key_key_id names the master key that sealed private_key.
		field.String("private_key_key_id"),
		field.Time("created_at").Immutable(),
		// retired_at is set when a newer key takes over signing.
		field.Time("retired_at").Optional().Nillable(),
		// verify_until is when a retired key leaves the key set: its
		// retirement plus the longest token lifetime.
		field.Time("verify_until").Optional().Nillable(),
	}
}
