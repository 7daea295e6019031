package workflows_test

import (
	"testing"
	"time"

	"github.com/creativeops/creativeops/engine"
)

func TestFashionWholesaleCalendarOnTrack(t *testing.T) {
	w, _ := engine.LookupWorkflow("fashion-wholesale-calendar")
	res := run(t, "fashion-wholesale-calendar", clone(w.ExampleContext))
	if len(warningCodes(res)) != 0 {
		t.Fatalf("unexpected warnings %v", warningCodes(res))
	}
	cal := res["calendar"].(map[string]any)
	// Market 8 months before the 2028-02-01 delivery, on a Monday.
	market := milestoneDate(t, res, "market")
	if engine.FormatDate(market) != "2027-06-07" || market.Weekday() != time.Monday {
		t.Fatalf("market %v, want Monday 2027-06-07", market)
	}
	// Overseas: a week to receive, 6 weeks of freight, 12 of production.
	exf, po := milestoneDate(t, res, "ex-factory"), milestoneDate(t, res, "factory-po")
	if engine.DaysBetween(po, exf) != 84 || engine.DaysBetween(exf, milestoneDate(t, res, "in-warehouse")) < 42 {
		t.Fatalf("PO %v, ex-factory %v", po, exf)
	}
	if cal["cancel"] != "2028-03-02" || cal["selling_weeks"] != 14.0 || res["season"] != "Spring 2028" {
		t.Fatalf("calendar %v season %v", cal, res["season"])
	}
	// Buyers order 4–8 months before delivery.
	if d := engine.DaysBetween(milestoneDate(t, res, "order-close"), milestoneDate(t, res, "start-ship")); d < 120 || d > 243 {
		t.Fatalf("orders close %d days before delivery", d)
	}
}

func TestFashionWholesaleCalendarCompressedAndInfeasible(t *testing.T) {
	ctx := map[string]any{"delivery_date": "2027-11-01", "styles": 24, "as_of": "2026-11-20"}
	res := run(t, "fashion-wholesale-calendar", ctx)
	if !hasWarning(res, "SELL_IN_COMPRESSED") || res["calendar"].(map[string]any)["market"] != "2027-04-19" {
		t.Fatalf("want SELL_IN_COMPRESSED with market 2027-04-19 (21 weeks of development), got %v %v", warningCodes(res), res["calendar"])
	}
	ctx["delivery_date"] = "2027-09-01"
	res = run(t, "fashion-wholesale-calendar", ctx)
	if !hasWarning(res, "DELIVERY_INFEASIBLE") || res["earliest_feasible_delivery_date"] != "2027-11-01" {
		t.Fatalf("want DELIVERY_INFEASIBLE with earliest 2027-11-01, got %v %v", warningCodes(res), res["earliest_feasible_delivery_date"])
	}
	// Domestic production closes orders ~10 weeks out instead of ~20, so
	// the same delivery becomes sellable.
	ctx["production"] = "domestic"
	res = run(t, "fashion-wholesale-calendar", ctx)
	if hasWarning(res, "DELIVERY_INFEASIBLE") || !hasWarning(res, "SELL_IN_COMPRESSED") {
		t.Fatalf("domestic: %v", warningCodes(res))
	}
}

func TestFashionCostingLandedAndPrices(t *testing.T) {
	w, _ := engine.LookupWorkflow("fashion-costing")
	res := run(t, "fashion-costing", clone(w.ExampleContext))
	uc := res["unit_cost"].(map[string]any)
	// 2.2 yd × $6.50 + $11.50 = $25.80 FOB; duty 16.5% of FOB = $4.26 (not
	// of freight); + $1.20 freight = $31.26.
	if uc["fob_usd"] != 25.8 || uc["duty_usd"] != 4.26 || uc["landed_usd"] != 31.26 {
		t.Fatalf("unit cost %v", uc)
	}
	pr := res["pricing"].(map[string]any)
	// 2.5 × 31.26 = 78.15 wholesale; × 2.2 = 171.93 → $180.
	if pr["wholesale_usd"] != 78.15 || pr["retail_usd"] != 180.0 || pr["brand_margin_pct"] != 60.0 {
		t.Fatalf("pricing %v", pr)
	}
	cash := res["cash"].(map[string]any)
	if cash["fob_total_usd"] != 15480.0 || cash["deposit_usd"] != 4644.0 || cash["balance_usd"] != 10836.0 {
		t.Fatalf("cash %v", cash)
	}
	if engine.DaysBetween(milestoneDate(t, res, "po-deposit"), milestoneDate(t, res, "ex-factory")) != 84 {
		t.Fatal("PO is not 12 weeks before ex-factory")
	}
}

func TestFashionCostingWarnings(t *testing.T) {
	w, _ := engine.LookupWorkflow("fashion-costing")
	ctx := clone(w.ExampleContext)
	ctx["target_retail_usd"], ctx["units"], ctx["ex_factory_date"] = 128, 200, "2027-01-15"
	res := run(t, "fashion-costing", ctx)
	for _, code := range []string{"MARGIN_BELOW_TARGET", "SMALL_RUN", "PO_DATE_PASSED"} {
		if !hasWarning(res, code) {
			t.Errorf("missing %s in %v", code, warningCodes(res))
		}
	}
	pr := res["pricing"].(map[string]any)
	// $128 / 2.2 = $58.18 wholesale; 50% of it is the most the style may cost landed.
	if pr["target_wholesale_usd"] != 58.18 || pr["max_landed_for_target_usd"] != 29.09 || pr["target_brand_margin_pct"] != 46.3 {
		t.Errorf("target pricing %v", pr)
	}
	if res["earliest_feasible_ex_factory_date"] != "2027-02-12" {
		t.Errorf("earliest ex-factory %v, want 2027-02-12 (12 weeks out)", res["earliest_feasible_ex_factory_date"])
	}
}
