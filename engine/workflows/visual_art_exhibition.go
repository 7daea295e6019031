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
		Description: "Schedules a solo or group show backwards from opening night: studio cut-off, photography, framing, shipping, installation, press and invitations, with a check that the remaining works can be made in time.",
		Fields: []engine.Field{
			{Name: "opening_date", Kind: engine.Date, Required: true, Description: "Opening reception date."},
			{Name: "works_planned", Kind: engine.Integer, Required: true, Min: engine.Bound(1), Max: engine.Bound(200), Description: "Number of works in the show."},
			{Name: "works_finished", Kind: engine.Integer, Default: 0, Min: engine.Bound(0), Max: engine.Bound(200), Description: "Works already finished."},
			{Name: "weeks_per_work", Kind: engine.Number, Default: 2, Min: engine.Bound(0.1), Max: engine.Bound(52), Description: "Studio weeks you need per new work."},
			{Name: "shipping", Kind: engine.String, Enum: []string{"local", "domestic", "international"}, Default: "local", Description: "How far the works travel to the venue."},
			{Name: "framing", Kind: engine.Boolean, Default: true, Description: "Whether works go to a framer."},
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
func vaExhibitionCutoff(opening time.Time, shipping string, framing bool) (cutoff, ship, deliver, install, frame time.Time) {
	install = engine.PrevWorkday(engine.AddDays(opening, -3))
	deliver = engine.AddWorkdays(install, -2)
	ship = engine.PrevWorkday(engine.AddDays(deliver, -vaExhibitionTransitDays[shipping]))
	last := ship
	if framing {
		frame = engine.PrevWorkday(engine.AddDays(ship, -21))
		last = frame
	}
	cutoff = engine.PrevWorkday(engine.AddDays(last, -7))
	return
}

func vaExhibitionLogistics(in *engine.Input, p *engine.Plan) error {
	opening := in.Date("opening_date")
	if opening.Before(p.AsOf()) {
		p.Warn("OPENING_PASSED", "The opening date %s is before the plan date %s.", engine.FormatDate(opening), engine.FormatDate(p.AsOf()))
	}
	p.SetTarget(opening)
	cutoff, ship, deliver, install, frame := vaExhibitionCutoff(opening, in.Str("shipping"), in.Bool("framing"))
	closing := engine.OnOrBefore(engine.AddWeeks(opening, in.Int("run_weeks")), time.Saturday)
	pickup := engine.NextWorkday(engine.AddDays(closing, 2))
	schedule := map[string]any{
		"studio_cutoff": engine.FormatDate(cutoff),
		"ship":          engine.FormatDate(ship),
		"delivery":      engine.FormatDate(deliver),
		"install":       engine.FormatDate(install),
		"opening":       engine.FormatDate(opening),
		"closing":       engine.FormatDate(closing),
		"pickup":        engine.FormatDate(pickup),
	}
	p.Milestone("studio-cutoff", "Studio cut-off: last day to finish works", cutoff)
	p.Milestone("documentation", "Works photographed, titled, measured and priced", engine.AddDays(cutoff, 3))
	if in.Bool("framing") {
		schedule["framing"] = engine.FormatDate(frame)
		p.Milestone("framing", "Works to the framer (3 weeks)", frame)
	}
	p.Milestone("ship", fmt.Sprintf("Works shipped (%s, %d days in transit)", in.Str("shipping"), vaExhibitionTransitDays[in.Str("shipping")]), ship)
	p.Milestone("delivery", "Works at the venue; condition reports signed", deliver)
	p.Milestone("install", "Installation and lighting begin", install)
	p.Milestone("opening", "Opening reception", opening)
	p.Milestone("closing", "Show closes", closing)
	p.Milestone("pickup", "Deinstall and collect unsold works", pickup)
	p.Set("schedule", schedule)
	p.Set("studio_cutoff", engine.FormatDate(cutoff))
	return nil
}

func vaExhibitionProduction(in *engine.Input, p *engine.Plan) error {
	opening := in.Date("opening_date")
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
	p.Set("production", map[string]any{
		"works_remaining":     remaining,
		"studio_weeks_needed": weeksNeeded,
		"studio_weeks_left":   weeksLeft,
		"max_works_by_cutoff": maxWorks,
		"latest_start":        engine.FormatDate(start),
	})
	if remaining > 0 {
		p.Milestone("production-start", fmt.Sprintf("Start the last %d works (latest start)", remaining), engine.Later(p.AsOf(), start))
	}
	if start.Before(p.AsOf()) {
		lead := engine.DaysBetween(cutoff, opening)
		earliest := engine.OnOrAfter(engine.AddDays(p.AsOf(), studioCeil(weeksNeeded*7)+lead), time.Thursday)
		p.Warn("PRODUCTION_BEHIND", "%d works still to make at %g weeks each need %g studio weeks, but only %g remain before the %s cut-off. At this pace you can show %d works, or open on Thursday %s with all %d.",
			remaining, perWork, weeksNeeded, max(weeksLeft, 0), engine.FormatDate(cutoff), maxWorks, engine.FormatDate(earliest), planned)
		p.Set("earliest_feasible_opening_date", engine.FormatDate(earliest))
	}
	return nil
}

func vaExhibitionPress(in *engine.Input, p *engine.Plan) error {
	opening := in.Date("opening_date")
	longLead := engine.PrevWorkday(engine.AddWeeks(opening, -12))
	local := engine.PrevWorkday(engine.AddWeeks(opening, -4))
	p.Set("press_deadlines", map[string]any{
		"long_lead": engine.FormatDate(longLead),
		"local":     engine.FormatDate(local),
		"invites":   engine.FormatDate(local),
		"evites":    engine.FormatDate(engine.PrevWorkday(engine.AddWeeks(opening, -2))),
	})
	if longLead.Before(p.AsOf()) {
		p.Warn("LONG_LEAD_PRESS_MISSED", "Monthly art magazines close about 3 months ahead (%s); with %d days to the opening, pitch online listings and local press by %s instead.",
			engine.FormatDate(longLead), engine.DaysBetween(p.AsOf(), opening), engine.FormatDate(engine.Later(p.AsOf(), local)))
	} else {
		p.Milestone("long-lead-press", "Press release and 3 key images to monthly art magazines", longLead)
	}
	p.Milestone("local-press", "Press release to local media and listings; printed invitations mailed", engine.Later(p.AsOf(), local))
	p.Milestone("evites", "E-vites sent (reminder 2 days before)", engine.Later(p.AsOf(), engine.PrevWorkday(engine.AddWeeks(opening, -2))))
	return nil
}

func vaExhibitionRecommend(in *engine.Input, p *engine.Plan) error {
	opening := in.Date("opening_date")
	cutoff := p.GetDate("studio_cutoff")
	prod := p.Get("production").(map[string]any)
	p.RecommendBy(engine.High, cutoff, "Protect the studio cut-off",
		fmt.Sprintf("Finish the %d remaining works by %s; anything later misses documentation, framing and shipping.", prod["works_remaining"], engine.FormatDate(cutoff)))
	if in.Bool("framing") {
		p.RecommendBy(engine.Medium, engine.AddDays(cutoff, -14), "Book the framer now",
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
	p.Strategy("Open on %s %s with %d works: finish the last %d by the studio cut-off %s, ship by %s and install from %s; %g studio weeks are needed and %g remain.",
		opening.Weekday(), engine.FormatDate(opening), in.Int("works_planned"), prod["works_remaining"], engine.FormatDate(cutoff),
		p.Get("schedule").(map[string]any)["ship"], p.Get("schedule").(map[string]any)["install"], prod["studio_weeks_needed"], max(prod["studio_weeks_left"].(float64), 0))
	return nil
}
