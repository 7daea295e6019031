package schema

import (
	"entgo.io/ent"
	"entgo.io/ent/dialect"
	"entgo.io/ent/schema/field"
	"entgo.io/ent/schema/index"

	"github.com/creativeops/creativeops/storage/jsondoc"
)

// docColumn is a jsondoc.Doc's column type: the one a JSON field has, so
// the schema is unchanged from when these were JSON fields.
var docColumn = map[string]string{dialect.SQLite: "json", dialect.Postgres: "jsonb"}

// Job is one run of a workflow, synchronous or asynchronous.
type Job struct{ ent.Schema }

func (Job) Mixin() []ent.Mixin { return []ent.Mixin{prefixedID{}, timestamps{}} }

func (Job) Fields() []ent.Field {
	return []ent.Field{
		field.String("organization_id").Immutable(),
		field.String("key_id").Immutable(),
		field.String("vertical").Immutable(),
		field.String("workflow").Immutable(),
		// queued, processing, completed, failed, canceled.
		field.String("status"),
		field.Int("progress").Default(0),
		field.String("current_step").Optional(),
		// The run's context and result: JSON objects, compressed on SQLite
		// (package jsondoc), jsonb on PostgreSQL, as JSON fields were.
		field.Other("context", jsondoc.Doc{}).SchemaType(docColumn),
		field.Other("result", jsondoc.Doc{}).SchemaType(docColumn).Optional(),
		field.String("error_code").Optional(),
		field.Text("error_message").Optional(),
		field.String("error_step").Optional(),
		field.Int("attempts").Default(0),
		field.Bool("async").Default(false).Immutable(),
		field.Time("started_at").Optional().Nillable(),
		field.Time("completed_at").Optional().Nillable(),
		// track: the run's plan is kept as a tracked plan when it
		// completes (package plans), for creator_id when set.
		field.Bool("track").Default(false).Immutable(),
		field.String("creator_id").Default("").Immutable(),
		// The tracked plan the run made, or whose revision it made (a
		// re-plan); empty otherwise.
		field.String("plan_id").Default(""),
	}
}

func (Job) Indexes() []ent.Index {
	return []ent.Index{
		index.Fields("organization_id", "id"),
		index.Fields("organization_id", "status", "id"),
		// Deleting a plan clears the plan_id of the jobs that made it.
		index.Fields("organization_id", "plan_id"),
		// A creator's runs, for its export and erasure.
		index.Fields("organization_id", "creator_id", "id"),
		// The usage report's counts of queued and processing jobs over a
		// window (analytics.Usage): only active jobs' entries are read, from
		// the index alone. Finished jobs are counted in job_minutes.
		index.Fields("organization_id", "status", "created_at", "key_id"),
	}
}
