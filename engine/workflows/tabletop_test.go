package workflows_test

import (
	"testing"

	"github.com/creativeops/creativeops/engine"
)

func TestTabletopManufacturingCountsNewYearShutdown(t *testing.T) {
	res := entRun(t, "tabletop-manufacturing-freight", nil)
	entWant(t, res, "CNY_SHUTDOWN")
	target := milestoneDate(t, res, "in-warehouse")
	exFactory := milestoneDate(t, res, "ex-factory")
	if d := engine.DaysBetween(exFactory, target); d != 42 {
		t.Errorf("ocean freight to the US %d days, want 6 weeks", d)
	}
	// 2 + 4 + 10 weeks of factory days, plus the 22 days closed around
	// Chinese New Year 2027 (6 February): 30 January to 20 February.
	shutdown := entNum(t, res, "factory_shutdown_days")
	if shutdown != 22 {
		t.Errorf("shutdown days %v, want 22", shutdown)
	}
	files := milestoneDate(t, res, "files-to-factory")
	if d := engine.DaysBetween(files, exFactory); d != 112+int(shutdown) {
		t.Errorf("files %v to ex-factory %v is %d days, want 112 + %v", files, exFactory, d, shutdown)
	}
	if got := entStr(t, res, "shipment", "load"); got != "1 × 20ft" {
		t.Errorf("3,000 boxes of 30×30×7 cm (21.7 CBM) load %q, want one 20ft", got)
	}
	big := entRun(t, "tabletop-manufacturing-freight", map[string]any{"units": 10000})
	if got := entStr(t, big, "shipment", "load"); got != "2 × 40ft high cube" {
		t.Errorf("72 CBM loads %q, want two 40ft high cubes", got)
	}
}

func TestTabletopManufacturingLateFilesAndAirOption(t *testing.T) {
	res := entRun(t, "tabletop-manufacturing-freight", map[string]any{"in_warehouse_date": "2027-03-01"})
	entWant(t, res, "FILES_DEADLINE_PASSED")
	// From 2026-11-20: 112 factory days skipping 30 Jan–20 Feb 2027 end on
	// Saturday 3 April; picked up Monday 5 April, plus 6 weeks at sea. The
	// plan is built on that date, files due on the plan date.
	if got := entStr(t, res, "earliest_in_warehouse_date"); got != "2027-05-17" {
		t.Errorf("earliest in warehouse %s, want 2027-05-17", got)
	}
	if got := milestoneDate(t, res, "in-warehouse"); engine.FormatDate(got) != "2027-05-17" || !hasWarning(res, "REPLANNED") {
		t.Errorf("in warehouse %v, want the re-planned 2027-05-17: %v", got, warningCodes(res))
	}
	if got := milestoneDate(t, res, "files-to-factory"); got.Before(entDay("2026-11-20")) {
		t.Errorf("files due %v, before the plan date", got)
	}
	if hasWarning(res, "AIR_FREIGHT_OPTION") {
		t.Error("air (17 April) cannot make 1 March either")
	}
	air := entRun(t, "tabletop-manufacturing-freight", map[string]any{"in_warehouse_date": "2027-04-30"})
	entWant(t, air, "FILES_DEADLINE_PASSED", "AIR_FREIGHT_OPTION")
	if got := entStr(t, air, "air_in_warehouse_date"); got != "2027-04-17" {
		t.Errorf("air arrival %s, want 2027-04-17", got)
	}
	heavy := entRun(t, "tabletop-manufacturing-freight", map[string]any{"freight": "air"})
	entWant(t, heavy, "AIR_FREIGHT_HEAVY")
	// 4,800 kg actual beats 21.73 CBM × 167 kg volumetric.
	if got := entNum(t, heavy, "shipment", "air_chargeable_kg"); got != 4800 {
		t.Errorf("chargeable %v kg, want 4800", got)
	}
}

func TestTabletopKickstarterFeesGoalAndDelivery(t *testing.T) {
	res := entRun(t, "tabletop-kickstarter-campaign", nil)
	entNoWarnings(t, res)
	collected := 900 * 49 * 0.96
	fees := collected*0.08 + 0.20*900*0.96
	if got := entNum(t, res, "forecast", "fees_usd"); !entNear(got, engine.Money(fees)) {
		t.Errorf("fees %v, want 5%% + 3%% of %v + $0.20 a pledge = %.2f", got, collected, fees)
	}
	costs := 18000 + 1000*9.5 + 900*6.0
	if got := entNum(t, res, "forecast", "costs_usd"); got != costs {
		t.Errorf("costs %v, want %v (fixed, 1,000-copy minimum run, shipping)", got, costs)
	}
	needed := entNum(t, res, "backers_needed")
	if needed != 742 {
		t.Errorf("backers needed %v, want 742", needed)
	}
	if got := entNum(t, res, "minimum_funding_goal_usd"); got != 36400 {
		t.Errorf("goal %v, want 742 × $49 rounded up to $36,400", got)
	}
	at := entRun(t, "tabletop-kickstarter-campaign", map[string]any{"expected_backers": 742})
	below := entRun(t, "tabletop-kickstarter-campaign", map[string]any{"expected_backers": 741})
	if entNum(t, at, "forecast", "surplus_usd") < 0 || hasWarning(at, "BACKERS_BELOW_BREAK_EVEN") {
		t.Error("742 backers should cover the costs")
	}
	entWant(t, below, "BACKERS_BELOW_BREAK_EVEN", "BELOW_MINIMUM_ORDER")
	// End + 14 days for funds + 4 weeks pledge manager + 16 factory weeks +
	// 6 weeks at sea + 4 weeks fulfilment.
	if d := engine.DaysBetween(milestoneDate(t, res, "campaign-end"), milestoneDate(t, res, "delivery")); d != 14+28+112+42+28 {
		t.Errorf("end to delivery %d days, want 224", d)
	}
	if got := entStr(t, res, "estimated_delivery_month"); got != "2027-11" {
		t.Errorf("delivery month %s, want 2027-11", got)
	}
}

func TestTabletopKickstarterInfeasibleInputs(t *testing.T) {
	loss := entRun(t, "tabletop-kickstarter-campaign", map[string]any{"pledge_usd": 12})
	entWant(t, loss, "PLEDGE_BELOW_COST", "PLEDGE_BELOW_RETAIL_MODEL")
	if _, ok := loss["minimum_funding_goal_usd"]; ok {
		t.Error("no goal can be proposed when every backer loses money")
	}
	soon := entRun(t, "tabletop-kickstarter-campaign", map[string]any{"launch_date": "2026-12-01", "campaign_days": 45})
	entWant(t, soon, "LAUNCH_TOO_SOON", "CAMPAIGN_LONG")
	// The Tuesday after 4 weeks is 2026-12-22, whose first 48 hours run
	// into the 24 December–1 January dead week: the next is 2027-01-05.
	if got := entStr(t, soon, "earliest_feasible_launch_date"); got != "2027-01-05" {
		t.Errorf("earliest launch %s, want 2027-01-05", got)
	}
	// The campaign is built on it: 45 days from 2027-01-05.
	if got := entStr(t, soon, "campaign_end_date"); got != "2027-02-19" {
		t.Errorf("a 45-day campaign from 2027-01-05 ends %s, want 2027-02-19", got)
	}
	if hasWarning(soon, "LAUNCH_IN_DEAD_WEEK") || !hasWarning(soon, "REPLANNED") {
		t.Errorf("warnings %v", warningCodes(soon))
	}
	dead := entRun(t, "tabletop-kickstarter-campaign", map[string]any{"launch_date": "2027-12-28"})
	entWant(t, dead, "LAUNCH_IN_DEAD_WEEK")
	if got := entStr(t, dead, "better_launch_date"); got != "2028-01-11" {
		t.Errorf("better launch %s, want the first Tuesday from 5 January, 2028-01-11", got)
	}
}

// Factories in China close from about a week before Chinese New Year
// (6 February 2027) while workers travel home; nothing is picked up then.
// Stock due in the US warehouse on 2027-03-20 after 6 weeks at sea would
// leave the factory on New Year's Day itself; it must leave on the last
// working day before the shutdown, Friday 2027-01-29, and the whole
// factory chain moves with it.
func TestTabletopManufacturingNoPickupDuringNewYearShutdown_CNY2027(t *testing.T) {
	res := entRun(t, "tabletop-manufacturing-freight", map[string]any{"in_warehouse_date": "2027-03-20", "as_of": "2026-06-01"})
	entWant(t, res, "EX_FACTORY_IN_SHUTDOWN")
	if got := milestoneDate(t, res, "ex-factory"); engine.FormatDate(got) != "2027-01-29" {
		t.Errorf("ex-factory %v, want 2027-01-29, the last working day before the Chinese New Year shutdown (new year 2027-02-06, factories closed from 7 days before: engine.FactoryClosed)", got)
	}
	if sample := milestoneDate(t, res, "sample-approved"); engine.DaysBetween(sample, milestoneDate(t, res, "ex-factory")) != 70 {
		t.Errorf("mass production from %v: want 10 weeks of open factory days before ex-factory", sample)
	}
}

// A pledge under $10 pays Kickstarter's small-pledge processing, 5% +
// $0.05, not 3% + $0.05 (Kickstarter fees, US).
func TestTabletopKickstarterSmallPledgeProcessing(t *testing.T) {
	res := entRun(t, "tabletop-kickstarter-campaign", map[string]any{"pledge_usd": 8, "unit_cost_usd": 1.5, "fixed_costs_usd": 500, "shipping_per_backer_usd": 0})
	collected := 900 * 8 * 0.96
	fees := collected*(0.05+0.05) + 0.05*900*0.96
	if got := entNum(t, res, "forecast", "fees_usd"); !entNear(got, engine.Money(fees)) {
		t.Errorf("fees %v, want 5%% + 5%% of %v + $0.05 a pledge = %.2f", got, collected, fees)
	}
	// One more backer keeps $8 × 96% × 90%, less $0.05 × 96% and the copy
	// with 10% spares.
	if got := entNum(t, res, "margin_per_backer_usd"); !entNear(got, engine.Money(8*0.96*0.90-0.05*0.96-1.5*1.1)) {
		t.Errorf("margin per backer %v", got)
	}
}
