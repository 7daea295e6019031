package schema

import (
	"entgo.io/ent"
	"entgo.io/ent/dialect/entsql"
	"entgo.io/ent/schema"
	"entgo.io/ent/schema/field"
)

// KeyEpoch is a single row (id 1) counting changes to API keys: every
// create, rotation and revocation increments it in the same transaction.
// Replicas cache verified keys and poll this counter to know when to drop
// their cache, so a change made anywhere (another replica, the CLI) takes
// effect everywhere within the poll bound.
type KeyEpoch struct{ ent.Schema }

func (KeyEpoch) Annotations() []schema.Annotation {
	return []schema.Annotation{entsql.Annotation{Table: "key_epoch"}}
}

func (KeyEpoch) Fields() []ent.Field {
	return []ent.Field{
		// Always 1: set explicitly so that concurrent first increments
		// meet on one row instead of each inserting its own.
		field.Int("id").Immutable(),
		field.Int64("epoch").Default(0),
	}
}
