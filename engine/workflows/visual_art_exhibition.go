package workflows

import (
	"fmt"
	"math"
	"time"

	"github.com/creativeops/creativeops/engine"
)

// Exhibition production schedule, planned backwards from opening night.
// Rules used (common gallery practice; durations are conservative):
//   - Installation takes 2–4 days before the opening; works should be on
//     site two working days before installation for condition reports.
//   - Art shipping: local van 2 days; domestic fine-art shuttle about 10
//     days; international crating, air freight and customs about 5 weeks.
//   - Custom framing takes 2–3 weeks at a framer (we plan 3), and works are
//     photographed for the archive and sales in the week before framing.
//   - Monthly art magazines have a ~3-month lead time for listings and
//     previews; local press and online listings want material about 4 weeks
//     out; printed invitations mail 3–4 weeks ahead, e-vites 2 weeks.
//   - Openings are usually Thursday to Saturday evenings; the run closes on
//     a Saturday and works are collected the next working week.
func init() {
	engine.Register(&engine.Workflow{
		ID:          "visual-art-exhibition",
		Name:        "Exhibition production schedule",
		Vertical:    "visual-art",
		PastDate:    engine.PastDate{Field: "opening_date", Policy: engine.PastReplan},
		Description: "Schedules a solo or group show backwards from opening night: studio cut-off, photography, framing, shipping, installation, press and invitations, with a check that the remaining works can be made in time. An opening the works cannot be made, framed and shipped for, or already past, is re-planned to the earliest opening on the same weekday.",
		Fields: []engine.Field{
			{Name: "opening_date", Kind: engine.Date, Required: true, Description: "Opening reception date."},
			{Name: "works_planned", Kind: engine.Integer, Required: true, Min: engine.Bound(1), Max: engine.Bound(200), Description: "Number of works in the show."},
			{Name: "works_finished", Kind: engine.Integer, Default: 0, Min: engine.Bound(0), Max: engine.Bound(200), Description: "Works already finished."},
			{Name: "weeks_per_work", Kind: engine.Number, Default: 2, Min: engine.Bound(0.1), Max: engine.Bound(52), Description: "Studio weeks you need per new work."},
			{Name: "shipping", Kind: engine.String, Enum: []string{"local", "domestic", "international"}, Default: "local", Description: "How far the works travel to the venue."},
			{Name: "framing", Kind: engine.Boolean, Default: true, Description: "Whether works go to a framer."},
			engine.RegionField(),
			{Name: "run_weeks", Kind: engine.Integer, Default: 4, Min: engine.Bound(1), Max: engine.Bound(26), Description: "Length of the show in weeks."},
		},
		ExampleContext: map[string]any{
			"opening_date":   "2027-04-15",
			"works_planned":  14,
			"works_finished": 6,
			"weeks_per_work": 1.5,
			"shipping":       "domestic",
			"framing":        true,
			"run_weeks":      5,
			"as_of":          "2026-11-20",
		},
		Sources: []engine.Source{
			{Title: "USCIB: ATA Carnet for temporary export of works", URL: "https://www.uscib.org/ata-carnet/", Checked: "2026-11"},
			{Title: "UK bank holidays (GOV.UK), for hand-over dates", URL: "https://www.gov.uk/bank-holidays", Checked: "2026-11"},
		},
		Steps: []engine.Step{
			{Name: "logistics", Run: vaExhibitionLogistics},
			{Name: "production", Run: vaExhibitionProduction},
			{Name: "press", Run: vaExhibitionPress},
			{Name: "recommend", Run: vaExhibitionRecommend},
		},
	})
}

var vaExhibitionTransitDays = map[string]int{"local": 2, "domestic": 10, "international": 35}

// vaExhibitionCutoff is the last studio day for a given opening: everything
// after it is documentation, framing, transport and installation.
func vaExhibitionCutoff(p *engine.Plan, opening time.Time, shipping string, framing bool) (cutoff, ship, deliver, install, frame time.Time) {
	install = p.Calendar().PrevWorkday(engine.AddDays(opening, -3))
	deliver = p.Calendar().AddWorkdays(install, -2)
	ship = p.Calendar().PrevWorkday(engine.AddDays(deliver, -vaExhibitionTransitDays[shipping]))
	last := ship
	if framing {
		frame = p.Calendar().PrevWorkday(engine.AddDays(ship, -21))
		last = frame
	}
	cutoff = p.Calendar().PrevWorkday(engine.AddDays(last, -7))
	return
}

// vaExhibitionFirstStep is the first task for an opening: the latest start
// of the works still to make, or the studio cut-off when all are made.
func vaExhibitionFirstStep(in *engine.Input, p *engine.Plan, opening time.Time) time.Time {
	cutoff, _, _, _, _ := vaExhibitionCutoff(p, opening, in.Str("shipping"), in.Bool("framing"))
	remaining := max(in.Int("works_planned")-in.Int("works_finished"), 0)
	return engine.AddDays(cutoff, -studioCeil(float64(remaining)*in.Float("weeks_per_work")*7))
}

// vaExhibitionLogistics plans the show on the requested opening when the
// works can still be made, framed and shipped for it, and otherwise on the
// earliest opening on the same weekday that leaves the time.
func vaExhibitionLogistics(in *engine.Input, p *engine.Plan) error {
	requested, asOf := in.Date("opening_date"), p.AsOf()
	opening := requested
	if first := vaExhibitionFirstStep(in, p, opening); first.Before(asOf) {
		opening = engine.AddWeeks(opening, (engine.DaysBetween(first, asOf)+6)/7)
		for vaExhibitionFirstStep(in, p, opening).Before(asOf) {
			opening = engine.AddWeeks(opening, 1)
		}
		remaining := max(in.Int("works_planned")-in.Int("works_finished"), 0)
		why := fmt.Sprintf("Making %s and framing, documenting and shipping them for an opening on %s would have had to start %s, before the plan date.",
			engine.Plural(remaining, "work", "works"), engine.FormatDate(requested), engine.FormatDate(first))
		if requested.Before(asOf) {
			why = fmt.Sprintf("The opening date %s is before the plan date %s.", engine.FormatDate(requested), engine.FormatDate(asOf))
			p.Warn("OPENING_PASSED", "%s", why)
		}
		p.Replanned(requested, opening, why)
		p.Set("earliest_feasible_opening_date", engine.FormatDate(opening))
	}
	p.Set("opening_date", engine.FormatDate(opening))
	p.SetTarget(opening)
	r := in.Region()
	cutoff, ship, deliver, install, frame := vaExhibitionCutoff(p, opening, in.Str("shipping"), in.Bool("framing"))
	closing := engine.OnOrBefore(engine.AddWeeks(opening, in.Int("run_weeks")), time.Saturday)
	pickup := p.Calendar().NextWorkday(engine.AddDays(closing, 2))
	schedule := map[string]any{
		"studio_cutoff": p.Ref("studio-cutoff"),
		"ship":          p.Ref("ship"),
		"delivery":      p.Ref("delivery"),
		"install":       p.Ref("install"),
		"opening":       p.Ref("opening"),
		"closing":       p.Ref("closing"),
		"pickup":        p.Ref("pickup"),
	}
	p.Deliverable("studio-cutoff", "Studio cut-off: last day to finish works", cutoff, r)
	p.Deliverable("documentation", "Works photographed, titled, measured and priced", engine.AddDays(cutoff, 3), r)
	if in.Bool("framing") {
		schedule["framing"] = p.Ref("framing")
		p.Deliverable("framing", "Works to the framer (3 weeks)", frame, r)
	}
	p.Deliverable("ship", fmt.Sprintf("Works shipped (%s, %s in transit)", in.Str("shipping"), engine.Plural(vaExhibitionTransitDays[in.Str("shipping")], "day", "days")), ship, r)
	p.Deliverable("delivery", "Works at the venue; condition reports signed", deliver, r)
	p.Work("install", "Installation and lighting begin", install)
	p.Event("opening", "Opening reception", opening, "the opening the gallery set")
	p.Event("closing", "Show closes", closing, "the show's last day")
	p.Handover(engine.KindAction, "pickup", "Deinstall and collect unsold works", pickup)
	p.DependsOn("framing", "studio-cutoff")
	p.DependsOn("ship", "studio-cutoff", "documentation", "framing")
	p.DependsOn("delivery", "ship")
	p.DependsOn("install", "delivery")
	p.DependsOn("opening", "install")
	p.Set("schedule", schedule)
	p.Set("studio_cutoff", p.Ref("studio-cutoff"))
	return nil
}

func vaExhibitionProduction(in *engine.Input, p *engine.Plan) error {
	opening := p.GetDate("opening_date")
	cutoff := p.GetDate("studio_cutoff")
	planned, finished := in.Int("works_planned"), in.Int("works_finished")
	perWork := in.Float("weeks_per_work")
	remaining := max(planned-finished, 0)
	weeksNeeded := engine.Round(float64(remaining)*perWork, 1)
	weeksLeft := engine.Round(float64(engine.DaysBetween(p.AsOf(), cutoff))/7, 1)
	maxWorks := finished
	if weeksLeft > 0 {
		maxWorks += int(math.Floor(engine.Round(weeksLeft/perWork, 6)))
	}
	maxWorks = min(maxWorks, max(planned, finished))
	start := engine.AddDays(cutoff, -studioCeil(weeksNeeded*7))
	latest := p.Ref("studio-cutoff")
	if remaining > 0 {
		latest = p.Ref("production-start")
	}
	p.Set("production", map[string]any{
		"works_remaining":     remaining,
		"studio_weeks_needed": weeksNeeded,
		"studio_weeks_left":   weeksLeft,
		"max_works_by_cutoff": maxWorks,
		"latest_start":        latest,
	})
	if remaining > 0 {
		p.Work("production-start", fmt.Sprintf("Start the last %s (latest start)", engine.Plural(remaining, "work", "works")), engine.Later(p.AsOf(), start))
	}
	if _, _, ok := p.IsReplanned(); ok && remaining > 0 {
		requested := in.Date("opening_date")
		reqCutoff, _, _, _, _ := vaExhibitionCutoff(p, requested, in.Str("shipping"), in.Bool("framing"))
		fit := finished
		if left := float64(engine.DaysBetween(p.AsOf(), reqCutoff)) / 7; left > 0 {
			fit += int(math.Floor(engine.Round(left/perWork, 6)))
		}
		p.Warn("PRODUCTION_BEHIND", "%s still to make at %s each need %s; by the %s cut-off for the requested opening you could show %s. The plan opens %s with all %d.",
			engine.Plural(remaining, "work", "works"), amountOf(perWork, "week", "weeks"), amountOf(weeksNeeded, "studio week", "studio weeks"), engine.FormatDate(reqCutoff),
			engine.Plural(min(fit, planned), "work", "works"), engine.FormatDate(opening), planned)
	}
	return nil
}

func vaExhibitionPress(in *engine.Input, p *engine.Plan) error {
	opening := p.GetDate("opening_date")
	longLead := p.Calendar().PrevWorkday(engine.AddWeeks(opening, -12))
	local := p.Calendar().PrevWorkday(engine.AddWeeks(opening, -4))
	p.Set("press_deadlines", map[string]any{
		"local":   p.Ref("local-press"),
		"invites": p.Ref("local-press"),
		"evites":  p.Ref("evites"),
	})
	if longLead.Before(p.AsOf()) {
		p.Get("press_deadlines").(map[string]any)["long_lead"] = p.Label("monthly magazines' closing date, missed", longLead)
		p.Warn("LONG_LEAD_PRESS_MISSED", "Monthly art magazines close about 3 months ahead (%s); with %s to the opening, pitch online listings and local press by %s instead.",
			engine.FormatDate(longLead), engine.Plural(engine.DaysBetween(p.AsOf(), opening), "day", "days"), engine.FormatDate(engine.Later(p.AsOf(), local)))
	} else {
		p.Handover(engine.KindDeliverable, "long-lead-press", "Press release and 3 key images to monthly art magazines", longLead)
		p.Get("press_deadlines").(map[string]any)["long_lead"] = p.Ref("long-lead-press")
	}
	p.Handover(engine.KindDeliverable, "local-press", "Press release to local media and listings; printed invitations mailed", engine.Later(p.AsOf(), local))
	p.Handover(engine.KindAnnounce, "evites", "E-vites sent (reminder 2 days before)", engine.Later(p.AsOf(), p.Calendar().PrevWorkday(engine.AddWeeks(opening, -2))))
	return nil
}

func vaExhibitionRecommend(in *engine.Input, p *engine.Plan) error {
	opening := p.GetDate("opening_date")
	prod := p.Get("production").(map[string]any)
	p.RecommendOn(engine.High, "studio-cutoff", "Protect the studio cut-off",
		fmt.Sprintf("Finish the %s by %s; anything later misses documentation, framing and shipping.", engine.Plural(prod["works_remaining"].(int), "remaining work", "remaining works"), p.Ref("studio-cutoff")))
	if in.Bool("framing") {
		p.RecommendOn(engine.Medium, "studio-cutoff", "Book the framer now",
			"Confirm mouldings, glazing and a 3-week slot with the framer before the cut-off; spring and autumn show seasons fill framers' calendars.")
	}
	if in.Str("shipping") == "international" {
		p.Recommend(engine.High, "Arrange export paperwork", "Use a fine-art shipper for crates, customs broker and an ATA Carnet or temporary import so unsold works return duty-free.")
	}
	switch opening.Weekday() {
	case time.Thursday, time.Friday, time.Saturday:
	default:
		p.Recommend(engine.Medium, "Move the opening to Thursday–Saturday", fmt.Sprintf("%s openings draw fewer visitors; gallery openings usually run Thursday to Saturday evening.", opening.Weekday()))
	}
	p.Recommend(engine.Low, "Prepare a checklist and price list", "Give the gallery titles, dimensions, media, year, prices and image credits a week before installation.")
	p.Strategy("Open on %s %s with %s: finish the last %d by the studio cut-off %s, ship by %s and install from %s; %s %s needed and %g remain.",
		opening.Weekday(), p.Ref("opening"), engine.Plural(in.Int("works_planned"), "work", "works"), prod["works_remaining"], p.Ref("studio-cutoff"),
		p.Get("schedule").(map[string]any)["ship"], p.Get("schedule").(map[string]any)["install"], amountOf(prod["studio_weeks_needed"].(float64), "studio week", "studio weeks"),
		map[bool]string{true: "is", false: "are"}[prod["studio_weeks_needed"].(float64) == 1], max(prod["studio_weeks_left"].(float64), 0))
	return nil
}
