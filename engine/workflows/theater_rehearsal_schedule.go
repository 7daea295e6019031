package workflows

import (
	"fmt"
	"math"
	"time"

	"github.com/creativeops/creativeops/engine"
)

// Production calendar for a play or musical, scheduled backwards from
// opening night. Rules used (standard stage-management and production
// practice; union figures from Actors' Equity agreements):
//   - Rehearsal-room time before tech: with an Equity company, about 3 weeks
//     for a play and 4 for a musical, 6 days a week at 7 hours within a
//     span of 8½ (the common Equity rehearsal day); a non-union company
//     rehearsing 4 evenings of 3 hours needs about 6 weeks for a play and 8
//     for a musical.
//   - Tech and dress: 5 days for a play, 7 for a musical, after a load-in of
//     2 or 4 days. Previews run at the performance schedule before opening.
//   - Scenery is built in 4–6 weeks (6 planned), so final designs are due
//     six weeks before load-in, preliminary designs three weeks earlier, and
//     the design team starts four weeks before that.
//   - Casting: audition notice 3 weeks before auditions, auditions 6 weeks
//     and callbacks 5 weeks before first rehearsal, offers out by 3 weeks.
//   - A licensed title cannot be announced before the licence is granted;
//     licensors (Concord Theatricals, MTI and others) take 2–4 weeks, so the
//     application goes in 4 weeks before the audition notice.
func init() {
	engine.Register(&engine.Workflow{
		ID:          "theater-rehearsal-schedule",
		Name:        "Rehearsal and production calendar",
		Vertical:    "theater",
		Description: "Schedules rights, design deadlines, casting, rehearsals, load-in, tech, previews, opening and closing backwards from opening night for a play or musical with a union or non-union company, counts rehearsal days and hours, and proposes the earliest feasible opening when the calendar is already behind.",
		Fields: []engine.Field{
			{Name: "production_title", Kind: engine.String, Required: true, Min: engine.Bound(1), Max: engine.Bound(200), Description: "Title of the production."},
			{Name: "opening_date", Kind: engine.Date, Required: true, Description: "Opening night (press night)."},
			{Name: "production_type", Kind: engine.String, Enum: []string{"play", "musical"}, Default: "play", Description: "Play or musical."},
			{Name: "union", Kind: engine.Boolean, Default: false, Description: "Whether the company works under an Actors' Equity agreement."},
			{Name: "previews", Kind: engine.Integer, Default: 4, Min: engine.Bound(0), Max: engine.Bound(40), Description: "Preview performances before opening."},
			{Name: "performances_per_week", Kind: engine.Integer, Default: 8, Min: engine.Bound(1), Max: engine.Bound(8), Description: "Performances a week (8 is the commercial standard)."},
			{Name: "run_weeks", Kind: engine.Integer, Default: 3, Min: engine.Bound(1), Max: engine.Bound(52), Description: "Weeks from opening to closing."},
			{Name: "rights_secured", Kind: engine.Boolean, Default: true, Description: "Whether performance rights are licensed (or the author has agreed)."},
		},
		ExampleContext: map[string]any{
			"production_title":      "The Lighthouse Keepers",
			"opening_date":          "2027-04-16",
			"production_type":       "musical",
			"union":                 false,
			"previews":              3,
			"performances_per_week": 4,
			"run_weeks":             3,
			"rights_secured":        false,
			"as_of":                 "2026-11-20",
		},
		Steps: []engine.Step{
			{Name: "schedule", Run: theaterRehearsalSchedule},
			{Name: "check-feasibility", Run: theaterRehearsalFeasibility},
			{Name: "recommend", Run: theaterRehearsalRecommend},
		},
	})
}

type theaterCompany struct {
	roomWeeks, daysPerWeek int
	hoursPerDay            float64
}

func theaterCompanyFor(in *engine.Input) theaterCompany {
	musical := in.Str("production_type") == "musical"
	switch {
	case in.Bool("union") && musical:
		return theaterCompany{4, 6, 7}
	case in.Bool("union"):
		return theaterCompany{3, 6, 7}
	case musical:
		return theaterCompany{8, 4, 3}
	default:
		return theaterCompany{6, 4, 3}
	}
}

func theaterRehearsalSchedule(in *engine.Input, p *engine.Plan) error {
	opening := in.Date("opening_date")
	p.SetTarget(opening)
	musical := in.Str("production_type") == "musical"
	techDays, loadInDays := 5, 2
	if musical {
		techDays, loadInDays = 7, 4
	}
	c := theaterCompanyFor(in)
	perWeek := in.Int("performances_per_week")
	previewDays := int(math.Ceil(float64(in.Int("previews")) * 7 / float64(perWeek)))
	firstPreview := engine.AddDays(opening, -previewDays)
	techStart := engine.AddDays(firstPreview, -techDays)
	loadIn := engine.AddDays(techStart, -loadInDays)
	firstRehearsal := engine.OnOrBefore(engine.AddWeeks(techStart, -c.roomWeeks), time.Monday)
	finalDesigns := engine.PrevWorkday(engine.AddWeeks(loadIn, -6))
	prelimDesigns := engine.AddWeeks(finalDesigns, -3)
	designStart := engine.AddWeeks(prelimDesigns, -4)
	offers := engine.AddWeeks(firstRehearsal, -3)
	callbacks := engine.AddWeeks(firstRehearsal, -5)
	auditions := engine.OnOrBefore(engine.AddWeeks(firstRehearsal, -6), time.Saturday)
	notice := engine.AddWeeks(auditions, -3)
	closing := engine.AddDays(opening, 7*in.Int("run_weeks")-1)

	if !in.Bool("rights_secured") {
		p.Milestone("rights-application", "Performance rights applied for", engine.PrevWorkday(engine.AddWeeks(notice, -4)))
	}
	p.Milestone("design-start", "Design team engaged; first production meeting", designStart)
	p.Milestone("audition-notice", "Audition notice published", notice)
	p.Milestone("preliminary-designs", "Preliminary designs presented", prelimDesigns)
	p.Milestone("auditions", "Auditions", auditions)
	p.Milestone("callbacks", "Callbacks", callbacks)
	p.Milestone("offers", "Casting offers out", offers)
	p.Milestone("final-designs", "Final designs approved; shop build begins", finalDesigns)
	p.Milestone("first-rehearsal", "First rehearsal", firstRehearsal)
	p.Milestone("load-in", "Load-in", loadIn)
	p.Milestone("tech", "Technical rehearsals begin", techStart)
	if in.Int("previews") > 0 {
		p.Milestone("first-preview", "First preview", firstPreview)
	}
	p.Milestone("opening", "Opening night", opening)
	p.Milestone("closing", "Closing performance; strike follows", closing)

	roomDays := c.roomWeeks * c.daysPerWeek
	p.Set("schedule", map[string]any{
		"first_rehearsal": engine.FormatDate(firstRehearsal), "tech_start": engine.FormatDate(techStart),
		"first_preview": engine.FormatDate(firstPreview), "closing": engine.FormatDate(closing),
	})
	p.Set("rehearsal", map[string]any{
		"room_weeks": c.roomWeeks, "room_days": roomDays, "room_hours": float64(roomDays) * c.hoursPerDay,
		"tech_days": techDays, "load_in_days": loadInDays, "preview_days": previewDays,
	})
	p.Set("performances", in.Int("previews")+in.Int("run_weeks")*perWeek)
	return nil
}

func theaterRehearsalFeasibility(in *engine.Input, p *engine.Plan) error {
	asOf := p.AsOf()
	ms := p.Milestones()
	first := ms[0]
	if !first.Date.Before(asOf) {
		p.Set("slack_days", engine.DaysBetween(asOf, first.Date))
		if !in.Bool("rights_secured") {
			p.Warn("RIGHTS_NOT_SECURED", "The title cannot be announced or auditioned until the licence is granted; apply by %s.", engine.FormatDate(first.Date))
		}
		return nil
	}
	behind := engine.DaysBetween(first.Date, asOf)
	// Keep opening on the same weekday: shift by whole weeks.
	shift := 7 * int(math.Ceil(float64(behind)/7))
	alt := engine.AddDays(in.Date("opening_date"), shift)
	p.Set("earliest_feasible_opening_date", engine.FormatDate(alt))
	p.Warn("SCHEDULE_BEHIND", "%s was due %s, %d days before the plan date; keeping every lead time moves opening to %s.",
		first.Title, engine.FormatDate(first.Date), behind, engine.FormatDate(alt))
	if !in.Bool("rights_secured") {
		p.Warn("RIGHTS_NOT_SECURED", "The licence application is late: licensors take 2–4 weeks and the title cannot be announced before the grant.")
	}
	for _, m := range ms[1:] {
		if m.Date.Before(asOf) {
			p.Warn("MILESTONE_PASSED", "%s was due %s, before the plan date.", m.Title, engine.FormatDate(m.Date))
		}
	}
	return nil
}

func theaterRehearsalRecommend(in *engine.Input, p *engine.Plan) error {
	reh := p.Get("rehearsal").(map[string]any)
	sched := p.Get("schedule").(map[string]any)
	ms := p.Milestones()
	p.RecommendBy(engine.High, engine.Later(p.AsOf(), ms[0].Date), "Start the first task on time",
		fmt.Sprintf("%s by %s starts a chain in which every later date depends on the one before.", ms[0].Title, engine.FormatDate(ms[0].Date)))
	p.Recommend(engine.Medium, "Publish the rehearsal calendar with the audition notice",
		fmt.Sprintf("Actors accept around conflicts they can see: list all %d rehearsal days (%v hours) plus tech from %s.", reh["room_days"], reh["room_hours"], sched["tech_start"]))
	p.Recommend(engine.Medium, "Protect the final-design date", "Late design changes eat the shop's build weeks and arrive as overtime at load-in.")
	p.Recommend(engine.Low, "Plan the strike", "Book crew and skips for the day after closing; returns of rented scenery and costumes are usually due within days.")
	behind := ""
	if alt, ok := p.Get("earliest_feasible_opening_date").(string); ok {
		behind = "; the calendar is already behind, and the earliest opening that keeps every lead time is " + alt
	}
	p.Strategy("%s opens %s: %s company rehearses %d days from %s, techs from %s, %d previews from %s, and closes %s after %d performances%s.",
		in.Str("production_title"), engine.FormatDate(in.Date("opening_date")), map[bool]string{true: "an Equity", false: "a non-union"}[in.Bool("union")],
		reh["room_days"], sched["first_rehearsal"], sched["tech_start"], in.Int("previews"), sched["first_preview"], sched["closing"], p.Get("performances"), behind)
	return nil
}
