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
		PastDate:    engine.PastDate{Field: "opening_date", Policy: engine.PastReplan},
		Description: "Schedules rights, design deadlines, casting, rehearsals, load-in, tech, previews, opening and closing backwards from opening night for a play or musical with a union or non-union company, counts rehearsal days and hours, and proposes the earliest feasible opening when the calendar is already behind. A calendar already behind is re-planned by whole weeks to the first opening that keeps every lead time.",
		Fields: []engine.Field{
			{Name: "production_title", Kind: engine.String, Required: true, Min: engine.Bound(1), Max: engine.Bound(200), Description: "Title of the production."},
			{Name: "opening_date", Kind: engine.Date, Required: true, Description: "Opening night (press night)."},
			{Name: "production_type", Kind: engine.String, Enum: []string{"play", "musical"}, Default: "play", Description: "Play or musical."},
			{Name: "union", Kind: engine.Boolean, Default: false, Description: "Whether the company works under an Actors' Equity agreement."},
			{Name: "previews", Kind: engine.Integer, Default: 4, Min: engine.Bound(0), Max: engine.Bound(40), Description: "Preview performances before opening."},
			{Name: "performances_per_week", Kind: engine.Integer, Default: 8, Min: engine.Bound(1), Max: engine.Bound(8), Description: "Performances a week (8 is the commercial standard)."},
			{Name: "run_weeks", Kind: engine.Integer, Default: 3, Min: engine.Bound(1), Max: engine.Bound(52), Description: "Weeks from opening to closing."},
			engine.RegionField(),
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
		Sources: []engine.Source{
			{Title: "Actors' Equity: agreements and rulebooks (rehearsal weeks and hours)", URL: "https://www.actorsequity.org/resources/contracts/", Checked: "2026-11"},
			{Title: "Concord Theatricals: licensing a show", URL: "https://www.concordtheatricals.com/", Checked: "2026-11"},
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

type theaterChain struct {
	rights, designStart, notice, prelimDesigns, auditions, callbacks, offers, finalDesigns time.Time
	firstRehearsal, loadIn, techStart, firstPreview, closing                               time.Time
	techDays, loadInDays, previewDays                                                      int
}

// theaterChainFor schedules the production backwards from opening night.
func theaterChainFor(in *engine.Input, opening time.Time, r engine.Region) theaterChain {
	var ch theaterChain
	musical := in.Str("production_type") == "musical"
	ch.techDays, ch.loadInDays = 5, 2
	if musical {
		ch.techDays, ch.loadInDays = 7, 4
	}
	c := theaterCompanyFor(in)
	ch.previewDays = int(math.Ceil(float64(in.Int("previews")) * 7 / float64(in.Int("performances_per_week"))))
	ch.firstPreview = engine.AddDays(opening, -ch.previewDays)
	ch.techStart = engine.AddDays(ch.firstPreview, -ch.techDays)
	ch.loadIn = engine.AddDays(ch.techStart, -ch.loadInDays)
	ch.firstRehearsal = engine.OnOrBefore(engine.AddWeeks(ch.techStart, -c.roomWeeks), time.Monday)
	ch.finalDesigns = (engine.Calendar{Region: r}).PrevWorkday(engine.AddWeeks(ch.loadIn, -6))
	ch.prelimDesigns = (engine.Calendar{Region: r}).PrevWorkday(engine.AddWeeks(ch.finalDesigns, -3))
	ch.designStart = engine.AddWeeks(ch.prelimDesigns, -4)
	ch.offers = engine.AddWeeks(ch.firstRehearsal, -3)
	ch.callbacks = engine.AddWeeks(ch.firstRehearsal, -5)
	ch.auditions = engine.OnOrBefore(engine.AddWeeks(ch.firstRehearsal, -6), time.Saturday)
	ch.notice = engine.AddWeeks(ch.auditions, -3)
	ch.rights = (engine.Calendar{Region: r}).PrevWorkday(engine.AddWeeks(ch.notice, -4))
	ch.closing = engine.AddDays(opening, 7*in.Int("run_weeks")-1)
	return ch
}

// first is the chain's first task: the rights application when the title
// is not yet licensed, else the earlier of design start and audition notice.
func (ch theaterChain) first(rightsSecured bool) time.Time {
	d := engine.Earlier(ch.designStart, ch.notice)
	if !rightsSecured {
		d = engine.Earlier(d, ch.rights)
	}
	return d
}

// theaterRehearsalSchedule builds the calendar on the requested opening
// when its first task is still ahead; otherwise opening moves by whole
// weeks (keeping its weekday) to the first date that keeps every lead time,
// and the calendar is built on that.
func theaterRehearsalSchedule(in *engine.Input, p *engine.Plan) error {
	requested, asOf, r := in.Date("opening_date"), p.AsOf(), in.Region()
	opening := requested
	ch := theaterChainFor(in, opening, r)
	if first := ch.first(in.Bool("rights_secured")); first.Before(asOf) {
		behind := engine.DaysBetween(first, asOf)
		opening = engine.AddWeeks(requested, (behind+6)/7)
		for theaterChainFor(in, opening, r).first(in.Bool("rights_secured")).Before(asOf) {
			opening = engine.AddWeeks(opening, 1)
		}
		why := fmt.Sprintf("The first task was due %s, %s before the plan date; keeping every lead time moves opening to %s.",
			engine.FormatDate(first), engine.Plural(behind, "day", "days"), engine.FormatDate(opening))
		p.Warn("SCHEDULE_BEHIND", "%s", why)
		p.Replanned(requested, opening, why)
		p.Set("earliest_feasible_opening_date", engine.FormatDate(opening))
		ch = theaterChainFor(in, opening, r)
	}
	p.SetTarget(opening)
	p.Set("opening_date", engine.FormatDate(opening))
	if !in.Bool("rights_secured") {
		p.Deliverable("rights-application", "Performance rights applied for", ch.rights, r)
	}
	p.Handover(engine.KindAction, "design-start", "Design team engaged; first production meeting", ch.designStart)
	p.Handover(engine.KindAnnounce, "audition-notice", "Audition notice published", ch.notice)
	p.Deliverable("preliminary-designs", "Preliminary designs presented", ch.prelimDesigns, r)
	p.Event("auditions", "Auditions", ch.auditions, "the audition days booked")
	p.Event("callbacks", "Callbacks", ch.callbacks, "the callback day booked")
	p.Handover(engine.KindAction, "offers", "Casting offers out", ch.offers)
	p.Deliverable("final-designs", "Final designs approved; shop build begins", ch.finalDesigns, r)
	p.Work("first-rehearsal", "First rehearsal", ch.firstRehearsal)
	p.Work("load-in", "Load-in", ch.loadIn)
	p.Work("tech", "Technical rehearsals begin", ch.techStart)
	if in.Int("previews") > 0 {
		p.Event("first-preview", "First preview", ch.firstPreview, "the first public performance")
	}
	p.Event("opening", "Opening night", opening, "opening night")
	p.Event("closing", "Closing performance; strike follows", ch.closing, "the last performance")
	p.DependsOn("audition-notice", "rights-application")
	p.DependsOn("auditions", "audition-notice")
	p.DependsOn("callbacks", "auditions")
	p.DependsOn("offers", "callbacks")
	p.DependsOn("final-designs", "preliminary-designs")
	p.DependsOn("first-rehearsal", "offers")
	p.DependsOn("load-in", "final-designs")
	p.DependsOn("tech", "load-in", "first-rehearsal")
	p.DependsOn("opening", "tech", "first-preview")

	c := theaterCompanyFor(in)
	roomDays := c.roomWeeks * c.daysPerWeek
	p.Set("schedule", map[string]any{
		"first_rehearsal": engine.FormatDate(ch.firstRehearsal), "tech_start": engine.FormatDate(ch.techStart),
		"first_preview": engine.FormatDate(ch.firstPreview), "closing": engine.FormatDate(ch.closing),
	})
	p.Set("rehearsal", map[string]any{
		"room_weeks": c.roomWeeks, "room_days": roomDays, "room_hours": float64(roomDays) * c.hoursPerDay,
		"tech_days": ch.techDays, "load_in_days": ch.loadInDays, "preview_days": ch.previewDays,
	})
	p.Set("performances", in.Int("previews")+in.Int("run_weeks")*in.Int("performances_per_week"))
	return nil
}

func theaterRehearsalFeasibility(in *engine.Input, p *engine.Plan) error {
	ms := p.Milestones()
	p.Set("slack_days", engine.DaysBetween(p.AsOf(), ms[0].Date))
	if !in.Bool("rights_secured") {
		p.Warn("RIGHTS_NOT_SECURED", "The title cannot be announced or auditioned until the licence is granted (licensors take 2–4 weeks); apply by %s.", engine.FormatDate(ms[0].Date))
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
		fmt.Sprintf("Actors accept around conflicts they can see: list all %s (%s) plus tech from %s.", engine.Plural(reh["room_days"].(int), "rehearsal day", "rehearsal days"), amountOf(reh["room_hours"].(float64), "hour", "hours"), sched["tech_start"]))
	p.Recommend(engine.Medium, "Protect the final-design date", "Late design changes eat the shop's build weeks and arrive as overtime at load-in.")
	p.Recommend(engine.Low, "Plan the strike", "Book crew and skips for the day after closing; returns of rented scenery and costumes are usually due within days.")
	behind := ""
	if alt, ok := p.Get("earliest_feasible_opening_date").(string); ok {
		behind = "; the requested opening " + engine.FormatDate(in.Date("opening_date")) + " was already behind, and " + alt + " is the earliest that keeps every lead time"
	}
	previews := "no previews"
	if in.Int("previews") > 0 {
		previews = fmt.Sprintf("%s from %s", engine.Plural(in.Int("previews"), "preview", "previews"), sched["first_preview"])
	}
	p.Strategy("%s opens %s: %s company rehearses %s from %s, techs from %s, %s, and closes %s after %s%s.",
		in.Str("production_title"), p.Get("opening_date"), map[bool]string{true: "an Equity", false: "a non-union"}[in.Bool("union")],
		engine.Plural(reh["room_days"].(int), "day", "days"), sched["first_rehearsal"], sched["tech_start"], previews, sched["closing"], engine.Plural(p.Get("performances").(int), "performance", "performances"), behind)
	return nil
}
