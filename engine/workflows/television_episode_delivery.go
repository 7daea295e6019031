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
		Description: "Schedules shooting, DGA cut periods, lock and finishing for each episode of a season, compares each finished date with the platform's delivery date, and proposes the earliest premiere every episode can make.",
		Fields: []engine.Field{
			{Name: "production_start", Kind: engine.Date, Required: true, Description: "First shoot day of episode 1."},
			{Name: "episodes", Kind: engine.Integer, Required: true, Min: engine.Bound(1), Max: engine.Bound(26), Description: "Episodes in the season."},
			{Name: "format", Kind: engine.String, Enum: []string{"one_hour", "half_hour_single_cam", "half_hour_multi_cam"}, Default: "one_hour", Description: "Episode format."},
			{Name: "shoot_days_per_episode", Kind: engine.Integer, Min: engine.Bound(1), Max: engine.Bound(30), Description: "Shoot days per episode; defaults to 8 for one hour, 5 for half hours."},
			{Name: "premiere_date", Kind: engine.Date, Required: true, Description: "Air or launch date of episode 1."},
			{Name: "release_pattern", Kind: engine.String, Enum: []string{"weekly", "all_at_once"}, Default: "weekly", Description: "Weekly episodes or the whole season at once."},
			{Name: "platform", Kind: engine.String, Enum: []string{"broadcast", "streaming"}, Default: "broadcast", Description: "Broadcast (air master 2 weeks out) or streaming (deliverables 6 weeks out)."},
		},
		ExampleContext: map[string]any{
			"production_start": "2027-01-11",
			"episodes":         8,
			"format":           "one_hour",
			"premiere_date":    "2027-05-21",
			"release_pattern":  "weekly",
			"platform":         "streaming",
			"as_of":            "2026-11-20",
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
	start := engine.NextWorkday(in.Date("production_start"))
	var wraps []string
	d := start
	for i := 0; i < in.Int("episodes"); i++ {
		last := engine.AddWorkdays(d, days-1)
		wraps = append(wraps, engine.FormatDate(last))
		d = engine.AddWorkdays(last, 1)
	}
	p.Set("shoot_days_per_episode", days)
	p.Set("episode_wraps", wraps)
	p.Milestone("production-start", "Production starts (episode 1)", start)
	last, _ := engine.ParseDate(wraps[len(wraps)-1])
	p.Milestone("production-wrap", "Production wraps (last episode)", last)
	if start.Before(p.AsOf()) {
		p.Warn("PRODUCTION_UNDER_WAY", "Production started %s, before the plan date; the schedule assumes it has kept to %d shoot days an episode.", engine.FormatDate(start), days)
	}
	return nil
}

func tvDeliveryPost(in *engine.Input, p *engine.Plan) error {
	f := tvDeliveryFormats[in.Str("format")]
	premiere := in.Date("premiere_date")
	p.SetTarget(premiere)
	lead := tvDeliveryLead(in)
	var rows []map[string]any
	var late []string
	worst := 0
	for i, w := range p.Get("episode_wraps").([]string) {
		wrap, _ := engine.ParseDate(w)
		assembly := engine.AddWorkdays(wrap, tvDeliveryAssemblyDays)
		dirCut := engine.AddWorkdays(assembly, f.cutDays)
		lock := engine.AddWorkdays(dirCut, f.notesDays)
		finished := engine.AddWorkdays(lock, f.finishDays)
		air := premiere
		if in.Str("release_pattern") == "weekly" {
			air = engine.AddWeeks(premiere, i)
		}
		due := engine.PrevWorkday(engine.AddDays(air, -lead))
		slack := engine.DaysBetween(finished, due)
		if slack < 0 {
			late = append(late, fmt.Sprintf("%d (%d days late)", i+1, -slack))
			worst = max(worst, -slack)
		}
		rows = append(rows, map[string]any{
			"episode": i + 1, "wrap": w, "editors_assembly": engine.FormatDate(assembly), "directors_cut": engine.FormatDate(dirCut),
			"picture_lock": engine.FormatDate(lock), "finished": engine.FormatDate(finished), "air_date": engine.FormatDate(air),
			"delivery_due": engine.FormatDate(due), "slack_days": slack,
		})
	}
	p.Set("episodes", rows)
	first, last := rows[0], rows[len(rows)-1]
	d := func(s any) time.Time { t, _ := engine.ParseDate(s.(string)); return t }
	p.Milestone("first-lock", "Episode 1 picture lock", d(first["picture_lock"]))
	p.Milestone("first-delivery", "Episode 1 delivered", d(first["delivery_due"]))
	p.Milestone("premiere", "Premiere", premiere)
	if len(rows) > 1 {
		p.Milestone("final-delivery", fmt.Sprintf("Episode %d delivered", len(rows)), d(last["delivery_due"]))
		if d(last["air_date"]).After(premiere) {
			p.Milestone("finale", "Finale airs", d(last["air_date"]))
		}
	}
	if len(late) > 0 {
		// Moving the premiere by whole weeks keeps the slot's weekday.
		earliest := engine.AddWeeks(premiere, (worst+6)/7)
		p.Warn("EPISODES_LATE", "Episode(s) %s finish after their %s delivery date (%d days before air). The earliest premiere on the same weekday that every episode makes is %s.",
			strings.Join(late, ", "), in.Str("platform"), lead, engine.FormatDate(earliest))
		p.Set("earliest_feasible_premiere", engine.FormatDate(earliest))
	}
	p.Set("late_episodes", len(late))
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
		fmt.Sprintf("Episode %d has the least slack (%d days between finishing and delivery); plan editors, VFX and the mix stage around it, with a second editor if slack is under a week.", tightest["episode"].(int), tightest["slack_days"].(int)))
	p.Recommend(engine.High, "Respect the DGA cut periods",
		"Schedule the editor's assembly within 6 business days of wrap and give each director the full director's cut period before producer notes; cutting behind the director breaches the Basic Agreement.")
	lock, _ := engine.ParseDate(rows[0]["picture_lock"].(string))
	p.RecommendBy(engine.Medium, engine.Later(p.AsOf(), engine.PrevWorkday(engine.AddDays(lock, -7))), "Confirm the delivery specification",
		"Get the network or platform's technical spec, QC requirements and deliverables list (captions, M&E, textless) before episode 1 locks.")
	if in.Str("release_pattern") == "all_at_once" {
		p.Recommend(engine.Medium, "Plan for a single drop", "Every episode is due on the same date, so the last episodes decide the premiere; stagger finishing vendors.")
	}
	p.Strategy("Shoot %d %s episode(s) from %s at %d days each; episode 1 locks %s and is due %s for a %s premiere on %s; %d episode(s) late against the %d-day delivery lead.",
		len(rows), strings.ReplaceAll(in.Str("format"), "_", " "), engine.FormatDate(in.Date("production_start")), p.Get("shoot_days_per_episode").(int),
		rows[0]["picture_lock"], rows[0]["delivery_due"], in.Str("platform"), engine.FormatDate(in.Date("premiere_date")), p.Get("late_episodes").(int), tvDeliveryLead(in))
	return nil
}
