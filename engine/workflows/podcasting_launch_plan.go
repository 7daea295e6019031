package workflows

import (
	"fmt"
	"math"
	"time"

	"github.com/creativeops/creativeops/engine"
)

// Podcast launch plan, scheduled backwards from launch day. Rules used:
//   - Launch with about 3 episodes so new listeners can binge and the show
//     ranks on follows in its first week, and keep a bank beyond that (2
//     episodes for a weekly show, 1 otherwise) so the cadence survives a
//     missed week.
//   - Apple Podcasts artwork: square, 1400–3000 px, JPEG or PNG, RGB.
//   - Submit the feed (with a trailer) to Apple Podcasts and Spotify two
//     weeks before launch: Apple's review can take several days, and the
//     show page must exist before it can be promoted.
//   - Production time per episode (record, edit, show notes) is an input;
//     episodes are produced on business days and finished three days before
//     they must be in the bank.
func init() {
	engine.Register(&engine.Workflow{
		ID:          "podcasting-launch-plan",
		Name:        "Podcast launch plan",
		Vertical:    "podcasting",
		PastDate:    engine.PastDate{Field: "launch_date", Policy: engine.PastReplan},
		Description: "Plans a podcast launch backwards from launch day: episodes to bank, production days still needed, trailer and directory submission, an artwork spec check (art outside Apple's spec is fixed before the feed goes in), and the release calendar of the first episodes. A launch too close for production and the feed, or already past, is re-planned to the first feasible launch on the same weekday.",
		Fields: []engine.Field{
			{Name: "show_name", Kind: engine.String, Required: true, Min: engine.Bound(1), Max: engine.Bound(200), Description: "Name of the show."},
			{Name: "launch_date", Kind: engine.Date, Required: true, Description: "Launch day (the first episodes go live)."},
			{Name: "cadence", Kind: engine.String, Enum: []string{"weekly", "biweekly", "monthly"}, Default: "weekly", Description: "Release cadence after launch."},
			{Name: "launch_episodes", Kind: engine.Integer, Default: 3, Min: engine.Bound(1), Max: engine.Bound(10), Description: "Episodes released on launch day."},
			{Name: "episodes_ready", Kind: engine.Integer, Default: 0, Min: engine.Bound(0), Max: engine.Bound(50), Description: "Episodes already finished."},
			{Name: "production_days_per_episode", Kind: engine.Number, Default: 2, Min: engine.Bound(0.25), Max: engine.Bound(20), Description: "Working days to record, edit and write notes for one episode."},
			engine.RegionField(),
			{Name: "artwork_px", Kind: engine.Integer, Min: engine.Bound(1), Max: engine.Bound(10000), Description: "Side of the square cover art in pixels."},
		},
		ExampleContext: map[string]any{
			"show_name":                   "Night Shift Notes",
			"launch_date":                 "2027-01-12",
			"cadence":                     "weekly",
			"launch_episodes":             3,
			"episodes_ready":              1,
			"production_days_per_episode": 2.5,
			"artwork_px":                  3000,
			"as_of":                       "2026-11-20",
		},
		Sources: []engine.Source{
			{Title: "Apple Podcasts for Creators: artwork requirements (1400–3000 px square, JPEG or PNG, RGB)", URL: "https://podcasters.apple.com/support/896-artwork-requirements", Checked: "2026-11"},
			{Title: "Apple Podcasts for Creators: submit a show (review before it appears)", URL: "https://podcasters.apple.com/support/897-submit-a-show", Checked: "2026-11"},
			{Title: "US federal holidays (OPM), for hand-over dates", URL: "https://www.opm.gov/policy-data-oversight/pay-leave/federal-holidays/", Checked: "2026-11"},
		},
		Steps: []engine.Step{
			{Name: "check-specs", Run: podLaunchSpecs},
			{Name: "schedule", Run: podLaunchSchedule},
			{Name: "recommend", Run: podLaunchRecommend},
		},
	})
}

const podLaunchFeedLeadDays = 14

func podLaunchBank(in *engine.Input) int {
	if in.Str("cadence") == "weekly" {
		return 2
	}
	return 1
}

// Days between regular releases; "monthly" shows release every fourth week
// so the release weekday never changes.
var podLaunchStepDays = map[string]int{"weekly": 7, "biweekly": 14, "monthly": 28}

type podLaunchDates struct{ produceFrom, trailer, feed, bankBy time.Time }

// podLaunchDatesFor schedules production backwards from launch on the
// region's open days: episodes banked three days out, the feed in two weeks
// out, the trailer two days before the feed, and production early enough
// for both.
func podLaunchDatesFor(launch time.Time, missing, workDays int, r engine.Region) podLaunchDates {
	var d podLaunchDates
	d.bankBy = (engine.Calendar{Region: r}).PrevWorkday(engine.AddDays(launch, -3))
	d.feed = (engine.Calendar{Region: r}).PrevWorkday(engine.AddDays(launch, -podLaunchFeedLeadDays))
	d.produceFrom = d.bankBy
	if workDays > 0 {
		d.produceFrom = (engine.Calendar{Region: r}).AddWorkdays(d.bankBy, -workDays)
	}
	// The trailer is cut from the first recordings, so production starts at
	// least two working days before it.
	d.trailer = (engine.Calendar{Region: r}).PrevWorkday(engine.AddDays(d.feed, -2))
	if first := (engine.Calendar{Region: r}).AddWorkdays(d.trailer, -2); missing > 0 && first.Before(d.produceFrom) {
		d.produceFrom = first
	}
	return d
}

func podLaunchFeasible(d podLaunchDates, missing int, asOf time.Time) bool {
	if missing > 0 && d.produceFrom.Before(asOf) {
		return false
	}
	return !d.trailer.Before(asOf)
}

func podLaunchSpecs(in *engine.Input, p *engine.Plan) error {
	if !in.Has("artwork_px") {
		p.Warn("ARTWORK_UNKNOWN", "No artwork size given; Apple Podcasts needs square art of 1400–3000 px (JPEG or PNG, RGB).")
		return nil
	}
	px := in.Int("artwork_px")
	switch {
	case px < 1400:
		p.Warn("ARTWORK_SPEC", "Cover art of %d px is below Apple Podcasts' 1400 px minimum; re-export at 3000 px square from a larger source.", px)
	case px > 3000:
		p.Warn("ARTWORK_SPEC", "Cover art of %d px is above Apple Podcasts' 3000 px maximum; downscale to 3000 px square.", px)
	}
	p.Set("artwork_ok", px >= 1400 && px <= 3000)
	return nil
}

func podLaunchSchedule(in *engine.Input, p *engine.Plan) error {
	requested := in.Date("launch_date")
	r := in.Region()
	needed := in.Int("launch_episodes") + podLaunchBank(in)
	missing := max(0, needed-in.Int("episodes_ready"))
	workDays := int(math.Ceil(float64(missing) * in.Float("production_days_per_episode")))
	p.Set("episodes_needed_at_launch", needed)
	p.Set("episodes_to_produce", missing)
	p.Set("production_days_needed", workDays)

	// A launch is feasible when production and the trailer can still start
	// on or after the plan date; otherwise the plan moves to the first
	// launch on the same weekday that is.
	launch := requested
	for !podLaunchFeasible(podLaunchDatesFor(launch, missing, workDays, r), missing, p.AsOf()) {
		launch = engine.AddWeeks(launch, 1)
		if launch.Before(p.AsOf()) {
			launch = engine.OnOrAfter(p.AsOf(), requested.Weekday())
		}
	}
	if !launch.Equal(requested) {
		// A launch the plan chooses itself never falls in the dead week.
		for engine.InDeadWeek(launch) {
			launch = engine.AddWeeks(launch, 1)
		}
		need := fmt.Sprintf("The feed goes in %d days before launch, with the trailer two days earlier", podLaunchFeedLeadDays)
		if missing > 0 {
			need = fmt.Sprintf("%s still to make %s %s of production, and the feed goes in %d days before launch",
				engine.Plural(missing, "episode", "episodes"), map[bool]string{true: "needs", false: "need"}[missing == 1], engine.Plural(workDays, "working day", "working days"), podLaunchFeedLeadDays)
		}
		why := fmt.Sprintf("%s; the earliest %s launch that leaves that time is %s.", need, requested.Weekday(), engine.FormatDate(launch))
		code := "LAUNCH_TOO_SOON"
		if requested.Before(p.AsOf()) {
			code = "LAUNCH_DATE_PASSED"
			why = fmt.Sprintf("Launch day %s is before the plan date %s. ", engine.FormatDate(requested), engine.FormatDate(p.AsOf())) + why
		}
		p.Warn(code, "%s", why)
		p.Replanned(requested, launch, why)
		p.Set("earliest_feasible_launch", engine.FormatDate(launch))
	}
	p.SetTarget(launch)
	p.Set("launch_date", engine.FormatDate(launch))
	if engine.InDeadWeek(launch) {
		better := engine.OnOrAfter(time.Date(launch.Year()+map[bool]int{true: 1, false: 0}[launch.Month() == time.December], time.January, 2, 0, 0, 0, 0, time.UTC), launch.Weekday())
		p.Warn("LAUNCH_IN_DEAD_WEEK", "%s falls in the 24 December–1 January dead week, when listeners travel, press is off and charts are frozen; launch on %s instead.",
			engine.FormatDate(launch), p.Label("launch clear of the dead week", better))
		p.Set("better_launch_date", p.Label("launch clear of the dead week", better))
	}
	d := podLaunchDatesFor(launch, missing, workDays, r)
	if missing > 0 {
		p.Work("production-start", fmt.Sprintf("Production of %s starts", engine.Plural(missing, "episode", "episodes")), d.produceFrom)
	}
	art := "Trailer and cover art final"
	if ok, known := p.Get("artwork_ok").(bool); known && !ok {
		art = "Trailer final, cover art re-exported to 1400–3000 px square"
	}
	p.Deliverable("trailer-ready", art, d.trailer, r)
	p.Deliverable("feed-submitted", "Feed with trailer submitted to Apple Podcasts and Spotify", d.feed, r)
	p.Deliverable("episodes-banked", fmt.Sprintf("%s finished and scheduled", engine.Plural(needed, "episode", "episodes")), d.bankBy, r)
	p.Event("launch", fmt.Sprintf("Launch: %s live", engine.Plural(in.Int("launch_episodes"), "episode", "episodes")), launch, "the launch date the plan is built on")
	p.DependsOn("trailer-ready", "production-start")
	p.DependsOn("feed-submitted", "trailer-ready")
	p.DependsOn("episodes-banked", "production-start")
	p.DependsOn("launch", "feed-submitted", "episodes-banked")

	var calendar []map[string]any
	step := podLaunchStepDays[in.Str("cadence")]
	n := in.Int("launch_episodes")
	for i := 1; i <= n; i++ {
		calendar = append(calendar, map[string]any{"episode": i, "date": engine.FormatDate(launch)})
	}
	release := launch
	for i := n + 1; i <= n+5; i++ {
		release = engine.AddDays(release, step)
		calendar = append(calendar, map[string]any{"episode": i, "date": engine.FormatDate(release)})
	}
	next, _ := engine.ParseDate(calendar[n]["date"].(string))
	p.Event("first-regular-episode", fmt.Sprintf("Episode %d: first regular release", n+1), next, "the release schedule's next episode day")
	p.Work("thirty-day-review", "30-day review: downloads per episode, follows, drop-off", engine.AddDays(launch, 30))
	p.SetSchedule("release_calendar", "each episode's release day", calendar)
	return nil
}

func podLaunchRecommend(in *engine.Input, p *engine.Plan) error {
	launch := p.GetDate("launch_date")
	p.RecommendOn(engine.High, "feed-submitted", "Submit the feed early",
		"Publish a trailer, then submit the RSS feed in Apple Podcasts Connect and Spotify for Creators two weeks before launch so the show page is live to promote.")
	if m := p.Get("episodes_to_produce").(int); m > 0 {
		p.Recommend(engine.High, "Batch-record the launch episodes",
			fmt.Sprintf("Record the %s in back-to-back sessions; %s of production %s needed before launch.", engine.Plural(m, "missing episode", "missing episodes"), engine.Plural(p.Get("production_days_needed").(int), "working day", "working days"), map[bool]string{true: "is", false: "are"}[p.Get("production_days_needed").(int) == 1]))
	}
	p.Recommend(engine.Medium, "Release on a fixed day and time",
		fmt.Sprintf("Keep every episode on %s mornings so listeners and apps learn the cadence.", launch.Weekday()))
	p.Recommend(engine.Low, "Ask for follows in launch week", "A follow (subscribe) in the first week counts more for charts than a single download; ask for it in each launch episode.")
	// Art outside Apple's spec gets the show refused at submission: the fix
	// is part of the plan, before the feed goes in, never a footnote.
	if ok, known := p.Get("artwork_ok").(bool); known && !ok {
		var due time.Time
		for _, m := range p.Milestones() {
			if m.Key == "trailer-ready" {
				due = m.Date
			}
		}
		p.RecommendBy(engine.High, due, "Fix the cover art before submitting",
			fmt.Sprintf("Apple Podcasts refuses a show whose cover art is outside 1400–3000 px square (JPEG or PNG, RGB); the art is %d px. Export it at 3000 px before the feed goes in.", in.Int("artwork_px")))
		p.Set("artwork_fix_by", engine.FormatDate(due))
	}
	produce := "every episode is already made"
	if m := p.Get("episodes_to_produce").(int); m > 0 {
		produce = fmt.Sprintf("produce %s (%s)", engine.Plural(m, "episode", "episodes"), engine.Plural(p.Get("production_days_needed").(int), "working day", "working days"))
	}
	if fix, ok := p.Get("artwork_fix_by").(string); ok {
		produce += fmt.Sprintf(", re-export the cover art to Apple's 1400–3000 px by %s", fix)
	}
	p.Strategy("Launch %q on %s with %s and %d more banked for a %s cadence: %s, submit the feed by %s, then release every %s.",
		in.Str("show_name"), engine.FormatDate(launch), engine.Plural(in.Int("launch_episodes"), "episode", "episodes"), podLaunchBank(in), in.Str("cadence"),
		produce, p.Ref("feed-submitted"), map[string]string{"weekly": "week", "biweekly": "two weeks", "monthly": "four weeks"}[in.Str("cadence")])
	return nil
}
