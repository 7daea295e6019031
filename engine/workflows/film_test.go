package workflows_test

import (
	"testing"
	"time"

	"github.com/creativeops/creativeops/engine"
)

func TestFilmFestivalSubmissionsPicksCheapestOpenDeadline(t *testing.T) {
	res := run(t, "film-festival-submissions", mediaExample(t, "film-festival-submissions"))
	tiers := map[string]string{}
	for _, s := range res["submissions"].([]any) {
		m := s.(map[string]any)
		tiers[m["festival"].(string)] = m["deadline"].(string)
	}
	// Locked 2027-01-15: Hudson's early deadline has passed, its regular
	// one is that day.
	want := map[string]string{"Hudson Spring Film Festival": "regular", "Baltic Summer IFF": "regular", "Lakeside Film Festival": "early", "Hometown Film Days": "regular"}
	for f, tier := range want {
		if tiers[f] != tier {
			t.Errorf("%s entered at %q, want %q", f, tiers[f], tier)
		}
	}
	if total := mediaNum(t, res, "fees", "total_usd"); total != 80+0+50+40 {
		t.Errorf("fees %v, want 170", total)
	}
	if saved := mediaNum(t, res, "fees", "saved_vs_late_usd"); saved != 70 {
		t.Errorf("saved %v, want 70 (Hudson regular $80 vs late $100, Lakeside early $50 vs late $100)", saved)
	}
	// Missing early deadlines cost Hudson $80 − $60 and Hometown $40 − $25.
	if missed := mediaNum(t, res, "fees", "missed_early_cost_usd"); missed != 35 {
		t.Errorf("missed early cost %v, want 35", missed)
	}
	// Hometown screens in May, before the two world-premiere festivals.
	if got := len(res["premiere_conflicts"].([]any)); got != 2 || !hasWarning(res, "PREMIERE_CONFLICT") {
		t.Errorf("premiere conflicts %v", res["premiere_conflicts"])
	}
	if milestoneDate(t, res, "submit-hudson-spring-film-festival") != mediaDay("2027-01-15") {
		t.Error("Hudson submission not on its regular deadline")
	}
}

func TestFilmFestivalSubmissionsEligibilityBudgetAndDeadlines(t *testing.T) {
	fest := func(name, premiere, regular string, fee float64) map[string]any {
		return map[string]any{"name": name, "festival_date": "2027-09-01", "premiere_required": premiere, "regular_deadline": regular, "regular_fee_usd": fee}
	}
	res := run(t, "film-festival-submissions", map[string]any{
		"film_title": "F", "picture_lock_date": "2027-02-01", "premiere_status": "international", "budget_usd": 100, "as_of": "2026-11-20",
		"festivals": []any{
			fest("World Only", "world", "2027-04-01", 50),
			fest("Closed", "none", "2027-01-10", 30),
			fest("First", "international", "2027-04-01", 60),
			fest("Second", "regional", "2027-04-01", 30),
			fest("Third", "none", "2027-04-01", 20),
		},
	})
	for _, code := range []string{"PREMIERE_INELIGIBLE", "DEADLINE_PASSED", "OVER_BUDGET"} {
		if !hasWarning(res, code) {
			t.Errorf("missing %s in %v", code, warningCodes(res))
		}
	}
	// Budget spent in preference order: First ($60) + Second ($30); Third ($20) no longer fits.
	if got := res["left_out"].([]any); len(got) != 1 || got[0] != "Third" {
		t.Errorf("left out %v, want [Third]", got)
	}
	if total := mediaNum(t, res, "fees", "total_usd"); total != 90 {
		t.Errorf("fees %v, want 90", total)
	}
}

func TestFilmProductionScheduleBackwardsFromDelivery(t *testing.T) {
	res := run(t, "film-production-schedule", mediaExample(t, "film-production-schedule"))
	if d := mediaNum(t, res, "shoot_days"); d != 24 {
		t.Fatalf("96 pages at 4 a day = 24 shoot days, got %v", d)
	}
	delivery := milestoneDate(t, res, "delivery")
	lock := milestoneDate(t, res, "picture-lock")
	wrap := milestoneDate(t, res, "wrap")
	start := milestoneDate(t, res, "principal-photography")
	if engine.DaysBetween(lock, delivery) != 35 {
		t.Errorf("lock %v, want 5 weeks of finishing before %v", lock, delivery)
	}
	if engine.DaysBetween(wrap, lock) < 84 {
		t.Errorf("wrap %v leaves less than 12 weeks of editing before %v", wrap, lock)
	}
	// 24 days on 6-day weeks: four Monday–Saturday weeks.
	if start.Weekday() != time.Monday || engine.DaysBetween(start, wrap) != 26 {
		t.Errorf("shoot %v–%v is not four 6-day weeks from a Monday", start, wrap)
	}
	if engine.DaysBetween(milestoneDate(t, res, "sag-signatory"), start) != 42 {
		t.Error("SAG-AFTRA application is not 6 weeks before the first day")
	}
	if engine.DaysBetween(milestoneDate(t, res, "prep-start"), start) != 56 {
		t.Error("prep is not 8 weeks for a 96-page feature")
	}
	// Ultra Low Budget $249/day + 21% P&H, 5 cast × 24 days.
	if c := mediaNum(t, res, "budget", "cast_with_fringe_usd"); !mediaClose(c, engine.Money(5*24*249*1.21)) {
		t.Errorf("cast cost %v, want %v", c, engine.Money(5*24*249*1.21))
	}
	if r := mediaNum(t, res, "budget", "remaining_usd"); !mediaClose(r, engine.Money(250000-25000-5*24*249*1.21)) {
		t.Errorf("remaining %v", r)
	}
}

func TestFilmProductionScheduleInfeasibleAndTier(t *testing.T) {
	res := run(t, "film-production-schedule", map[string]any{
		"delivery_date": "2027-03-01", "script_pages": 100, "pages_per_day": 6, "budget_usd": 400000, "as_of": "2026-11-20",
	})
	for _, code := range []string{"SCHEDULE_INFEASIBLE", "SAG_TIER_EXCEEDED", "PAGES_PER_DAY_HIGH"} {
		if !hasWarning(res, code) {
			t.Errorf("missing %s in %v", code, warningCodes(res))
		}
	}
	if res["required_sag_agreement"] != "moderate_low" {
		t.Errorf("a $400,000 film is over the $300,000 ULB cap: want moderate_low, got %v", res["required_sag_agreement"])
	}
	earliest := mediaDate(t, res, "earliest_feasible_delivery")
	// 8 weeks prep + 17 shoot days (3 weeks) + 12 weeks edit + 5 finishing ≈ 28 weeks.
	if d := engine.DaysBetween(mediaDay("2026-11-20"), earliest); d < 7*27 || d > 7*29 {
		t.Errorf("earliest delivery %v is %d days out, want about 28 weeks", earliest, d)
	}
}

// Only one festival can give a film its world premiere, so two on the list
// that both require it are exclusive whatever their dates (the example's
// Hudson Spring and Lakeside both ask for it).
func TestFilmFestivalSubmissionsWorldPremiereFestivalsAreExclusive(t *testing.T) {
	res := run(t, "film-festival-submissions", mediaExample(t, "film-festival-submissions"))
	if !hasWarning(res, "WORLD_PREMIERE_EXCLUSIVE") {
		t.Fatalf("two festivals requiring the world premiere (a film has one: festivals' premiere rules, e.g. Sundance's) not flagged: %v", warningCodes(res))
	}
	ex := res["exclusive_premieres"].([]any)
	if len(ex) != 1 || ex[0] != "Hudson Spring Film Festival / Lakeside Film Festival" {
		t.Fatalf("exclusive premieres %v", ex)
	}
}

// The budget buys the most value, not the first festivals listed: with
// $100, one $90 festival listed first used to take it all; two $50
// festivals of the same priority are worth more. A festival marked
// essential (priority 5) against two at 2 wins the budget back.
func TestFilmFestivalSubmissionsBudgetBuysMostValue(t *testing.T) {
	fest := func(name string, fee float64, priority int) map[string]any {
		return map[string]any{"name": name, "festival_date": "2027-09-01", "regular_deadline": "2027-04-01", "regular_fee_usd": fee, "priority": priority}
	}
	ctx := map[string]any{
		"film_title": "F", "picture_lock_date": "2027-02-01", "budget_usd": 100, "as_of": "2026-11-20",
		"festivals": []any{fest("Big", 90, 3), fest("Mid A", 50, 3), fest("Mid B", 50, 3)},
	}
	res := run(t, "film-festival-submissions", ctx)
	if got := res["left_out"].([]any); len(got) != 1 || got[0] != "Big" {
		t.Errorf("left out %v, want [Big]: two entries beat one at equal priority", got)
	}
	if total := mediaNum(t, res, "fees", "total_usd"); total != 100 {
		t.Errorf("fees %v, want 100", total)
	}
	ctx["festivals"] = []any{fest("Big", 90, 5), fest("Mid A", 50, 2), fest("Mid B", 50, 2)}
	res = run(t, "film-festival-submissions", ctx)
	if got := res["left_out"].([]any); len(got) != 2 || got[0] != "Mid A" || got[1] != "Mid B" {
		t.Errorf("left out %v, want the two priority-2 festivals", got)
	}
}

// A $400,000 film is over the $300,000 Ultra Low Budget cap, so it shoots
// under the Moderate Low Budget agreement and its cast is costed at that
// tier's ≈$436 a day (35% of the Basic Agreement day rate, SAG-AFTRA 2025
// low-budget theatrical rates), not ULB's $249.
func TestFilmProductionOverUltraLowCapCostedAtModerateLowRate(t *testing.T) {
	ctx := mediaExample(t, "film-production-schedule")
	ctx["budget_usd"] = 400000
	res := run(t, "film-production-schedule", ctx)
	if res["required_sag_agreement"] != "moderate_low" || mediaNum(t, res, "budget", "cast_day_rate_usd") != 436 {
		t.Fatalf("agreement %v at %v a day, want moderate_low at $436 (SAG-AFTRA Moderate Low Budget, budgets $300,000–$700,000)", res["required_sag_agreement"], mediaNum(t, res, "budget", "cast_day_rate_usd"))
	}
	if c := mediaNum(t, res, "budget", "cast_with_fringe_usd"); !mediaClose(c, engine.Money(5*24*436*1.21)) {
		t.Errorf("cast cost %v, want %v", c, engine.Money(5*24*436*1.21))
	}
	// Over the $2,000,000 Low Budget cap: the Basic Agreement rate.
	ctx["budget_usd"] = 2500000
	res = run(t, "film-production-schedule", ctx)
	if res["required_sag_agreement"] != "basic" || mediaNum(t, res, "budget", "cast_day_rate_usd") != 1245 {
		t.Fatalf("agreement %v at %v a day, want basic at 1245", res["required_sag_agreement"], mediaNum(t, res, "budget", "cast_day_rate_usd"))
	}
}

// An infeasible delivery is re-planned: the timeline is built on the
// earliest feasible delivery, not only warned about.
func TestFilmProductionInfeasibleDeliveryIsReplanned(t *testing.T) {
	res := run(t, "film-production-schedule", map[string]any{
		"delivery_date": "2027-03-01", "script_pages": 100, "budget_usd": 250000, "as_of": "2026-11-20",
	})
	earliest := mediaDate(t, res, "earliest_feasible_delivery")
	if !hasWarning(res, "REPLANNED") || milestoneDate(t, res, "delivery") != earliest || res["timeline"].(map[string]any)["requested_date"] != "2027-03-01" {
		t.Fatalf("delivery milestone %v, earliest %v, warnings %v", milestoneDate(t, res, "delivery"), earliest, warningCodes(res))
	}
	if prep := milestoneDate(t, res, "prep-start"); prep.Before(mediaDay("2026-11-20")) {
		t.Errorf("prep starts %v, before the plan date", prep)
	}
	if sag := milestoneDate(t, res, "sag-signatory"); sag.Before(mediaDay("2026-11-20")) {
		t.Errorf("SAG-AFTRA application %v, before the plan date", sag)
	}
}

// A regular deadline on 28 December falls in the dead week: the entry is
// due before it, on Wednesday 23 December 2026.
func TestFilmFestivalEntryInDeadWeekIsDueBefore(t *testing.T) {
	res := run(t, "film-festival-submissions", map[string]any{
		"film_title": "F", "picture_lock_date": "2026-12-01", "as_of": "2026-11-20",
		"festivals": []any{map[string]any{"name": "Winter Fest", "festival_date": "2027-03-01", "regular_deadline": "2026-12-28", "regular_fee_usd": 50}},
	})
	if !hasWarning(res, "ENTRY_IN_DEAD_WEEK") {
		t.Fatalf("warnings %v", warningCodes(res))
	}
	for _, r := range res["recommendations"].([]any) {
		if rm := r.(map[string]any); rm["title"] == "Submit to Winter Fest" && rm["due_date"] != "2026-12-23" {
			t.Errorf("entry due %v, want 2026-12-23", rm["due_date"])
		}
	}
}
