package workflows

import (
	"fmt"
	"math"
	"time"

	"github.com/creativeops/creativeops/engine"
)

// Kickstarter campaign for a printed comic or graphic novel: the funding
// goal that actually covers the print run, and the calendar from
// pre-launch page to backers' mailboxes.
// Rules used:
//   - Kickstarter keeps 5% of funds raised; payment processing (Stripe) is
//     3% + $0.20 per pledge, or 5% + $0.05 for pledges under $10
//     (Kickstarter fee schedule, US).
//   - Dropped pledges (declined cards) commonly cost 3–5% of the total; we
//     plan 5%. Fees are charged only on the funds collected, so a dropped
//     pledge costs its amount but no fee.
//   - Campaigns run 1–60 days; Kickstarter recommends 30 days or fewer,
//     which succeed more often.
//   - A pre-launch page should collect followers for 4–6 weeks; project
//     review takes up to a few business days, so submit 10 days ahead.
//     Launches are commonly Tuesday to Thursday.
//   - Funds arrive about 14 days after the campaign ends; backer surveys
//     go out in the first week after it.
//   - Print: runs under 500 copies are usually digital (about 4 weeks);
//     500+ go offset, 6–8 weeks of printing plus 4–6 weeks of ocean freight
//     from overseas printers (we plan 12 weeks); fulfilment about 3 weeks.
//   - Saddle-stitched comics (48 pages or fewer) need a page count that is a
//     multiple of 4; offset perfect-bound books print in 16-page signatures.
//   - Offset printers for comics are mostly in China and elsewhere in East
//     Asia, which stop for Chinese New Year: from a week before it to two
//     weeks after (engine.FactoryClosed), printing does not advance, so a
//     print window that meets the closure is longer by the days it loses.
//   - Re-planning: a launch date already past or under 4 weeks away is
//     re-planned on the first Tuesday 4 weeks out; a launch in the 24
//     December–1 January week (backers and press are away) moves to the
//     first Tuesday after it. Submitting for review and shipping rewards
//     are hand-overs, kept on working days of the creator's country.
func init() {
	engine.Register(&engine.Workflow{
		ID:          "comics-kickstarter",
		Name:        "Comics Kickstarter plan",
		Vertical:    "comics",
		PastDate:    engine.PastDate{Field: "launch_date", Policy: engine.PastReplan},
		Description: "Sets a Kickstarter goal for a printed comic that covers printing, creative costs, shipping, platform and processing fees and dropped pledges, estimates backers needed, checks page count and print run, and schedules pre-launch, campaign, funds, printing and fulfilment. A launch already past, under four weeks away or in the 24 December–1 January week is re-planned on the first feasible Tuesday; offset printing in Asia skips the Chinese New Year closure.",
		Fields: []engine.Field{
			{Name: "launch_date", Kind: engine.Date, Required: true, Description: "Campaign launch day."},
			{Name: "campaign_days", Kind: engine.Integer, Default: 30, Min: engine.Bound(1), Max: engine.Bound(60), Description: "Campaign length in days (Kickstarter allows 1–60)."},
			{Name: "page_count", Kind: engine.Integer, Required: true, Min: engine.Bound(8), Max: engine.Bound(600), Description: "Interior pages of the book."},
			{Name: "print_run", Kind: engine.Integer, Required: true, Min: engine.Bound(50), Max: engine.Bound(50000), Description: "Copies to print."},
			{Name: "unit_print_cost_usd", Kind: engine.Number, Money: true, Required: true, Min: engine.Bound(0.1), Max: engine.Bound(500), Description: "Printer's quote per copy, in `currency` (0.10–500)."},
			{Name: "creative_costs_usd", Kind: engine.Number, Money: true, Default: 0, Min: engine.Bound(0), Max: engine.Bound(2000000), Description: "Art, colours, letters, editing still to pay, in `currency` (0–2,000,000)."},
			{Name: "avg_pledge_usd", Kind: engine.Number, Money: true, Default: 35, Min: engine.Bound(1), Max: engine.Bound(10000), Description: "Expected average pledge, in `currency` (1–10,000)."},
			{Name: "shipping_per_backer_usd", Kind: engine.Number, Money: true, Default: 8, Min: engine.Bound(0), Max: engine.Bound(500), Description: "Packaging and postage per backer not charged separately, in `currency` (0–500)."},
			engine.RegionField(),
			engine.CurrencyField("USD"),
		},
		Sources: []engine.Source{
			{Title: "Kickstarter fees (5% platform fee; payment processing by project country: 3% + 0.20, or 5% + 0.05 under 10, in USD, GBP, EUR, CAD, AUD, NZD)", URL: "https://www.kickstarter.com/help/fees", Checked: "2026-11"},
			{Title: "Kickstarter Creator Handbook: campaign length (1–60 days, 30 or fewer recommended) and pre-launch pages", URL: "https://www.kickstarter.com/help/handbook", Checked: "2026-11"},
			{Title: "Hong Kong Observatory: Gregorian–lunar calendar conversion (Chinese New Year dates)", URL: "https://www.hko.gov.hk/en/gts/time/conversion.htm", Checked: "2026-11"},
		},
		ExampleContext: map[string]any{
			"launch_date":             "2027-03-02",
			"campaign_days":           30,
			"page_count":              128,
			"print_run":               1000,
			"unit_print_cost_usd":     4.2,
			"creative_costs_usd":      6000,
			"avg_pledge_usd":          38,
			"shipping_per_backer_usd": 9,
			"as_of":                   "2026-11-20",
		},
		Steps: []engine.Step{
			{Name: "check-specs", Run: coKsSpecs},
			{Name: "funding-goal", Run: coKsGoal},
			{Name: "schedule", Run: coKsSchedule},
			{Name: "recommend", Run: coKsRecommend},
		},
	})
}

const coKsDropped = 0.05

// coKsFees returns the percentage (platform and processing) and the
// per-pledge processing fee, in the plan's currency, for an average
// pledge: the project country's schedule (ksFees).
func coKsFees(in *engine.Input, p *engine.Plan, avg float64) (pct, perPledge float64) {
	proc, per := ksFees(in, p, avg)
	return ksPlatformPct + proc, per
}

func coKsSpecs(in *engine.Input, p *engine.Plan) error {
	pages := in.Int("page_count")
	if pages <= 48 && pages%4 != 0 {
		s := (pages + 3) / 4 * 4
		p.Warn("PAGE_COUNT_SIGNATURE", "A saddle-stitched comic needs a multiple of 4 pages; %d pages prints as %d with blanks. Plan %d.", pages, s, s)
		p.Set("suggested_page_count", s)
	}
	if pages > 48 && in.Int("print_run") >= 500 && pages%16 != 0 {
		s := (pages + 15) / 16 * 16
		p.Warn("PAGE_COUNT_SIGNATURE", "An offset perfect-bound book prints in 16-page signatures; %d pages wastes %d. Plan %d (or %d) pages.", pages, s-pages, s, s-16)
		p.Set("suggested_page_count", s)
	}
	if d := in.Int("campaign_days"); d > 30 {
		p.Warn("CAMPAIGN_OVER_30_DAYS", "A %d-day campaign is longer than the 30 days or fewer Kickstarter recommends; the middle sags and success rates drop. Run 30.", d)
	}
	return nil
}

// ksGoalBands are the steps a Kickstarter goal rounds up to, in US dollars
// at the reference rate ($10 under $1,000, $100 under $100,000, then
// $1,000): at most 1 % of the goal from $1,000 up, in round figures of the
// plan's currency.
var ksGoalBands = []engine.PriceBand{{Below: 1000, Step: 10}, {Below: 100000, Step: 100}, {Below: math.Inf(1), Step: 1000}}

func coKsGoal(in *engine.Input, p *engine.Plan) error {
	avg, ship := in.Float("avg_pledge_usd"), in.Float("shipping_per_backer_usd")
	pct, perPledge := coKsFees(in, p, avg)
	printing := engine.Money(float64(in.Int("print_run")) * in.Float("unit_print_cost_usd"))
	fixed := printing + in.Float("creative_costs_usd")
	// Kickstarter and the processor charge only what is collected: a
	// dropped pledge pays no fee. Each dollar pledged keeps (1 - drops) ×
	// (1 - fees), and each backer costs shipping plus the per-pledge fee on
	// the pledges collected: goal × (keep - perBacker/avg) = fixed.
	keep := (1 - coKsDropped) * (1 - pct)
	perBacker := ship + perPledge*(1-coKsDropped)
	margin := keep - perBacker/avg
	if margin < keep/2 {
		minimum := in.PricePoint(p, "minimum average pledge", 2*perBacker/keep, 1, engine.RoundUp)
		p.Warn("PLEDGE_TOO_LOW", "Shipping and fees take %s of a %s average pledge, more than half of what it keeps after fees; raise the average pledge to at least %s or charge shipping separately.",
			studioMoney(in, perBacker), studioMoney(in, avg), studioMoney(in, minimum))
		p.Set("minimum_average_pledge_usd", minimum)
		if margin <= 0 {
			return nil
		}
	}
	// The goal is a round figure of the currency, rounded up so it still
	// covers the costs; every fee, the backer count and the cushion below
	// are computed from the goal as set.
	goal := in.PricePointIn(p, "funding goal", fixed/margin, ksGoalBands, engine.RoundUp)
	backers := int(math.Ceil(engine.Round(goal/avg, 6)))
	funding := map[string]any{
		"goal_usd":            goal,
		"backers_needed":      backers,
		"printing_usd":        printing,
		"creative_costs_usd":  in.Float("creative_costs_usd"),
		"shipping_usd":        engine.Money(ship * float64(backers)),
		"platform_fee_usd":    engine.Money(goal * (1 - coKsDropped) * 0.05),
		"processing_fee_usd":  engine.Money(goal*(1-coKsDropped)*(pct-0.05) + perPledge*float64(backers)*(1-coKsDropped)),
		"dropped_pledges_usd": engine.Money(goal * coKsDropped),
	}
	funding["net_after_costs_usd"] = engine.Money(goal - funding["shipping_usd"].(float64) - funding["platform_fee_usd"].(float64) - funding["processing_fee_usd"].(float64) - funding["dropped_pledges_usd"].(float64) - fixed)
	p.Set("funding", funding)
	if backers > in.Int("print_run") {
		suggested := int(math.Ceil(float64(backers)*1.1/100)) * 100
		p.Warn("PRINT_RUN_SHORT", "The goal implies %d backers but the print run is %d copies; print at least %d (10%% spare for damages and conventions).", backers, in.Int("print_run"), suggested)
		p.Set("suggested_print_run", suggested)
	}
	return nil
}

// coKsFactoryDays returns the day n factory working days after start,
// skipping the Chinese New Year closure (weekends are worked in the plan's
// week-based print times, so only the closure is skipped).
func coKsFactoryDays(start time.Time, n int) time.Time {
	d := start
	for n > 0 {
		d = engine.AddDays(d, 1)
		if !engine.FactoryClosed(d) {
			n--
		}
	}
	return d
}

func coKsSchedule(in *engine.Input, p *engine.Plan) error {
	r := in.Region()
	requested := in.Date("launch_date")
	launch := requested
	days := engine.DaysBetween(p.AsOf(), launch)
	earliest := engine.OnOrAfter(engine.AddDays(p.AsOf(), 28), time.Tuesday)
	for p.Calendar().Closed(earliest) {
		earliest = engine.AddWeeks(earliest, 1)
	}
	switch {
	case days < 0:
		p.Warn("LAUNCH_DATE_PASSED", "The launch date %s is before the plan date %s; the earliest sensible launch is Tuesday %s.", engine.FormatDate(launch), engine.FormatDate(p.AsOf()), engine.FormatDate(earliest))
	case days < 28:
		p.Warn("LAUNCH_TOO_SOON", "Launching in %s leaves no time for the 4–6 week pre-launch page that brings day-one backers; the earliest sensible launch is Tuesday %s.", engine.Plural(days, "day", "days"), engine.FormatDate(earliest))
	case days < 42:
		p.Warn("PRELAUNCH_SHORT", "%s to launch is under the 6 weeks a pre-launch page needs to gather followers; open it today and push every channel to it.", engine.Plural(days, "day", "days"))
	}
	if days < 28 {
		p.Set("earliest_feasible_launch_date", engine.FormatDate(earliest))
		launch = earliest
	}
	if engine.InDeadWeek(launch) {
		better := engine.OnOrAfter(p.Calendar().NextWorkday(launch), time.Tuesday)
		for p.Calendar().Closed(better) {
			better = engine.AddWeeks(better, 1)
		}
		p.Warn("LAUNCH_IN_DEAD_WEEK", "A launch on %s falls in the 24 December–1 January week, when backers, press and newsletters are away and the first 48 hours decide the campaign; launch on Tuesday %s instead.",
			engine.FormatDate(launch), engine.FormatDate(better))
		launch = better
	}
	if !launch.Equal(requested) {
		p.Replanned(requested, launch, "The requested launch is past, too soon for a pre-launch page, or in the dead week.")
	}
	if wd := launch.Weekday(); wd == time.Saturday || wd == time.Sunday || wd == time.Friday {
		p.Recommend(engine.Medium, "Launch midweek", fmt.Sprintf("%s launches lose the first-day press and newsletter push; Tuesday to Thursday mornings are the norm.", wd))
	}
	p.SetTarget(launch)
	end := engine.AddDays(launch, in.Int("campaign_days"))
	if engine.InDeadWeek(end) {
		p.Warn("CAMPAIGN_ENDS_IN_DEAD_WEEK", "The campaign ends on %s, in the 24 December–1 January week, when the final 48-hour push reaches nobody; end it by 22 December or after 2 January.", engine.FormatDate(end))
	}
	funds := engine.AddDays(end, 14)
	printed := engine.AddWeeks(funds, 4)
	method, printWeeks := "digital", 4
	if in.Int("print_run") >= 500 {
		method, printWeeks = "offset in Asia and ocean freight", 12
		// 8 weeks of printing at a factory that stops for Chinese New Year,
		// then 4 weeks at sea.
		printed = engine.AddWeeks(coKsFactoryDays(funds, 56), 4)
		if lost := engine.DaysBetween(funds, printed) - 84; lost > 0 {
			p.Warn("CHINESE_NEW_YEAR", "Printing meets the Chinese New Year factory closure (%s to %s): books arrive %s later, on %s.",
				engine.FormatDate(engine.AddDays(engine.ChineseNewYear(coKsCNYYear(funds)), -engine.FactoryClosureDaysBefore)),
				engine.FormatDate(engine.AddDays(engine.ChineseNewYear(coKsCNYYear(funds)), engine.FactoryClosureDaysAfter)),
				engine.Plural(lost, "day", "days"), engine.FormatDate(printed))
		}
	}
	shipped := engine.AddWeeks(printed, 3)
	// Promise the month after expected fulfilment: late rewards cost more
	// goodwill than a conservative date.
	estimate := engine.AddMonths(time.Date(shipped.Year(), shipped.Month(), 1, 0, 0, 0, 0, time.UTC), 1)
	p.Handover(engine.KindAnnounce, "prelaunch-page", "Pre-launch page live; collect followers", engine.Later(p.AsOf(), engine.AddWeeks(launch, -6)))
	p.Deliverable("submit-review", "Project submitted for Kickstarter review", engine.Later(p.AsOf(), engine.AddDays(launch, -10)), r)
	p.Event("launch", "Campaign launches", launch, "the campaign launch the plan is built on")
	p.Event("campaign-end", "Campaign ends", end, "Kickstarter ends the campaign at the set time")
	p.Handover(engine.KindAction, "backer-surveys", "Backer surveys / pledge manager open", engine.AddDays(end, 7))
	p.Handover(engine.KindArrival, "funds-arrive", "Funds arrive (about 14 days after the end); pay the printer's deposit", funds)
	p.Handover(engine.KindArrival, "books-printed", fmt.Sprintf("Books printed and delivered (%s, %d weeks)", method, printWeeks), printed)
	p.Deliverable("fulfilment", "All rewards shipped", shipped, r)
	p.DependsOn("launch", "prelaunch-page", "submit-review")
	p.DependsOn("campaign-end", "launch")
	p.DependsOn("backer-surveys", "campaign-end")
	p.DependsOn("funds-arrive", "campaign-end")
	p.DependsOn("books-printed", "funds-arrive")
	p.DependsOn("fulfilment", "books-printed")
	p.Set("schedule", map[string]any{
		"launch":             p.Ref("launch"),
		"end":                p.Ref("campaign-end"),
		"funds":              p.Ref("funds-arrive"),
		"printed":            p.Ref("books-printed"),
		"fulfilment":         p.Ref("fulfilment"),
		"estimated_delivery": estimate.Format("2006-01"),
	})
	return nil
}

// coKsCNYYear is the year of the Chinese New Year closure printing from
// funds meets first.
func coKsCNYYear(funds time.Time) int {
	if funds.After(engine.AddDays(engine.ChineseNewYear(funds.Year()), engine.FactoryClosureDaysAfter)) {
		return funds.Year() + 1
	}
	return funds.Year()
}

func coKsRecommend(in *engine.Input, p *engine.Plan) error {
	s := p.Get("schedule").(map[string]any)
	p.RecommendOn(engine.High, "prelaunch-page", "Open the pre-launch page",
		"Followers of a pre-launch page are notified at launch; a strong first 48 hours decides most campaigns.")
	p.RecommendOn(engine.High, "submit-review", "Finish print-ready files before launch",
		"Have the book lettered and print-ready, with a signed printer quote, before launch; backers fund printing, not unfinished pages.")
	p.Recommend(engine.Medium, "Charge shipping separately", "Collect shipping by region in the pledge manager so postage increases and international backers do not eat the margin.")
	p.Recommend(engine.Low, fmt.Sprintf("Promise delivery in %s", s["estimated_delivery"]), "Set the reward's estimated delivery to the month after planned fulfilment; a padded date kept beats an optimistic one missed.")
	f, ok := p.Get("funding").(map[string]any)
	if !ok {
		p.Strategy("Launch on %s for %s; no goal is computed until the average pledge covers shipping and fees, then fulfil by %s.", s["launch"], engine.Plural(in.Int("campaign_days"), "day", "days"), s["fulfilment"])
		return nil
	}
	p.Strategy("Set the goal at %s (about %s at %s) to cover %s printing and %s creative costs after 5%% platform, processing and 5%% dropped-pledge losses; launch %s, funds %s, rewards shipped by %s.",
		studioMoney(in, f["goal_usd"].(float64)), engine.Plural(f["backers_needed"].(int), "backer", "backers"), studioMoney(in, in.Float("avg_pledge_usd")), studioMoney(in, f["printing_usd"].(float64)), studioMoney(in, in.Float("creative_costs_usd")),
		s["launch"], s["funds"], s["fulfilment"])
	return nil
}
