package schema

import (
	"entgo.io/ent"
	"entgo.io/ent/schema/field"
	"entgo.io/ent/schema/index"
)

// IdempotencyKey remembers a POST made with an Idempotency-Key header so a
// retry gets the first response instead of running again. The insert of
// the in_progress row decides, across replicas, which request runs.
type IdempotencyKey struct{ ent.Schema }

func (IdempotencyKey) Fields() []ent.Field {
	return []ent.Field{
		field.String("organization_id").Immutable(),
		field.String("key").MaxLen(255).Immutable(),
		// Full gRPC method the key was first used with.
		field.String("method").Immutable(),
		// Hex SHA-256 of the method and the deterministic proto encoding of
		// the request: a retry must send the same request.
		field.String("fingerprint").Immutable(),
		// in_progress or done.
		field.String("state").Default("in_progress"),
		// The reply message, or a google.rpc.Status when failed is set.
		field.Bytes("response").Optional().Nillable(),
		field.Bool("failed").Default(false),
		// HTTP status of the first response (201, 202, 404, ...).
		field.Int("http_status").Default(0),
		// Response headers the handler set (location).
		field.JSON("headers", map[string]string{}).Optional(),
		field.Time("created_at").Immutable().Default(now),
		// When the current run started; an in_progress row older than the
		// lock timeout was abandoned (its replica died) and may be taken over.
		field.Time("locked_at").Default(now),
		field.Time("expires_at"),
	}
}

func (IdempotencyKey) Indexes() []ent.Index {
	return []ent.Index{
		index.Fields("organization_id", "key").Unique(),
		index.Fields("expires_at"),
	}
}
