package schema

import (
	"entgo.io/ent"
	"entgo.io/ent/schema/field"
	"entgo.io/ent/schema/index"
)

// Event records something that happened, written in the same transaction
// as the change itself, so webhooks can deliver it even after a crash.
type Event struct{ ent.Schema }

func (Event) Mixin() []ent.Mixin { return []ent.Mixin{prefixedID{}} }

func (Event) Fields() []ent.Field {
	return []ent.Field{
		field.String("organization_id").Immutable(),
		field.String("type").Immutable(),
		// The resource as the API returns it (JSON).
		field.Text("data").Immutable(),
		field.Time("created_at").Immutable().Default(now),
	}
}

func (Event) Indexes() []ent.Index {
	return []ent.Index{index.Fields("organization_id", "type", "id")}
}
