package workflows

import (
	"fmt"
	"math"
	"time"

	"github.com/creativeops/creativeops/engine"
)

// Crowdfunding maths and fulfilment timeline for a tabletop game on
// Kickstarter. Rules used:
//   - Kickstarter takes 5% of funds collected; payment processing is 3% +
//     $0.20 per pledge of $10 or more, 5% + $0.05 per pledge under $10
//     (Kickstarter fees, US). 4% of pledges
//     are assumed to fail at collection (2–5% is commonly reported).
//   - Campaigns run 1–60 days; Kickstarter reports that 30 days or fewer
//     succeed more often. Funds arrive about 14 days after the end.
//   - A pre-launch page gathering followers for 4–8 weeks is standard;
//     4 weeks is the minimum planned here.
//   - Board-game factories quote a minimum order of 1,000–1,500 copies;
//     1,000 is used, and 10% extra copies are ordered for damage
//     replacements.
//   - Retail pricing needs MSRP at 4–6× the manufacturing cost, because
//     distributors buy at about 40% of MSRP (industry rule of thumb); 5× is
//     suggested and a pledge under 4× is flagged.
//   - After funding: pledge manager 4 weeks, then the factory and freight
//     chain of tabletop-manufacturing-freight to the US, then 4 weeks of
//     fulfilment to backers.
func init() {
	engine.Register(&engine.Workflow{
		ID:          "tabletop-kickstarter-campaign",
		Name:        "Kickstarter campaign maths",
		Vertical:    "tabletop",
		PastDate:    engine.PastDate{Field: "launch_date", Policy: engine.PastReplan},
		Description: "Computes the minimum funding goal and backers needed for a tabletop Kickstarter from pledge, unit cost, print minimums, fees and absorbed shipping, projects the surplus at the expected backers, and dates the campaign through pledge manager, manufacturing, freight and an estimated delivery month. A launch too soon or already past is re-planned to the first Tuesday with a four-week pre-launch that does not open in the 24 December–1 January dead week.",
		Fields: []engine.Field{
			{Name: "project_title", Kind: engine.String, Required: true, Min: engine.Bound(1), Max: engine.Bound(200), Description: "Name of the game."},
			{Name: "launch_date", Kind: engine.Date, Required: true, Description: "Day the campaign goes live."},
			{Name: "campaign_days", Kind: engine.Integer, Default: 30, Min: engine.Bound(1), Max: engine.Bound(60), Description: "Campaign length in days (Kickstarter allows 1–60)."},
			{Name: "pledge_usd", Kind: engine.Number, Money: true, Required: true, Min: engine.Bound(1), Max: engine.Bound(10000), Description: "Price of the core pledge tier (one copy of the game)."},
			{Name: "unit_cost_usd", Kind: engine.Number, Money: true, Required: true, Min: engine.Bound(0.01), Max: engine.Bound(1000), Description: "Manufacturing cost per copy at the quoted print run."},
			{Name: "fixed_costs_usd", Kind: engine.Number, Money: true, Default: 0, Min: engine.Bound(0), Max: engine.Bound(10000000), Description: "Art, design, tooling, marketing and other costs paid once."},
			{Name: "shipping_per_backer_usd", Kind: engine.Number, Money: true, Default: 0, Min: engine.Bound(0), Max: engine.Bound(500), Description: "Freight and fulfilment cost per backer not charged to backers."},
			engine.RegionField(),
			{Name: "expected_backers", Kind: engine.Integer, Required: true, Min: engine.Bound(1), Max: engine.Bound(200000), Description: "Backers expected at the core pledge."},
			engine.CurrencyField("USD"),
		},
		ExampleContext: map[string]any{
			"project_title":           "Harbor Lights",
			"launch_date":             "2027-03-09",
			"campaign_days":           30,
			"pledge_usd":              49,
			"unit_cost_usd":           9.5,
			"fixed_costs_usd":         18000,
			"shipping_per_backer_usd": 6,
			"expected_backers":        900,
			"as_of":                   "2026-11-20",
		},
		Sources: []engine.Source{
			{Title: "Kickstarter: fees (5% platform; payment processing by project country, 3% + 0.20 or 5% + 0.05 under 10 in USD, GBP, EUR, CAD, AUD, NZD)", URL: "https://www.kickstarter.com/help/fees", Checked: "2026-11"},
			{Title: "Kickstarter: campaign length (1–60 days, 30 or fewer recommended)", URL: "https://www.kickstarter.com/help/handbook/funding", Checked: "2026-11"},
		},
		Steps: []engine.Step{
			{Name: "check-dates", Run: tabletopKSCheckDates},
			{Name: "funding-maths", Run: tabletopKSFunding},
			{Name: "fulfilment", Run: tabletopKSFulfilment},
			{Name: "recommend", Run: tabletopKSRecommend},
		},
	})
}

const (
	tabletopKSDroppedPct      = 0.04
	tabletopKSFundsDays       = 14
	tabletopKSPrelaunchDays   = 28
	tabletopKSPledgeMgrWeeks  = 4
	tabletopKSFulfilmentWeeks = 4
	tabletopMOQ               = 1000
	tabletopOveragePct        = 0.10 // spares: see tabletopKSWithSpares
	tabletopMSRPMultiple      = 5.0
)

// tabletopKSPrintRun orders 10% spares over the backers, rounded up to
// hundreds, and never less than the factory minimum.
func tabletopKSPrintRun(backers int) int {
	run := (tabletopKSWithSpares(backers) + 99) / 100 * 100
	return max(run, tabletopMOQ)
}

// tabletopKSWithSpares is the copies backers need plus 10% spares.
func tabletopKSWithSpares(backers int) int { return backers + (backers+9)/10 }

type tabletopKSMaths struct {
	pledged, collected, fees, net, costs, surplus float64
	printRun                                      int
}

// tabletopKSFees is Kickstarter's payment processing on one pledge, in
// the plan's currency: the project country's schedule (ksFees).
type tabletopKSFees struct{ processingPct, perPledge float64 }

func tabletopKSAt(in *engine.Input, fees tabletopKSFees, backers int) tabletopKSMaths {
	pledge := in.Float("pledge_usd")
	processingPct, perPledge := fees.processingPct, fees.perPledge
	m := tabletopKSMaths{printRun: tabletopKSPrintRun(backers)}
	m.pledged = float64(backers) * pledge
	m.collected = m.pledged * (1 - tabletopKSDroppedPct)
	m.fees = m.collected*(ksPlatformPct+processingPct) + perPledge*float64(backers)*(1-tabletopKSDroppedPct)
	m.net = m.collected - m.fees
	m.costs = in.Float("fixed_costs_usd") + float64(m.printRun)*in.Float("unit_cost_usd") + float64(backers)*in.Float("shipping_per_backer_usd")
	m.surplus = m.net - m.costs
	return m
}

// tabletopKSCheckDates plans the campaign on the requested launch when the
// pre-launch page still has its four weeks, and otherwise on the first
// Tuesday that leaves them. A launch in the 24 December–1 January dead week
// is flagged with a better date.
func tabletopKSCheckDates(in *engine.Input, p *engine.Plan) error {
	requested, asOf := in.Date("launch_date"), p.AsOf()
	launch := requested
	if lead := engine.DaysBetween(asOf, requested); lead < tabletopKSPrelaunchDays {
		launch = engine.OnOrAfter(engine.AddDays(asOf, tabletopKSPrelaunchDays), time.Tuesday)
		// The plan's own date never opens in the dead week.
		for engine.InDeadWeek(launch) || engine.InDeadWeek(engine.AddDays(launch, 2)) {
			launch = engine.AddWeeks(launch, 1)
		}
		why := fmt.Sprintf("Launch is %s away; a pre-launch page needs at least 4 weeks to gather followers. Earliest Tuesday launch: %s.",
			engine.Plural(lead, "day", "days"), engine.FormatDate(launch))
		if lead < 0 {
			why = fmt.Sprintf("Launch day %s is before the plan date %s; a pre-launch page needs at least 4 weeks to gather followers. Earliest Tuesday launch: %s.",
				engine.FormatDate(requested), engine.FormatDate(asOf), engine.FormatDate(launch))
		}
		p.Warn("LAUNCH_TOO_SOON", "%s", why)
		p.Replanned(requested, launch, why)
		p.Set("earliest_feasible_launch_date", engine.FormatDate(launch))
	}
	if engine.InDeadWeek(launch) || engine.InDeadWeek(engine.AddDays(launch, 2)) {
		better := engine.OnOrAfter(time.Date(launch.Year()+map[bool]int{true: 1, false: 0}[launch.Month() == time.December], time.January, 5, 0, 0, 0, 0, time.UTC), time.Tuesday)
		p.Warn("LAUNCH_IN_DEAD_WEEK", "A launch on %s opens in the 24 December–1 January dead week, when backers travel and press is off: the first 48 hours decide a campaign. Launch on %s instead.",
			engine.FormatDate(launch), engine.FormatDate(better))
		p.Set("better_launch_date", p.Label("launch clear of the dead week", better))
	}
	end := engine.AddDays(launch, in.Int("campaign_days"))
	p.SetTarget(launch)
	p.Set("launch_date", engine.FormatDate(launch))
	p.Set("campaign_end_date", engine.FormatDate(end))
	if d := in.Int("campaign_days"); d > 30 {
		p.Warn("CAMPAIGN_LONG", "%d days is longer than the 30 or fewer that Kickstarter reports succeed more often; the mid-campaign slump just gets longer.", d)
	}
	return nil
}

func tabletopKSFunding(in *engine.Input, p *engine.Plan) error {
	pledge, unit := in.Float("pledge_usd"), in.Float("unit_cost_usd")
	backers := in.Int("expected_backers")
	var fees tabletopKSFees
	fees.processingPct, fees.perPledge = ksFees(in, p, pledge)
	at := tabletopKSAt(in, fees, backers)
	p.Set("forecast", map[string]any{
		"backers": backers, "print_run": at.printRun,
		"pledged_usd": engine.Money(at.pledged), "collected_usd": engine.Money(at.collected),
		"fees_usd": engine.Money(at.fees), "net_usd": engine.Money(at.net),
		"costs_usd": engine.Money(at.costs), "surplus_usd": engine.Money(at.surplus),
	})
	p.Set("suggested_msrp_usd", engine.Money(unit*tabletopMSRPMultiple))
	if pledge < 4*unit {
		p.Warn("PLEDGE_BELOW_RETAIL_MODEL", "The %s pledge is %.1f× the unit cost; retail needs an MSRP of 4–6× (about %s), or distribution will lose money later.",
			in.Money(pledge), pledge/unit, in.Money(unit*tabletopMSRPMultiple))
	}

	// The margin one more backer brings once the print run grows with them.
	processingPct, perPledge := fees.processingPct, fees.perPledge
	marginal := pledge*(1-tabletopKSDroppedPct)*(1-ksPlatformPct-processingPct) -
		perPledge*(1-tabletopKSDroppedPct) - unit*(1+tabletopOveragePct) - in.Float("shipping_per_backer_usd")
	p.Set("margin_per_backer_usd", engine.Money(marginal))
	if marginal <= 0 {
		p.Warn("PLEDGE_BELOW_COST", "Each backer at %s loses %s after fees, manufacturing (%s with spares) and absorbed shipping; no number of backers funds this.",
			in.Money(pledge), in.Money(-marginal), in.Money(unit*(1+tabletopOveragePct)))
		return nil
	}
	needed := 0
	for b := 1; b <= 200000; b++ {
		if tabletopKSAt(in, fees, b).surplus >= 0 {
			needed = b
			break
		}
	}
	if needed == 0 {
		p.Warn("GOAL_OUT_OF_REACH", "Even 200,000 backers at %s do not cover %s of fixed costs.", in.Money(pledge), in.Money(in.Float("fixed_costs_usd")))
		return nil
	}
	// The goal is a round figure of the currency, rounded up so the
	// backers it takes still cover the costs.
	goal := in.PricePointIn(p, "minimum funding goal", float64(needed)*pledge, ksGoalBands, engine.RoundUp)
	p.Set("backers_needed", needed)
	p.Set("minimum_funding_goal_usd", goal)
	if backers < needed {
		p.Warn("BACKERS_BELOW_BREAK_EVEN", "%s leave a shortfall of %s; the campaign needs %s (a goal of at least %s) to cover its costs.",
			engine.Plural(backers, "expected backer", "expected backers"), in.Money(-at.surplus), engine.Plural(needed, "backer", "backers"), in.Money(goal))
	}
	// Worth flagging once a tenth of the minimum run has no buyer yet.
	if spare := tabletopMOQ - tabletopKSWithSpares(backers); spare >= tabletopMOQ/10 {
		p.Warn("BELOW_MINIMUM_ORDER", "The factory minimum is %s; with %s about %s (%s at cost) are left for retail, conventions and later sales.",
			engine.Plural(tabletopMOQ, "copy", "copies"), engine.Plural(backers, "backer", "backers"), engine.Plural(spare, "copy", "copies"), in.Money(float64(spare)*unit))
	}
	return nil
}

func tabletopKSFulfilment(in *engine.Input, p *engine.Plan) error {
	launch, r := p.GetDate("launch_date"), in.Region()
	end := p.GetDate("campaign_end_date")
	funds := engine.AddDays(end, tabletopKSFundsDays)
	pmClose := engine.AddWeeks(funds, tabletopKSPledgeMgrWeeks)
	exFactory, _ := tabletopFactoryDays(pmClose, 7*(tabletopPrepressWeeks+tabletopSampleWeeks+tabletopProductionWeeks))
	inWarehouse := engine.AddWeeks(exFactory, tabletopOceanWeeks["us"])
	delivered := engine.AddWeeks(inWarehouse, tabletopKSFulfilmentWeeks)
	p.Deliverable("prelaunch-page", "Pre-launch page live, collecting followers", engine.Later(p.AsOf(), engine.AddWeeks(launch, -6)), r)
	p.Event("launch", "Campaign launches", launch, "the campaign launch the plan is built on")
	p.Event("campaign-end", "Campaign ends", end, "Kickstarter ends the campaign at the set time")
	p.Handover(engine.KindArrival, "funds", "Funds arrive from Kickstarter", funds)
	p.Deliverable("pledge-manager-close", "Pledge manager closes; final files to the factory", pmClose, r)
	p.Handover(engine.KindDeliverable, "ex-factory", "Games leave the factory", exFactory)
	p.Handover(engine.KindArrival, "in-warehouse", "Games in the fulfilment warehouse", inWarehouse)
	p.Event("delivery", "Backers receive their games", delivered, "carriers deliver any day")
	p.DependsOn("launch", "prelaunch-page")
	p.DependsOn("funds", "campaign-end")
	p.DependsOn("pledge-manager-close", "funds")
	p.DependsOn("ex-factory", "pledge-manager-close")
	p.DependsOn("in-warehouse", "ex-factory")
	p.DependsOn("delivery", "in-warehouse")
	p.Set("estimated_delivery_month", delivered.Format("2006-01"))
	p.Set("months_to_delivery", int(math.Round(float64(engine.DaysBetween(end, delivered))/30.44)))
	return nil
}

func tabletopKSRecommend(in *engine.Input, p *engine.Plan) error {
	launch := p.GetDate("launch_date")
	p.RecommendOn(engine.High, "prelaunch-page", "Open the pre-launch page",
		"Followers of the pre-launch page are notified at launch; a strong first 48 hours (about a third of the goal) pulls Kickstarter's recommendation algorithm behind the campaign.")
	if goal, ok := p.Get("minimum_funding_goal_usd").(float64); ok {
		p.Recommend(engine.High, "Set the goal to what makes the game",
			fmt.Sprintf("A goal of %s (%s at %s) covers the print run, fees and shipping; a lower goal risks funding a game you cannot afford to make.",
				in.Money(goal), engine.Plural(p.Get("backers_needed").(int), "backer", "backers"), in.Money(in.Float("pledge_usd"))))
	}
	p.Recommend(engine.Medium, "Promise a realistic delivery month",
		fmt.Sprintf("Pledge manager, factory and ocean freight put delivery in %s, %s after the campaign; promise that month, not earlier.", p.Get("estimated_delivery_month"), engine.Plural(p.Get("months_to_delivery").(int), "month", "months")))
	p.Recommend(engine.Low, "Launch on a Tuesday morning", "Tuesday–Thursday launches in the US morning catch both European and American backers on the first day.")
	f := p.Get("forecast").(map[string]any)
	goalText := "no goal can cover the costs"
	if goal, ok := p.Get("minimum_funding_goal_usd").(float64); ok {
		goalText = "a minimum goal of " + in.Money(goal)
	}
	p.Strategy("%s: %d-day campaign from %s with %s; %s at %s net %s after fees against %s of costs (surplus %s), delivering in %s.",
		in.Str("project_title"), in.Int("campaign_days"), engine.FormatDate(launch), goalText, engine.Plural(in.Int("expected_backers"), "backer", "backers"), in.Money(in.Float("pledge_usd")),
		in.Money(f["net_usd"].(float64)), in.Money(f["costs_usd"].(float64)), in.Money(f["surplus_usd"].(float64)), p.Get("estimated_delivery_month"))
	return nil
}
