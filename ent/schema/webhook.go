package schema

import (
	"entgo.io/ent"
	"entgo.io/ent/schema/field"
	"entgo.io/ent/schema/index"
)

// Webhook is an HTTPS endpoint of an organization that receives signed
// events.
type Webhook struct{ ent.Schema }

func (Webhook) Mixin() []ent.Mixin { return []ent.Mixin{prefixedID{}, timestamps{}} }

func (Webhook) Fields() []ent.Field {
	return []ent.Field{
		field.String("organization_id").Immutable(),
		field.String("url").MaxLen(2048),
		// Subscribed event types, or ["*"].
		field.Strings("events"),
		field.String("description").MaxLen(500).Default(""),
		// The signing secret must be kept readable (not hashed): every
		// delivery is signed with it. It is never returned by the API. It
		// is stored sealed under the master key (package secrets), in
		// base64; it changes only when it is sealed again under a newer
		// master key.
		field.String("secret").Sensitive(),
		// The master key the secret is sealed under; empty for a secret
		// stored in the clear before secrets were sealed, which the next
		// start seals.
		field.String("secret_key_id").Default(""),
		// The secret a rotation replaced, sealed like secret: deliveries
		// are signed with it too until previous_secret_expires_at.
		field.String("previous_secret").Sensitive().Default(""),
		field.String("previous_secret_key_id").Default(""),
		field.Time("previous_secret_expires_at").Optional().Nillable(),
		// Deliveries that failed (retries exhausted) in a row since the
		// last success; the webhook is disabled at the server's threshold.
		field.Int("consecutive_failures").Default(0),
		// active, or disabled (by the API, after a run of failures, or
		// because the endpoint answered 410 Gone).
		field.String("status").Default("active"),
		field.String("disabled_reason").Optional(),
		field.Time("disabled_at").Optional().Nillable(),
		// Deleted webhooks are kept (soft delete) so that their deliveries
		// stay consistent, but they are invisible to the API and receive
		// nothing, not even retries already queued.
		field.Time("deleted_at").Optional().Nillable(),
	}
}

func (Webhook) Indexes() []ent.Index {
	return []ent.Index{
		// Listing (newest first) and fan-out both look up an
		// organization's webhooks.
		index.Fields("organization_id", "id"),
	}
}
