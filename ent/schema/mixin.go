package schema

import (
	"time"

	"entgo.io/ent"
	"entgo.io/ent/schema/field"
	"entgo.io/ent/schema/mixin"
)

// prefixedID gives an entity a string primary key of the form
// "<prefix>_<ulid>"; ids sort by creation time, which list pagination relies on.
type prefixedID struct{ mixin.Schema }

func (prefixedID) Fields() []ent.Field {
	return []ent.Field{field.String("id").Immutable().NotEmpty().MaxLen(64)}
}

// timestamps records creation and last-update times in UTC.
type timestamps struct{ mixin.Schema }

func (timestamps) Fields() []ent.Field {
	return []ent.Field{
		field.Time("created_at").Immutable().Default(now),
		field.Time("updated_at").Default(now).UpdateDefault(now),
	}
}

// Times are kept to the microsecond, the precision PostgreSQL stores, so
// both databases return the same values.
func now() time.Time { return time.Now().UTC().Truncate(time.Microsecond) }
