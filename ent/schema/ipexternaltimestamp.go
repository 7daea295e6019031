package schema

import (
	"entgo.io/ent"
	"entgo.io/ent/schema/field"
	"entgo.io/ent/schema/index"
)

// IPExternalTimestamp is the RFC 3161 timestamp of one registered record
// from one authority the operator named with --timestamp-authority: pending
// until the token is fetched (asynchronously, by the ip.timestamp job),
// then ok with the token, or failed once every retry failed.
type IPExternalTimestamp struct{ ent.Schema }

func (IPExternalTimestamp) Fields() []ent.Field {
	return []ent.Field{
		field.String("record_id").Immutable(),
		field.String("organization_id").Immutable(),
		// The authority's URL, as configured.
		field.String("authority").Immutable(),
		// pending, ok or failed.
		field.String("status").Default("pending"),
		// The authority's TimeStampResp (DER) over SHA-256(record bytes).
		field.Bytes("token").Optional().Nillable(),
		// The token's genTime.
		field.Time("gen_time").Optional().Nillable(),
		field.Int("attempts").Default(0),
		field.Text("last_error").Default(""),
		field.Time("created_at").Immutable().Default(now),
		field.Time("updated_at").Default(now).UpdateDefault(now),
	}
}

func (IPExternalTimestamp) Indexes() []ent.Index {
	return []ent.Index{index.Fields("record_id", "authority").Unique()}
}
