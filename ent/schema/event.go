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
		// The event's position among its organization's events, taken
		// from the organization's EventSequence row in the emitting
		// transaction: that row's lock orders the organization's emitting
		// transactions, so a sequence is committed only after every
		// smaller one, and "after this event" never skips one committed
		// late. 0 for events recorded before sequences existed.
		field.Int64("sequence").Immutable().Default(0),
		// The id of the resource the event is about, for GET /v1/events'
		// object_id filter.
		field.String("object_id").Immutable().Default(""),
		// The creator the event names (its data's creator_id, or the
		// creator's own id), "" for none: an erasure or an export finds a
		// creator's events by this column instead of reading every event
		// of the organization. NULL only in rows written before the column
		// existed; those are matched by their data until retention ends
		// them.
		field.String("creator_id").Optional().Nillable().Immutable(),
	}
}

func (Event) Indexes() []ent.Index {
	return []ent.Index{
		index.Fields("organization_id", "type", "id"),
		// GET /v1/events: an organization's events in sequence order,
		// and those of one resource.
		index.Fields("organization_id", "sequence"),
		index.Fields("organization_id", "object_id", "sequence"),
		// A creator's erasure and export.
		index.Fields("organization_id", "creator_id", "id"),
		// The retention job deletes the oldest first, in batches.
		index.Fields("created_at"),
	}
}
