package workflows

import (
	"fmt"
	"math"

	"github.com/creativeops/creativeops/engine"
)

// Paid-subscription launch for a newsletter: pricing, platform fees,
// projected paid subscribers and the launch calendar. Rules used:
//   - Fees: Substack keeps 10% of subscription revenue; every Stripe-based
//     platform pays Stripe 2.9% + $0.30 per charge plus 0.7% for recurring
//     billing (Stripe pricing). beehiiv and Ghost take 0% of revenue but
//     charge a plan fee (entered as platform_cost_usd). Kit charges 3.5% +
//     $0.30 per transaction, processing included.
//   - Substack's minimum prices are $5 a month and, as writers report it,
//     $50 a year (figures of $30–50 circulate; the higher floor is checked).
//     A price under them cannot be set, so the plan and its projections use
//     the minimum instead, with the requested price beside it.
//   - Annual plans are conventionally priced at about 10× the monthly price
//     ("two months free"); 30% of paid readers are assumed to choose annual.
//   - 5–10% of free subscribers converting to paid is the range Substack
//     cites for established writers; 3% / 5% / 10% are the low, base and
//     high cases. Launching paid is commonly advised from about 1,000
//     engaged free subscribers.
//   - A paid launch is announced two weeks ahead, with a founding-member
//     offer that closes a week after launch (standard practice).
func init() {
	engine.Register(&engine.Workflow{
		ID:       "newsletters-paid-launch",
		Name:     "Paid newsletter launch",
		Vertical: "newsletters",
		PastDate: engine.PastDate{Field: "launch_date", Policy: engine.PastReplan},
		Sources: []engine.Source{
			{Title: "Substack: pricing and fees", URL: "https://support.substack.com/", Checked: "2026-11"},
			{Title: "Stripe pricing", URL: "https://stripe.com/pricing", Checked: "2026-11"},
		},
		Description: "Projects paid subscribers and monthly net revenue for a newsletter's paid tier on Substack, beehiiv, Ghost or Kit after platform and Stripe fees, checks pricing against platform minimums and the annual-discount convention, sizes the list an income goal needs, and dates the launch campaign. A launch too soon for the two-week announcement, or already past, is re-planned; a launch in the dead week is warned with a better date.",
		Fields: []engine.Field{
			{Name: "platform", Kind: engine.String, Enum: []string{"substack", "beehiiv", "ghost", "kit"}, Default: "substack", Description: "Newsletter platform."},
			{Name: "free_subscribers", Kind: engine.Integer, Required: true, Min: engine.Bound(0), Max: engine.Bound(100000000), Description: "Free subscribers today (0–100,000,000)."},
			{Name: "monthly_price_usd", Kind: engine.Number, Money: true, Required: true, Min: engine.Bound(1), Max: engine.Bound(500), Description: "Monthly subscription price."},
			{Name: "annual_price_usd", Kind: engine.Number, Money: true, Min: engine.Bound(1), Max: engine.Bound(5000), Description: "Annual subscription price; defaults to 10× the monthly price."},
			{Name: "launch_date", Kind: engine.Date, Required: true, Description: "Day paid subscriptions open."},
			{Name: "platform_cost_usd", Kind: engine.Number, Money: true, Default: 0, Min: engine.Bound(0), Max: engine.Bound(100000), Description: "Monthly platform plan cost (beehiiv, Ghost, Kit) (0–100,000)."},
			{Name: "income_goal_usd", Kind: engine.Number, Money: true, Min: engine.Bound(0), Max: engine.Bound(100000000), Description: "Monthly net income the paid tier should reach (0–100,000,000)."},
			engine.RegionField(),
			engine.CurrencyField("USD"),
		},
		ExampleContext: map[string]any{
			"platform":          "substack",
			"free_subscribers":  4200,
			"monthly_price_usd": 8,
			"annual_price_usd":  80,
			"launch_date":       "2027-01-12",
			"income_goal_usd":   3000,
			"as_of":             "2026-11-20",
		},
		Steps: []engine.Step{
			{Name: "check-pricing", Run: newsPaidCheckPricing},
			{Name: "project", Run: newsPaidProject},
			{Name: "schedule", Run: newsPaidSchedule},
			{Name: "recommend", Run: newsPaidRecommend},
		},
	})
}

// newsPlatformFees is a platform's share of each charge and its fixed fee
// per charge, a US-dollar figure (Stripe's and Kit's published US
// pricing) converted into the plan's currency at the reference rate.
type newsPlatformFees struct {
	revenuePct float64
	perCharge  engine.Benchmark
}

var (
	newsStripePerCharge = engine.Benchmark{Amount: engine.InUSD(0.30), What: "Stripe fixed fee per card charge", Source: "Stripe pricing, US"}
	newsKitPerCharge    = engine.Benchmark{Amount: engine.InUSD(0.30), What: "Kit fixed fee per transaction", Source: "Kit pricing, US"}
	// Substack's minimum prices, set in US dollars.
	newsSubstackMinMo = engine.Benchmark{Amount: engine.InUSD(5), What: "Substack minimum monthly price", Source: "Substack: pricing and fees"}
	newsSubstackMinYr = engine.Benchmark{Amount: engine.InUSD(50), What: "Substack minimum annual price", Source: "Substack: pricing and fees"}
)

var newsPlatforms = map[string]newsPlatformFees{
	"substack": {0.10 + 0.029 + 0.007, newsStripePerCharge},
	"beehiiv":  {0.029 + 0.007, newsStripePerCharge},
	"ghost":    {0.029 + 0.007, newsStripePerCharge},
	"kit":      {0.035, newsKitPerCharge},
}

const (
	newsAnnualShare  = 0.30
	newsConvLow      = 0.03
	newsConvBase     = 0.05
	newsConvHigh     = 0.10
	newsMinList      = 1000
	newsAnnounceDays = 14
	// The two weeks of announcement in working days, the gap the launch
	// keeps after it whatever holidays fall in between.
	newsAnnounceWorkdays = 10
	newsFoundingDays     = 7
	newsAnnualMultiple   = 10.0
)

func newsAnnualPrice(in *engine.Input) float64 {
	if in.Has("annual_price_usd") {
		return in.Float("annual_price_usd")
	}
	return in.Float("monthly_price_usd") * newsAnnualMultiple
}

func newsPaidCheckPricing(in *engine.Input, p *engine.Plan) error {
	monthly, annual := in.Float("monthly_price_usd"), newsAnnualPrice(in)
	// The minimums are compared in the plan's currency; a price converted
	// from exactly the minimum is not below it for float noise.
	if in.Str("platform") == "substack" && (monthly < in.Benchmark(p, newsSubstackMinMo)*(1-1e-9) || annual < in.Benchmark(p, newsSubstackMinYr)*(1-1e-9)) {
		// A price Substack will not accept cannot be launched, so the plan
		// and its projections use the prices that can be set.
		setM, setY := math.Max(monthly, in.Benchmark(p, newsSubstackMinMo)), math.Max(annual, in.Benchmark(p, newsSubstackMinYr))
		p.Warn("PRICE_BELOW_MINIMUM", "Substack's minimums are %s a month and %s a year; %s / %s cannot be set, so the plan prices at %s / %s.",
			in.BenchmarkText(p, newsSubstackMinMo), in.BenchmarkText(p, newsSubstackMinYr), in.Money(monthly), in.Money(annual), in.Money(setM), in.Money(setY))
		p.Set("requested_prices", map[string]any{"monthly_usd": engine.Money(monthly), "annual_usd": engine.Money(annual)})
		monthly, annual = setM, setY
	}
	p.Set("monthly_price_usd", engine.Money(monthly))
	p.Set("annual_price_usd", engine.Money(annual))
	ratio := annual / monthly
	p.Set("annual_months_equivalent", engine.Round(ratio, 2))
	switch {
	case ratio >= 12:
		p.Warn("ANNUAL_NO_DISCOUNT", "The annual price is %.1f× the monthly price, no saving over paying monthly; about 10× (%s) is the convention that moves readers to annual.", ratio, in.Money(monthly*newsAnnualMultiple))
	case ratio < 8:
		p.Warn("ANNUAL_DISCOUNT_DEEP", "The annual price is only %.1f× the monthly price (%.0f%% off); about 10× (%s) keeps annual attractive without giving away a third of the revenue.", ratio, (1-ratio/12)*100, in.Money(monthly*newsAnnualMultiple))
	}
	return nil
}

// newsNetPerSub is the blended monthly net a paid subscriber brings after
// the platform's and Stripe's fees.
func newsNetPerSub(in *engine.Input, p *engine.Plan, monthlyPrice, annual float64) (monthlyNet, annualNetPerMonth, blended float64) {
	f := newsPlatforms[in.Str("platform")]
	monthly := monthlyPrice
	perCharge := in.Benchmark(p, f.perCharge)
	monthlyNet = monthly*(1-f.revenuePct) - perCharge
	annualNetPerMonth = (annual*(1-f.revenuePct) - perCharge) / 12
	blended = (1-newsAnnualShare)*monthlyNet + newsAnnualShare*annualNetPerMonth
	return monthlyNet, annualNetPerMonth, blended
}

func newsPaidProject(in *engine.Input, p *engine.Plan) error {
	free := in.Int("free_subscribers")
	annual := p.Get("annual_price_usd").(float64)
	monthlyNet, annualNet, blended := newsNetPerSub(in, p, p.Get("monthly_price_usd").(float64), annual)
	cost := in.Float("platform_cost_usd")
	p.Set("net_per_paid_subscriber_usd", map[string]any{
		"monthly_plan": engine.Money(monthlyNet), "annual_plan_per_month": engine.Money(annualNet), "blended": engine.Money(blended),
	})
	scenario := func(rate float64) map[string]any {
		paid := int(math.Round(float64(free) * rate))
		return map[string]any{
			"conversion_pct": rate * 100, "paid_subscribers": paid,
			"monthly_net_usd": engine.Money(float64(paid)*blended - cost),
			"annual_net_usd":  engine.Money((float64(paid)*blended - cost) * 12),
		}
	}
	base := scenario(newsConvBase)
	p.Set("projection", map[string]any{"low": scenario(newsConvLow), "base": base, "high": scenario(newsConvHigh)})
	if free < newsMinList {
		p.Warn("LIST_TOO_SMALL", "%s convert to about %d paid at 5%%; paid launches are commonly advised from about 1,000 engaged free subscribers.", engine.Plural(free, "free subscriber", "free subscribers"), base["paid_subscribers"])
	}
	if in.Has("income_goal_usd") {
		goal := in.Float("income_goal_usd")
		needed := int(math.Ceil((goal + cost) / blended))
		list := int(math.Ceil(float64(needed) / newsConvBase))
		p.Set("income_goal", map[string]any{"paid_subscribers_needed": needed, "free_list_needed_at_5pct": list})
		if float64(needed) > float64(free)*newsConvHigh {
			p.Warn("GOAL_OUT_OF_REACH", "%s a month needs %s, more than even a 10%% conversion of %s gives; at 5%% it takes a list of %s.",
				in.Money(goal), engine.Plural(needed, "paid subscriber", "paid subscribers"), engine.Plural(free, "free subscriber", "free subscribers"), engine.FormatInt(list))
		}
	}
	return nil
}

func newsPaidSchedule(in *engine.Input, p *engine.Plan) error {
	launch, asOf := in.Date("launch_date"), p.AsOf()
	// A launch too soon for the two-week announcement, or already past, is
	// re-planned on the earliest launch that keeps it.
	if lead := engine.DaysBetween(asOf, launch); lead < newsAnnounceDays || p.Calendar().WorkdaysBetween(asOf, launch) < newsAnnounceWorkdays {
		alt := engine.Later(engine.AddDays(asOf, newsAnnounceDays), p.Calendar().AddWorkdays(asOf, newsAnnounceWorkdays))
		away, why := engine.Plural(lead, "day", "days")+" away", "readers need a two-week announcement"
		if lead < 0 {
			away, why = "already past", "the requested launch date has passed"
		}
		p.Warn("LAUNCH_TOO_SOON", "Launch is %s; readers need a two-week announcement with the founding-member offer. The plan is built on the earliest launch, %s.", away, engine.FormatDate(alt))
		p.Set("earliest_feasible_launch_date", engine.FormatDate(alt))
		replanOn(p, launch, alt, why)
		launch = alt
	}
	p.SetTarget(launch)
	p.Set("launch_date", engine.FormatDate(launch))
	if engine.InDeadWeek(launch) {
		better := p.Calendar().NextWorkday(launch)
		p.Warn("LAUNCH_IN_DEAD_WEEK", "%s falls in the 24 December–1 January dead week, when readers are away and open rates drop; the founding offer would run to empty inboxes. A better launch is %s.",
			engine.FormatDate(launch), p.Label("launch clear of the dead week", better))
		p.Set("better_launch_date", p.Label("launch clear of the dead week", better))
	}
	p.Handover(engine.KindAnnounce, "announce", "Announce the paid tier and founding-member offer", engine.AddDays(launch, -newsAnnounceDays))
	deliver(p, "paid-content-ready", "First month of paid-only posts drafted", engine.AddDays(launch, -newsFoundingDays), in.Region(), engine.AddDays(launch, -newsAnnounceDays))
	p.Event("launch", "Paid subscriptions open", launch, "the launch date the plan is built on")
	p.DependsOn("paid-content-ready", "announce")
	p.DependsOn("launch", "paid-content-ready")
	// The announcement runs two weeks: ten working days before the launch.
	p.Precede("announce", "launch", newsAnnounceWorkdays)
	p.Event("founding-offer-ends", "Founding-member offer closes", engine.AddDays(launch, newsFoundingDays), "the founding offer's announced end")
	p.Work("month-one-review", "First month: conversion, churn, annual share", engine.AddDays(launch, 30))
	p.WarnPassedMilestones()
	return nil
}

func newsPaidRecommend(in *engine.Input, p *engine.Plan) error {
	launch := p.GetDate("launch_date")
	base := p.Get("projection").(map[string]any)["base"].(map[string]any)
	net := p.Get("net_per_paid_subscriber_usd").(map[string]any)
	p.RecommendOn(engine.High, "announce", "Announce with a reason to pay",
		"Say what paid readers get (extra issues, archive, community) and what stays free; the announcement email is the biggest converter of the launch.")
	p.RecommendBy(engine.Medium, engine.AddDays(launch, newsFoundingDays), "Close the founding offer on time",
		"A deadline converts fence-sitters; extend it and the next offer is ignored.")
	p.Recommend(engine.Medium, "Push annual plans", fmt.Sprintf("An annual subscriber nets %s a month against %s monthly and cannot churn for a year.",
		in.Money(net["annual_plan_per_month"].(float64)), in.Money(net["monthly_plan"].(float64))))
	if goal, ok := p.Get("income_goal").(map[string]any); ok {
		p.Recommend(engine.Low, "Grow the free list towards the goal", fmt.Sprintf("The income goal takes %s, a free list of about %s at 5%% conversion.", engine.Plural(goal["paid_subscribers_needed"].(int), "paid subscriber", "paid subscribers"), engine.FormatInt(goal["free_list_needed_at_5pct"].(int))))
	}
	p.Strategy("Open paid on %s on %s at %s/month or %s/year: at 5%% of %s, %s net about %s a month (%s each after fees), announced %s.",
		in.Str("platform"), engine.FormatDate(launch), in.Money(p.Get("monthly_price_usd").(float64)), in.Money(p.Get("annual_price_usd").(float64)),
		engine.Plural(in.Int("free_subscribers"), "free subscriber", "free subscribers"), engine.Plural(base["paid_subscribers"].(int), "paid reader", "paid readers"), in.Money(base["monthly_net_usd"].(float64)), in.Money(net["blended"].(float64)),
		p.Ref("announce"))
	return nil
}
