package schema

import (
	"entgo.io/ent"
	"entgo.io/ent/schema/field"
)

// EventSequence is the last event sequence number an organization has
// used (see Event.sequence). It is written by upsert in the transaction
// that records events, never read on its own.
type EventSequence struct{ ent.Schema }

func (EventSequence) Fields() []ent.Field {
	return []ent.Field{
		// The organization's id.
		field.String("id").Immutable().NotEmpty().MaxLen(64),
		field.Int64("last").Default(0),
	}
}
