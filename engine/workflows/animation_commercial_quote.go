package workflows

import (
	"fmt"

	"github.com/creativeops/creativeops/engine"
)

// Quote and schedule for a client animation (explainer, promo, product
// video) from a freelance animator or small studio.
// Rules used:
//   - Production days follow the standard commercial pipeline: script
//     (3 days), storyboard (a day per 15 seconds), style frames (3 days),
//     animatic (2 days, plus a day to record scratch/final VO), animation,
//     revision fixes (15% of the animation days per round) and a final
//     render day. Each approval gate (script, boards, style frames,
//     animatic, first cut, each revision round) waits 2 business days for
//     client feedback.
//   - Finished seconds per production day, conservative freelance figures:
//     motion graphics 8, 2D character animation 4, 3D 3 (a 60-second
//     explainer commonly takes 4–8 weeks end to end).
//   - Pass-through costs (US figures, converted into the plan's currency at
//     the reference rate): professional non-broadcast voice-over for web use
//     about $400 per 2 minutes (mid-range of the GVAA rate guide for
//     non-broadcast narration); stock music licence about $100 (standard
//     single-use web licences run $50–$200); custom score about $1,000 per
//     minute, delivered by the last review gate before the render.
//   - Rush fees of 25–100% for compressed schedules (studioRush); 50%
//     deposit, 50% on delivery, net 30.
//   - Days are working days of the studio's country: weekends, public
//     holidays and the 24 December–1 January week are closed. Every approval
//     gate is a hand-over to the client, on an open day.
//   - A delivery date already past, or too close even with a rush, is
//     re-planned on the earliest delivery the schedule allows, with the
//     requested date beside it.
func init() {
	engine.Register(&engine.Workflow{
		ID:          "animation-commercial-quote",
		Name:        "Commercial animation quote",
		Vertical:    "animation",
		PastDate:    engine.PastDate{Field: "delivery_date", Policy: engine.PastReplan},
		Description: "Quotes a client animation by duration, style and day rate (production days, voice-over, music, rush fee, deposit, price per second), schedules every approval gate to delivery and, when the budget is short, finds the longest video that fits it. A delivery date already past, or impossible even with a rush, is re-planned on the earliest delivery the schedule allows; days are working days of `country`.",
		Fields: []engine.Field{
			{Name: "delivery_date", Kind: engine.Date, Required: true, Description: "Date the client needs the final video."},
			{Name: "duration_seconds", Kind: engine.Integer, Required: true, Min: engine.Bound(5), Max: engine.Bound(600), Description: "Finished length in seconds."},
			{Name: "style", Kind: engine.String, Enum: []string{"motion_graphics", "2d_character", "3d"}, Default: "motion_graphics", Description: "Animation style."},
			{Name: "day_rate_usd", Kind: engine.Number, Money: true, Required: true, Min: engine.Bound(50), Max: engine.Bound(10000), Description: "Your day rate in `currency`."},
			{Name: "revision_rounds", Kind: engine.Integer, Default: 2, Min: engine.Bound(0), Max: engine.Bound(5), Description: "Revision rounds on the animation included in the quote."},
			{Name: "voiceover", Kind: engine.Boolean, Default: true, Description: "Whether a professional voice-over is included."},
			{Name: "music", Kind: engine.String, Enum: []string{"stock", "custom", "none"}, Default: "stock", Description: "Music: stock licence, custom score, or none."},
			{Name: "client_budget_usd", Kind: engine.Number, Money: true, Min: engine.Bound(0), Max: engine.Bound(10000000), Description: "The client's budget, in `currency` (0–10,000,000)."},
			engine.RegionField(),
			engine.CurrencyField("USD"),
		},
		Sources: []engine.Source{
			{Title: "GVAA Rate Guide: non-broadcast narration", URL: "https://globalvoiceacademy.com/gvaa-rate-guide-2/", Checked: "2026-11"},
			{Title: "Graphic Artists Guild Handbook: Pricing & Ethical Guidelines (rush fees, deposits)", URL: "https://graphicartistsguild.org/handbook/", Checked: "2026-11"},
		},
		ExampleContext: map[string]any{
			"delivery_date":     "2027-02-26",
			"duration_seconds":  60,
			"style":             "2d_character",
			"day_rate_usd":      500,
			"revision_rounds":   2,
			"voiceover":         true,
			"music":             "stock",
			"client_budget_usd": 16000,
			"as_of":             "2026-11-20",
		},
		Steps: []engine.Step{
			{Name: "quote", Run: anComQuoteStep},
			{Name: "fit-budget", Run: anComBudget},
			{Name: "schedule", Run: anComSchedule},
			{Name: "recommend", Run: anComRecommend},
		},
	})
}

var anComSecondsPerDay = map[string]float64{"motion_graphics": 8, "2d_character": 4, "3d": 3}

type anComQuote struct {
	stages                        []studioStage
	billable, needed              int
	labor, vo, music, rush, total float64
	rushPct                       float64
	feasible                      bool
}

// anComPrice prices a video of dur seconds against the days left before
// delivery.
func anComPrice(in *engine.Input, p *engine.Plan, dur int) anComQuote {
	anim := studioCeil(float64(dur) / anComSecondsPerDay[in.Str("style")])
	animatic := 2
	if in.Bool("voiceover") {
		animatic++
	}
	fix := studioCeil(float64(anim) * 0.15)
	work := []studioStage{
		{"script-approved", "Script approved", 3},
		{"storyboard-approved", "Storyboard approved", studioCeil(float64(dur) / 15)},
		{"styleframes-approved", "Style frames approved", 3},
		{"animatic-approved", "Animatic (with voice-over) approved", animatic},
		{"first-cut", "First cut reviewed", anim},
	}
	var q anComQuote
	for _, s := range work {
		q.billable += s.days
		s.days += 2
		q.stages = append(q.stages, s)
	}
	for i := 1; i <= in.Int("revision_rounds"); i++ {
		q.billable += fix
		q.stages = append(q.stages, studioStage{fmt.Sprintf("revision-%d", i), fmt.Sprintf("Revision round %d reviewed", i), fix + 2})
	}
	q.billable++
	q.stages = append(q.stages, studioStage{"delivery", "Final render and files delivered", 1})
	for _, s := range q.stages {
		q.needed += s.days
	}
	q.labor = engine.Money(float64(q.billable) * in.Float("day_rate_usd"))
	if in.Bool("voiceover") {
		q.vo = engine.Money(in.Benchmark(p, anComVoiceOver) * float64(studioCeil(float64(dur)/120)))
	}
	switch in.Str("music") {
	case "stock":
		q.music = engine.Money(in.Benchmark(p, anComStockMusic))
	case "custom":
		q.music = engine.Money(in.Benchmark(p, anComCustomMusic) * float64(studioCeil(float64(dur)/60)))
	}
	q.rushPct, q.feasible = studioRush(q.needed, anOpenDaysBetween(p.AsOf(), p.Calendar().PrevWorkday(in.Date("delivery_date")), in.Region()))
	q.rush = engine.Money(q.labor * q.rushPct)
	q.total = engine.Money(q.labor + q.vo + q.music + q.rush)
	return q
}

// Pass-through costs are US-market figures in US dollars, converted into
// the plan's currency at the reference rate (and recorded in money_basis),
// never read as 400 of the plan's currency.
var (
	anComVoiceOver   = engine.Benchmark{Amount: engine.InUSD(400), What: "non-broadcast voice-over per 2 minutes", Source: "GVAA rate guide, non-broadcast narration (US)"}
	anComStockMusic  = engine.Benchmark{Amount: engine.InUSD(100), What: "stock music single-use web licence", Source: "stock music libraries' standard web licences (US)"}
	anComCustomMusic = engine.Benchmark{Amount: engine.InUSD(1000), What: "custom score per minute", Source: "freelance composer rates for commercial work (US)"}
)

func anComQuoteStep(in *engine.Input, p *engine.Plan) error {
	r := in.Region()
	dur := in.Int("duration_seconds")
	q := anComPrice(in, p, dur)
	requested := in.Date("delivery_date")
	delivery := p.Calendar().PrevWorkday(requested)
	available := anOpenDaysBetween(p.AsOf(), delivery, r)
	switch {
	case requested.Before(p.AsOf()) || !q.feasible:
		earliest := p.Calendar().AddWorkdays(p.AsOf(), q.needed)
		p.Warn("DEADLINE_INFEASIBLE", "A %d-second %s video needs %s (%s plus client reviews); %s remain before %s, under the two thirds a rush can recover. The earliest delivery is %s.",
			dur, studioLabel(in.Str("style")), engine.Plural(q.needed, "business day", "business days"), engine.Plural(q.billable, "production day", "production days"),
			engine.Plural(available, "business day", "business days"), engine.FormatDate(requested), engine.FormatDate(earliest))
		p.Set("earliest_feasible_delivery_date", engine.FormatDate(earliest))
		p.Replanned(requested, earliest, "The requested delivery cannot be met, even with a rush.")
		delivery = earliest
		q.rushPct, q.rush = 0, 0
		q.total = engine.Money(q.labor + q.vo + q.music)
	case q.rushPct > 0:
		p.Warn("RUSH_FEE", "Delivery on %s leaves %s for a %d-day schedule; a %.0f%% rush fee (%s) applies, or deliver on %s at the normal rate.",
			engine.FormatDate(delivery), engine.Plural(available, "business day", "business days"), q.needed, q.rushPct*100, studioMoney(in, q.rush), engine.FormatDate(p.Calendar().AddWorkdays(p.AsOf(), q.needed)))
	}
	p.Set("delivery_date", engine.FormatDate(delivery))
	p.Set("quote", map[string]any{
		"production_days":      q.billable,
		"labor_usd":            q.labor,
		"voiceover_usd":        q.vo,
		"music_usd":            q.music,
		"rush_pct":             q.rushPct * 100,
		"rush_fee_usd":         q.rush,
		"total_usd":            q.total,
		"deposit_usd":          engine.Money(q.total / 2),
		"price_per_second_usd": engine.Money(q.total / float64(dur)),
		"business_days_needed": q.needed,
	})
	return nil
}

func anComBudget(in *engine.Input, p *engine.Plan) error {
	if !in.Has("client_budget_usd") {
		return nil
	}
	budget := in.Float("client_budget_usd")
	total := p.Get("quote").(map[string]any)["total_usd"].(float64)
	if total <= budget+0.05 {
		return nil
	}
	// The quote's parts are each rounded to the cent, so a cut whose
	// total meets the budget but for that rounding fits it, in every
	// currency alike.
	for d := in.Int("duration_seconds") - 5; d >= 5; d -= 5 {
		if q := anComPrice(in, p, d); q.total <= budget+0.05 {
			p.Warn("BUDGET_BELOW_QUOTE", "The quote is %s against a %s budget; at the same style and rate a %d-second cut fits at %s, or drop to motion graphics.",
				studioMoney(in, total), studioMoney(in, budget), d, studioMoney(in, q.total))
			p.Set("budget_alternative", map[string]any{"duration_seconds": d, "total_usd": q.total})
			return nil
		}
	}
	p.Warn("BUDGET_BELOW_QUOTE", "The quote is %s and even a 5-second %s piece exceeds the %s budget; propose a different style or rate.", studioMoney(in, total), studioLabel(in.Str("style")), studioMoney(in, budget))
	return nil
}

func anComSchedule(in *engine.Input, p *engine.Plan) error {
	delivery := p.GetDate("delivery_date")
	q := anComPrice(in, p, in.Int("duration_seconds"))
	p.SetTarget(delivery)
	// Kickoff is on a working day, and the stages count from it.
	kickoff := engine.Earlier(p.Calendar().NextWorkday(p.AsOf()), delivery)
	p.Handover(engine.KindPayment, "kickoff", "Kickoff: brief, deposit and references", kickoff)
	anScheduleStages(p, kickoff, delivery, q.stages, in.Region(), "kickoff")
	if in.Str("music") == "custom" {
		// The score is costed, so it is scheduled: written to the cut and in
		// hand for the final round's review, the last gate before the
		// render.
		final := q.stages[len(q.stages)-2].key
		for _, m := range p.Milestones() {
			if m.Key == final {
				p.Deliverable("score-delivered", "Custom score delivered, timed to the cut", m.Date, in.Region())
			}
		}
		p.DependsOn("score-delivered", "first-cut")
		p.DependsOn("delivery", "score-delivered")
	}
	p.Handover(engine.KindPayment, "final-invoice", "Final 50% due (net 30)", engine.AddDays(delivery, 30))
	p.DependsOn("final-invoice", "delivery")
	return nil
}

func anComRecommend(in *engine.Input, p *engine.Plan) error {
	q := p.Get("quote").(map[string]any)
	p.RecommendBy(engine.High, p.AsOf(), "Take the deposit and lock the script first",
		fmt.Sprintf("Invoice the %s deposit at kickoff; the script and voice-over are the cheapest places to make changes, animation the most expensive.", studioMoney(in, q["deposit_usd"].(float64))))
	p.Recommend(engine.High, "Cap revisions in the contract", fmt.Sprintf("Include %s on the animation; further rounds or changes to an approved script, board or animatic are billed at %s a day.",
		engine.Plural(in.Int("revision_rounds"), "round", "rounds"), studioMoney(in, in.Float("day_rate_usd"))))
	if in.Bool("voiceover") {
		p.Recommend(engine.Medium, "Book the voice before the animatic", "Record the final voice-over before animating so timing is set by the read, not re-cut after it.")
	}
	p.Recommend(engine.Low, "Agree the deliverables list", "Name formats up front (16:9 master, 9:16 and 1:1 cut-downs, captions); each extra cut-down is a quoted line, not a favour.")
	p.Strategy("Quote %s for a %d-second %s video (%s at %s%s, %s per second) and deliver on %s after script, board, style-frame, animatic and %s.",
		studioMoney(in, q["total_usd"].(float64)), in.Int("duration_seconds"), studioLabel(in.Str("style")), engine.Plural(q["production_days"].(int), "production day", "production days"), studioMoney(in, in.Float("day_rate_usd")),
		anComRushNote(q), studioMoney(in, q["price_per_second_usd"].(float64)), p.Get("delivery_date"), engine.Plural(in.Int("revision_rounds"), "revision approval", "revision approvals"))
	return nil
}

func anComRushNote(q map[string]any) string {
	if r := q["rush_pct"].(float64); r > 0 {
		return fmt.Sprintf(" plus a %.0f%% rush fee", r)
	}
	return ""
}
