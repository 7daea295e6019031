package workflows_test

import (
	"testing"

	"github.com/creativeops/creativeops/engine"
)

func TestAnimationShortScheduleBackwards(t *testing.T) {
	w, _ := engine.LookupWorkflow("animation-short-production")
	res := run(t, "animation-short-production", clone(w.ExampleContext))
	// 240 s hand-drawn at 6 s per animator-week with 2 animators: 20 weeks
	// (100 working days) of animation, 4 of compositing; 38 weeks of
	// working days in all. Counted back from the deadline on the calendar
	// (US holidays, the 24 Dec–1 Jan closure), 9 working weeks remain
	// before the latest start.
	if res["total_weeks"] != 38.0 || res["slack_weeks"] != 9.0 {
		t.Fatalf("total %v weeks, slack %v", res["total_weeks"], res["slack_weeks"])
	}
	if usCalendar.WorkdaysBetween(milestoneDate(t, res, "build-complete"), milestoneDate(t, res, "animation-complete")) != 100 {
		t.Fatal("animation phase is not 100 working days")
	}
	if engine.FormatDate(milestoneDate(t, res, "deliverables")) != "2027-11-05" || usCalendar.WorkdaysBetween(milestoneDate(t, res, "picture-lock"), milestoneDate(t, res, "mix-complete")) != 15 {
		t.Fatal("deliverables must land on the deadline with a 3-week (15 working days) mix after picture lock")
	}
	scope := res["scope"].(map[string]any)
	if scope["frames"] != 5760.0 || scope["drawings_on_twos"] != 2880.0 || res["animation_labor_usd"] != 56000.0 {
		t.Fatalf("scope %v labour %v", scope, res["animation_labor_usd"])
	}
}

func TestAnimationShortInfeasibleSuggestsCrew(t *testing.T) {
	res := run(t, "animation-short-production", map[string]any{
		"deadline": "2027-06-04", "runtime_seconds": 240, "as_of": "2026-11-20",
	})
	if !hasWarning(res, "SCHEDULE_INFEASIBLE") {
		t.Fatalf("434 days of work cannot fit 196: %v", warningCodes(res))
	}
	// One animator: 10 + 30 + 10 + 200 + 40 + 15 + 5 = 310 working days
	// (434 days of seven-day weeks), counted on the calendar.
	want := engine.FormatDate(usCalendar.AddWorkdays(mediaDay("2026-11-20"), 310))
	if res["earliest_feasible_completion_date"] != want {
		t.Errorf("earliest completion %v, want %s", res["earliest_feasible_completion_date"], want)
	}
	// The plan is built on the earliest completion, the deadline beside it.
	tl := res["timeline"].(map[string]any)
	if tl["requested_date"] != "2027-06-04" || tl["feasible_date"] != want || engine.FormatDate(milestoneDate(t, res, "deliverables")) != want {
		t.Errorf("timeline %v", tl)
	}
	crew, _ := res["animators_needed_for_deadline"].(float64)
	if crew < 2 {
		t.Fatalf("animators needed %v", res["animators_needed_for_deadline"])
	}
	ok := run(t, "animation-short-production", map[string]any{"deadline": "2027-06-04", "runtime_seconds": 240, "animators": crew, "as_of": "2026-11-20"})
	if hasWarning(ok, "SCHEDULE_INFEASIBLE") {
		t.Errorf("the suggested crew of %v should make the deadline", crew)
	}
	fewer := run(t, "animation-short-production", map[string]any{"deadline": "2027-06-04", "runtime_seconds": 240, "animators": crew - 1, "as_of": "2026-11-20"})
	if !hasWarning(fewer, "SCHEDULE_INFEASIBLE") {
		t.Errorf("the suggested crew of %v is not the smallest that makes the deadline", crew)
	}
	long := run(t, "animation-short-production", map[string]any{"deadline": "2029-06-01", "runtime_seconds": 2700, "style": "2d_rigged", "animators": 10, "fps": 12, "as_of": "2026-11-20"})
	if !hasWarning(long, "RUNTIME_OVER_ACADEMY_LIMIT") || !hasWarning(long, "FRAME_RATE_NONSTANDARD") {
		t.Errorf("45 min at 12 fps: %v", warningCodes(long))
	}
}

func TestAnimationCommercialQuote(t *testing.T) {
	w, _ := engine.LookupWorkflow("animation-commercial-quote")
	res := run(t, "animation-commercial-quote", clone(w.ExampleContext))
	q := res["quote"].(map[string]any)
	// 60 s of 2D character at 4 s/day = 15 days; 3 + 4 + 3 + 3 + 15 + 2 × 3
	// + 1 = 35 days × $500, + $400 VO + $100 stock music.
	if q["production_days"] != 35.0 || q["labor_usd"] != 17500.0 || q["total_usd"] != 18000.0 || q["price_per_second_usd"] != 300.0 || q["deposit_usd"] != 9000.0 {
		t.Fatalf("quote %v", q)
	}
	alt := res["budget_alternative"].(map[string]any)
	if !hasWarning(res, "BUDGET_BELOW_QUOTE") || alt["duration_seconds"] != 50.0 || alt["total_usd"] != 16000.0 {
		t.Fatalf("budget alternative %v", alt)
	}
	if !milestoneDate(t, res, "animatic-approved").Before(milestoneDate(t, res, "first-cut")) || engine.FormatDate(milestoneDate(t, res, "delivery")) != "2027-02-26" {
		t.Fatal("approval gates out of order or delivery not on the deadline")
	}
}

// Business days are open days of the studio's country: from Friday
// 2026-11-20 (US), Thanksgiving, the 24 December–1 January week and Martin
// Luther King Day are closed. Open days counted: 22 by 2026-12-23, 36 by
// 2027-01-22, 42 by 2027-02-01, 49 by 2027-02-10.
func TestAnimationCommercialRushAndInfeasible(t *testing.T) {
	w, _ := engine.LookupWorkflow("animation-commercial-quote")
	ctx := clone(w.ExampleContext)
	delete(ctx, "client_budget_usd")
	ctx["delivery_date"] = "2027-02-01" // 42 of the 49 open days: at least 85%
	res := run(t, "animation-commercial-quote", ctx)
	q := res["quote"].(map[string]any)
	if !hasWarning(res, "RUSH_FEE") || q["rush_pct"] != 25.0 || q["total_usd"] != 22375.0 {
		t.Fatalf("want a 25%% rush on $17,500 labour: %v %v", warningCodes(res), q)
	}
	ctx["delivery_date"] = "2027-01-22" // 36 of 49: at least two thirds
	res = run(t, "animation-commercial-quote", ctx)
	if q := res["quote"].(map[string]any); q["rush_pct"] != 50.0 {
		t.Fatalf("want a 50%% rush: %v", q)
	}
	ctx["delivery_date"] = "2026-12-31" // in the dead week: 22 open days by 23 December
	res = run(t, "animation-commercial-quote", ctx)
	if !hasWarning(res, "DEADLINE_INFEASIBLE") || res["earliest_feasible_delivery_date"] != "2027-02-10" {
		t.Fatalf("want DEADLINE_INFEASIBLE with earliest 2027-02-10, got %v %v", warningCodes(res), res["earliest_feasible_delivery_date"])
	}
	// The plan is built on it.
	tl := res["timeline"].(map[string]any)
	if tl["requested_date"] != "2026-12-31" || tl["feasible_date"] != "2027-02-10" || engine.FormatDate(milestoneDate(t, res, "delivery")) != "2027-02-10" {
		t.Fatalf("timeline %v", tl)
	}
}

// A custom score is costed at about $1,000 a minute, so it is on the
// schedule too: delivered after the first cut and by the last review gate
// before the final render.
func TestAnimationCommercialCustomScoreIsScheduled(t *testing.T) {
	w, _ := engine.LookupWorkflow("animation-commercial-quote")
	ctx := clone(w.ExampleContext)
	ctx["music"] = "custom"
	res := run(t, "animation-commercial-quote", ctx)
	if q := res["quote"].(map[string]any); q["music_usd"] != 1000.0 {
		t.Fatalf("score costed at %v, want 1000", q["music_usd"])
	}
	score := milestoneDate(t, res, "score-delivered")
	if score.Before(milestoneDate(t, res, "first-cut")) || !score.Before(milestoneDate(t, res, "delivery")) {
		t.Errorf("score delivered %s, want between the first cut and the final render", engine.FormatDate(score))
	}
}
