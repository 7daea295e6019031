package workflows

import (
	"fmt"
	"math"

	"github.com/creativeops/creativeops/engine"
)

// Picture-book illustration contract plan: art schedule to the finals
// deadline, advance instalments and what it takes to earn out.
// Rules used:
//   - Picture books print in 8-page signatures; 32 pages is the standard
//     trade format. Front matter takes about 4 pages, so a 32-page book has
//     14 story spreads, plus the jacket/cover art.
//   - Publishers want final art about 12 months before publication
//     (design and colour proofing, printing overseas and ocean freight take
//     3–4 months, and F&Gs go to trade reviewers 4–5 months before
//     publication); 6 months before is the last moment a list can absorb.
//   - An illustrator starting from the manuscript spends about 3 weeks on
//     thumbnails and the dummy, the editor and art director take about
//     2 weeks to respond, and sketch revisions take about a week.
//   - Advances for illustrators are commonly paid in thirds: on signing,
//     on sketch approval, on acceptance of finals (paid about 30 days
//     after delivery).
//   - Hardcover picture-book royalties are commonly 10% of list price,
//     split 5% to the author and 5% to the illustrator; the advance earns
//     out when royalties reach it.
func init() {
	engine.Register(&engine.Workflow{
		ID:       "illustration-picture-book",
		Name:     "Picture book art schedule and advance",
		Vertical: "illustration",
		PastDate: engine.PastDate{Field: "publication_date", Policy: engine.PastReplan},
		Sources: []engine.Source{
			{Title: "SCBWI: picture book contracts, advances and royalties", URL: "https://www.scbwi.org/", Checked: "2026-11"},
			{Title: "Graphic Artists Guild Handbook: Pricing & Ethical Guidelines", URL: "https://graphicartistsguild.org/handbook/", Checked: "2026-11"},
		},
		Description: "Plans the art for a picture-book contract: spread count from the page count, dummy, sketches and finals against the finals deadline, advance instalments, copies needed to earn out and the effective day rate, with warnings when the art or the publication date is at risk. A publication date too close for the art, or already past, is re-planned on the earliest publication the art allows.",
		Fields: []engine.Field{
			{Name: "publication_date", Kind: engine.Date, Required: true, Description: "Scheduled publication date."},
			{Name: "page_count", Kind: engine.Integer, Default: 32, Min: engine.Bound(16), Max: engine.Bound(64), Description: "Total pages, including front matter."},
			{Name: "spreads_finished", Kind: engine.Integer, Default: 0, Min: engine.Bound(0), Max: engine.Bound(40), Description: "Spreads already painted to final (sketches are then taken as approved)."},
			{Name: "days_per_spread", Kind: engine.Number, Default: 5, Min: engine.Bound(0.5), Max: engine.Bound(30), Description: "Working days to paint one final spread."},
			{Name: "advance_usd", Kind: engine.Number, Money: true, Required: true, Min: engine.Bound(0), Max: engine.Bound(10000000), Description: "Illustrator's advance in `currency` (0–10,000,000)."},
			{Name: "list_price_usd", Kind: engine.Number, Money: true, Default: 18.99, Min: engine.Bound(1), Max: engine.Bound(1000), Description: "Hardcover list price in `currency` (1–1,000)."},
			{Name: "royalty_pct", Kind: engine.Number, Default: 5, Min: engine.Bound(0.5), Max: engine.Bound(15), Description: "Illustrator's royalty, in percent of list price."},
			{Name: "finals_due", Kind: engine.Date, Description: "Contract deadline for final art; defaults to 12 months before publication."},
			engine.RegionField(),
			engine.CurrencyField("USD"),
		},
		ExampleContext: map[string]any{
			"publication_date": "2028-06-06",
			"page_count":       32,
			"spreads_finished": 0,
			"days_per_spread":  5,
			"advance_usd":      12000,
			"list_price_usd":   18.99,
			"royalty_pct":      5,
			"as_of":            "2026-11-20",
		},
		Steps: []engine.Step{
			{Name: "scope", Run: ilBookScope},
			{Name: "schedule", Run: ilBookSchedule},
			{Name: "advance", Run: ilBookAdvance},
			{Name: "recommend", Run: ilBookRecommend},
		},
	})
}

const (
	ilBookDummyDays    = 15 // thumbnails and dummy
	ilBookReviewDays   = 10 // editor and art director
	ilBookRevisionDays = 5  // sketch revisions
)

func ilBookScope(in *engine.Input, p *engine.Plan) error {
	pages := in.Int("page_count")
	if pages%8 != 0 {
		suggested := (pages + 4) / 8 * 8
		p.Warn("PAGE_COUNT_NOT_SIGNATURE", "%d pages is not a multiple of the 8-page signatures picture books print in; the printer will add blanks. Plan %d pages.", pages, suggested)
		p.Set("suggested_page_count", suggested)
	}
	spreads := (pages - 4) / 2
	units := spreads + 1
	remaining := max(units-in.Int("spreads_finished"), 0)
	dummy := 0
	if in.Int("spreads_finished") == 0 {
		dummy = ilBookDummyDays + ilBookReviewDays + ilBookRevisionDays
	}
	finals := studioCeil(float64(remaining) * in.Float("days_per_spread"))
	p.Set("art", map[string]any{
		"story_spreads":   spreads,
		"art_units":       units,
		"units_remaining": remaining,
		"dummy_days":      dummy,
		"finals_days":     finals,
		"working_days":    dummy + finals,
		"days_per_spread": in.Float("days_per_spread"),
		"full_book_days":  ilBookDummyDays + ilBookRevisionDays + studioCeil(float64(units)*in.Float("days_per_spread")),
	})
	return nil
}

func ilBookSchedule(in *engine.Input, p *engine.Plan) error {
	pub := in.Date("publication_date")
	passed := pub.Before(p.AsOf())
	if passed {
		p.Warn("PUBLICATION_DATE_PASSED", "The publication date %s is before the plan date %s; the art cannot be made for it, so the plan is built on the earliest publication the art allows.", engine.FormatDate(pub), engine.FormatDate(p.AsOf()))
	}
	due := p.Calendar().PrevWorkday(engine.AddMonths(pub, -12))
	if in.Has("finals_due") {
		due = in.Date("finals_due")
	}
	if months := float64(engine.DaysBetween(due, pub)) / 30.4; months < 6 {
		p.Warn("FINALS_TOO_LATE_FOR_PRINT", "Finals due %s are only %.1f months before publication; printing, freight and review copies need 6–12. Ask for finals by %s.",
			engine.FormatDate(due), months, engine.FormatDate(p.Calendar().PrevWorkday(engine.AddMonths(pub, -12))))
	}
	art := p.Get("art").(map[string]any)
	needed, dummy := art["working_days"].(int), art["dummy_days"].(int)
	available := p.Calendar().WorkdaysBetween(p.AsOf(), due)
	start := engine.Later(p.AsOf(), p.Calendar().AddWorkdays(due, -needed))
	if needed > available || due.Before(p.AsOf()) {
		earliest := p.Calendar().AddWorkdays(p.AsOf(), needed)
		earliestPub := engine.AddMonths(earliest, 12)
		p.Warn("FINALS_AT_RISK", "The art needs %d working days and %d remain before finals are due on %s; at %g days a spread the earliest finals date is %s, which keeps a 12-month lead only for publication on or after %s. Negotiate the date now, or cut days per spread.",
			needed, available, engine.FormatDate(due), in.Float("days_per_spread"), engine.FormatDate(earliest), engine.FormatDate(earliestPub))
		p.Set("earliest_feasible_finals_date", p.Ref("finals"))
		p.Set("earliest_feasible_publication_date", p.Label("earliest publication that keeps a 12-month lead", earliestPub))
		due, start = earliest, p.AsOf()
		if earliestPub.After(pub) {
			why := "the art needs more working days than remain before finals"
			if passed {
				why = "the requested publication date has passed"
			}
			replanOn(p, pub, earliestPub, why)
			pub = earliestPub
		}
	}
	p.Set("publication_date", engine.FormatDate(pub))
	p.Set("slack_working_days", max(available-needed, 0))
	approval := start
	if dummy > 0 {
		d := p.Calendar().AddWorkdays(start, ilBookDummyDays)
		d = deliver(p, "dummy", "Thumbnails and dummy to editor and art director", d, in.Region(), start)
		approval = p.Calendar().AddWorkdays(d, ilBookReviewDays+ilBookRevisionDays)
		p.Handover(engine.KindAction, "sketch-approval", "Revised sketches approved (second advance instalment)", approval)
	}
	approvalKey := "art-start"
	if dummy > 0 {
		approvalKey = "sketch-approval"
	}
	p.Set("sketch_approval", p.Ref(approvalKey))
	p.Work("art-start", "Latest start on the art", start)
	due = deliver(p, "finals", "Final art and jacket delivered", due, in.Region(), approval)
	p.Set("finals_due", p.Ref("finals"))
	// The art takes its working days whatever moves: finals moved off a
	// closed day pull the start with them, and a start that cannot move
	// pushes finals.
	p.DependsOn("finals", "sketch-approval")
	p.Precede("art-start", "finals", needed)
	if dummy > 0 {
		p.Precede("art-start", "dummy", ilBookDummyDays)
		p.Precede("sketch-approval", "finals", needed-dummy)
	}
	due = p.DateOf("finals")
	p.Handover(engine.KindDeliverable, "progress-batch", "First finished spreads to the editor (8 weeks before finals)", engine.Later(p.AsOf(), engine.AddWeeks(due, -8)))
	p.SetTarget(due)
	p.Handover(engine.KindPayment, "acceptance-payment", "Finals accepted; last advance instalment paid (about 30 days)", engine.AddDays(due, 30))
	p.Handover(engine.KindDeliverable, "f-and-gs", "F&Gs to trade reviewers (4–5 months before publication)", engine.Later(engine.AddDays(due, 30), engine.AddMonths(pub, -5)))
	p.Event("publication", "Publication day", pub, "the publication date the publisher set")
	p.DependsOn("finals", "progress-batch")
	p.DependsOn("acceptance-payment", "finals")
	p.DependsOn("f-and-gs", "finals")
	return nil
}

func ilBookAdvance(in *engine.Input, p *engine.Plan) error {
	advance := in.Float("advance_usd")
	third := engine.Money(advance / 3)
	perCopy := in.Float("list_price_usd") * in.Float("royalty_pct") / 100
	copies := int(math.Ceil(engine.Round(advance/perCopy, 6)))
	art := p.Get("art").(map[string]any)
	days := art["full_book_days"].(int)
	p.Set("advance", map[string]any{
		"total_usd":              engine.Money(advance),
		"on_signing_usd":         third,
		"on_sketches_usd":        third,
		"on_acceptance_usd":      engine.Money(advance - 2*third),
		"royalty_per_copy_usd":   engine.Money(perCopy),
		"copies_to_earn_out":     copies,
		"effective_day_rate_usd": engine.Money(advance / float64(days)),
		"working_days_for_book":  days,
	})
	return nil
}

func ilBookRecommend(in *engine.Input, p *engine.Plan) error {
	a := p.Get("advance").(map[string]any)
	approvalKey := "sketch-approval"
	if p.DateOf(approvalKey).IsZero() {
		approvalKey = "art-start"
	}
	p.RecommendOn(engine.High, approvalKey, "Get sketch approval in writing",
		"Approval of the revised sketches releases the second third of the advance and freezes composition; changes after it are billable.")
	p.RecommendOn(engine.High, "progress-batch", "Send a progress batch",
		"Deliver the first finished spreads eight weeks before the deadline so colour and printing issues surface early.")
	p.Recommend(engine.Medium, "Check the royalty and reversion clauses", fmt.Sprintf("At %s a copy you earn out after %s; ask for escalators above 10,000 copies and rights reversion when the book goes out of print.",
		studioMoney(in, a["royalty_per_copy_usd"].(float64)), engine.Plural(a["copies_to_earn_out"].(int), "copy", "copies")))
	p.Recommend(engine.Low, "Keep the originals", "Contracts commonly return original art to the illustrator after printing; originals sell and exhibit.")
	p.Strategy("Paint %d art units (%d spreads plus jacket) in %d working days for finals on %s and publication on %s; the %s advance comes in thirds of %s and earns out at %s, about %s per working day.",
		p.Get("art").(map[string]any)["art_units"], p.Get("art").(map[string]any)["story_spreads"], p.Get("art").(map[string]any)["working_days"], p.Ref("finals"), p.Get("publication_date"),
		studioMoney(in, a["total_usd"].(float64)), studioMoney(in, a["on_signing_usd"].(float64)), engine.Plural(a["copies_to_earn_out"].(int), "copy", "copies"), studioMoney(in, a["effective_day_rate_usd"].(float64)))
	return nil
}
