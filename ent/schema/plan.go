package schema

import (
	"entgo.io/ent"
	"entgo.io/ent/dialect/entsql"
	"entgo.io/ent/schema/field"
	"entgo.io/ent/schema/index"
)

// Plan is a workflow result an organization tracks: its milestones are
// checked off, reminded and re-planned (see package plans).
type Plan struct{ ent.Schema }

func (Plan) Mixin() []ent.Mixin { return []ent.Mixin{prefixedID{}, timestamps{}} }

func (Plan) Fields() []ent.Field {
	return []ent.Field{
		field.String("organization_id").Immutable(),
		field.String("creator_id").Default(""),
		field.String("vertical").Immutable(),
		field.String("workflow").Immutable(),
		// The current revision's context (without as_of) and result when
		// the plan keeps its own copy, as plans tracked before 0.2 did;
		// empty documents when they are read from the job that made the
		// revision (job_id), which holds them (package plans, ofJob).
		field.JSON("context", map[string]any{}),
		field.JSON("result", map[string]any{}),
		field.Int("revision").Default(1),
		// The job that made the current revision.
		field.String("job_id"),
		// YYYY-MM-DD.
		field.String("as_of"),
		field.String("time_zone").Default("UTC"),
		// active, or completed when no milestone is pending.
		field.String("state").Default("active"),
		field.Int("remind_days_before").Default(3),
		field.Bool("auto_replan").Default(true),
		// The SHA-256 of the calendar feed token (hex), empty without a
		// feed; the token itself is shown once and never stored.
		field.String("feed_token_hash").Default("").Sensitive(),
		field.Time("feed_created_at").Optional().Nillable(),
		// When the reminder scan next needs the plan, in Unix seconds:
		// the earliest moment one of its pending milestones' reminders
		// (or an automatic re-plan) falls due; null when none ever will.
		// The scan reads only plans whose moment has come (package plans,
		// nextCheck). Rows an earlier version wrote take 0 when the column
		// is added, so the first scans settle them in their batches.
		field.Int64("next_check").Optional().Nillable().
			Annotations(entsql.Default("0")),
	}
}

func (Plan) Indexes() []ent.Index {
	return []ent.Index{
		index.Fields("organization_id", "id"),
		index.Fields("organization_id", "state", "id"),
		// A feed URL's plan (plans.Feeds.ByToken), among the plans that
		// have a feed: partial, so that the million plans without one
		// (an empty hash) are not in it, and PostgreSQL's generic plan for
		// the lookup, which estimates an equality by the column's one
		// common value, cannot prefer a scan of every plan.
		index.Fields("feed_token_hash").StorageKey("plan_feed_token_hash_set").
			Annotations(entsql.IndexWhere("feed_token_hash <> ''")),
		// A creator's plans: GET /v1/plans?creator_id=, export, erasure.
		index.Fields("organization_id", "creator_id", "id"),
		// What is due: a range of next_check, in keyset order.
		index.Fields("next_check", "id"),
	}
}

// PlanMilestone is one milestone of a plan, with its state.
type PlanMilestone struct{ ent.Schema }

func (PlanMilestone) Fields() []ent.Field {
	return []ent.Field{
		field.String("plan_id").Immutable(),
		field.String("organization_id").Immutable(),
		// The engine's key, stable across revisions.
		field.String("key").Immutable(),
		field.String("title"),
		// YYYY-MM-DD.
		field.String("date"),
		field.Bool("deliverable").Default(false),
		// The order of the milestone in the current revision.
		field.Int("position").Default(0),
		// pending, done or skipped.
		field.String("state").Default("pending"),
		field.Time("done_at").Optional().Nillable(),
		// The revision in which the date or title last changed.
		field.Int("revision").Default(1),
		// Whether the milestone is in the current revision (a done
		// milestone the new revision dropped is kept, not current).
		field.Bool("current").Default(true),
	}
}

func (PlanMilestone) Indexes() []ent.Index {
	return []ent.Index{
		// A plan's milestones (every query names the plan).
		index.Fields("plan_id", "key").Unique(),
	}
}

// PlanReminder records a reminder sent: one row per plan, milestone,
// revision and kind, so a reminder is sent exactly once however many
// replicas look for due milestones.
type PlanReminder struct{ ent.Schema }

func (PlanReminder) Fields() []ent.Field {
	return []ent.Field{
		field.String("plan_id").Immutable(),
		field.String("milestone_key").Immutable(),
		field.Int("revision").Immutable(),
		// due_before (remind_days_before ahead), due_today, overdue.
		field.String("kind").Immutable(),
		field.String("event_id").Immutable(),
		field.Time("created_at").Immutable().Default(now),
	}
}

func (PlanReminder) Indexes() []ent.Index {
	return []ent.Index{
		index.Fields("plan_id", "milestone_key", "revision", "kind").Unique(),
	}
}
