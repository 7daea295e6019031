package workflows_test

import (
	"math"
	"strings"
	"testing"
	"time"

	"github.com/creativeops/creativeops/engine"
)

func TestTheaterRehearsalScheduleUnionPlay(t *testing.T) {
	res := entRun(t, "theater-rehearsal-schedule", map[string]any{
		"opening_date": "2027-06-04", "production_type": "play", "union": true,
		"previews": 4, "performances_per_week": 8, "rights_secured": true,
	})
	entNoWarnings(t, res)
	opening := milestoneDate(t, res, "opening")
	// 4 previews at 8 a week take 4 days; 5 tech days; 2 load-in days.
	preview := milestoneDate(t, res, "first-preview")
	tech := milestoneDate(t, res, "tech")
	if engine.DaysBetween(preview, opening) != 4 || engine.DaysBetween(tech, preview) != 5 || engine.DaysBetween(milestoneDate(t, res, "load-in"), tech) != 2 {
		t.Errorf("preview %v, tech %v, opening %v: want 4 preview days and 5 tech days", preview, tech, opening)
	}
	first := milestoneDate(t, res, "first-rehearsal")
	if first.Weekday() != time.Monday || engine.DaysBetween(first, tech) < 21 {
		t.Errorf("first rehearsal %v, want a Monday at least 3 weeks before tech %v", first, tech)
	}
	if got := entNum(t, res, "rehearsal", "room_hours"); got != 3*6*7 {
		t.Errorf("Equity hours %v, want 3 weeks × 6 days × 7 hours", got)
	}
	if got := entNum(t, res, "performances"); got != 4+3*8 {
		t.Errorf("performances %v, want 28", got)
	}
	if d := engine.DaysBetween(milestoneDate(t, res, "final-designs"), milestoneDate(t, res, "load-in")); d < 42 {
		t.Errorf("final designs only %d days before load-in, want the 6-week build", d)
	}
}

func TestTheaterRehearsalScheduleBehind(t *testing.T) {
	res := entRun(t, "theater-rehearsal-schedule", nil)
	entWant(t, res, "SCHEDULE_BEHIND", "RIGHTS_NOT_SECURED")
	// The rights application was due 2026-10-30, 21 days before the plan
	// date: opening moves three weeks, same weekday.
	got := entDate(t, res, "earliest_feasible_opening_date")
	if engine.FormatDate(got) != "2027-05-07" || got.Weekday() != time.Friday {
		t.Errorf("earliest opening %v, want Friday 2027-05-07", got)
	}
	// The calendar is built on it: opening on the feasible date, every task
	// on or after the plan date.
	if o := milestoneDate(t, res, "opening"); !o.Equal(got) || !hasWarning(res, "REPLANNED") {
		t.Errorf("opening milestone %v, want %v: %v", o, got, warningCodes(res))
	}
	if first := milestoneDate(t, res, "rights-application"); first.Before(entDay("2026-11-20")) {
		t.Errorf("rights application %v before the plan date", first)
	}
	if got := entNum(t, res, "rehearsal", "room_days"); got != 8*4 {
		t.Errorf("non-union musical room days %v, want 8 weeks × 4 evenings", got)
	}
	if d := engine.DaysBetween(milestoneDate(t, res, "first-preview"), milestoneDate(t, res, "opening")); d != 6 {
		t.Errorf("3 previews at 4 a week should take 6 days, got %d", d)
	}
}

func TestTheaterProductionBudgetBreakEven(t *testing.T) {
	res := entRun(t, "theater-production-budget", nil)
	entWant(t, res, "PROJECTED_LOSS")
	// 4 rehearsal weeks + 24/8 run weeks of payroll, 20% burden, 10%
	// contingency on everything.
	wages := 7800.0 * 7
	total := (wages*1.2 + 38000) * 1.1
	if got := entNum(t, res, "costs", "total"); !entNear(got, total) {
		t.Errorf("total costs %v, want %.2f", got, total)
	}
	keep := 1 - 0.05 - 0.10
	potential := 180.0 * 24 * 42
	if got := entNum(t, res, "break_even", "occupancy_pct"); !entNear(got, engine.Round(total/(potential*keep)*100, 1)) {
		t.Errorf("break-even occupancy %v", got)
	}
	if got := entNum(t, res, "break_even", "tickets"); got != math.Ceil(total/(42*keep)) {
		t.Errorf("break-even tickets %v, want %v", got, math.Ceil(total/(42*keep)))
	}
	if got := entNum(t, res, "box_office", "projected_result"); !entNear(got, engine.Money(potential*0.65*keep-total)) {
		t.Errorf("result %v, want %.2f", got, potential*0.65*keep-total)
	}
	// The Monday 8 weeks out, or the working day before it when that
	// Monday is a holiday (Presidents' Day here).
	if onSale := milestoneDate(t, res, "on-sale"); engine.DaysBetween(onSale, milestoneDate(t, res, "opening")) < 56 || usCalendar.Closed(onSale) ||
		(onSale.Weekday() != time.Monday && !usCalendar.Closed(engine.OnOrAfter(onSale, time.Monday))) {
		t.Errorf("on-sale %s, want the Monday at least 8 weeks out or the working day before it", engine.FormatDate(onSale))
	}
	small := entRun(t, "theater-production-budget", map[string]any{"seats": 60})
	entWant(t, small, "BREAK_EVEN_ABOVE_CAPACITY")
	late := entRun(t, "theater-production-budget", map[string]any{"opening_date": "2027-01-08"})
	entWant(t, late, "BUDGET_LOCK_PASSED", "ON_SALE_LATE")
}

// A budget for a run that has already opened is a settlement plan: the
// licensor's report is the step still to do, never dated in the past.
func TestTheaterBudgetAfterOpeningIsASettlementPlan(t *testing.T) {
	res := entRun(t, "theater-production-budget", map[string]any{"opening_date": "2026-10-02"})
	entWant(t, res, "POST_EVENT")
	// 24 performances in 3 weeks close 2026-10-22; the report is due 14
	// days later, already past, so it is due on the plan date.
	if d := milestoneDate(t, res, "royalty-report"); engine.FormatDate(d) != "2026-11-20" {
		t.Errorf("royalty report %v, want the plan date", d)
	}
}

// Theatre is international: a London fringe budget is planned in pounds,
// and its prose says so.
func TestTheaterBudgetInPounds(t *testing.T) {
	res := entRun(t, "theater-production-budget", map[string]any{"currency": "GBP", "country": "UK"})
	if res["currency"] != "GBP" {
		t.Errorf("currency %v, want GBP", res["currency"])
	}
	if s := entStr(t, res, "strategy"); !strings.Contains(s, "£") || strings.Contains(s, "$") {
		t.Errorf("strategy %q is not in pounds", s)
	}
}
