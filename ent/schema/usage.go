package schema

import (
	"entgo.io/ent"
	"entgo.io/ent/schema/field"
	"entgo.io/ent/schema/index"
)

// UsageMinute is one minute of API traffic of one organization, key, route
// and response status. Every replica adds its own counts into the same row
// (insert or add), which is why latency is kept as a mergeable histogram
// (analytics.Histogram) and percentiles are only computed when queried.
type UsageMinute struct{ ent.Schema }

func (UsageMinute) Fields() []ent.Field {
	return []ent.Field{
		// Start of the minute in Unix seconds (UTC): integer ranges compare
		// the same on SQLite and PostgreSQL.
		field.Int64("minute").Immutable(),
		field.String("organization_id").Immutable(),
		field.String("key_id").Immutable(),
		// HTTP method and route template ("/v1/creators/{id}"), never a
		// concrete path, so rows stay few.
		field.String("method").MaxLen(16).Immutable(),
		field.String("route").MaxLen(255).Immutable(),
		// HTTP status of the response (gRPC codes mapped to theirs).
		field.Int("status").Immutable(),
		field.Int64("requests").Default(0),
		field.Int64("latency_sum_us").Default(0),
		// Encoded analytics.Histogram of server-side latencies.
		field.Bytes("histogram"),
	}
}

func (UsageMinute) Indexes() []ent.Index {
	return []ent.Index{
		// The upsert target; organization and minute first for the usage
		// query's range scan.
		index.Fields("organization_id", "minute", "key_id", "method", "route", "status").Unique(),
		// Pruning past the retention period deletes by minute alone.
		index.Fields("minute"),
	}
}
