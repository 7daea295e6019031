package schema

import (
	"entgo.io/ent"
	"entgo.io/ent/schema/edge"
	"entgo.io/ent/schema/field"
)

// Organization owns keys and every resource created with them.
type Organization struct{ ent.Schema }

func (Organization) Mixin() []ent.Mixin { return []ent.Mixin{prefixedID{}, timestamps{}} }

func (Organization) Fields() []ent.Field {
	return []ent.Field{field.String("name").Unique().NotEmpty().MaxLen(100)}
}

func (Organization) Edges() []ent.Edge {
	return []ent.Edge{
		edge.To("api_keys", APIKey.Type),
		edge.To("creators", Creator.Type),
	}
}
