package schema

import (
	"entgo.io/ent"
	"entgo.io/ent/schema/field"
	"entgo.io/ent/schema/index"
)

// IPRecord is a registered work with its certificate material.
type IPRecord struct{ ent.Schema }

func (IPRecord) Mixin() []ent.Mixin { return []ent.Mixin{prefixedID{}} }

func (IPRecord) Fields() []ent.Field {
	return []ent.Field{
		field.String("organization_id").Immutable(),
		field.String("creator_id").Immutable(),
		field.String("title").Immutable().MaxLen(500),
		field.String("type").Immutable(),
		// "sha256:" + 64 lowercase hex.
		field.String("content_hash").Immutable(),
		field.Text("description").Immutable().Default(""),
		// Registration time, whole seconds, as sealed in the token.
		field.Time("timestamp").Immutable(),
		field.String("certificate_id").Unique().Immutable(),
		field.String("status").Default("registered"),
		field.String("log_origin").Immutable(),
		field.Int64("log_index").Immutable(),
		// The canonical bytes that were timestamped and logged.
		field.Bytes("record_bytes").Immutable(),
		field.Bytes("token").Immutable(),
		field.Time("created_at").Immutable().Default(now),
	}
}

func (IPRecord) Indexes() []ent.Index {
	return []ent.Index{
		// The first registration of a content hash is the priority claim.
		index.Fields("organization_id", "content_hash").Unique(),
		index.Fields("organization_id", "id"),
		index.Fields("organization_id", "creator_id", "id"),
		// The catalog by type: its pages, newest first, and its count.
		index.Fields("organization_id", "type", "id"),
		index.Fields("log_origin", "log_index").Unique(),
	}
}
