package workflows

import (
	"fmt"
	"strings"
	"time"

	"github.com/creativeops/creativeops/engine"
)

// Episodic post-production and delivery schedule: when each episode wraps,
// locks and is finished, against the date the network or platform needs it.
// Rules used:
//   - Episodes shoot back to back on 5-day weeks; typical shoot days per
//     episode: 8 for a one-hour drama, 5 for a single-camera half hour, 5 for
//     a multi-camera half hour (rehearsals plus tape night).
//   - DGA Basic Agreement 2023, episodic creative rights: the director sees
//     the editor's assembly within 6 business days of the end of shooting
//     and then has 4 days for the director's cut of a one-hour episode, or
//     1 day plus 1 for changes on a half hour.
//   - Producer's and studio notes to lock: commonly 10 business days (one
//     hour) or 5 (half hour); finishing (VFX, colour, mix, QC): 15 business
//     days (one hour) or 10 (half hour).
//   - Broadcasters want the air master about two weeks before air;
//     streamers need deliverables about six weeks ahead for subtitles,
//     dubbing and QC.
func init() {
	engine.Register(&engine.Workflow{
		ID:          "television-episode-delivery",
		Name:        "Episode post and delivery schedule",
		Vertical:    "television",
		PastDate:    engine.PastDate{Field: "premiere_date", Policy: engine.PastReplan},
		Description: "Schedules shooting, DGA cut periods, lock and finishing for each episode of a season, compares each finished date with the platform's delivery date, and proposes the earliest premiere every episode can make. A premiere an episode cannot make, or whose deliveries are already past, is re-planned by whole weeks to the first premiere every episode makes.",
		Fields: []engine.Field{
			{Name: "production_start", Kind: engine.Date, Required: true, Description: "First shoot day of episode 1."},
			{Name: "episodes", Kind: engine.Integer, Required: true, Min: engine.Bound(1), Max: engine.Bound(26), Description: "Episodes in the season."},
			{Name: "format", Kind: engine.String, Enum: []string{"one_hour", "half_hour_single_cam", "half_hour_multi_cam"}, Default: "one_hour", Description: "Episode format."},
			{Name: "shoot_days_per_episode", Kind: engine.Integer, Min: engine.Bound(1), Max: engine.Bound(30), Description: "Shoot days per episode; defaults to 8 for one hour, 5 for half hours."},
			{Name: "premiere_date", Kind: engine.Date, Required: true, Description: "Air or launch date of episode 1."},
			{Name: "release_pattern", Kind: engine.String, Enum: []string{"weekly", "all_at_once"}, Default: "weekly", Description: "Weekly episodes or the whole season at once."},
			engine.RegionField(),
			{Name: "platform", Kind: engine.String, Enum: []string{"broadcast", "streaming"}, Default: "broadcast", Description: "Broadcast (air master 2 weeks out) or streaming (deliverables 6 weeks out)."},
		},
		ExampleContext: map[string]any{
			"production_start": "2027-01-07",
			"episodes":         8,
			"format":           "one_hour",
			"premiere_date":    "2027-05-21",
			"release_pattern":  "weekly",
			"platform":         "streaming",
			"as_of":            "2026-11-20",
		},
		Sources: []engine.Source{
			{Title: "DGA Basic Agreement: episodic creative rights (editor's assembly, director's cut)", URL: "https://www.dga.org/Contracts/Agreements.aspx", Checked: "2026-11"},
		},
		Steps: []engine.Step{
			{Name: "shoot", Run: tvDeliveryShoot},
			{Name: "post", Run: tvDeliveryPost},
			{Name: "recommend", Run: tvDeliveryRecommend},
		},
	})
}

type tvDeliveryFormat struct {
	shootDays, cutDays, notesDays, finishDays int
}

var tvDeliveryFormats = map[string]tvDeliveryFormat{
	"one_hour":             {8, 4, 10, 15},
	"half_hour_single_cam": {5, 2, 5, 10},
	"half_hour_multi_cam":  {5, 2, 5, 10},
}

const tvDeliveryAssemblyDays = 6

func tvDeliveryLead(in *engine.Input) int {
	if in.Str("platform") == "streaming" {
		return 42
	}
	return 14
}

func tvDeliveryShoot(in *engine.Input, p *engine.Plan) error {
	f := tvDeliveryFormats[in.Str("format")]
	days := f.shootDays
	if in.Has("shoot_days_per_episode") {
		days = in.Int("shoot_days_per_episode")
	}
	start := p.Calendar().NextWorkday(in.Date("production_start"))
	var wraps []string
	d := start
	for i := 0; i < in.Int("episodes"); i++ {
		last := p.Calendar().AddWorkdays(d, days-1)
		wraps = append(wraps, engine.FormatDate(last))
		d = p.Calendar().AddWorkdays(last, 1)
	}
	p.Set("shoot_days_per_episode", days)
	p.SetSchedule("episode_wraps", "the day each episode's shoot wraps", wraps)
	p.Work("production-start", "Production starts (episode 1)", start)
	last, _ := engine.ParseDate(wraps[len(wraps)-1])
	p.Handover(engine.KindDeliverable, "production-wrap", "Production wraps (last episode)", last)
	if start.Before(p.AsOf()) {
		p.Warn("PRODUCTION_UNDER_WAY", "Production started %s, before the plan date; the schedule assumes it has kept to %s an episode.", engine.FormatDate(start), engine.Plural(days, "shoot day", "shoot days"))
	}
	return nil
}

// tvDeliveryRows schedules post for every episode against a premiere date.
func tvDeliveryRows(in *engine.Input, p *engine.Plan, premiere time.Time) (rows []map[string]any, late []string, worst int, earliestDue time.Time) {
	f := tvDeliveryFormats[in.Str("format")]
	lead := tvDeliveryLead(in)
	for i, w := range p.Get("episode_wraps").([]string) {
		wrap, _ := engine.ParseDate(w)
		assembly := p.Calendar().AddWorkdays(wrap, tvDeliveryAssemblyDays)
		dirCut := p.Calendar().AddWorkdays(assembly, f.cutDays)
		lock := p.Calendar().AddWorkdays(dirCut, f.notesDays)
		finished := p.Calendar().AddWorkdays(lock, f.finishDays)
		air := premiere
		if in.Str("release_pattern") == "weekly" {
			air = engine.AddWeeks(premiere, i)
		}
		due := p.Calendar().PrevWorkday(engine.AddDays(air, -lead))
		if i == 0 || due.Before(earliestDue) {
			earliestDue = due
		}
		slack := engine.DaysBetween(finished, due)
		if slack < 0 {
			late = append(late, fmt.Sprintf("%d (%s late)", i+1, engine.Plural(-slack, "day", "days")))
			worst = max(worst, -slack)
		}
		rows = append(rows, map[string]any{
			"episode": i + 1, "wrap": w, "editors_assembly": engine.FormatDate(assembly), "directors_cut": engine.FormatDate(dirCut),
			"picture_lock": engine.FormatDate(lock), "finished": engine.FormatDate(finished), "air_date": engine.FormatDate(air),
			"delivery_due": engine.FormatDate(due), "slack_days": slack,
		})
	}
	return rows, late, worst, earliestDue
}

// tvDeliveryPost checks every episode's finishing date against its
// delivery date. When an episode would be late, or a delivery date has
// already passed, the plan moves the premiere by whole weeks (keeping the
// slot's weekday) to the first date every episode makes, and is built on it.
func tvDeliveryPost(in *engine.Input, p *engine.Plan) error {
	requested := in.Date("premiere_date")
	lead := tvDeliveryLead(in)
	premiere := requested
	rows, late, worst, earliestDue := tvDeliveryRows(in, p, premiere)
	if len(late) > 0 || earliestDue.Before(p.AsOf()) {
		for tries := 0; (worst > 0 || earliestDue.Before(p.AsOf())) && tries < 520; tries++ {
			premiere = engine.AddWeeks(premiere, max(1, (worst+6)/7))
			_, _, worst, earliestDue = tvDeliveryRows(in, p, premiere)
		}
		why := fmt.Sprintf("The earliest premiere on the same weekday that every episode makes is %s.", engine.FormatDate(premiere))
		if len(late) > 0 {
			why = fmt.Sprintf("Episodes %s finish after their %s delivery date (%d days before air). ", strings.Join(late, ", "), in.Str("platform"), lead) + why
			if len(late) == 1 {
				why = strings.Replace(why, "Episodes ", "Episode ", 1)
			}
			p.Warn("EPISODES_LATE", "%s", why)
		} else {
			why = fmt.Sprintf("Delivery for a premiere on %s would be due before the plan date %s. ", engine.FormatDate(requested), engine.FormatDate(p.AsOf())) + why
			p.Warn("DELIVERY_DATE_PASSED", "%s", why)
		}
		p.Replanned(requested, premiere, why)
		p.Set("earliest_feasible_premiere", engine.FormatDate(premiere))
		p.Set("late_episodes_at_requested_premiere", len(late))
		rows, late, _, _ = tvDeliveryRows(in, p, premiere)
	}
	p.SetTarget(premiere)
	p.Set("premiere_date", engine.FormatDate(premiere))
	p.SetSchedule("episodes", "each episode's post-production, delivery and air dates", rows)
	first, last := rows[0], rows[len(rows)-1]
	d := func(s any) time.Time { t, _ := engine.ParseDate(s.(string)); return t }
	r := in.Region()
	p.Handover(engine.KindDeliverable, "first-lock", "Episode 1 picture lock", d(first["picture_lock"]))
	p.Deliverable("first-delivery", "Episode 1 delivered", d(first["delivery_due"]), r)
	p.Event("premiere", "Premiere", premiere, "the network's premiere date")
	if len(rows) > 1 {
		p.Deliverable("final-delivery", fmt.Sprintf("Episode %d delivered", len(rows)), d(last["delivery_due"]), r)
		if d(last["air_date"]).After(premiere) {
			p.Event("finale", "Finale airs", d(last["air_date"]), "the network's air schedule")
		}
	}
	// The milestones are the settled dates: the rows name them.
	first["picture_lock"], first["delivery_due"] = p.Ref("first-lock"), p.Ref("first-delivery")
	if len(rows) > 1 {
		last["delivery_due"] = p.Ref("final-delivery")
		if !p.DateOf("finale").IsZero() {
			last["air_date"] = p.Ref("finale")
		}
	}
	p.DependsOn("first-delivery", "first-lock")
	p.DependsOn("premiere", "first-delivery")
	p.Set("late_episodes", len(late))
	// Production already under way: steps behind the plan date are reported.
	warnPassedSteps(p, "production-start")
	return nil
}

func tvDeliveryRecommend(in *engine.Input, p *engine.Plan) error {
	rows := p.Get("episodes").([]map[string]any)
	tightest := rows[0]
	for _, r := range rows {
		if r["slack_days"].(int) < tightest["slack_days"].(int) {
			tightest = r
		}
	}
	p.Recommend(engine.High, "Staff post to the tightest episode",
		fmt.Sprintf("Episode %d has the least slack (%s between finishing and delivery); plan editors, VFX and the mix stage around it, with a second editor if slack is under a week.", tightest["episode"].(int), engine.Plural(tightest["slack_days"].(int), "day", "days")))
	if in.Region() == engine.RegionUS {
		p.Recommend(engine.High, "Respect the DGA cut periods",
			"Schedule the editor's assembly within 6 business days of wrap and give each director the full director's cut period before producer notes; cutting behind the director breaches the Basic Agreement.")
	} else {
		// The DGA Basic Agreement binds US signatory productions only; the
		// schedule keeps its cut periods as practice, not as law.
		p.Recommend(engine.High, "Give each director a cut",
			fmt.Sprintf("The schedule gives the editor's assembly 6 working days after wrap and each director a cut before producer notes, as US practice (the DGA Basic Agreement) requires; in %s, check the director's contract and any guild or collective agreement the production signed for the periods that bind it.", in.Region().Name()))
	}
	p.RecommendOn(engine.Medium, "first-lock", "Confirm the delivery specification",
		"Get the network or platform's technical spec, QC requirements and deliverables list (captions, M&E, textless) before episode 1 locks.")
	if in.Str("release_pattern") == "all_at_once" {
		p.Recommend(engine.Medium, "Plan for a single drop", "Every episode is due on the same date, so the last episodes decide the premiere; stagger finishing vendors.")
	}
	p.Strategy("Shoot %s from %s at %s each; episode 1 locks %s and is due %s for a %s premiere on %s; %s late against the %d-day delivery lead.",
		engine.Plural(len(rows), strings.ReplaceAll(in.Str("format"), "_", " ")+" episode", strings.ReplaceAll(in.Str("format"), "_", " ")+" episodes"), p.Ref("production-start"),
		engine.Plural(p.Get("shoot_days_per_episode").(int), "shoot day", "shoot days"),
		rows[0]["picture_lock"], rows[0]["delivery_due"], in.Str("platform"), p.Get("premiere_date"), engine.Plural(p.Get("late_episodes").(int), "episode", "episodes"), tvDeliveryLead(in))
	return nil
}
