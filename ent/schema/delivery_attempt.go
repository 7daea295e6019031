package schema

import (
	"entgo.io/ent"
	"entgo.io/ent/schema/field"
	"entgo.io/ent/schema/index"
)

// DeliveryAttempt is the log of one HTTP attempt of a delivery, written in
// the same transaction as the delivery's new state.
type DeliveryAttempt struct{ ent.Schema }

func (DeliveryAttempt) Fields() []ent.Field {
	return []ent.Field{
		field.String("delivery_id").Immutable(),
		// 1 for the first attempt.
		field.Int("number").Immutable(),
		field.Time("at").Immutable(),
		// 0 when no response arrived.
		field.Int("response_status").Immutable(),
		field.Int64("latency_ms").Immutable(),
		field.Text("error").Optional().Immutable(),
		// The first KiB of the response body, for the customer to see why
		// their endpoint refused it.
		field.Text("response_body").Optional().Immutable(),
		// When the next attempt is scheduled; unset when this was the last.
		field.Time("next_retry_at").Optional().Nillable().Immutable(),
	}
}

func (DeliveryAttempt) Indexes() []ent.Index {
	// Unique: an attempt number is recorded once, however often the queue
	// runs the job.
	return []ent.Index{index.Fields("delivery_id", "number").Unique()}
}
