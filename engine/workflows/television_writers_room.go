package workflows

import (
	"fmt"
	"math"
	"strings"
	"time"

	"github.com/creativeops/creativeops/engine"
)

// Writers' room staffing, length and cost for a US series under the WGA
// Minimum Basic Agreement. Rules used:
//   - 2023 MBA minimum staffing: development rooms at least 3 writers;
//     post-greenlight rooms at least 3 writers for up to 6 episodes, 5 for
//     7–12 and 6 for 13 or more, unless one writer writes every episode.
//     Development-room writers are guaranteed at least 10 consecutive weeks
//     (at a 25% weekly premium, reflected in the average rate given).
//   - Weekly minimums rise each year of the MBA (staff writers roughly
//     $5,000–5,500 a week in 2025–26; writer-producers get a 9.5% premium
//     over the story-editor rate), so the average weekly rate is an input.
//   - Employer pension and health contributions: health 12% (2023 MBA) plus
//     pension ≈9%, taken as 21% of gross, a conservative figure.
//   - Planning norm for a room: 2 weeks to break the season, then about 1
//     week per half-hour script or 1.5 weeks per one-hour script (outline,
//     draft, room pass), the pace most showrunners budget for.
func init() {
	engine.Register(&engine.Workflow{
		ID:          "television-writers-room",
		Name:        "Writers' room staffing and budget",
		Vertical:    "television",
		PastDate:    engine.PastDate{Field: "scripts_due", Policy: engine.PastReplan},
		Description: "Checks a writers' room against the WGA 2023 MBA minimum staffing, computes the weeks the scripts need against the weeks available, and budgets weekly pay with pension and health. Scripts due before the room can write them, or already overdue, are re-planned to the earliest delivery date; the room is paid to the date it delivers.",
		Fields: []engine.Field{
			{Name: "episodes", Kind: engine.Integer, Required: true, Min: engine.Bound(1), Max: engine.Bound(26), Description: "Episodes ordered (or to be developed)."},
			{Name: "room_type", Kind: engine.String, Enum: []string{"development", "post_greenlight"}, Default: "post_greenlight", Description: "Development (pre-greenlight) room or post-greenlight room."},
			{Name: "episode_length", Kind: engine.String, Enum: []string{"half_hour", "one_hour"}, Default: "one_hour", Description: "Episode length."},
			{Name: "room_start", Kind: engine.Date, Required: true, Description: "First day of the room."},
			{Name: "scripts_due", Kind: engine.Date, Required: true, Description: "Date every script must be delivered (start of prep)."},
			{Name: "writers", Kind: engine.Integer, Required: true, Min: engine.Bound(1), Max: engine.Bound(30), Description: "Writers in the room, showrunner included."},
			engine.RegionField(),
			{Name: "weekly_rate_usd", Kind: engine.Number, Money: true, Default: 5500, Min: engine.Bound(0), Max: engine.Bound(100000), Description: "Average weekly pay per writer, 0 to 100,000."},
			{Name: "budget_usd", Kind: engine.Number, Money: true, Min: engine.Bound(0), Max: engine.Bound(1e9), Description: "Budget for the room, fringe included, 0 to 1,000,000,000."},
			engine.CurrencyField("USD"),
		},
		ExampleContext: map[string]any{
			"episodes":        8,
			"room_type":       "post_greenlight",
			"episode_length":  "one_hour",
			"room_start":      "2027-01-04",
			"scripts_due":     "2027-04-30",
			"writers":         5,
			"weekly_rate_usd": 6200,
			"budget_usd":      650000,
			"as_of":           "2026-11-20",
		},
		Sources: []engine.Source{
			{Title: "WGA 2023 Minimum Basic Agreement (minimum staffing, development rooms)", URL: "https://www.wga.org/contracts/contracts/mba", Checked: "2026-11"},
			{Title: "WGA schedule of minimums", URL: "https://www.wga.org/contracts/contracts/schedule-of-minimums", Checked: "2026-11"},
		},
		Steps: []engine.Step{
			{Name: "staffing", Run: tvRoomStaffing},
			{Name: "schedule", Run: tvRoomSchedule},
			{Name: "budget", Run: tvRoomBudget},
			{Name: "recommend", Run: tvRoomRecommend},
		},
	})
}

const (
	tvRoomFringe     = 0.21
	tvRoomBreakWeeks = 2
	tvRoomDevWeeks   = 10
)

func tvRoomMinimum(in *engine.Input) int {
	if in.Str("room_type") == "development" {
		return 3
	}
	switch n := in.Int("episodes"); {
	case n <= 6:
		return 3
	case n <= 12:
		return 5
	default:
		return 6
	}
}

func tvRoomStaffing(in *engine.Input, p *engine.Plan) error {
	minimum := tvRoomMinimum(in)
	p.Set("minimum_writers", minimum)
	if w := in.Int("writers"); w < minimum && w != 1 {
		p.Warn("BELOW_MINIMUM_STAFF", "%s is below the 2023 MBA minimum of %d for a %s room on %s; hire %d more (the only exception is one writer writing every episode).",
			engine.Plural(w, "writer", "writers"), minimum, strings.ReplaceAll(in.Str("room_type"), "_", "-"), engine.Plural(in.Int("episodes"), "episode", "episodes"), minimum-w)
	}
	return nil
}

// tvRoomWeeks counts the weeks a room from start to end is paid for, both
// days included: a room that opens on a Monday and delivers on the Friday
// of its 17th week is a 17-week room.
func tvRoomWeeks(start, end time.Time) int {
	days := engine.DaysBetween(start, end) + 1
	if days <= 0 {
		return 0
	}
	return (days + 6) / 7
}

// tvRoomSchedule plans the room on the scripts-due date asked for when the
// scripts fit, and otherwise on the earliest date they can be delivered:
// the last working day of the week the scripts need. The length the summary
// states is always the length of the dates it gives.
func tvRoomSchedule(in *engine.Input, p *engine.Plan) error {
	start, requested := in.Date("room_start"), in.Date("scripts_due")
	perScript := 1.5
	if in.Str("episode_length") == "half_hour" {
		perScript = 1
	}
	needed := tvRoomBreakWeeks + int(math.Ceil(perScript*float64(in.Int("episodes"))))
	if in.Str("room_type") == "development" {
		needed = max(needed, tvRoomDevWeeks)
	}
	available := tvRoomWeeks(start, requested)
	p.Set("weeks_needed", needed)
	p.Set("weeks_available", available)
	due := requested
	if available < needed {
		due = p.Calendar().PrevWorkday(engine.AddDays(start, 7*needed-1))
		latestStart := engine.OnOrBefore(engine.AddDays(requested, 1-7*needed), time.Monday)
		if !requested.After(start) {
			p.Warn("SCRIPTS_DUE_BEFORE_START", "Scripts are due %s, before the room opens on %s; the plan delivers them on %s, %s after the room opens.",
				engine.FormatDate(requested), engine.FormatDate(start), engine.FormatDate(due), engine.Plural(needed, "week", "weeks"))
		}
		p.Warn("ROOM_TOO_SHORT", "%s %s about %s (%d to break the season, %.1f a script) but %s to %s is %s; the plan delivers the scripts on %s instead, or open the room by %s to keep %s.",
			engine.Plural(in.Int("episodes"), "episode", "episodes"), map[bool]string{true: "needs", false: "need"}[in.Int("episodes") == 1], engine.Plural(needed, "week", "weeks"), tvRoomBreakWeeks, perScript,
			engine.FormatDate(start), engine.FormatDate(requested), engine.Plural(available, "week", "weeks"), engine.FormatDate(due), engine.FormatDate(latestStart), engine.FormatDate(requested))
		p.Set("latest_room_start", p.Label("latest room start that keeps the requested scripts date", latestStart))
		p.Set("earliest_scripts_due", p.Ref("scripts-due"))
		p.Set("requested_scripts_due", engine.FormatDate(requested))
	}
	if due.Before(p.AsOf()) {
		// Scripts still owed after their date: the room delivers at the end
		// of the week after the plan date, and is paid until then.
		late := due
		friday := engine.AddDays(engine.OnOrAfter(p.AsOf(), time.Monday), 4)
		if due = p.Calendar().PrevWorkday(friday); due.Before(p.AsOf()) {
			due = p.Calendar().NextWorkday(friday)
		}
		p.Warn("SCRIPTS_OVERDUE", "Scripts were due %s, before the plan date %s; the plan delivers them on %s and pays the room until then.",
			engine.FormatDate(late), engine.FormatDate(p.AsOf()), engine.FormatDate(due))
		p.Set("requested_scripts_due", engine.FormatDate(requested))
	}
	// Delivery is on an open day, so the dates stated are the dates planned.
	if cal := p.Calendar(); cal.Closed(due) {
		if prev := cal.PrevWorkday(due); !prev.Before(p.AsOf()) && prev.After(start) && tvRoomWeeks(start, prev) >= needed {
			due = prev
		} else {
			due = cal.NextWorkday(due)
		}
	}
	if !due.Equal(requested) {
		p.Replanned(requested, due, fmt.Sprintf("%s of scripts cannot be delivered on %s.", engine.Plural(in.Int("episodes"), "episode", "episodes"), engine.FormatDate(requested)))
	}
	weeks := tvRoomWeeks(start, due)
	if in.Str("room_type") == "development" && available < tvRoomDevWeeks {
		p.Warn("DEVELOPMENT_ROOM_TOO_SHORT", "The room runs %s; development-room writers are guaranteed at least %d consecutive weeks under the 2023 MBA, so the plan budgets %d.",
			engine.Plural(available, "week", "weeks"), tvRoomDevWeeks, weeks)
	}
	if start.Before(p.AsOf()) {
		p.Warn("ROOM_ALREADY_STARTED", "The room start %s is before the plan date %s.", engine.FormatDate(start), engine.FormatDate(p.AsOf()))
	}
	p.SetTarget(due)
	p.Set("scripts_due", p.Ref("scripts-due"))
	p.Set("paid_weeks", weeks)
	if !start.Before(p.AsOf()) {
		p.Handover(engine.KindAction, "deals-closed", "Writer deals closed (a month before the room opens)", engine.Later(p.AsOf(), p.Calendar().PrevWorkday(engine.AddWeeks(start, -4))))
		p.DependsOn("room-start", "deals-closed")
	}
	p.Work("room-start", "Room opens", start)
	p.Work("season-broken", "Season broken: arcs and episode outlines on the board", engine.AddWeeks(start, tvRoomBreakWeeks))
	// A one-script room delivers its first draft with the scripts.
	p.Handover(engine.KindDeliverable, "first-draft", "First script draft in", engine.Earlier(due, engine.AddDays(start, int(math.Round(7*(tvRoomBreakWeeks+perScript))))))
	p.Deliverable("scripts-due", "All scripts delivered", due, in.Region())
	p.DependsOn("season-broken", "room-start")
	p.DependsOn("first-draft", "season-broken")
	p.DependsOn("scripts-due", "first-draft")
	warnPassedSteps(p, "room-start")
	return nil
}

func tvRoomBudget(in *engine.Input, p *engine.Plan) error {
	weeks := p.Get("paid_weeks").(int)
	writers := max(in.Int("writers"), p.Get("minimum_writers").(int))
	if in.Int("writers") == 1 {
		writers = 1
	}
	salaries := engine.Money(float64(writers*weeks) * in.Float("weekly_rate_usd"))
	fringe := engine.Money(salaries * tvRoomFringe)
	total := engine.Money(salaries + fringe)
	p.Set("budget", map[string]any{
		"writers": writers, "weeks": weeks, "weekly_rate_usd": in.Float("weekly_rate_usd"),
		"salaries_usd": salaries, "pension_health_usd": fringe, "total_usd": total,
		"per_episode_usd": engine.Money(total / float64(in.Int("episodes"))),
	})
	if in.Has("budget_usd") && total > in.Float("budget_usd") {
		b := in.Float("budget_usd")
		affordable := int(b / ((1 + tvRoomFringe) * in.Float("weekly_rate_usd") * float64(writers)))
		p.Warn("ROOM_OVER_BUDGET", "%s for %s at %s a week plus 21%% pension and health cost %s, %s over the %s budget; the budget pays for %s.",
			engine.Plural(writers, "writer", "writers"), engine.Plural(weeks, "week", "weeks"), in.Money(in.Float("weekly_rate_usd")), in.Money(total), in.Money(total-b), in.Money(b), engine.Plural(affordable, "week", "weeks"))
		p.Set("affordable_weeks", affordable)
	}
	return nil
}

func tvRoomRecommend(in *engine.Input, p *engine.Plan) error {
	b := p.Get("budget").(map[string]any)
	if !p.DateOf("deals-closed").IsZero() {
		p.RecommendOn(engine.High, "deals-closed", "Close writer deals a month out",
			fmt.Sprintf("Make offers to %s (minimum %d) with start dates, weeks guaranteed and episode assignments; agents need time to close.", engine.Plural(b["writers"].(int), "writer", "writers"), p.Get("minimum_writers").(int)))
	}
	p.Recommend(engine.High, "Budget script fees on top of weekly pay",
		"Under the 2023 MBA staff writers assigned an episode are paid script fees in addition to their weekly salary; add them per assigned script.")
	p.Recommend(engine.Medium, "Keep writers through production",
		"Writers employed into prep and production can rewrite for locations and cast; the 2023 MBA rewards keeping writer-producers on through post.")
	p.Strategy("Staff a %s room of %s (MBA minimum %d) for %s, from %s to %s: %s needed for %s; %s in salaries plus %s pension and health, %s in all (%s an episode).",
		strings.ReplaceAll(in.Str("room_type"), "_", "-"), engine.Plural(b["writers"].(int), "writer", "writers"), p.Get("minimum_writers").(int), engine.Plural(b["weeks"].(int), "week", "weeks"),
		p.Ref("room-start"), p.Ref("scripts-due"), engine.Plural(p.Get("weeks_needed").(int), "week", "weeks"),
		engine.Plural(in.Int("episodes"), strings.ReplaceAll(in.Str("episode_length"), "_", "-")+" script", strings.ReplaceAll(in.Str("episode_length"), "_", "-")+" scripts"),
		in.Money(b["salaries_usd"].(float64)), in.Money(b["pension_health_usd"].(float64)), in.Money(b["total_usd"].(float64)), in.Money(b["per_episode_usd"].(float64)))
	return nil
}
