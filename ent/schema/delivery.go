package schema

import (
	"entgo.io/ent"
	"entgo.io/ent/schema/field"
	"entgo.io/ent/schema/index"
)

// Delivery is one event on its way to one webhook: written in the same
// transaction as the event, together with the queue job that sends it.
type Delivery struct{ ent.Schema }

func (Delivery) Mixin() []ent.Mixin { return []ent.Mixin{prefixedID{}} }

func (Delivery) Fields() []ent.Field {
	return []ent.Field{
		field.String("organization_id").Immutable(),
		field.String("webhook_id").Immutable(),
		field.String("event_id").Immutable(),
		field.String("event_type").Immutable(),
		// pending, succeeded, failed.
		field.String("status").Default("pending"),
		// Attempts made so far; also the version the queue job carries, so
		// that a stale or duplicated job cannot record an attempt twice.
		field.Int("attempts").Default(0),
		// Of the last attempt; 0 when no response arrived.
		field.Int("response_status").Default(0),
		field.Int64("latency_ms").Default(0),
		field.Text("last_error").Optional(),
		field.Time("next_retry_at").Optional().Nillable(),
		field.Time("created_at").Immutable().Default(now),
		field.Time("updated_at").Default(now).UpdateDefault(now),
		field.Time("completed_at").Optional().Nillable(),
	}
}

func (Delivery) Indexes() []ent.Index {
	return []ent.Index{
		// GET /v1/webhooks/{id}/deliveries, newest first.
		index.Fields("webhook_id", "id"),
		index.Fields("event_id"),
	}
}
