package workflows_test

import (
	"testing"

	"github.com/creativeops/creativeops/engine"
)

func TestCraftsEtsyPricingFees(t *testing.T) {
	w, _ := engine.LookupWorkflow("crafts-etsy-pricing")
	res := run(t, "crafts-etsy-pricing", clone(w.ExampleContext))
	// Cost 8.50 + 1.5 h × $18 + 1.25 = 36.75; formula: × 2 × 2 = 147 → $150.
	if res["cost"].(map[string]any)["total_usd"] != 36.75 || res["wholesale_price_usd"] != 73.5 || res["formula_price_usd"] != 150.0 {
		t.Fatalf("cost %v wholesale %v formula %v", res["cost"], res["wholesale_price_usd"], res["formula_price_usd"])
	}
	s := res["sale"].(map[string]any)
	// On $68 + $6 shipping: 6.5% = 4.81; 3% + 0.25 = 2.47; listing 0.20.
	if s["transaction_usd"] != 4.81 || s["processing_usd"] != 2.47 || s["fees_usd"] != 7.48 || s["net_usd"] != 60.52 || s["offsite_ads_usd"] != 11.1 {
		t.Fatalf("sale %v", s)
	}
	if s["effective_hourly_usd"] != 33.85 {
		t.Fatalf("hourly %v, want (60.52 - 9.75) / 1.5 = 33.85", s["effective_hourly_usd"])
	}
	// (36.75 + 0.45 + 9.5% × 6) / 0.905 → $41.74.
	if res["break_even_price_usd"] != 41.74 || !hasWarning(res, "NO_WHOLESALE_MARGIN") || hasWarning(res, "PRICE_BELOW_COST") {
		t.Fatalf("break-even %v warnings %v", res["break_even_price_usd"], warningCodes(res))
	}
	if engine.DaysBetween(milestoneDate(t, res, "listing-live"), milestoneDate(t, res, "auto-renew")) != 121 {
		t.Fatal("listing does not renew 4 months after going live")
	}
}

func TestCraftsEtsyPricingBelowCost(t *testing.T) {
	w, _ := engine.LookupWorkflow("crafts-etsy-pricing")
	ctx := clone(w.ExampleContext)
	ctx["price_usd"] = 40
	res := run(t, "crafts-etsy-pricing", ctx)
	if !hasWarning(res, "PRICE_BELOW_COST") {
		t.Fatalf("$40 is below the $41.74 break-even: %v", warningCodes(res))
	}
	ctx["price_usd"] = 45
	res = run(t, "crafts-etsy-pricing", ctx)
	// $45 covers cost without ads, but not with the 15% Offsite Ads fee.
	if hasWarning(res, "PRICE_BELOW_COST") || !hasWarning(res, "OFFSITE_ADS_LOSS") || res["break_even_with_offsite_ads_usd"] != 51.22 {
		t.Fatalf("want OFFSITE_ADS_LOSS with break-even 51.22 ((36.75 + 0.45 + 24.5%% × 6) / 0.755): %v %v", warningCodes(res), res["break_even_with_offsite_ads_usd"])
	}
	delete(ctx, "price_usd")
	if r := run(t, "crafts-etsy-pricing", ctx); r["price_usd"] != 150.0 || len(warningCodes(r)) != 0 {
		t.Fatalf("without a price the formula price is used and clears every check: %v %v", r["price_usd"], warningCodes(r))
	}
}

func TestCraftsMarketFairShortfall(t *testing.T) {
	w, _ := engine.LookupWorkflow("crafts-market-fair")
	res := run(t, "crafts-market-fair", clone(w.ExampleContext))
	// $32 - $9 - (2.6% + $0.15) = $22.02 per item; $370 / 22.02 → 17.
	if res["break_even_units"] != 17.0 || res["per_item"].(map[string]any)["contribution_usd"] != 22.02 {
		t.Fatalf("break-even %v per item %v", res["break_even_units"], res["per_item"])
	}
	// Goal 10 × $250 / $32 → 79 sales; / 30% → 264 items; 204 to make.
	if res["sales_goal"].(map[string]any)["units"] != 79.0 || res["stock_target"] != 264.0 || res["units_to_make"] != 204.0 {
		t.Fatalf("goal %v stock %v make %v", res["sales_goal"], res["stock_target"], res["units_to_make"])
	}
	// 19 days to the cut-off at 25 a week: 67 more, 127 in all.
	if !hasWarning(res, "PRODUCTION_SHORTFALL") || res["max_stock_by_fair"] != 127.0 {
		t.Fatalf("shortfall %v %v", warningCodes(res), res["max_stock_by_fair"])
	}
	if engine.DaysBetween(milestoneDate(t, res, "production-end"), milestoneDate(t, res, "fair")) != 3 {
		t.Fatal("production does not stop 3 days before the fair")
	}
}

func TestCraftsMarketFairOnTimeAndLoss(t *testing.T) {
	w, _ := engine.LookupWorkflow("crafts-market-fair")
	ctx := clone(w.ExampleContext)
	ctx["fair_date"] = "2027-04-17"
	res := run(t, "crafts-market-fair", ctx)
	if hasWarning(res, "PRODUCTION_SHORTFALL") || res["forecast"].(map[string]any)["stock_brought"] != 264.0 {
		t.Fatalf("a spring fair leaves time for full stock: %v %v", warningCodes(res), res["forecast"])
	}
	// 204 items at 25 a week = 58 days before the cut-off of 2027-04-14.
	if engine.DaysBetween(milestoneDate(t, res, "production-start"), milestoneDate(t, res, "production-end")) != 58 {
		t.Fatal("production does not start 58 days before the cut-off")
	}
	ctx["sell_through_pct"], ctx["other_costs_usd"], ctx["units_per_week"] = 5, 900, 10
	loss := run(t, "crafts-market-fair", ctx)
	if !hasWarning(loss, "LOSS_LIKELY") {
		t.Fatalf("5%% sell-through with $1,150 costs should lose money: %v %v", warningCodes(loss), loss["forecast"])
	}
}
