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
	// Overseas: a week to receive, 6 weeks of freight, 12 of production.
	exf, po := milestoneDate(t, res, "ex-factory"), milestoneDate(t, res, "factory-po")
	if engine.DaysBetween(po, exf) != 84 || engine.DaysBetween(exf, milestoneDate(t, res, "in-warehouse")) < 42 {
		t.Fatalf("PO %v, ex-factory %v", po, exf)
	}
	if cal["cancel"] != "2028-03-02" || res["season"] != "Spring 2028" {
		t.Fatalf("calendar %v season %v", cal, res["season"])
	}
	// Buyers order 4–6 months before delivery.
	if d := engine.DaysBetween(milestoneDate(t, res, "order-close"), milestoneDate(t, res, "start-ship")); d < 120 || d > 183 {
		t.Fatalf("orders close %d days before delivery", d)
	}
}

// Market weeks close orders 4–6 weeks after they open (the Paris/New York
// showroom calendar); the plan used to open market 8 months before delivery
// and leave a 14-week selling window. It is 6 weeks now.
func TestFashionWholesaleSellingWindowIsSixWeeks(t *testing.T) {
	w, _ := engine.LookupWorkflow("fashion-wholesale-calendar")
	res := run(t, "fashion-wholesale-calendar", clone(w.ExampleContext))
	market, closeAt := milestoneDate(t, res, "market"), milestoneDate(t, res, "order-close")
	if market.Weekday() != time.Monday || engine.DaysBetween(market, closeAt) > 48 || engine.DaysBetween(market, closeAt) < 42 {
		t.Fatalf("market %v to order close %v, want the 6-week selling window of the market-week calendar (FHCM Paris, CFDA New York: orders close 4–6 weeks after market), opening on the Monday before", market, closeAt)
	}
	if sw := res["calendar"].(map[string]any)["selling_weeks"]; sw != 6.0 {
		t.Fatalf("selling weeks %v, want 6", sw)
	}
	if res["market_season"] != "Spring/Summer 2028 market" {
		t.Fatalf("market season %v", res["market_season"])
	}
}

// The season label used to be taken from the requested delivery even when
// the calendar was re-planned on a later one. A September 2027 delivery is
// sold at the January–March 2027 Fall/Winter markets; samples started in
// November 2026 are ready in May, so the plan moves to the first delivery
// whose market comes after them with a full selling window: January 2028,
// sold at the June 2027 Spring/Summer market.
func TestFashionWholesaleSeasonFollowsReplannedDelivery(t *testing.T) {
	res := run(t, "fashion-wholesale-calendar", map[string]any{"delivery_date": "2027-09-01", "styles": 24, "as_of": "2026-11-20"})
	if !hasWarning(res, "DELIVERY_INFEASIBLE") || !hasWarning(res, "REPLANNED") || res["earliest_feasible_delivery_date"] != "2028-01-01" {
		t.Fatalf("want the plan re-built on 2028-01-01, got %v %v", warningCodes(res), res["earliest_feasible_delivery_date"])
	}
	if milestoneDate(t, res, "start-ship") != mediaDay("2028-01-01") || milestoneDate(t, res, "market") != mediaDay("2027-06-07") {
		t.Fatalf("start-ship %v, market %v; want the re-planned 2028-01-01 sold from 2027-06-07", milestoneDate(t, res, "start-ship"), milestoneDate(t, res, "market"))
	}
	if res["season"] != "Spring 2028" || res["requested_season"] != "Fall 2027" || res["market_season"] != "Spring/Summer 2028 market" {
		t.Fatalf("season %v (requested %v) at %v, want Spring 2028 at the Spring/Summer 2028 market", res["season"], res["requested_season"], res["market_season"])
	}
	// A delivery already past is re-planned the same way.
	res = run(t, "fashion-wholesale-calendar", map[string]any{"delivery_date": "2026-06-01", "styles": 24, "as_of": "2026-11-20"})
	if !hasWarning(res, "DELIVERY_DATE_PASSED") || res["earliest_feasible_delivery_date"] != "2028-01-01" {
		t.Fatalf("past delivery: %v %v", warningCodes(res), res["earliest_feasible_delivery_date"])
	}
}

// A "Holiday 2027 collection" used to be shown at a "Resort 2028 market" in
// April: the market was put wherever production arithmetic landed and named
// by its month. The market now falls in a market week of the season that
// sells the delivery (engine.FashionMarketWeeks), and is named for it.
func TestFashionWholesaleMarketMatchesSeason(t *testing.T) {
	for _, production := range []string{"overseas", "domestic"} {
		for d := mediaDay("2027-12-01"); d.Before(mediaDay("2030-01-01")); d = d.AddDate(0, 1, 0) {
			res := run(t, "fashion-wholesale-calendar", map[string]any{"delivery_date": engine.FormatDate(d), "styles": 24, "production": production, "as_of": "2026-11-20"})
			market, delivery := milestoneDate(t, res, "market"), milestoneDate(t, res, "start-ship")
			season := engine.MarketSeasonFor(delivery)
			if res["market_season"] != season.Name+" market" {
				t.Errorf("%s %s: market season %v, want %s market", production, engine.FormatDate(d), res["market_season"], season.Name)
			}
			in := false
			for _, s := range season.Markets {
				in = in || s.Contains(market)
			}
			if !in {
				t.Errorf("%s %s: market %s is outside the %s market weeks %v", production, engine.FormatDate(d), engine.FormatDate(market), season.Name, season.Markets)
			}
			// The collection's name and its market's carry the same year.
			if y := res["season"].(string)[len(res["season"].(string))-4:]; y != season.Name[len(season.Name)-4:] {
				t.Errorf("%s %s: %v collection at the %v", production, engine.FormatDate(d), res["season"], res["market_season"])
			}
		}
	}
}

// Proto rounds and salesman samples are made by the factory that makes the
// bulk: the Chinese New Year closure used to stop only bulk production.
// Sampling spanning it now starts earlier by the closed days.
func TestFashionWholesaleChineseNewYearDelaysSampling(t *testing.T) {
	res := run(t, "fashion-wholesale-calendar", map[string]any{"delivery_date": "2028-09-01", "styles": 24, "as_of": "2026-11-20"})
	if !hasWarning(res, "SAMPLING_FACTORY_CLOSURE") || res["sampling_factory_closed_days"] != 22.0 {
		t.Fatalf("warnings %v, sampling closed days %v", warningCodes(res), res["sampling_factory_closed_days"])
	}
	protos, market := milestoneDate(t, res, "protos"), milestoneDate(t, res, "market")
	// 2 proto rounds of 4 weeks, 5 weeks of salesman samples, a week in the
	// showroom, plus the 22 closed days.
	if d := engine.DaysBetween(protos, market); d < (2*4+5+1)*7+22 {
		t.Errorf("protos %v to market %v is %d days, want 14 weeks plus the 22 closed days", protos, market, d)
	}
	if protos.Weekday() != time.Monday {
		t.Errorf("protos on a %s", protos.Weekday())
	}
	res = run(t, "fashion-wholesale-calendar", map[string]any{"delivery_date": "2028-09-01", "styles": 24, "production": "domestic", "as_of": "2026-11-20"})
	if hasWarning(res, "SAMPLING_FACTORY_CLOSURE") {
		t.Errorf("domestic: %v", warningCodes(res))
	}
}

// A tech pack takes a technical designer about a day per style, 5 styles a
// week: 10 styles take 2 weeks, 60 take 12, and 3 designers cut 60 to 4.
func TestFashionWholesaleTechPacksScaleWithStyles(t *testing.T) {
	weeks := func(styles, designers int) int {
		res := run(t, "fashion-wholesale-calendar", map[string]any{"delivery_date": "2029-02-01", "styles": styles, "technical_designers": designers, "as_of": "2026-11-20"})
		return engine.DaysBetween(milestoneDate(t, res, "tech-packs"), milestoneDate(t, res, "protos")) / 7
	}
	if w := weeks(10, 1); w != 2 {
		t.Errorf("10 styles: %d weeks of tech packs, want 2", w)
	}
	if w := weeks(60, 1); w != 12 {
		t.Errorf("60 styles: %d weeks of tech packs, want 12", w)
	}
	if w := weeks(60, 3); w != 4 {
		t.Errorf("60 styles, 3 technical designers: %d weeks, want 4", w)
	}
}

func TestFashionWholesaleCalendarCompressed(t *testing.T) {
	ctx := map[string]any{"delivery_date": "2027-12-01", "styles": 24, "as_of": "2026-11-20"}
	res := run(t, "fashion-wholesale-calendar", ctx)
	// 4 weeks design + 5 of tech packs + 2×4 proto + 5 SMS + 1 = 23 weeks:
	// samples are ready on 3 May, and the season's first market after that
	// opens on Monday 7 June, 5 weeks before orders must close.
	if !hasWarning(res, "SELL_IN_COMPRESSED") || res["calendar"].(map[string]any)["market"] != "2027-06-07" {
		t.Fatalf("want SELL_IN_COMPRESSED with market 2027-06-07, got %v %v", warningCodes(res), res["calendar"])
	}
	// Domestic production closes orders ~10 weeks out instead of ~20, so
	// an infeasible overseas delivery becomes sellable.
	ctx["as_of"] = "2027-01-18"
	if res = run(t, "fashion-wholesale-calendar", ctx); !hasWarning(res, "DELIVERY_INFEASIBLE") {
		t.Fatalf("overseas from 2027-01-18: %v, want the delivery infeasible", warningCodes(res))
	}
	ctx["production"] = "domestic"
	res = run(t, "fashion-wholesale-calendar", ctx)
	if hasWarning(res, "DELIVERY_INFEASIBLE") {
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
	factory := engine.Calendar{Region: engine.RegionUS, Closures: []engine.Closure{engine.FactoryNewYear}}
	if factory.WorkdaysBetween(milestoneDate(t, res, "po-deposit"), milestoneDate(t, res, "ex-factory")) != 60 {
		t.Fatal("PO is not 12 working weeks before ex-factory")
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
	// 12 working weeks from 2026-11-20, not counting Thanksgiving, the
	// 24 Dec–1 Jan closure, US holidays or the Chinese New Year factory
	// closure (30 January–20 February 2027).
	if res["earliest_feasible_ex_factory_date"] != "2027-03-18" {
		t.Errorf("earliest ex-factory %v, want 2027-03-18 (12 working weeks out)", res["earliest_feasible_ex_factory_date"])
	}
}

// Asian factories close from 7 days before to 14 days after Chinese New
// Year (26 January 2028: closed 19 January–9 February, 22 days); a
// production window that spans the closure starts that much earlier.
func TestFashionWholesaleChineseNewYearLengthensProduction(t *testing.T) {
	res := run(t, "fashion-wholesale-calendar", map[string]any{"delivery_date": "2028-04-03", "styles": 24, "as_of": "2026-11-20"})
	if !hasWarning(res, "FACTORY_CLOSURE") || res["factory_closed_days"] != 22.0 {
		t.Fatalf("warnings %v, closed days %v", warningCodes(res), res["factory_closed_days"])
	}
	po, exf := milestoneDate(t, res, "factory-po"), milestoneDate(t, res, "ex-factory")
	if d := engine.DaysBetween(po, exf); d < 84+22 {
		t.Errorf("PO %v to ex-factory %v is %d days, want 12 weeks plus the 22 closed days", po, exf, d)
	}
	// Domestic production does not close for it.
	res = run(t, "fashion-wholesale-calendar", map[string]any{"delivery_date": "2028-04-03", "styles": 24, "production": "domestic", "as_of": "2026-11-20"})
	if hasWarning(res, "FACTORY_CLOSURE") {
		t.Errorf("domestic: %v", warningCodes(res))
	}
}
