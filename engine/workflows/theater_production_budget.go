package workflows

import (
	"fmt"
	"math"
	"time"

	"github.com/creativeops/creativeops/engine"
)

// Production budget and box-office break-even for a stage run. Rules used:
//   - Authors' royalties are a percentage of gross box office: 6–10% for
//     plays under Dramatists Guild and licensing terms, up to about 12% for
//     musicals with orchestrations; entered as royalty_pct.
//   - Ticketing and card fees absorbed by the producer run about 5% of
//     gross (conservative).
//   - The company is paid for 4 weeks of rehearsal and tech plus the run,
//     counted in 8-performance weeks (the commercial standard). Employer
//     payroll taxes and union pension and health contributions add about
//     20% to wages (conservative; Equity contributions vary by agreement).
//   - Production budgets carry a 10% contingency (standard practice).
//   - Non-profit theatres commonly budget for 60–75% paid capacity; a
//     break-even above 75% is flagged.
//   - Single tickets go on sale 8 weeks before opening; the budget is locked
//     12 weeks out; licensors want box-office reports and royalties within
//     two weeks of closing.
func init() {
	engine.Register(&engine.Workflow{
		ID:          "theater-production-budget",
		Name:        "Production budget and break-even",
		Vertical:    "theater",
		PastDate:    engine.PastDate{Field: "opening_date", Policy: engine.PastPostEvent},
		Description: "Budgets a stage run (payroll with burden for rehearsal and run weeks, fixed production costs, contingency, royalties, ticketing fees) against box office at the expected occupancy, and computes the break-even occupancy, tickets and ticket price, with the budget-lock, on-sale and settlement dates. A run that has already opened gets a settlement plan (the budget as the yardstick, the licensor's report due).",
		Fields: []engine.Field{
			{Name: "opening_date", Kind: engine.Date, Required: true, Description: "Opening night."},
			{Name: "seats", Kind: engine.Integer, Required: true, Min: engine.Bound(10), Max: engine.Bound(5000), Description: "Sellable seats per performance."},
			{Name: "performances", Kind: engine.Integer, Required: true, Min: engine.Bound(1), Max: engine.Bound(500), Description: "Performances, previews included."},
			{Name: "avg_ticket", Kind: engine.Number, Money: true, Required: true, Min: engine.Bound(0), Max: engine.Bound(2000), Description: "Average ticket price after discounts and comps, in `currency` (0–2,000)."},
			{Name: "occupancy_pct", Kind: engine.Number, Default: 65, Min: engine.Bound(0), Max: engine.Bound(100), Description: "Expected paid occupancy, in percent."},
			{Name: "royalty_pct", Kind: engine.Number, Default: 10, Min: engine.Bound(0), Max: engine.Bound(30), Description: "Authors' royalty on gross box office, in percent."},
			{Name: "weekly_payroll", Kind: engine.Number, Money: true, Required: true, Min: engine.Bound(0), Max: engine.Bound(10000000), Description: "Weekly wages of cast, stage management and crew, in `currency` (0–10,000,000)."},
			engine.RegionField(),
			engine.CurrencyField("USD"),
			{Name: "fixed_costs", Kind: engine.Number, Money: true, Required: true, Min: engine.Bound(0), Max: engine.Bound(100000000), Description: "Design fees, sets, costumes, lighting, venue, marketing and other one-off costs, in `currency` (0–100,000,000)."},
		},
		ExampleContext: map[string]any{
			"opening_date":   "2027-04-16",
			"seats":          180,
			"performances":   24,
			"avg_ticket":     42,
			"occupancy_pct":  65,
			"royalty_pct":    10,
			"weekly_payroll": 7800,
			"fixed_costs":    38000,
			"as_of":          "2026-11-20",
		},
		Sources: []engine.Source{
			{Title: "Actors' Equity: agreements and rulebooks (payroll, pension and health)", URL: "https://www.actorsequity.org/resources/contracts/", Checked: "2026-11"},
			{Title: "Dramatists Guild: production contracts and royalties", URL: "https://www.dramatistsguild.com/", Checked: "2026-11"},
		},
		Steps: []engine.Step{
			{Name: "budget", Run: theaterBudgetCosts},
			{Name: "break-even", Run: theaterBudgetBreakEven},
			{Name: "schedule", Run: theaterBudgetSchedule},
			{Name: "recommend", Run: theaterBudgetRecommend},
		},
	})
}

const (
	theaterRehearsalWeeks  = 4
	theaterShowsPerWeek    = 8
	theaterPayrollBurden   = 0.20
	theaterContingency     = 0.10
	theaterTicketFees      = 0.05
	theaterHighBreakEven   = 75.0
	theaterOnSaleWeeks     = 8
	theaterBudgetLockWeeks = 12
)

// theaterMoney writes an amount in the production's currency.
func theaterMoney(in *engine.Input) func(float64) string {
	cur := in.Currency("USD")
	return func(v float64) string { return engine.FormatMoney(v, cur) }
}

func theaterRunWeeks(in *engine.Input) int {
	return int(math.Ceil(float64(in.Int("performances")) / theaterShowsPerWeek))
}

func theaterBudgetCosts(in *engine.Input, p *engine.Plan) error {
	weeks := theaterRehearsalWeeks + theaterRunWeeks(in)
	wages := in.Float("weekly_payroll") * float64(weeks)
	burden := wages * theaterPayrollBurden
	fixed := in.Float("fixed_costs")
	contingency := (wages + burden + fixed) * theaterContingency
	p.Set("currency", in.Currency("USD"))
	p.Set("costs", map[string]any{
		"payroll_weeks": weeks, "wages": engine.Money(wages), "payroll_burden": engine.Money(burden),
		"fixed": engine.Money(fixed), "contingency": engine.Money(contingency),
		"total": engine.Money(wages + burden + fixed + contingency),
	})
	return nil
}

func theaterBudgetBreakEven(in *engine.Input, p *engine.Plan) error {
	money := theaterMoney(in)
	seats, perfs := in.Int("seats"), in.Int("performances")
	price, occ := in.Float("avg_ticket"), in.Float("occupancy_pct")/100
	keep := 1 - theaterTicketFees - in.Float("royalty_pct")/100
	costs := p.Get("costs").(map[string]any)["total"].(float64)
	potential := float64(seats*perfs) * price
	gross := potential * occ
	royalties := gross * in.Float("royalty_pct") / 100
	fees := gross * theaterTicketFees
	result := gross - royalties - fees - costs
	p.Set("box_office", map[string]any{
		"gross_potential": engine.Money(potential), "projected_gross": engine.Money(gross),
		"royalties": engine.Money(royalties), "ticketing_fees": engine.Money(fees),
		"projected_result": engine.Money(result),
	})
	if keep <= 0 || potential == 0 {
		p.Warn("NO_BOX_OFFICE_MARGIN", "Royalties and fees take all of the box office; no occupancy covers %s of costs.", money(costs))
		return nil
	}
	beOcc := costs / (potential * keep) * 100
	tickets := int(math.Ceil(costs / (price * keep)))
	be := map[string]any{
		"occupancy_pct": engine.Round(beOcc, 1), "tickets": tickets,
		"tickets_per_performance": int(math.Ceil(float64(tickets) / float64(perfs))),
	}
	if occ > 0 {
		be["ticket_price_at_projected_occupancy"] = engine.Money(costs / (float64(seats*perfs) * occ * keep))
	}
	p.Set("break_even", be)
	switch {
	case beOcc > 100:
		p.Warn("BREAK_EVEN_ABOVE_CAPACITY", "Covering %s of costs needs %s, %.0f%% of the %s on sale; no sell-out breaks even. Raise prices, add performances or cut costs.",
			money(costs), engine.Plural(tickets, "ticket", "tickets"), beOcc, engine.Plural(seats*perfs, "seat", "seats"))
	case beOcc > theaterHighBreakEven:
		p.Warn("BREAK_EVEN_HIGH", "Break-even needs %.0f%% paid occupancy; theatres usually budget for 60–75%%.", beOcc)
	}
	if result < 0 && occ > 0 {
		p.Warn("PROJECTED_LOSS", "At %.0f%% occupancy the run loses %s; break-even takes %.0f%% or an average ticket of %s.",
			occ*100, money(-result), beOcc, money(be["ticket_price_at_projected_occupancy"].(float64)))
	}
	return nil
}

// theaterBudgetSchedule dates the budget's decisions against opening night,
// a date the venue booking fixes. Steps already behind the plan date are
// due now and reported; a run that has already opened gets a settlement
// plan: the budget stands as the yardstick for actuals, and what is left
// is closing and the royalty report.
func theaterBudgetSchedule(in *engine.Input, p *engine.Plan) error {
	opening, asOf, r := in.Date("opening_date"), p.AsOf(), in.Region()
	p.SetTarget(opening)
	closing := engine.AddDays(opening, 7*theaterRunWeeks(in)-1)
	p.Set("closing_date", engine.FormatDate(closing))
	// A report that follows closing is sent on the next open day, never
	// moved back before the run ends.
	report := p.Calendar().NextWorkday(engine.Later(asOf, engine.AddDays(closing, 14)))
	if opening.Before(asOf) {
		state := fmt.Sprintf("closes %s", engine.FormatDate(closing))
		if closing.Before(asOf) {
			state = fmt.Sprintf("closed %s", engine.FormatDate(closing))
		}
		p.PostEvent(opening, fmt.Sprintf("the run opened and %s, so this is a settlement plan: compare actual sales and costs with the budget below and send the licensor's report.", state))
		p.Event("opening", "Opening night", opening, "opening night")
		p.Event("closing", "Closing performance", closing, "the last performance")
		p.Deliverable("royalty-report", "Box-office report and royalties to the licensor", report, r)
		return nil
	}
	lock := p.Calendar().PrevWorkday(engine.AddWeeks(opening, -theaterBudgetLockWeeks))
	onSale := engine.OnOrBefore(engine.AddWeeks(opening, -theaterOnSaleWeeks), time.Monday)
	var skip []string
	if lock.Before(asOf) {
		p.Warn("BUDGET_LOCK_PASSED", "The budget should have been locked by %s (12 weeks before opening); lock it now, before design and build commitments grow.", engine.FormatDate(lock))
		lock, skip = asOf, append(skip, "budget-lock")
	}
	if onSale.Before(asOf) {
		p.Warn("ON_SALE_LATE", "Tickets should have gone on sale %s (8 weeks out); %s of sales remain before opening.", engine.FormatDate(onSale), engine.Plural(engine.DaysBetween(asOf, opening), "day", "days"))
		onSale = asOf
	}
	p.Deliverable("budget-lock", "Budget locked and approved", lock, r)
	p.Handover(engine.KindOnSale, "on-sale", "Single tickets on sale", onSale)
	p.Work("first-rehearsal", "First rehearsal (payroll starts)", engine.OnOrBefore(engine.AddWeeks(opening, -theaterRehearsalWeeks), time.Monday))
	p.Event("opening", "Opening night", opening, "opening night")
	p.Event("closing", "Closing performance", closing, "the last performance")
	p.Deliverable("royalty-report", "Box-office report and royalties to the licensor", report, r)
	chain(p, "first-rehearsal", "opening", "closing", "royalty-report")
	warnPassedSteps(p, skip...)
	return nil
}

func theaterBudgetRecommend(in *engine.Input, p *engine.Plan) error {
	money := theaterMoney(in)
	opening := in.Date("opening_date")
	costs := p.Get("costs").(map[string]any)
	box := p.Get("box_office").(map[string]any)
	if !p.DateOf("budget-lock").IsZero() {
		p.RecommendOn(engine.High, "budget-lock", "Lock the budget with a contingency",
			fmt.Sprintf("Total costs of %s include a %s contingency; spend it only with the producer's sign-off.", money(costs["total"].(float64)), money(costs["contingency"].(float64))))
	}
	beText := "no occupancy breaks even"
	if be, ok := p.Get("break_even").(map[string]any); ok {
		beText = fmt.Sprintf("breaks even at %.1f%% paid (%s a performance)", be["occupancy_pct"].(float64), engine.Plural(be["tickets_per_performance"].(int), "ticket", "tickets"))
		p.Recommend(engine.Medium, "Track sales against break-even", fmt.Sprintf("Check weekly that advance sales are on course for %s a performance; discount early rather than paper the house late.", engine.Plural(be["tickets_per_performance"].(int), "ticket", "tickets")))
	}
	p.Recommend(engine.Medium, "Apply for production grants", "State and local arts councils and foundations fund productions on deadlines months ahead; a grant lowers the occupancy you need.")
	p.Recommend(engine.Low, "Report royalties on time", "Licensors audit box-office statements; late or missing reports can cost the next licence.")
	p.Strategy("%s from %s cost %s (%s); the run %s, and at %.0f%% the box office of %s returns %s.",
		engine.Plural(in.Int("performances"), "performance", "performances"), engine.FormatDate(opening), money(costs["total"].(float64)), engine.Plural(costs["payroll_weeks"].(int), "payroll week", "payroll weeks"), beText,
		in.Float("occupancy_pct"), money(box["projected_gross"].(float64)), money(box["projected_result"].(float64)))
	return nil
}
