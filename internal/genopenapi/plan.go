package main

import "github.com/creativeops/creativeops/engine"

// planSchemas types the part of a job's result every workflow shares — the
// plan engine.Plan renders (its value method): a strategy,
// recommendations, a timeline of milestones, warnings and the date it was
// made on. The proto carries the result as a google.protobuf.Struct, since
// each workflow adds keys of its own (docs/workflows.md); those stay free
// as additional properties.
func planSchemas() map[string]any {
	date := func(description string) map[string]any {
		d := map[string]any{"type": "string", "format": "date"}
		if description != "" {
			d["description"] = description
		}
		return d
	}
	priorities := []any{}
	for _, p := range []engine.Priority{engine.High, engine.Medium, engine.Low} {
		priorities = append(priorities, string(p))
	}
	regions := []any{}
	for _, r := range engine.Regions() {
		regions = append(regions, string(r))
	}
	kinds := []any{}
	for _, k := range engine.StepKinds {
		kinds = append(kinds, string(k))
	}
	closures := []any{}
	for _, c := range engine.Closures() {
		closures = append(closures, c.Key)
	}
	ref := func(name string) map[string]any { return map[string]any{"$ref": "#/components/schemas/" + name} }
	return map[string]any{
		"PlanResult": map[string]any{
			"type":        "object",
			"description": "The plan a completed job returns. Every workflow fills in these keys; its own keys (budgets, price ladders, checklists: see docs/workflows.md) come beside them.",
			"required":    []any{"strategy", "recommendations", "timeline", "warnings", "as_of"},
			"properties": map[string]any{
				"strategy":        map[string]any{"type": "string", "description": "The plan in one paragraph."},
				"recommendations": map[string]any{"type": "array", "items": ref("PlanRecommendation"), "description": "Advice, in the order the workflow gives it."},
				"timeline":        ref("PlanTimeline"),
				"warnings":        map[string]any{"type": "array", "items": ref("PlanWarning"), "description": "What cannot work as asked (a date too close, a deadline passed); empty when nothing."},
				"as_of":           date("The date the plan is made on: the context's asOf, or the day of the run."),
			},
			"additionalProperties": true,
		},
		"PlanRecommendation": map[string]any{
			"type":     "object",
			"required": []any{"title", "detail", "priority"},
			"properties": map[string]any{
				"title":    map[string]any{"type": "string"},
				"detail":   map[string]any{"type": "string"},
				"priority": map[string]any{"type": "string", "enum": priorities},
				"due_date": date("When the advice must be acted on; absent when it has no date."),
			},
		},
		"PlanTimeline": map[string]any{
			"type":     "object",
			"required": []any{"milestones"},
			"properties": map[string]any{
				"milestones":     map[string]any{"type": "array", "items": ref("PlanTimelineMilestone"), "description": "In date order."},
				"start":          date("The first milestone's date; absent when there are none."),
				"end":            date("The last milestone's date; absent when there are none."),
				"target_date":    date("The date the plan builds towards (a release, an opening night)."),
				"requested_date": date("The date asked for, when it could not work: the plan is built on feasible_date instead (a REPLANNED warning says why)."),
				"feasible_date":  date("The date the plan is built on instead of requested_date."),
				"region":         map[string]any{"type": "string", "enum": regions, "description": "The country (ISO 3166-1 alpha-2) whose public holidays make the plan's working-day calendar, with weekends, the 24 December–1 January closure and closures; GET /v1/engine/calendars lists them."},
				"closures": map[string]any{"type": "array", "items": map[string]any{"type": "string", "enum": closures},
					"description": "Keys of the industry closures the workflow added to the plan's calendar (a factory plan: the Chinese New Year closure); absent when none."},
				"precedences": map[string]any{"type": "array", "items": ref("PlanPrecedence"),
					"description": "The order the workflow declares between milestones, each with its minimum gap in working days; the settled dates keep every one (a PRECEDENCE_SHORT warning says when a fixed event makes that impossible). Absent when none."},
				"post_event": map[string]any{"type": "boolean", "description": "Present, and true, when the target is already behind as_of: a plan for after the event."},
				"reference_dates": map[string]any{"type": "array", "items": ref("PlanReferenceDate"),
					"description": "Dates the plan names that are not its steps (a sale season, a date one could choose instead), each with what it is; absent when there are none."},
				"schedules": map[string]any{"type": "array", "items": ref("PlanSchedule"),
					"description": "Workflow-specific keys of the result that are calendars of their own (a warm-up ramp, per-episode dates); absent when there are none."},
			},
		},
		"PlanPrecedence": map[string]any{
			"type":     "object",
			"required": []any{"before", "after", "min_working_days"},
			"properties": map[string]any{
				"before":           map[string]any{"type": "string", "description": "Key of the milestone that comes first."},
				"after":            map[string]any{"type": "string", "description": "Key of the milestone that follows it."},
				"min_working_days": map[string]any{"type": "integer", "minimum": 0, "description": "Working days of the plan's calendar after is at least after before (0: not before it)."},
			},
		},
		"PlanReferenceDate": map[string]any{
			"type":     "object",
			"required": []any{"date", "label"},
			"properties": map[string]any{
				"date":  date(""),
				"label": map[string]any{"type": "string", "description": "What the date is, e.g. \"Steam Winter Sale starts\"."},
			},
		},
		"PlanSchedule": map[string]any{
			"type":     "object",
			"required": []any{"key", "about"},
			"properties": map[string]any{
				"key":   map[string]any{"type": "string", "description": "A key of the result holding dated entries."},
				"about": map[string]any{"type": "string", "description": "What those dates are."},
			},
		},
		"PlanTimelineMilestone": map[string]any{
			"type":     "object",
			"required": []any{"key", "title", "date", "days_from_as_of", "passed", "kind"},
			"properties": map[string]any{
				"key":             map[string]any{"type": "string", "description": "Stable within the workflow, e.g. master_delivery."},
				"title":           map[string]any{"type": "string"},
				"date":            date(""),
				"days_from_as_of": map[string]any{"type": "integer", "description": "Days from as_of to date; negative for a passed milestone."},
				"passed":          map[string]any{"type": "boolean", "description": "The date is before as_of."},
				"deliverable":     map[string]any{"type": "boolean", "description": "Present, and true, for work someone must hand over (kind deliverable): it falls on a working day of the plan's calendar."},
				"kind": map[string]any{"type": "string", "enum": kinds,
					"description": "What the milestone is. Hand-overs (deliverable, action, on-sale, announce, payment) fall on working days of the plan's calendar unless deliberate says why not; an event is a fixed date; work is one's own."},
				"deliberate": map[string]any{"type": "string", "description": "Why the milestone is on a closed day (an event held on a holiday); absent otherwise."},
				"moved_from": date("The date asked for, when the milestone was moved off a closed day or to keep a precedence."),
				"note":       map[string]any{"type": "string", "description": "Why the date moved."},
				"after":      map[string]any{"type": "array", "items": map[string]any{"type": "string"}, "description": "Keys of the milestones that must be done first."},
			},
		},
		"PlanWarning": map[string]any{
			"type":     "object",
			"required": []any{"code", "message"},
			"properties": map[string]any{
				"code":    map[string]any{"type": "string", "description": "Stable and machine-readable, e.g. REPLANNED, POST_EVENT, MILESTONE_PASSED."},
				"message": map[string]any{"type": "string"},
			},
		},
	}
}
