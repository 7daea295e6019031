package schema

import (
	"entgo.io/ent"
	"entgo.io/ent/schema/field"
	"entgo.io/ent/schema/index"
)

// AuditEvent records one security-relevant change (a key created, a
// webhook deleted, secrets resealed): who made it, what, when and from
// where. It is written in the same transaction as the change, and never
// holds a secret (see package audit).
type AuditEvent struct{ ent.Schema }

func (AuditEvent) Mixin() []ent.Mixin { return []ent.Mixin{prefixedID{}} }

func (AuditEvent) Fields() []ent.Field {
	return []ent.Field{
		// Empty for changes to the installation as a whole (master keys,
		// IP registry keys), which no organization's API shows.
		field.String("organization_id").Immutable(),
		// An API key id, "cli:<os user>" or "system".
		field.String("actor").Immutable().MaxLen(200),
		field.String("action").Immutable().MaxLen(64),
		field.String("target_type").Immutable().MaxLen(64),
		field.String("target_id").Immutable().MaxLen(200),
		field.String("client_ip").Immutable().Default("").MaxLen(64),
		field.String("user_agent").Immutable().Default("").MaxLen(512),
		field.String("request_id").Immutable().Default("").MaxLen(128),
		// rest, grpc, connect, grpc-web, cli or system.
		field.String("transport").Immutable().MaxLen(16),
		field.JSON("details", map[string]string{}).Immutable().Optional(),
		field.Time("created_at").Immutable().Default(now),
	}
}

func (AuditEvent) Indexes() []ent.Index {
	return []ent.Index{
		index.Fields("organization_id", "id"),
		index.Fields("organization_id", "action", "id"),
		index.Fields("organization_id", "actor", "id"),
		index.Fields("organization_id", "target_id", "id"),
		index.Fields("created_at"),
	}
}
