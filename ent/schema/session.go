package schema

import (
	"entgo.io/ent"
	"entgo.io/ent/schema/field"
	"entgo.io/ent/schema/index"
)

// Session is a developer dashboard sign-in: a browser holding the random
// token of the session cookie acts as the API key the session was opened
// with. Neither the key nor the token is stored: only the key's id and the
// token's SHA-256. Ending a session deletes its row.
type Session struct{ ent.Schema }

func (Session) Mixin() []ent.Mixin { return []ent.Mixin{prefixedID{}} }

func (Session) Fields() []ent.Field {
	return []ent.Field{
		// Hex SHA-256 of the cookie's token.
		field.String("token_hash").Unique().Immutable().Sensitive(),
		// Sent back by the browser in X-CSRF-Token with every call.
		field.String("csrf_token").Immutable().Sensitive(),
		field.String("key_id").Immutable(),
		field.String("organization_id").Immutable(),
		field.Time("created_at").Immutable().Default(now),
		// Updated at most once a minute while the session is used; the
		// session ends when it is older than the idle lifetime.
		field.Time("last_seen_at").Default(now),
		// The absolute end of the session, whatever its use; brought
		// forward to the grace end when its key is rotated.
		field.Time("expires_at"),
	}
}

func (Session) Indexes() []ent.Index {
	return []ent.Index{index.Fields("key_id"), index.Fields("expires_at"), index.Fields("last_seen_at")}
}
