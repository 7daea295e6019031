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
		// active, or erased: the personal fields are emptied and the row
		// stays as a tombstone, so the id answers 404 and is never reused.
		field.String("status").Default("active"),
		field.JSON("metadata", map[string]any{}).Optional(),
		// 1 when created, raised by each update (optimistic concurrency).
		field.Int("revision").Default(1),
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
