package workflows

import (
	"fmt"
	"math"
	"time"

	"github.com/creativeops/creativeops/engine"
)

// Freelance designer's rate review: the hourly and day rate that pays a
// target income, and the notice calendar for moving clients to it.
// Rules used:
//   - Billable time: freelancers commonly bill 50–70% of a 40-hour week
//     (20–28 hours); the rest goes to sales, admin and learning. Above 30
//     billable hours a week is flagged as optimistic.
//   - Self-employed social contributions of the country, from the engine's
//     rule table (each with its year and source): US self-employment tax
//     (15.3% on 92.35% of profit, Social Security only up to the 2026 wage
//     base of $184,500), UK Class 4 National Insurance (6% / 2%, 2025/26),
//     German health and care insurance (21.1% within floor and ceiling,
//     2026), French micro-entrepreneur contributions (25.6% of turnover,
//     2026), Japan's National Pension and National Health Insurance
//     (FY2025), Australia's Medicare levy (2%, 2025–26). A country the
//     table does not cover is warned about, never charged another's.
//     Income tax is not modelled: the target is pay before income tax.
//   - Rate = (profit needed + business expenses) / billable hours a year,
//     rounded up to $5; a day rate is 8 hours.
//   - Notice of a rate change: 30 days is the common minimum in freelance
//     contracts, 60 days for retainer clients; rises above 20% are commonly
//     phased in over two steps six months apart.
func init() {
	engine.Register(&engine.Workflow{
		ID:           "design-rate-review",
		Name:         "Freelance rate review",
		Vertical:     "design",
		PastDate:     engine.PastDate{Field: "effective_date", Policy: engine.PastReplan},
		Jurisdiction: []engine.Area{engine.AreaSocial},
		Sources: []engine.Source{
			{Title: "IRS: Schedule SE, self-employment tax", URL: "https://www.irs.gov/forms-pubs/about-schedule-se-form-1040", Checked: "2026-11"},
			{Title: "SSA: contribution and benefit base", URL: "https://www.ssa.gov/oact/cola/cbb.html", Checked: "2026-11"},
		},
		Description: "Computes the hourly and day rate a freelance designer needs for a target income after expenses and the country's self-employed social contributions (US self-employment tax, UK Class 4 National Insurance, German health and care insurance, French micro-entrepreneur contributions, Japan's pension and health insurance, Australia's Medicare levy) at realistic billable hours, compares it with the current rate, phases large rises and schedules client notice before the new rate takes effect. An effective date without 30 days' notice is re-planned on the first of the month that gives it.",
		Fields: []engine.Field{
			engine.CurrencyField("USD"),
			engine.RegionField(),
			{Name: "target_income_usd", Kind: engine.Number, Money: true, Required: true, Min: engine.Bound(1000), Max: engine.Bound(2000000), Description: "Yearly pay you want before income tax, in US dollars."},
			{Name: "annual_expenses_usd", Kind: engine.Number, Money: true, Default: 6000, Min: engine.Bound(0), Max: engine.Bound(10000000), Description: "Yearly business costs: software, hardware, insurance, workspace, in US dollars (0–10,000,000 USD)."},
			{Name: "billable_hours_per_week", Kind: engine.Number, Default: 25, Min: engine.Bound(5), Max: engine.Bound(60), Description: "Hours a week you actually bill."},
			{Name: "weeks_off", Kind: engine.Integer, Default: 6, Min: engine.Bound(0), Max: engine.Bound(26), Description: "Weeks a year without billing: holidays, sickness, quiet periods."},
			{Name: "current_rate_usd", Kind: engine.Number, Money: true, Min: engine.Bound(1), Max: engine.Bound(10000), Description: "Your current hourly rate in US dollars (1–10,000 USD)."},
			{Name: "effective_date", Kind: engine.Date, Required: true, Description: "When the new rate should take effect."},
			{Name: "us_self_employed", Kind: engine.Boolean, Default: true, Description: "Whether the self-employed social contributions of `country` apply (US self-employment tax in the US; the name is kept for compatibility). False when they are paid otherwise (an employer, an artists' fund)."},
		},
		ExampleContext: map[string]any{
			"target_income_usd":       85000,
			"annual_expenses_usd":     9000,
			"billable_hours_per_week": 24,
			"weeks_off":               7,
			"current_rate_usd":        85,
			"effective_date":          "2027-01-04",
			"us_self_employed":        true,
			"as_of":                   "2026-11-20",
		},
		Steps: []engine.Step{
			{Name: "required-rate", Run: dsRateRequired},
			{Name: "notice", Run: dsRateNotice},
			{Name: "compare", Run: dsRateCompare},
			{Name: "recommend", Run: dsRateRecommend},
		},
	})
}

const (
	dsRateDayHours  = 8
	dsRatePhaseOver = 0.20
)

// dsRateSocial is the country's schedule of self-employed social
// contributions, when they apply (us_self_employed) and the rule table
// has the country; the table warns JURISDICTION_UNKNOWN where it has not,
// and the plan then charges none rather than another country's.
func dsRateSocial(in *engine.Input, p *engine.Plan) (engine.Contributions, bool) {
	if !in.Bool("us_self_employed") {
		return engine.Contributions{}, false
	}
	sc, ok := in.Contributions(p)
	if !ok && p.Get("social_contributions_note") == nil {
		p.Set("social_contributions_note", fmt.Sprintf("%s's self-employed social contributions are not in the rule table and are not included: add them to target_income_usd.", in.Region().Name()))
	}
	return sc, ok
}

// dsRateSocialOn is a year's contributions at a revenue: on the profit it
// leaves after expenses, or on the revenue itself where the country
// charges turnover.
func dsRateSocialOn(in *engine.Input, p *engine.Plan, revenue float64) float64 {
	sc, ok := dsRateSocial(in, p)
	switch {
	case !ok:
		return 0
	case sc.OnTurnover():
		return sc.On(revenue)
	}
	return sc.On(revenue - in.Float("annual_expenses_usd"))
}

// dsRateRevenueFor is the revenue whose pay after expenses and social
// contributions is target.
func dsRateRevenueFor(in *engine.Input, p *engine.Plan, target float64) float64 {
	expenses := in.Float("annual_expenses_usd")
	sc, ok := dsRateSocial(in, p)
	switch {
	case !ok:
		return target + expenses
	case sc.OnTurnover():
		return sc.GrossFor(target + expenses)
	}
	return sc.GrossFor(target) + expenses
}

func dsRateHours(in *engine.Input, perWeek float64) float64 {
	return perWeek * float64(52-in.Int("weeks_off"))
}

// dsRateFor is the hourly rate that earns the target at perWeek billable
// hours, rounded up to a price point about $5 wide in the plan's currency.
func dsRateFor(in *engine.Input, p *engine.Plan, perWeek float64, what string) float64 {
	need := dsRateRevenueFor(in, p, in.Float("target_income_usd"))
	return in.PricePoint(p, what, need/dsRateHours(in, perWeek), 5, engine.RoundUp)
}

func dsRateRequired(in *engine.Input, p *engine.Plan) error {
	revenue := dsRateRevenueFor(in, p, in.Float("target_income_usd"))
	profit := revenue - in.Float("annual_expenses_usd")
	hours := dsRateHours(in, in.Float("billable_hours_per_week"))
	rate := dsRateFor(in, p, in.Float("billable_hours_per_week"), "hourly rate")
	if sc, ok := dsRateSocial(in, p); ok && sc.Ceiling > 0 && revenue > sc.Ceiling {
		p.Warn("SOCIAL_REGIME_CEILING", "The revenue this rate needs, %s a year, is above the %s turnover ceiling of the %s: past it two years running the scheme no longer applies and contributions are charged on profit under the standard regime, which this plan does not compute; check with an accountant before relying on the rate.",
			studioMoney(in, revenue), studioMoney(in, sc.Ceiling), sc.Rule.Name)
	}
	se := dsRateSocialOn(in, p, revenue)
	p.Set("rate_usd", rate)
	p.Set("day_rate_usd", rate*dsRateDayHours)
	p.Set("breakdown", map[string]any{
		"billable_hours_per_year":  hours,
		"profit_needed_usd":        engine.Money(profit),
		"self_employment_tax_usd":  engine.Money(se),
		"social_contributions_usd": engine.Money(se),
		"expenses_usd":             in.Float("annual_expenses_usd"),
		"revenue_needed_usd":       engine.Money(revenue),
	})
	if h := in.Float("billable_hours_per_week"); h > 30 {
		at25 := dsRateFor(in, p, 25, "hourly rate at 25 billable hours a week")
		p.Warn("HOURS_OPTIMISTIC", "%g billable hours a week is above the 20–28 most freelancers sustain once sales and admin are counted; at 25 hours the rate would be %s, not %s.", h, studioMoney(in, at25), studioMoney(in, rate))
		p.Set("rate_at_25_hours_usd", at25)
	}
	return nil
}

func dsRateCompare(in *engine.Input, p *engine.Plan) error {
	if !in.Has("current_rate_usd") {
		return nil
	}
	cur, rate := in.Float("current_rate_usd"), p.Get("rate_usd").(float64)
	hours := dsRateHours(in, in.Float("billable_hours_per_week"))
	pay := cur*hours - in.Float("annual_expenses_usd") - dsRateSocialOn(in, p, cur*hours)
	if target := in.Float("target_income_usd"); pay >= target {
		// The current rate already pays the target: keep it. A review
		// never advises a cut; the sustainable rate is the floor it may
		// not fall below.
		p.Set("sustainable_rate_usd", rate)
		p.Set("rate_usd", cur)
		p.Set("day_rate_usd", cur*dsRateDayHours)
		p.Set("current", map[string]any{
			"rate_usd":              cur,
			"pay_at_current_usd":    engine.Money(pay),
			"shortfall_usd":         0.0,
			"surplus_usd":           engine.Money(pay - target),
			"increase_pct":          0.0,
			"increase_per_hour_usd": 0.0,
		})
		p.Warn("RATE_ALREADY_SUSTAINABLE", "At %s an hour and %.0f billable hours a year you pay yourself about %s, %s above %s: keep the rate (the lowest that reaches the target is %s) and raise it at least with inflation at the annual review.",
			studioMoney(in, cur), hours, studioMoney(in, pay), studioMoney(in, pay-target), studioMoney(in, target), studioMoney(in, rate))
		return nil
	}
	rise := rate/cur - 1
	p.Set("current", map[string]any{
		"rate_usd":              cur,
		"pay_at_current_usd":    engine.Money(pay),
		"shortfall_usd":         engine.Money(math.Max(in.Float("target_income_usd")-pay, 0)),
		"increase_pct":          engine.Round(rise*100, 1),
		"increase_per_hour_usd": engine.Money(rate - cur),
	})
	if cur < rate {
		p.Warn("RATE_BELOW_SUSTAINABLE", "At %s an hour and %.0f billable hours a year you pay yourself about %s, %s short of %s; the rate that gets there is %s (+%.1f%%).",
			studioMoney(in, cur), hours, studioMoney(in, pay), studioMoney(in, in.Float("target_income_usd")-pay), studioMoney(in, in.Float("target_income_usd")), studioMoney(in, rate), rise*100)
	}
	if rise > dsRatePhaseOver {
		step := in.PricePoint(p, "first step of the phased rise", cur*(1+rise/2), 5, engine.RoundUp)
		eff := p.GetDate("effective_date")
		second := engine.AddMonths(eff, 6)
		p.Warn("RATE_INCREASE_LARGE", "A %.0f%% rise at once risks losing steady clients; move to %s on %s and to %s on %s.",
			rise*100, studioMoney(in, step), engine.FormatDate(eff), studioMoney(in, rate), engine.FormatDate(second))
		p.Event("second-step", "Second step of the phased rate rise", second, "the date the new rate applies")
		p.Set("phased_rates", []map[string]any{
			{"rate_usd": step, "effective": engine.FormatDate(eff)},
			{"rate_usd": rate, "effective": p.Ref("second-step")},
		})
	}
	return nil
}

func dsRateNotice(in *engine.Input, p *engine.Plan) error {
	eff := in.Date("effective_date")
	all := p.Calendar().PrevWorkday(engine.AddDays(eff, -30))
	retainers := p.Calendar().PrevWorkday(engine.AddDays(eff, -60))
	if all.Before(p.AsOf()) {
		earliest := dsRateFirstOfMonth(engine.AddDays(p.AsOf(), 30))
		p.Warn("NOTICE_TOO_SHORT", "Clients get 30 days' notice of a new rate; notice for %s was due %s. The earliest fair effective date is %s.",
			engine.FormatDate(eff), engine.FormatDate(all), engine.FormatDate(earliest))
		p.Set("earliest_feasible_effective_date", engine.FormatDate(earliest))
		replanOn(p, eff, earliest, "clients get 30 days' notice of a new rate")
		eff, all = earliest, p.AsOf()
		retainers = p.Calendar().PrevWorkday(engine.AddDays(eff, -60))
	}
	if retainers.Before(p.AsOf()) {
		ret := dsRateFirstOfMonth(engine.AddDays(p.AsOf(), 60))
		p.Warn("RETAINER_NOTICE_SHORT", "Retainer clients usually get 60 days' notice; tell them today and move their retainers to the new rate on %s.", engine.FormatDate(ret))
		p.Set("retainer_effective_date", p.Label("retainers move to the new rate", ret))
		retainers = p.AsOf()
	}
	p.SetTarget(eff)
	p.Set("effective_date", engine.FormatDate(eff))
	p.Handover(engine.KindAnnounce, "notify-retainers", "Retainer clients told of the new rate (60 days)", retainers)
	p.Handover(engine.KindAnnounce, "notify-clients", "All clients and open proposals told of the new rate (30 days)", all)
	p.Event("effective", "New rate applies to new work and renewals", eff, "the date the new rate applies")
	p.Work("mid-year-check", "Check billable hours and pay against the target", engine.AddMonths(eff, 6))
	p.Work("annual-review", "Next rate review", engine.AddMonths(eff, 12))
	// Clients hear of the rate before it applies.
	p.DependsOn("effective", "notify-retainers", "notify-clients")
	chain(p, "effective", "second-step")
	chain(p, "effective", "mid-year-check", "annual-review")
	return nil
}

func dsRateFirstOfMonth(d time.Time) time.Time {
	if d.Day() == 1 {
		return d
	}
	return time.Date(d.Year(), d.Month()+1, 1, 0, 0, 0, 0, time.UTC)
}

func dsRateRecommend(in *engine.Input, p *engine.Plan) error {
	rate := p.Get("rate_usd").(float64)
	eff := p.GetDate("effective_date")
	b := p.Get("breakdown").(map[string]any)
	if in.Has("current_rate_usd") && rate == in.Float("current_rate_usd") {
		p.RecommendOn(engine.High, "notify-clients", "Confirm your rate in writing",
			fmt.Sprintf("Your rate of %s an hour (%s a day) already meets the target: confirm it to clients for work booked from %s, and quote new clients at it.", studioMoney(in, rate), studioMoney(in, rate*dsRateDayHours), engine.FormatDate(eff)))
	} else {
		p.RecommendOn(engine.High, "notify-clients", "Announce the new rate in writing",
			fmt.Sprintf("Tell clients the new rate of %s an hour (%s a day) applies to work booked from %s; honour signed quotes at the old rate.", studioMoney(in, rate), studioMoney(in, rate*dsRateDayHours), engine.FormatDate(eff)))
	}
	p.Recommend(engine.Medium, "Quote projects, not hours", fmt.Sprintf("Price fixed-fee projects from estimated hours × %s plus contingency; clients compare project prices, not hourly rates.", studioMoney(in, rate)))
	social := "no social contributions"
	switch sc, ok := dsRateSocial(in, p); {
	case ok && in.Region() == engine.RegionUS:
		social = studioMoney(in, b["social_contributions_usd"].(float64)) + " self-employment tax"
		p.Recommend(engine.Medium, "Set aside tax each month", fmt.Sprintf("Put aside the %s of self-employment tax plus income tax from every invoice and pay US estimated tax quarterly.", studioMoney(in, b["social_contributions_usd"].(float64))))
	case ok:
		social = fmt.Sprintf("%s %s (%s)", studioMoney(in, b["social_contributions_usd"].(float64)), sc.Rule.Name, sc.Rule.Year)
		p.Recommend(engine.Medium, "Set aside tax each month", fmt.Sprintf("Put aside the %s of %s (%s rates) plus income tax from every invoice. %s", studioMoney(in, b["social_contributions_usd"].(float64)), sc.Rule.Name, sc.Rule.Year, sc.Rule.Note))
	case in.Bool("us_self_employed"):
		social = "social contributions not included"
		p.Recommend(engine.Medium, "Set aside tax each month", fmt.Sprintf("Put aside income tax and %s's social contributions from every invoice, at the rates your tax office publishes; they are not in this rate.", in.Region().Name()))
	default:
		p.Recommend(engine.Medium, "Set aside tax each month", "Put aside income tax from every invoice.")
	}
	p.Recommend(engine.Low, "Review yearly", "Raise rates at least with inflation every year; new clients get the new rate immediately.")
	p.Strategy("Charge %s an hour (%s a day) from %s: %s billable hours a year cover %s pay, %s and %s expenses.",
		studioMoney(in, rate), studioMoney(in, rate*dsRateDayHours), engine.FormatDate(eff), studioCount(int(b["billable_hours_per_year"].(float64))), studioMoney(in, in.Float("target_income_usd")),
		social, studioMoney(in, in.Float("annual_expenses_usd")))
	return nil
}
