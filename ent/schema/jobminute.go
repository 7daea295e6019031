package schema

import (
	"entgo.io/ent"
	"entgo.io/ent/schema/field"
	"entgo.io/ent/schema/index"
)

// JobMinute counts the finished jobs of one organization and key that were
// created in one minute, by final status, with the summed run time of those
// that completed or failed. A job adds itself in the transaction that
// finishes it (storage.AddJobMinutes), so the usage report reads one row
// per minute and key rather than one per job. It is history, as usage
// minutes are: nothing removes a job from it.
type JobMinute struct{ ent.Schema }

func (JobMinute) Fields() []ent.Field {
	return []ent.Field{
		field.String("organization_id").Immutable(),
		field.String("key_id").Immutable(),
		// Start of the minute the jobs were created in, Unix seconds (UTC).
		field.Int64("minute").Immutable(),
		field.Int64("completed").Default(0),
		field.Int64("failed").Default(0),
		field.Int64("canceled").Default(0),
		// The run time (started to finished) of the completed and failed
		// jobs that have one, summed in microseconds, and how many those are.
		field.Int64("duration_sum_us").Default(0),
		field.Int64("duration_n").Default(0),
	}
}

func (JobMinute) Indexes() []ent.Index {
	return []ent.Index{
		// The upsert target; organization and minute first for the usage
		// report's range scan.
		index.Fields("organization_id", "minute", "key_id").Unique(),
	}
}
