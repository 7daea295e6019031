package workflows

import (
	"fmt"
	"math"

	"github.com/creativeops/creativeops/engine"
)

// Quote and schedule for a commissioned illustration job, from brief to
// delivery.
// Rules used (Graphic Artists Guild Handbook: Pricing & Ethical Guidelines
// and common illustrators' terms):
//   - Fee = hours × hourly rate, scaled by usage: the more valuable the use,
//     the higher the fee. Planning factors (conservative, within the GAG
//     ranges where advertising pays several times editorial): editorial and
//     book interior ×1, book cover ×1.5, advertising and packaging ×2.
//   - Work splits about 30% sketches, 70% finals; each included revision
//     round costs about 10% of the hours. Clients review sketches and each
//     revision round in 2 business days.
//   - Rush fees of 25–100% apply when the deadline is shorter than the
//     normal schedule (studioRush: 25% / 50%, infeasible under two thirds).
//   - Cancellation (kill) fees: 25% of the fee before sketches are
//     approved, 50% after sketch approval, 100% once finals are delivered.
//   - Commercial clients pay a 50% deposit; editorial and publishing
//     clients pay on acceptance, net 30.
func init() {
	engine.Register(&engine.Workflow{
		ID:       "illustration-commission-quote",
		Name:     "Illustration commission quote",
		Vertical: "illustration",
		PastDate: engine.PastDate{Field: "delivery_date", Policy: engine.PastReplan},
		Sources: []engine.Source{
			{Title: "Graphic Artists Guild Handbook: Pricing & Ethical Guidelines", URL: "https://graphicartistsguild.org/handbook/", Checked: "2026-11"},
		},
		Description: "Quotes (in `currency`, US dollars by default) a commissioned illustration job by hours, rate and usage, adds a rush fee when the deadline is shorter than the normal schedule, sets kill fees and deposit, and schedules sketches, approvals, finals and revisions to delivery. A delivery date too close or already past is re-planned on the earliest feasible delivery.",
		Fields: []engine.Field{
			{Name: "delivery_date", Kind: engine.Date, Required: true, Description: "Date the client needs final art."},
			{Name: "pieces", Kind: engine.Integer, Default: 1, Min: engine.Bound(1), Max: engine.Bound(100), Description: "Number of illustrations."},
			{Name: "hours_per_piece", Kind: engine.Number, Required: true, Min: engine.Bound(0.5), Max: engine.Bound(400), Description: "Working hours per illustration, sketches to finals."},
			{Name: "hourly_rate", Kind: engine.Number, Money: true, Required: true, Min: engine.Bound(1), Max: engine.Bound(1000), Description: "Your hourly rate, in `currency` (1–1,000)."},
			{Name: "usage", Kind: engine.String, Enum: []string{"editorial", "book_interior", "book_cover", "advertising", "packaging"}, Default: "editorial", Description: "How the client will use the art."},
			{Name: "revision_rounds", Kind: engine.Integer, Default: 2, Min: engine.Bound(0), Max: engine.Bound(5), Description: "Revision rounds included in the fee."},
			{Name: "hours_per_day", Kind: engine.Number, Default: 6, Min: engine.Bound(1), Max: engine.Bound(12), Description: "Hours a day you can give this job."},
			engine.RegionField(),
			engine.CurrencyField("USD"),
		},
		ExampleContext: map[string]any{
			"delivery_date":   "2026-12-18",
			"pieces":          3,
			"hours_per_piece": 14,
			"hourly_rate":     85,
			"usage":           "book_cover",
			"revision_rounds": 2,
			"hours_per_day":   6,
			"as_of":           "2026-11-20",
		},
		Steps: []engine.Step{
			{Name: "estimate-time", Run: ilCommTime},
			{Name: "price", Run: ilCommPrice},
			{Name: "schedule", Run: ilCommSchedule},
			{Name: "recommend", Run: ilCommRecommend},
		},
	})
}

var ilCommUsage = map[string]float64{"editorial": 1, "book_interior": 1, "book_cover": 1.5, "advertising": 2, "packaging": 2}

// ilCommStages returns the stage lengths in business days: sketches,
// sketch review, finals, then per revision round (review + rework).
func ilCommStages(in *engine.Input) (sketch, review, finals, round int) {
	hours := float64(in.Int("pieces")) * in.Float("hours_per_piece")
	perDay := in.Float("hours_per_day")
	return studioCeil(hours * 0.3 / perDay), 2, studioCeil(hours * 0.7 / perDay), 2 + studioCeil(hours*0.1/perDay)
}

func ilCommTime(in *engine.Input, p *engine.Plan) error {
	sketch, review, finals, round := ilCommStages(in)
	needed := sketch + review + finals + in.Int("revision_rounds")*round
	delivery := in.Date("delivery_date")
	available := p.Calendar().WorkdaysBetween(p.AsOf(), delivery)
	rush, feasible := studioRush(needed, available)
	p.Set("working_days_needed", needed)
	p.Set("working_days_available", available)
	p.Set("rush_pct", rush*100)
	end := delivery
	switch {
	case delivery.Before(p.AsOf()) || !feasible:
		end = p.Calendar().NextWorkday(p.Calendar().AddWorkdays(p.AsOf(), needed))
		code := "DEADLINE_INFEASIBLE"
		if delivery.Before(p.AsOf()) {
			code = "DELIVERY_DATE_PASSED"
		}
		p.Warn(code, "The job needs %d working days (sketches, approvals, finals, %d revision rounds) and %d remain before %s, under the two thirds a rush can recover; the earliest delivery is %s.",
			needed, in.Int("revision_rounds"), available, engine.FormatDate(delivery), engine.FormatDate(end))
		p.Set("earliest_feasible_delivery_date", engine.FormatDate(end))
		p.Set("rush_pct", 0.0)
		replanOn(p, delivery, end, map[bool]string{true: "the requested delivery date has passed", false: "the job needs more working days than remain"}[delivery.Before(p.AsOf())])
	case rush > 0:
		p.Warn("RUSH_FEE", "Delivery on %s leaves %d working days for a %d-day job; a %.0f%% rush fee applies, or move delivery to %s to avoid it.",
			engine.FormatDate(delivery), available, needed, rush*100, engine.FormatDate(p.Calendar().AddWorkdays(p.AsOf(), needed)))
	}
	p.Set("delivery_date", engine.FormatDate(end))
	return nil
}

func ilCommPrice(in *engine.Input, p *engine.Plan) error {
	hours := float64(in.Int("pieces")) * in.Float("hours_per_piece")
	base := engine.Money(hours * in.Float("hourly_rate"))
	factor := ilCommUsage[in.Str("usage")]
	fee := engine.Money(base * factor)
	rush := engine.Money(fee * p.Get("rush_pct").(float64) / 100)
	total := engine.Money(fee + rush)
	deposit := 0.0
	if in.Str("usage") == "advertising" || in.Str("usage") == "packaging" {
		deposit = engine.Money(total / 2)
	}
	p.Set("currency", in.Currency("USD"))
	p.Set("quote", map[string]any{
		"hours":        hours,
		"base_fee":     base,
		"usage_factor": factor,
		"fee":          fee,
		"rush_fee":     rush,
		"total":        total,
		"deposit":      deposit,
		"per_piece":    engine.Money(total / float64(in.Int("pieces"))),
	})
	p.Set("kill_fees", map[string]any{
		"before_sketch_approval": engine.Money(total * 0.25),
		"after_sketch_approval":  engine.Money(total * 0.5),
		"after_finals":           total,
	})
	return nil
}

func ilCommSchedule(in *engine.Input, p *engine.Plan) error {
	// Final files are handed over on an open day; the stages are laid out
	// to it.
	delivery := openDay(p, p.GetDate("delivery_date"), in.Region())
	p.Set("delivery_date", engine.FormatDate(delivery))
	sketch, review, finals, round := ilCommStages(in)
	stages := []studioStage{
		{"sketches", "Sketches delivered", sketch},
		{"sketch-approval", "Sketches approved (kill fee rises to 50%)", review},
		{"finals", "Final art delivered for review", finals},
	}
	for i := 1; i <= in.Int("revision_rounds"); i++ {
		stages = append(stages, studioStage{fmt.Sprintf("revision-%d", i), fmt.Sprintf("Revision round %d returned", i), round})
	}
	p.SetTarget(delivery)
	// The brief is signed on a working day, and the stages count from it.
	signed := engine.Earlier(p.Calendar().NextWorkday(p.AsOf()), delivery)
	p.Handover(engine.KindAction, "brief-signed", "Brief, usage and fee agreed in writing", signed)
	studioScheduleStages(p, signed, delivery, stages)
	p.DependsOn(stages[0].key, "brief-signed")
	p.Deliverable("delivery", "Final files delivered; invoice sent", delivery, in.Region())
	p.Handover(engine.KindPayment, "invoice-due", "Invoice due (net 30)", engine.AddDays(delivery, 30))
	p.DependsOn("delivery", stages[len(stages)-1].key)
	p.DependsOn("invoice-due", "delivery")
	return nil
}

// ilCommMoney renders an amount in the quote's currency, without cents
// when whole.
func ilCommMoney(in *engine.Input, v float64) string {
	if v == math.Trunc(v) {
		return engine.FormatMoneyWhole(v, in.Currency("USD"))
	}
	return engine.FormatMoney(v, in.Currency("USD"))
}

func ilCommRecommend(in *engine.Input, p *engine.Plan) error {
	q := p.Get("quote").(map[string]any)
	delivery := p.GetDate("delivery_date")
	p.RecommendBy(engine.High, p.AsOf(), "Put the usage and kill fees in the contract",
		fmt.Sprintf("State the licence (%s), %d included revision rounds, extra rounds at %s/hour, and kill fees of 25%%/50%%/100%% by stage.",
			studioLabel(in.Str("usage")), in.Int("revision_rounds"), ilCommMoney(in, in.Float("hourly_rate"))))
	if q["deposit"].(float64) > 0 {
		p.RecommendBy(engine.High, p.AsOf(), "Take the deposit before sketching", fmt.Sprintf("Invoice the %s deposit (50%%) and start when it clears.", ilCommMoney(in, q["deposit"].(float64))))
	}
	p.Recommend(engine.Medium, "Fix review turnarounds", "Ask the client to return sketch and revision feedback within 2 business days; late feedback moves the delivery date, not your rate.")
	p.Recommend(engine.Low, "Keep the rights you did not sell", "Retain copyright and portfolio rights; quote any extra use (merchandise, advertising, new territories) as a separate licence.")
	p.Strategy("Quote %s for %d %s %s (%g hours at %s, usage ×%g%s) and deliver on %s after sketch approval and %d revision rounds.",
		ilCommMoney(in, q["total"].(float64)), in.Int("pieces"), studioLabel(in.Str("usage")), map[bool]string{true: "illustration", false: "illustrations"}[in.Int("pieces") == 1], q["hours"], ilCommMoney(in, in.Float("hourly_rate")), q["usage_factor"],
		ilCommRushNote(p), engine.FormatDate(delivery), in.Int("revision_rounds"))
	return nil
}

func ilCommRushNote(p *engine.Plan) string {
	if r := p.Get("rush_pct").(float64); r > 0 {
		return fmt.Sprintf(", plus a %.0f%% rush fee", r)
	}
	return ""
}
