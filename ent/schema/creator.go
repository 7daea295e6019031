package schema

import (
	"entgo.io/ent"
	"entgo.io/ent/schema/edge"
	"entgo.io/ent/schema/field"
	"entgo.io/ent/schema/index"
)

// Creator is a creator account of an organization.
type Creator struct{ ent.Schema }

func (Creator) Mixin() []ent.Mixin { return []ent.Mixin{prefixedID{}, timestamps{}} }

func (Creator) Fields() []ent.Field {
	return []ent.Field{
		field.String("organization_id").Immutable(),
		field.String("name").MaxLen(200),
		field.String("email").MaxLen(254),
		// Lower-cased email: uniqueness is case-insensitive, enforced by the
		// database so concurrent creations cannot both win.
		field.String("email_key").MaxLen(254),
		field.String("vertical").MaxLen(64),
		field.String("status").Default("active"),
		field.JSON("metadata", map[string]any{}).Optional(),
	}
}

func (Creator) Edges() []ent.Edge {
	return []ent.Edge{
		edge.From("organization", Organization.Type).Ref("creators").Field("organization_id").Unique().Required().Immutable(),
	}
}

func (Creator) Indexes() []ent.Index {
	return []ent.Index{
		index.Fields("organization_id", "email_key").Unique(),
		index.Fields("organization_id", "vertical", "id"),
		index.Fields("organization_id", "id"),
	}
}
