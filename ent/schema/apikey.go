package schema

import (
	"entgo.io/ent"
	"entgo.io/ent/schema/edge"
	"entgo.io/ent/schema/field"
	"entgo.io/ent/schema/index"
)

// APIKey authenticates requests. Only SHA-256 digests of secrets are kept.
// A rotated key keeps its previous digest until the grace period ends.
type APIKey struct{ ent.Schema }

func (APIKey) Mixin() []ent.Mixin { return []ent.Mixin{prefixedID{}, timestamps{}} }

func (APIKey) Fields() []ent.Field {
	return []ent.Field{
		field.String("organization_id").Immutable(),
		field.String("name").MaxLen(100),
		field.String("prefix").MaxLen(32),
		field.String("secret_hash").Unique().Sensitive(),
		field.String("previous_secret_hash").Optional().Nillable().Unique().Sensitive(),
		field.Time("previous_secret_expires_at").Optional().Nillable(),
		field.Strings("scopes"),
		field.Time("expires_at").Optional().Nillable(),
		field.Time("revoked_at").Optional().Nillable(),
		field.Float("rate_limit_rps").Optional().Nillable(),
		field.Int("rate_limit_burst").Optional().Nillable(),
	}
}

func (APIKey) Edges() []ent.Edge {
	return []ent.Edge{
		edge.From("organization", Organization.Type).Ref("api_keys").Field("organization_id").Unique().Required().Immutable(),
	}
}

func (APIKey) Indexes() []ent.Index {
	return []ent.Index{index.Fields("organization_id", "id")}
}
