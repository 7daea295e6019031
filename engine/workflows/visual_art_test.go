package workflows_test

import (
	"strings"
	"testing"
	"time"

	"github.com/creativeops/creativeops/engine"
)

func TestVisualArtPricingSquareInchThroughGallery(t *testing.T) {
	res := run(t, "visual-art-pricing", map[string]any{
		"width_in": 24, "height_in": 36, "rate_usd": 2.5, "materials_cost_usd": 180, "as_of": "2026-11-20",
	})
	// 24 × 36 = 864 sq in × $2.50 + $180 = $2,340, rounded up to the $50 step.
	if res["formula_price_usd"] != 2340.0 || res["price_usd"] != 2350.0 {
		t.Fatalf("price %v (formula %v), want 2350 (2340)", res["price_usd"], res["formula_price_usd"])
	}
	sale := res["sale"].(map[string]any)
	if sale["commission_pct"] != 50.0 || sale["artist_net_usd"] != 1175.0 || sale["profit_after_materials_usd"] != 995.0 {
		t.Fatalf("gallery sale %v, want 50%% commission, net 1175, profit 995", sale)
	}
	if len(warningCodes(res)) != 0 {
		t.Fatalf("unexpected warnings %v", warningCodes(res))
	}
	// Default sale date is 30 days out; payment 30 days after it.
	if d := milestoneDate(t, res, "on-sale"); engine.FormatDate(d) != "2026-12-20" {
		t.Fatalf("on-sale %v, want 2026-12-20", d)
	}
	if engine.DaysBetween(milestoneDate(t, res, "on-sale"), milestoneDate(t, res, "payment-due")) != 30 {
		t.Fatal("gallery payment not 30 days after the sale")
	}
}

func TestVisualArtPricingLinearInchBelowCost(t *testing.T) {
	res := run(t, "visual-art-pricing", map[string]any{
		"width_in": 24, "height_in": 36, "method": "linear_inch", "rate_usd": 2.5, "materials_cost_usd": 180, "as_of": "2026-11-20",
	})
	// (24 + 36) × 2.5 + 180 = 330; at 50% the artist nets 165 < 180.
	if res["price_usd"] != 330.0 {
		t.Fatalf("price %v, want 330", res["price_usd"])
	}
	if !hasWarning(res, "PRICE_BELOW_COST") || res["minimum_price_usd"] != 360.0 {
		t.Fatalf("want PRICE_BELOW_COST with minimum 360 (180 / 0.5), got %v %v", warningCodes(res), res["minimum_price_usd"])
	}
}

func TestVisualArtPricingChannelChangesNet(t *testing.T) {
	ctx := map[string]any{"width_in": 24, "height_in": 36, "rate_usd": 2.5, "materials_cost_usd": 180, "channel": "website", "as_of": "2026-11-20"}
	web := run(t, "visual-art-pricing", ctx)["sale"].(map[string]any)
	// Stripe 2.9% + $0.30 on $2,350.
	if web["processing_usd"] != 68.45 || web["artist_net_usd"] != 2281.55 {
		t.Fatalf("website sale %v, want processing 68.45, net 2281.55", web)
	}
	ctx["channel"], ctx["commission_pct"] = "gallery", 60
	res := run(t, "visual-art-pricing", ctx)
	if !hasWarning(res, "COMMISSION_ABOVE_STANDARD") || res["artist_net_usd"] != 940.0 {
		t.Fatalf("60%% gallery: %v net %v, want COMMISSION_ABOVE_STANDARD and 940", warningCodes(res), res["artist_net_usd"])
	}
}

func TestVisualArtExhibitionScheduleBackwards(t *testing.T) {
	w, _ := engine.LookupWorkflow("visual-art-exhibition")
	res := run(t, "visual-art-exhibition", clone(w.ExampleContext))
	// Opening Thu 2027-04-15: install Mon 04-12, works on site 2 working
	// days earlier, 10 days domestic transit, 3 weeks framing, 1 week
	// documentation.
	want := map[string]string{"install": "2027-04-12", "delivery": "2027-04-08", "ship": "2027-03-29", "framing": "2027-03-08", "studio_cutoff": "2027-03-01", "closing": "2027-05-15"}
	got := res["schedule"].(map[string]any)
	for k, v := range want {
		if got[k] != v {
			t.Errorf("%s = %v, want %s", k, got[k], v)
		}
	}
	if milestoneDate(t, res, "closing").Weekday() != time.Saturday {
		t.Error("show does not close on a Saturday")
	}
	prod := res["production"].(map[string]any)
	if prod["studio_weeks_needed"] != 12.0 || hasWarning(res, "PRODUCTION_BEHIND") {
		t.Fatalf("8 works × 1.5 weeks should fit: %v %v", prod, warningCodes(res))
	}
}

func TestVisualArtExhibitionProductionBehind(t *testing.T) {
	w, _ := engine.LookupWorkflow("visual-art-exhibition")
	ctx := clone(w.ExampleContext)
	ctx["works_finished"], ctx["weeks_per_work"] = 0, 2
	res := run(t, "visual-art-exhibition", ctx)
	if !hasWarning(res, "PRODUCTION_BEHIND") {
		t.Fatalf("14 works × 2 weeks = 28 weeks cannot fit in 14.4: %v", warningCodes(res))
	}
	// By the requested opening's cut-off 7 works fit (14.4 weeks / 2); the
	// plan opens later with all 14.
	if !strings.Contains(warningText(res, "PRODUCTION_BEHIND"), "you could show 7 works") {
		t.Errorf("warning %q does not say 7 works fit", warningText(res, "PRODUCTION_BEHIND"))
	}
	prod := res["production"].(map[string]any)
	if prod["max_works_by_cutoff"] != 14.0 || !hasWarning(res, "REPLANNED") {
		t.Errorf("max works %v by the re-planned cut-off, want all 14: %v", prod["max_works_by_cutoff"], warningCodes(res))
	}
	// 196 studio days from the plan date, then the same 45 days from
	// cut-off to opening, moved to a Thursday.
	earliest, _ := engine.ParseDate(res["earliest_feasible_opening_date"].(string))
	if earliest.Weekday() != time.Thursday || engine.FormatDate(earliest) != "2027-07-22" {
		t.Fatalf("earliest opening %v, want Thursday 2027-07-22", earliest)
	}
	if !hasWarning(run(t, "visual-art-exhibition", map[string]any{"opening_date": "2027-01-14", "works_planned": 3, "works_finished": 3, "as_of": "2026-11-20"}), "LONG_LEAD_PRESS_MISSED") {
		t.Error("an opening 8 weeks out should miss long-lead press")
	}
}

func TestVisualArtOpenCallsBudgetAndDeadlines(t *testing.T) {
	w, _ := engine.LookupWorkflow("visual-art-open-calls")
	res := run(t, "visual-art-open-calls", clone(w.ExampleContext))
	for _, code := range []string{"FEES_OVER_BUDGET", "HIGH_ENTRY_FEE", "HIGH_COMMISSION"} {
		if !hasWarning(res, code) {
			t.Errorf("missing %s in %v", code, warningCodes(res))
		}
	}
	// Three calls fit the $100 budget; of the three-call sets, $0 + $35 + $60
	// keeps most of a sale (commissions 0, 30, 35 against the $40 call's 45).
	fees := res["fees"].(map[string]any)
	if fees["planned_fees_usd"] != 95.0 || fees["all_open_fees_usd"] != 135.0 || res["budget_needed_usd"] != 135.0 || res["calls_entered"] != 3.0 {
		t.Fatalf("fees %v entered %v", fees, res["calls_entered"])
	}
	// First call: deadline Fri 2026-12-11, submit two working days early.
	submit := milestoneDate(t, res, "call-1-submit")
	if engine.FormatDate(submit) != "2026-12-09" || submit.Weekday() != time.Wednesday {
		t.Fatalf("first submit %v, want Wednesday 2026-12-09", submit)
	}
	// Preparation: 10 days + 7 for photography, starting on a working day.
	prep := milestoneDate(t, res, "call-1-prep")
	if engine.DaysBetween(prep, submit) != 19 || prep.Weekday() != time.Friday {
		t.Fatalf("preparation starts %v, want Friday 2026-11-20 (17 days back from Wed 12-09 is a Sunday)", prep)
	}
}

func TestVisualArtOpenCallsPassedAndRushed(t *testing.T) {
	res := run(t, "visual-art-open-calls", map[string]any{
		"calls": []any{
			map[string]any{"name": "Closed", "deadline": "2026-11-01"},
			map[string]any{"name": "Soon", "deadline": "2026-11-30", "entry_fee_usd": 25},
		},
		"images_ready": true, "as_of": "2026-11-20",
	})
	if !hasWarning(res, "DEADLINE_PASSED") || !hasWarning(res, "PREP_TIME_SHORT") {
		t.Fatalf("want DEADLINE_PASSED and PREP_TIME_SHORT, got %v", warningCodes(res))
	}
	if res["calls_entered"] != 1.0 || engine.FormatDate(milestoneDate(t, res, "call-1-prep")) != "2026-11-20" {
		t.Fatalf("rushed call should start today: %v", res["calls"])
	}
}

func warningText(res map[string]any, code string) string {
	for _, w := range res["warnings"].([]any) {
		if m := w.(map[string]any); m["code"] == code {
			return m["message"].(string)
		}
	}
	return ""
}

// A fee budget is spent for the most value, not in deadline order: with
// $60, entering the first deadline's $60 call leaves nothing, while the
// $20 and $30 calls make two shows. Among equal counts, the lower
// commission wins.
func TestVisualArtOpenCallsBudgetBuysTheMostShows(t *testing.T) {
	res := run(t, "visual-art-open-calls", map[string]any{
		"as_of": "2026-11-20", "fee_budget_usd": 60, "images_ready": true,
		"calls": []any{
			map[string]any{"name": "Early Dear", "deadline": "2027-01-08", "entry_fee_usd": 60, "commission_pct": 30},
			map[string]any{"name": "Later Cheap", "deadline": "2027-02-05", "entry_fee_usd": 20, "commission_pct": 30},
			map[string]any{"name": "Latest Mid", "deadline": "2027-03-05", "entry_fee_usd": 30, "commission_pct": 40},
			map[string]any{"name": "Latest Mid Low", "deadline": "2027-03-12", "entry_fee_usd": 35, "commission_pct": 25},
		},
	})
	if got := res["calls_entered"]; got != 2.0 {
		t.Fatalf("entered %v calls, want 2", got)
	}
	entered := map[string]bool{}
	for _, c := range res["calls"].([]any) {
		if m := c.(map[string]any); m["status"] == "enter" {
			entered[m["name"].(string)] = true
		}
	}
	if !entered["Later Cheap"] || !entered["Latest Mid Low"] {
		t.Errorf("entered %v, want Later Cheap and Latest Mid Low ($55, commissions 30 and 25)", entered)
	}
}
