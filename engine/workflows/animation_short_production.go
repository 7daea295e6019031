package workflows

import (
	"fmt"
	"math"

	"github.com/creativeops/creativeops/engine"
)

// Animated short production schedule, planned backwards from a festival
// deadline or completion date.
// Rules used:
//   - Output per animator is measured in seconds of finished animation per
//     week and depends on technique. Conservative planning figures for an
//     independent short (studios vary widely): 2D hand-drawn 6 s, 2D rigged
//     (cut-out) 20 s, 3D CG 10 s, stop-motion 5 s per animator-week.
//     Feature-quality work is slower (3D features ~4 s/week).
//   - Pipeline: script 2 weeks; storyboard and animatic about 1.5 weeks per
//     minute (at least 2); design and build (models, rigs, puppets, sets)
//     2/4/6/8 weeks for 2D hand-drawn/2D rigged/3D/stop-motion; animation;
//     compositing, lighting and render about 20% of the animation time (at
//     least a week); picture lock; sound design, music and mix 3 weeks;
//     festival deliverables (DCP, subtitles, screener) 1 week.
//   - Frames = runtime × frame rate; hand-drawn animation is commonly drawn
//     "on twos" (12 drawings a second at 24 fps).
//   - The Academy's short-film rules cap running time at 40 minutes
//     including credits; festivals project DCPs at 24, 25 or 30 fps (48/50/60
//     for high frame rate).
//   - When the pipeline cannot fit before the deadline (or the deadline has
//     passed), the plan is built on the earliest completion, with the
//     deadline beside it. Each phase's end is a hand-over on a working day of
//     the studio's country; a deadline in the 24 December–1 January week is
//     met by finishing before it.
func init() {
	engine.Register(&engine.Workflow{
		ID:          "animation-short-production",
		Name:        "Animated short production schedule",
		Vertical:    "animation",
		PastDate:    engine.PastDate{Field: "deadline", Policy: engine.PastReplan},
		Description: "Schedules an animated short backwards from a festival or completion deadline by technique, runtime and crew: script, animatic, build, animation, compositing, picture lock, sound and deliverables, with animator-weeks, frames and labour cost, and the crew or date that makes an infeasible deadline work. A deadline already past, or too close for the pipeline, is re-planned on the earliest completion; phase ends fall on working days of `country`.",
		Fields: []engine.Field{
			{Name: "deadline", Kind: engine.Date, Required: true, Description: "Festival submission or completion deadline (finished film with mixed sound)."},
			{Name: "runtime_seconds", Kind: engine.Integer, Required: true, Min: engine.Bound(10), Max: engine.Bound(3600), Description: "Running time including credits, in seconds."},
			{Name: "style", Kind: engine.String, Enum: []string{"2d_hand_drawn", "2d_rigged", "3d_cg", "stop_motion"}, Default: "2d_hand_drawn", Description: "Animation technique."},
			{Name: "animators", Kind: engine.Integer, Default: 1, Min: engine.Bound(1), Max: engine.Bound(200), Description: "Animators working in parallel."},
			{Name: "fps", Kind: engine.Integer, Default: 24, Min: engine.Bound(12), Max: engine.Bound(60), Description: "Frame rate of the finished film."},
			{Name: "animator_week_usd", Kind: engine.Number, Money: true, Min: engine.Bound(0), Max: engine.Bound(100000), Description: "Cost of one animator-week in `currency`, for the labour budget (0–100,000)."},
			{Name: "start_date", Kind: engine.Date, Description: "When production can start; defaults to the plan date."},
			engine.RegionField(),
			engine.CurrencyField("USD"),
		},
		Sources: []engine.Source{
			{Title: "Academy Awards rules: short films (40 minutes or less, credits included)", URL: "https://www.oscars.org/oscars/rules-eligibility", Checked: "2026-11"},
			{Title: "DCI Digital Cinema System Specification (projection frame rates)", URL: "https://www.dcimovies.com/specification", Checked: "2026-11"},
		},
		ExampleContext: map[string]any{
			"deadline":          "2027-11-05",
			"runtime_seconds":   240,
			"style":             "2d_hand_drawn",
			"animators":         2,
			"fps":               24,
			"animator_week_usd": 1400,
			"as_of":             "2026-11-20",
		},
		Steps: []engine.Step{
			{Name: "scope", Run: anShortScope},
			{Name: "schedule", Run: anShortSchedule},
			{Name: "budget", Run: anShortBudget},
			{Name: "recommend", Run: anShortRecommend},
		},
	})
}

var (
	anShortRate       = map[string]float64{"2d_hand_drawn": 6, "2d_rigged": 20, "3d_cg": 10, "stop_motion": 5}
	anShortBuildWeeks = map[string]int{"2d_hand_drawn": 2, "2d_rigged": 4, "3d_cg": 6, "stop_motion": 8}
)

// anShortPhases returns phase lengths in days: script, boards/animatic,
// build, animation, compositing, sound, deliverables.
func anShortPhases(in *engine.Input, animators int) [7]int {
	runtime := float64(in.Int("runtime_seconds"))
	anim := studioCeil(runtime / (anShortRate[in.Str("style")] * float64(animators)) * 7)
	return [7]int{14, max(14, studioCeil(runtime/60*10.5)), 7 * anShortBuildWeeks[in.Str("style")], anim, max(7, studioCeil(float64(anim)*0.2)), 21, 7}
}

// anShortWorkdays is a phase of days (seven a week) in working days: five
// a week, never less than one.
func anShortWorkdays(days int) int { return max(1, days*5/7) }

func anShortScope(in *engine.Input, p *engine.Plan) error {
	runtime, fps := in.Int("runtime_seconds"), in.Int("fps")
	frames := runtime * fps
	scope := map[string]any{
		"frames":                    frames,
		"animator_weeks":            engine.Round(float64(runtime)/anShortRate[in.Str("style")], 1),
		"seconds_per_animator_week": anShortRate[in.Str("style")],
	}
	if in.Str("style") == "2d_hand_drawn" {
		scope["drawings_on_twos"] = frames / 2
	}
	p.Set("scope", scope)
	if runtime > 2400 {
		p.Warn("RUNTIME_OVER_ACADEMY_LIMIT", "%d minutes %d seconds is over the 40 minutes (credits included) the Academy allows a short; most short-film festivals cap at 30–40 minutes. Cut to 2400 seconds or enter as a feature or special.", runtime/60, runtime%60)
	}
	switch fps {
	case 24, 25, 30, 48, 50, 60:
	default:
		p.Warn("FRAME_RATE_NONSTANDARD", "%d fps is not a DCP projection rate (24, 25, 30; 48/50/60 HFR); animate on twos at 24 fps instead of delivering %d fps.", fps, fps)
	}
	return nil
}

func anShortSchedule(in *engine.Input, p *engine.Plan) error {
	r := in.Region()
	deadline := in.Date("deadline")
	start := p.AsOf()
	if in.Has("start_date") && in.Date("start_date").After(start) {
		start = in.Date("start_date")
	}
	if deadline.Before(p.AsOf()) {
		p.Warn("DEADLINE_PASSED", "The deadline %s is before the plan date %s.", engine.FormatDate(deadline), engine.FormatDate(p.AsOf()))
	}
	// Each phase of so many weeks is that many weeks of working days of
	// the plan's calendar: holidays and the 24 Dec–1 Jan closure do not
	// count, so no phase runs through them.
	cal := p.Calendar()
	ph := anShortPhases(in, in.Int("animators"))
	var wd [7]int
	totalWD := 0
	for i, d := range ph {
		wd[i] = anShortWorkdays(d)
		totalWD += wd[i]
	}
	finish := deadline
	if latest := cal.AddWorkdays(cal.PrevWorkday(deadline), -totalWD); latest.Before(start) {
		// The earliest finish, on a working day: the deliverables are a
		// hand-over.
		finish = cal.AddWorkdays(start, totalWD)
		available := cal.WorkdaysBetween(start, cal.PrevWorkday(deadline)) - (totalWD - wd[3] - wd[4])
		msg := "no crew size fits: the other phases alone need more time than remains"
		if available > 0 {
			// Compositing scales with animation, so solve for both, in
			// working days (five a week).
			need := int(math.Ceil(engine.Round(float64(in.Int("runtime_seconds"))*5*1.2/(anShortRate[in.Str("style")]*float64(available)), 6)))
			need = max(need, in.Int("animators")+1)
			if need <= 200 {
				p.Set("animators_needed_for_deadline", need)
				msg = fmt.Sprintf("%s would make the deadline", engine.Plural(need, "animator", "animators"))
			}
		}
		p.Warn("SCHEDULE_INFEASIBLE", "The pipeline needs %s of working days with %s and %s remain before %s; the earliest finish is %s, or %s.",
			engine.Plural(studioCeil(float64(totalWD)/5), "week", "weeks"), engine.Plural(in.Int("animators"), "animator", "animators"),
			engine.Plural(cal.WorkdaysBetween(start, deadline)/5, "week", "weeks"), engine.FormatDate(deadline), engine.FormatDate(finish), msg)
		p.Set("earliest_feasible_completion_date", engine.FormatDate(finish))
		p.Replanned(deadline, finish, "The pipeline cannot be finished by the deadline.")
	}
	if engine.InDeadWeek(finish) {
		p.Warn("DEADLINE_IN_DEAD_WEEK", "%s falls in the 24 December–1 January week, when labs, sound studios and festival offices are closed; the plan delivers by %s.",
			engine.FormatDate(finish), engine.FormatDate(p.Calendar().PrevWorkday(finish)))
	}
	p.SetTarget(finish)
	names := [7][2]string{
		{"script-locked", "Script locked"},
		{"animatic-locked", "Storyboard and animatic locked (timing fixed)"},
		{"build-complete", "Designs, rigs/models/puppets and backgrounds built"},
		{"animation-complete", "Animation complete"},
		{"picture-lock", "Picture lock (compositing and render done)"},
		{"mix-complete", "Sound design, music and mix complete"},
		{"deliverables", "Deliverables: DCP, subtitles, screener link"},
	}
	d := engine.Later(start, cal.AddWorkdays(cal.PrevWorkday(finish), -totalWD))
	p.Work("start", "Latest production start", d)
	dates := map[string]any{"start": p.Ref("start")}
	prev := "start"
	for i, n := range names {
		d = cal.AddWorkdays(d, wd[i])
		p.Deliverable(n[0], n[1], d, r)
		p.Precede(prev, n[0], wd[i])
		prev = n[0]
		dates[n[0]] = p.Ref(n[0])
	}
	p.Set("schedule", dates)
	p.Set("total_weeks", engine.Round(float64(totalWD)/5, 1))
	p.Set("slack_weeks", engine.Round(float64(cal.WorkdaysBetween(start, p.DateOf("start")))/5, 1))
	return nil
}

func anShortBudget(in *engine.Input, p *engine.Plan) error {
	if !in.Has("animator_week_usd") {
		return nil
	}
	weeks := p.Get("scope").(map[string]any)["animator_weeks"].(float64)
	rate := in.Float("animator_week_usd")
	p.Set("animation_labor_usd", engine.Money(weeks*rate))
	return nil
}

func anShortRecommend(in *engine.Input, p *engine.Plan) error {
	s := p.Get("schedule").(map[string]any)
	p.RecommendOn(engine.High, "animatic-locked", "Lock the animatic before animating",
		"Every second cut after the animatic is locked is animation thrown away; time the film to the animatic and keep it locked.")
	p.Recommend(engine.High, "Book sound early", "Bring the composer and sound designer in at the animatic so the 3-week mix after picture lock is not their first look.")
	p.Recommend(engine.Medium, "Check premiere rules", "Top animation festivals (Annecy, Ottawa, Zagreb) and Academy-qualifying awards favour premieres; plan the first festival before putting the film online.")
	p.Recommend(engine.Low, "Render a weekly cut", "Replace animatic shots with animation as they finish and review the whole film weekly to catch continuity and pacing early.")
	cost := ""
	if v, ok := p.Get("animation_labor_usd").(float64); ok {
		cost = fmt.Sprintf(", about %s of animation labour", studioMoney(in, v))
	}
	p.Strategy("Make the %d-second %s short in %g weeks with %s (%g animator-weeks at %g s/week%s), starting by %s (%g weeks of slack): animatic locked %s, picture lock %s, deliverables %s.",
		in.Int("runtime_seconds"), studioLabel(in.Str("style")), p.Get("total_weeks"), engine.Plural(in.Int("animators"), "animator", "animators"), p.Get("scope").(map[string]any)["animator_weeks"],
		anShortRate[in.Str("style")], cost, s["start"], p.Get("slack_weeks"), s["animatic-locked"], s["picture-lock"], s["deliverables"])
	return nil
}
