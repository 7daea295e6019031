package workflows_test

import (
	"strings"
	"testing"
	"time"

	"github.com/creativeops/creativeops/engine"
)

func TestComicsKickstarterGoalCoversCosts(t *testing.T) {
	w, _ := engine.LookupWorkflow("comics-kickstarter")
	res := run(t, "comics-kickstarter", clone(w.ExampleContext))
	f := res["funding"].(map[string]any)
	// Costs $4,200 + $6,000. Fees are charged on collected funds only, so
	// each dollar pledged keeps 95% × (1 - 5% - 3%) = 0.874, and each $38
	// backer costs $9 postage and $0.20 × 95% in per-pledge fees:
	// 10,200 / (0.874 - 9.19/38) = 16,135.1 → $16,200, 427 backers; the 5%
	// platform fee is on the $15,390 collected, $769.50.
	if f["goal_usd"] != 16200.0 || f["backers_needed"] != 427.0 || f["platform_fee_usd"] != 769.5 {
		t.Fatalf("funding %v", f)
	}
	if f["net_after_costs_usd"].(float64) < 0 {
		t.Fatalf("goal does not cover costs: %v", f)
	}
	launch, end, funds := milestoneDate(t, res, "launch"), milestoneDate(t, res, "campaign-end"), milestoneDate(t, res, "funds-arrive")
	if engine.DaysBetween(launch, end) != 30 || engine.DaysBetween(end, funds) != 14 {
		t.Fatalf("campaign %v–%v, funds %v", launch, end, funds)
	}
	// Offset print runs take 12 weeks after funds; delivery promised the
	// month after fulfilment.
	if engine.DaysBetween(funds, milestoneDate(t, res, "books-printed")) != 84 || res["schedule"].(map[string]any)["estimated_delivery"] != "2027-08" {
		t.Fatalf("schedule %v", res["schedule"])
	}
	if len(warningCodes(res)) != 0 {
		t.Fatalf("unexpected warnings %v", warningCodes(res))
	}
}

func TestComicsKickstarterRisks(t *testing.T) {
	res := run(t, "comics-kickstarter", map[string]any{
		"launch_date": "2026-12-01", "campaign_days": 45, "page_count": 30, "print_run": 300, "unit_print_cost_usd": 3,
		"creative_costs_usd": 15000, "avg_pledge_usd": 30, "shipping_per_backer_usd": 6, "as_of": "2026-11-20",
	})
	for _, code := range []string{"LAUNCH_TOO_SOON", "PAGE_COUNT_SIGNATURE", "CAMPAIGN_OVER_30_DAYS", "PRINT_RUN_SHORT"} {
		if !hasWarning(res, code) {
			t.Errorf("missing %s in %v", code, warningCodes(res))
		}
	}
	if res["earliest_feasible_launch_date"] != "2026-12-22" || res["suggested_page_count"] != 32.0 {
		t.Errorf("earliest launch %v (want Tuesday 2026-12-22), pages %v (want 32)", res["earliest_feasible_launch_date"], res["suggested_page_count"])
	}
	// A digital run under 500 copies prints in 4 weeks.
	if engine.DaysBetween(milestoneDate(t, res, "funds-arrive"), milestoneDate(t, res, "books-printed")) != 28 {
		t.Error("digital print run should take 4 weeks")
	}
	low := run(t, "comics-kickstarter", map[string]any{
		"launch_date": "2027-03-02", "page_count": 32, "print_run": 500, "unit_print_cost_usd": 2, "avg_pledge_usd": 15, "shipping_per_backer_usd": 9, "as_of": "2026-11-20",
	})
	if !hasWarning(low, "PLEDGE_TOO_LOW") || low["minimum_average_pledge_usd"] != 22.0 {
		t.Fatalf("$9.19 of a $15 pledge: want PLEDGE_TOO_LOW, minimum 22 (2 × 9.19 / 0.874), got %v %v", warningCodes(low), low["minimum_average_pledge_usd"])
	}
}

func TestComicsWebcomicBufferRunsOut(t *testing.T) {
	w, _ := engine.LookupWorkflow("comics-webcomic-launch")
	res := run(t, "comics-webcomic-launch", clone(w.ExampleContext))
	b := res["buffer"].(map[string]any)
	// 12 pages + floor(1.5 × 101/7) = 33 at launch, 6 in the launch drop.
	if b["pages_at_launch"] != 33.0 || b["launch_drop_pages"] != 6.0 || b["target_pages"] != 20.0 {
		t.Fatalf("buffer %v", b)
	}
	// 27 pages drain at 0.5 a week: 54 weeks after launch.
	if !hasWarning(res, "BUFFER_RUNS_OUT") || engine.DaysBetween(milestoneDate(t, res, "launch"), milestoneDate(t, res, "buffer-empty")) != 54*7 {
		t.Fatalf("buffer empty %v, warnings %v", res["buffer_empty_date"], warningCodes(res))
	}
	if d := milestoneDate(t, res, "story-complete"); d.Weekday() != time.Monday {
		t.Fatalf("story completes on %v, not on the Monday update day", d)
	}

	ctx := clone(w.ExampleContext)
	ctx["production_pages_per_week"] = 2
	keep := run(t, "comics-webcomic-launch", ctx)
	if hasWarning(keep, "BUFFER_RUNS_OUT") {
		t.Fatal("production equal to the schedule cannot run out")
	}
	// On schedule: (300 - 6) / 2 = 147 weeks after launch.
	if engine.DaysBetween(milestoneDate(t, keep, "launch"), milestoneDate(t, keep, "story-complete")) != 147*7 {
		t.Fatalf("story complete %v", keep["story_complete_date"])
	}
}

func TestComicsWebcomicBufferBelowTarget(t *testing.T) {
	res := run(t, "comics-webcomic-launch", map[string]any{
		"launch_date": "2026-12-07", "production_pages_per_week": 1.5, "story_pages": 200, "as_of": "2026-11-20",
	})
	if !hasWarning(res, "BUFFER_BELOW_TARGET") {
		t.Fatalf("3 pages at launch cannot hold a 20-page buffer: %v", warningCodes(res))
	}
	// (6 + 20) / 1.5 → 18 weeks, on the Monday update day.
	if res["earliest_full_buffer_launch_date"] != "2027-03-29" {
		t.Fatalf("earliest full-buffer launch %v, want Monday 2027-03-29", res["earliest_full_buffer_launch_date"])
	}
	// The plan is built on it: the launch, the buffer and the strategy.
	tl := res["timeline"].(map[string]any)
	if engine.FormatDate(milestoneDate(t, res, "launch")) != "2027-03-29" || tl["requested_date"] != "2026-12-07" || tl["feasible_date"] != "2027-03-29" {
		t.Errorf("launch %s, timeline %v", engine.FormatDate(milestoneDate(t, res, "launch")), tl)
	}
	if b := res["buffer"].(map[string]any); b["pages_after_launch"].(float64) < b["target_pages"].(float64) {
		t.Errorf("re-planned launch still short of the buffer: %v", b)
	}
	if s := res["strategy"].(string); !strings.HasPrefix(s, "Launch on 2027-03-29") {
		t.Errorf("strategy %q", s)
	}
}

// Offset printing in Asia stops for Chinese New Year (2028-01-26: closed
// 19 January to 9 February, engine.FactoryClosed): a print window that meets
// it is 22 days longer.
func TestComicsKickstarterChineseNewYearDelaysPrinting(t *testing.T) {
	w, _ := engine.LookupWorkflow("comics-kickstarter")
	ctx := clone(w.ExampleContext)
	ctx["launch_date"] = "2027-11-02" // funds arrive 2027-12-16; 8 weeks of printing meet the closure
	res := run(t, "comics-kickstarter", ctx)
	if !hasWarning(res, "CHINESE_NEW_YEAR") {
		t.Fatalf("no CHINESE_NEW_YEAR warning: %v", warningCodes(res))
	}
	if d := engine.DaysBetween(milestoneDate(t, res, "funds-arrive"), milestoneDate(t, res, "books-printed")); d != 84+22 {
		t.Errorf("funds to books %d days, want 84 + 22 closure days", d)
	}
}

// A launch in the dead week, or too soon, is re-planned: milestones are
// built on the new launch, with the requested date beside it.
func TestComicsKickstarterReplansTheLaunch(t *testing.T) {
	w, _ := engine.LookupWorkflow("comics-kickstarter")
	ctx := clone(w.ExampleContext)
	ctx["launch_date"] = "2027-12-28"
	res := run(t, "comics-kickstarter", ctx)
	if !hasWarning(res, "LAUNCH_IN_DEAD_WEEK") || engine.FormatDate(milestoneDate(t, res, "launch")) != "2028-01-04" {
		t.Errorf("dead-week launch: %v, launch %s; want Tuesday 2028-01-04", warningCodes(res), engine.FormatDate(milestoneDate(t, res, "launch")))
	}
	ctx["launch_date"] = "2026-10-06" // already past
	res = run(t, "comics-kickstarter", ctx)
	tl := res["timeline"].(map[string]any)
	if tl["requested_date"] != "2026-10-06" || tl["feasible_date"] != "2026-12-22" || engine.FormatDate(milestoneDate(t, res, "launch")) != "2026-12-22" {
		t.Errorf("past launch: timeline %v", tl)
	}
	if d := milestoneDate(t, res, "submit-review"); d.Before(mediaDay("2026-11-20")) || d.Weekday() == time.Saturday || d.Weekday() == time.Sunday {
		t.Errorf("review submission %s: before the plan date or on a weekend", engine.FormatDate(d))
	}
}
