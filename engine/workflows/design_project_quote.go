package workflows

import (
	"fmt"
	"math"

	"github.com/creativeops/creativeops/engine"
)

// Fixed-fee quote and schedule for a design project, phase by phase.
// Rules used:
//   - Design projects run in phases, each ending in a client sign-off:
//     discovery, concepts, refinement, revisions, final files (the AIGA
//     Standard Form of Agreement for Design Services is structured the
//     same way). Planning hours per phase are conservative freelance
//     figures: logo 4/12/8/4, brand identity 10/30/20/20, website
//     10/30/30/50, packaging 8/24/16/24, editorial layout 4/12/8/40.
//   - Each included revision round costs about 15% of the concept and
//     refinement hours; a 10% contingency covers the scope drift every
//     project has.
//   - Clients review each phase in 3 business days.
//   - Payment: 50% on signing, 25% on concept approval, 25% on final files.
//   - Rush fees of 25–100% when the deadline is shorter than the schedule
//     (studioRush).
func init() {
	engine.Register(&engine.Workflow{
		ID:           "design-project-quote",
		Name:         "Design project quote",
		Vertical:     "design",
		Jurisdiction: []engine.Area{engine.AreaTax},
		PastDate:     engine.PastDate{Field: "deadline", Policy: engine.PastReplan},
		Sources: []engine.Source{
			{Title: "AIGA Standard Form of Agreement for Design Services", URL: "https://www.aiga.org/resources/aiga-standard-form-of-agreement-for-design-services", Checked: "2026-11"},
		},
		Description: "Money is in `currency` (US dollars by default). Quotes a fixed-fee design project from phase hours, revision rounds, contingency and rate, schedules each phase and client sign-off to the deadline at your weekly capacity, adds a rush fee or proposes the earliest date, and fits the scope to the client's budget. A deadline the schedule cannot meet is re-planned on the earliest feasible one.",
		Fields: []engine.Field{
			{Name: "project_type", Kind: engine.String, Required: true, Enum: []string{"logo", "brand_identity", "website", "packaging", "editorial_layout"}, Description: "Kind of project."},
			{Name: "hourly_rate", Kind: engine.Number, Money: true, Required: true, Min: engine.Bound(10), Max: engine.Bound(1000), Description: "Your hourly rate, in `currency` (10–1,000)."},
			{Name: "deadline", Kind: engine.Date, Required: true, Description: "Date the client needs final files."},
			{Name: "start_date", Kind: engine.Date, Description: "Kickoff date; defaults to the plan date."},
			{Name: "revision_rounds", Kind: engine.Integer, Default: 2, Min: engine.Bound(0), Max: engine.Bound(6), Description: "Revision rounds included."},
			{Name: "hours_per_week", Kind: engine.Number, Default: 20, Min: engine.Bound(2), Max: engine.Bound(60), Description: "Hours a week you can give this project."},
			{Name: "client_budget", Kind: engine.Number, Money: true, Min: engine.Bound(0), Max: engine.Bound(10000000), Description: "The client's budget, in `currency` (0–10,000,000)."},
			engine.CurrencyField("USD"),
			engine.RegionField(),
		},
		ExampleContext: map[string]any{
			"project_type":    "brand_identity",
			"hourly_rate":     95,
			"deadline":        "2027-02-26",
			"start_date":      "2026-12-01",
			"revision_rounds": 2,
			"hours_per_week":  20,
			"client_budget":   9200,
			"as_of":           "2026-11-20",
		},
		Steps: []engine.Step{
			{Name: "estimate", Run: dsQuoteEstimate},
			{Name: "schedule", Run: dsQuoteSchedule},
			{Name: "fit-budget", Run: dsQuoteBudget},
			{Name: "recommend", Run: dsQuoteRecommend},
		},
	})
}

var dsQuotePhases = map[string][4]float64{
	"logo":             {4, 12, 8, 4},
	"brand_identity":   {10, 30, 20, 20},
	"website":          {10, 30, 30, 50},
	"packaging":        {8, 24, 16, 24},
	"editorial_layout": {4, 12, 8, 40},
}

const (
	dsQuoteReviewDays  = 3
	dsQuoteContingency = 0.10
)

// dsQuoteHours returns the phase hours, hours per revision round and the
// billed total for a number of rounds.
func dsQuoteHours(in *engine.Input, rounds int) (ph [4]float64, perRound, billed float64) {
	ph = dsQuotePhases[in.Str("project_type")]
	perRound = (ph[1] + ph[2]) * 0.15
	billed = (ph[0] + ph[1] + ph[2] + ph[3] + perRound*float64(rounds)) * (1 + dsQuoteContingency)
	return
}

func dsQuoteEstimate(in *engine.Input, p *engine.Plan) error {
	rounds := in.Int("revision_rounds")
	_, _, billed := dsQuoteHours(in, rounds)
	fee := engine.Money(billed * in.Float("hourly_rate"))
	p.Set("hours", engine.Round(billed, 2))
	p.Set("fee", fee)
	p.Set("currency", in.Currency("USD"))
	return nil
}

func dsQuoteSchedule(in *engine.Input, p *engine.Plan) error {
	start := p.AsOf()
	if in.Has("start_date") && in.Date("start_date").After(start) {
		start = in.Date("start_date")
	}
	// Kickoff is a payment and a signature: on a working day, and the
	// phases count from it, so a plan made on a Sunday does not lose a
	// day of its schedule.
	start = p.Calendar().NextWorkday(start)
	deadline := in.Date("deadline")
	ph, perRound, _ := dsQuoteHours(in, in.Int("revision_rounds"))
	perDay := in.Float("hours_per_week") / 5
	days := func(h float64) int { return max(1, studioCeil(h/perDay)) }
	stages := []studioStage{
		{"discovery-signoff", "Discovery and brief signed off", days(ph[0]) + dsQuoteReviewDays},
		{"concept-approval", "Concepts presented and one direction approved; 25% invoiced", days(ph[1]) + dsQuoteReviewDays},
		{"refinement-approval", "Refined design approved", days(ph[2]) + dsQuoteReviewDays},
	}
	for i := 1; i <= in.Int("revision_rounds"); i++ {
		stages = append(stages, studioStage{fmt.Sprintf("revision-%d", i), fmt.Sprintf("Revision round %d approved", i), days(perRound) + dsQuoteReviewDays})
	}
	stages = append(stages, studioStage{"final-files", "Final files and guidelines delivered", days(ph[3])})
	needed := 0
	for _, s := range stages {
		needed += s.days
	}
	available := p.Calendar().WorkdaysBetween(start, deadline)
	rush, feasible := studioRush(needed, available)
	end := deadline
	switch {
	case !deadline.After(start) || !feasible:
		end = p.Calendar().NextWorkday(p.Calendar().AddWorkdays(start, needed))
		p.Warn("DEADLINE_INFEASIBLE", "At %g hours a week the project needs %s including %d-day client reviews; %d remain from %s to %s, under the two thirds a rush can recover. The earliest deadline is %s.",
			in.Float("hours_per_week"), engine.Plural(needed, "business day", "business days"), dsQuoteReviewDays, available, engine.FormatDate(start), engine.FormatDate(deadline), engine.FormatDate(end))
		p.Set("earliest_feasible_deadline", engine.FormatDate(end))
		replanOn(p, deadline, end, "the project needs more business days than remain")
		rush = 0
	case rush > 0:
		p.Warn("RUSH_FEE", "%s to %s for a %d-day schedule: add a %.0f%% rush fee, move the deadline to %s, or book more hours a week.",
			engine.Plural(available, "business day", "business days"), engine.FormatDate(deadline), needed, rush*100, engine.FormatDate(p.Calendar().AddWorkdays(start, needed)))
	}
	fee := p.Get("fee").(float64)
	total := engine.Money(fee * (1 + rush))
	p.Set("quote", map[string]any{
		"hours":            p.Get("hours"),
		"fee":              fee,
		"rush_pct":         rush * 100,
		"total":            total,
		"on_signing":       engine.Money(total * 0.5),
		"on_concepts":      engine.Money(total * 0.25),
		"on_delivery":      engine.Money(total - engine.Money(total*0.5) - engine.Money(total*0.25)),
		"business_days":    needed,
		"days_available":   available,
		"contingency_pct":  dsQuoteContingency * 100,
		"revision_rounds":  in.Int("revision_rounds"),
		"hours_per_round":  engine.Round(perRound, 2),
		"kickoff_date":     engine.FormatDate(start),
		"final_files_date": engine.FormatDate(end),
	})
	// Final files are handed over on an open day of the designer's country.
	if moved := openDay(p, end, in.Region()); !moved.Equal(end) && moved.After(start) {
		end = moved
		q := p.Get("quote").(map[string]any)
		q["final_files_date"] = engine.FormatDate(end)
	}
	p.SetTarget(end)
	p.Handover(engine.KindPayment, "kickoff", "Contract signed, 50% paid, kickoff", start)
	studioScheduleStages(p, start, end, stages)
	p.DependsOn(stages[0].key, "kickoff")
	p.Handover(engine.KindPayment, "final-invoice", "Final 25% due (net 15)", engine.AddDays(end, 15))
	p.DependsOn("final-invoice", "final-files")
	return nil
}

// dsMoney renders an amount in the quote's currency, without cents when
// whole.
func dsMoney(in *engine.Input, v float64) string {
	if v == math.Trunc(v) {
		return engine.FormatMoneyWhole(v, in.Currency("USD"))
	}
	return engine.FormatMoney(v, in.Currency("USD"))
}

func dsQuoteBudget(in *engine.Input, p *engine.Plan) error {
	if !in.Has("client_budget") {
		return nil
	}
	q := p.Get("quote").(map[string]any)
	budget, total := in.Float("client_budget"), q["total"].(float64)
	if budget >= total {
		return nil
	}
	rate := in.Float("hourly_rate") * (1 + q["rush_pct"].(float64)/100)
	if rounds := in.Int("revision_rounds"); rounds > 1 {
		_, _, h := dsQuoteHours(in, 1)
		if alt := engine.Money(h * rate); alt <= budget {
			p.Warn("BUDGET_BELOW_QUOTE", "The quote is %s against a %s budget; with 1 revision round instead of %d it is %s.", dsMoney(in, total), dsMoney(in, budget), rounds, dsMoney(in, alt))
			p.Set("budget_alternative", map[string]any{"revision_rounds": 1, "total": alt})
			return nil
		}
	}
	affordable := engine.Round(budget/rate/(1+dsQuoteContingency), 1)
	_, _, h1 := dsQuoteHours(in, min(1, in.Int("revision_rounds")))
	cut := engine.Round(h1/(1+dsQuoteContingency)-affordable, 1)
	p.Warn("BUDGET_BELOW_QUOTE", "The quote is %s against a %s budget; even with one revision round the work takes %g hours and the budget buys %g. Cut deliverables by about %g hours or phase the project.",
		dsMoney(in, total), dsMoney(in, budget), engine.Round(h1/(1+dsQuoteContingency), 1), affordable, cut)
	p.Set("budget_alternative", map[string]any{"revision_rounds": min(1, in.Int("revision_rounds")), "hours_affordable": affordable, "hours_to_cut": cut})
	return nil
}

func dsQuoteRecommend(in *engine.Input, p *engine.Plan) error {
	q := p.Get("quote").(map[string]any)
	p.RecommendBy(engine.High, p.AsOf(), "Send a phased proposal",
		fmt.Sprintf("List deliverables per phase, %d revision rounds, extra rounds at %s/hour, and payments of %s / %s / %s at signing, concept approval and delivery.",
			in.Int("revision_rounds"), dsMoney(in, in.Float("hourly_rate")), dsMoney(in, q["on_signing"].(float64)), dsMoney(in, q["on_concepts"].(float64)), dsMoney(in, q["on_delivery"].(float64))))
	p.Recommend(engine.High, "Make review days part of the deal", fmt.Sprintf("The schedule assumes %d business days per client review; put it in the contract so late feedback moves the deadline, not your weekends.", dsQuoteReviewDays))
	p.Recommend(engine.Medium, "Track hours against the estimate", fmt.Sprintf("Log time per phase against the %g-hour estimate; past 80%% of a phase's hours, raise scope before you are over.", q["hours"]))
	if rule, ok := in.Rule(p, engine.AreaTax); ok {
		how := "added on top of this fee where you are registered to charge it"
		if rule.RatePct == 0 {
			how = "not charged on most design services; check your state's rules"
		}
		p.Recommend(engine.Medium, "Quote net of tax", fmt.Sprintf("This quote is your fee before tax. %s (%s %g%%): %s.", in.Region().Name(), rule.Name, rule.RatePct, how))
	}
	p.Recommend(engine.Low, "Transfer rights on final payment", "License or assign the final artwork only once the last invoice is paid; concepts not chosen stay yours.")
	p.Strategy("Quote %s for the %s (%g hours at %s incl. 10%% contingency%s): kickoff %s, %s with client reviews, final files on %s.",
		dsMoney(in, q["total"].(float64)), studioLabel(in.Str("project_type")), q["hours"], dsMoney(in, in.Float("hourly_rate")), dsQuoteRushNote(q),
		q["kickoff_date"], engine.Plural(q["business_days"].(int), "business day", "business days"), q["final_files_date"])
	return nil
}

func dsQuoteRushNote(q map[string]any) string {
	if r := q["rush_pct"].(float64); r > 0 {
		return fmt.Sprintf(", plus a %.0f%% rush fee", r)
	}
	return ""
}
