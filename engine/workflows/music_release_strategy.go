package workflows

import (
	"fmt"
	"strings"
	"time"

	"github.com/creativeops/creativeops/engine"
)

// Release planning for recorded music, scheduled backwards from release day.
// Rules used:
//   - Global Release Day is Friday 00:01 local time (IFPI, 2015).
//   - Spotify editorial pitches are for unreleased music and must be in at
//     least 7 days before release to reach followers' Release Radar
//     (Spotify for Artists); aim for three weeks.
//   - Distributors want the release 21–28 days before release day.
//   - Vinyl pressing takes 8–10+ weeks from approved lacquers.
//   - Pre-save campaigns open 2–4 weeks before release.
func init() {
	engine.Register(&engine.Workflow{
		ID:          "release-strategy",
		Name:        "Release strategy",
		Vertical:    "music",
		Description: "Plans a single, EP or album release backwards from release day: distributor delivery, editorial pitch, pre-save, vinyl lead times and a budget split, with warnings when the date is too close.",
		Fields: []engine.Field{
			{Name: "artist", Kind: engine.String, Required: true, Min: engine.Bound(1), Max: engine.Bound(200), Description: "Artist or band name."},
			{Name: "genre", Kind: engine.String, Required: true, Min: engine.Bound(1), Max: engine.Bound(100), Description: "Primary genre, as pitched to editors."},
			{Name: "release_date", Kind: engine.Date, Required: true, Description: "Planned release day; moved to the next Friday if it is not one."},
			{Name: "release_type", Kind: engine.String, Enum: []string{"single", "ep", "album"}, Default: "single", Description: "What is released."},
			{Name: "formats", Kind: engine.StringList, Enum: []string{"digital", "vinyl", "cd", "cassette"}, Default: []string{"digital"}, Min: engine.Bound(1), Description: "Release formats."},
			{Name: "budget_usd", Kind: engine.Number, Min: engine.Bound(0), Description: "Total marketing budget in US dollars."},
		},
		ExampleContext: map[string]any{
			"artist":       "Nova Reyes",
			"genre":        "indie pop",
			"release_date": "2027-03-05",
			"release_type": "ep",
			"formats":      []any{"digital", "vinyl"},
			"budget_usd":   5000,
			"as_of":        "2026-11-20",
		},
		Steps: []engine.Step{
			{Name: "check-release-date", Run: releaseCheckDate},
			{Name: "schedule", Run: releaseSchedule},
			{Name: "budget", Run: releaseBudget},
			{Name: "recommend", Run: releaseRecommend},
		},
	})
}

func releaseCheckDate(in *engine.Input, p *engine.Plan) error {
	asked := in.Date("release_date")
	release := asked
	if asked.Weekday() != time.Friday {
		release = engine.OnOrAfter(asked, time.Friday)
		p.Warn("RELEASE_NOT_FRIDAY", "%s is a %s; releases go out on Global Release Day, Friday 00:01 local time: plan for Friday %s instead.",
			engine.FormatDate(asked), asked.Weekday(), engine.FormatDate(release))
	}
	p.SetTarget(release)
	p.Set("release_date", engine.FormatDate(release))
	p.Set("requested_release_date", engine.FormatDate(asked))

	days := engine.DaysBetween(p.AsOf(), release)
	p.Set("days_until_release", days)
	switch {
	case days < 0:
		p.Warn("RELEASE_DATE_PASSED", "The release date %s is before the plan date %s.", engine.FormatDate(release), engine.FormatDate(p.AsOf()))
	case days < 7:
		p.Warn("PITCH_WINDOW_MISSED", "Only %d days to release: Spotify editorial pitches need at least 7 days, so this release cannot be pitched or reach Release Radar through a pitch.", days)
	}
	if days >= 0 && days < 21 {
		earliest := engine.OnOrAfter(engine.AddDays(p.AsOf(), 21), time.Friday)
		p.Warn("DISTRIBUTOR_LEAD_TIME", "Distributors need the release 21–28 days before release day; %d days is too close. The earliest comfortable Friday is %s.", days, engine.FormatDate(earliest))
		p.Set("earliest_feasible_release_date", engine.FormatDate(earliest))
	}
	if hasFormat(in, "vinyl") && days < 8*7 {
		vinyl := engine.OnOrAfter(engine.AddWeeks(p.AsOf(), 10), time.Friday)
		p.Warn("VINYL_LEAD_TIME", "Vinyl pressing takes 8–10+ weeks; release digital on %s and the vinyl on %s or later.", engine.FormatDate(release), engine.FormatDate(vinyl))
		p.Set("vinyl_release_date", engine.FormatDate(vinyl))
	}
	return nil
}

func releaseSchedule(in *engine.Input, p *engine.Plan) error {
	release, _ := engine.ParseDate(p.Get("release_date").(string))
	kind := in.Str("release_type")
	delivery := engine.PrevWorkday(engine.AddDays(release, -28))
	pitch := engine.AddDays(release, -21)
	pitchDeadline := engine.AddDays(release, -7)
	presaveWeeks := 3
	if kind == "album" {
		presaveWeeks = 4
	}
	presave := engine.AddWeeks(release, -presaveWeeks)
	p.Set("presave_opens", engine.FormatDate(presave))

	if kind != "single" {
		// Albums and EPs are carried by focus tracks released ahead of them,
		// each on its own Friday, so every one gets a Release Radar slot.
		singles := 1
		if kind == "album" {
			singles = 2
		}
		for i := singles; i >= 1; i-- {
			d := engine.AddWeeks(release, -4*i)
			p.Milestone(fmt.Sprintf("focus-track-%d", singles-i+1), fmt.Sprintf("Focus track %d released (Friday)", singles-i+1), d)
		}
		delivery = engine.PrevWorkday(engine.AddWeeks(release, -4*singles-4))
	}
	if hasFormat(in, "vinyl") {
		lacquers := engine.PrevWorkday(engine.AddWeeks(release, -10))
		if v, ok := p.Get("vinyl_release_date").(string); ok {
			vd, _ := engine.ParseDate(v)
			lacquers = engine.PrevWorkday(engine.AddWeeks(vd, -10))
		}
		p.Milestone("vinyl-masters", "Vinyl masters and artwork to the pressing plant", lacquers)
	}
	p.Milestone("artwork-metadata", "Final artwork, credits, ISRCs and metadata locked", engine.AddDays(delivery, -7))
	p.Milestone("distributor-delivery", "Audio and metadata delivered to the distributor", delivery)
	p.Milestone("announce", "Release announced", engine.AddDays(presave, -1))
	p.Milestone("presave-opens", "Pre-save campaign opens", presave)
	p.Milestone("editorial-pitch", "Spotify editorial pitch submitted", pitch)
	p.Milestone("pitch-deadline", "Last day for the editorial pitch (7 days out)", pitchDeadline)
	p.Milestone("release-day", "Release day, Friday 00:01 local time", release)
	p.Milestone("week-one-review", "First-week review: saves, playlist adds, Release Radar reach", engine.AddDays(release, 7))
	// Not p.WarnPassedMilestones: that message also gives the days overdue,
	// and switching would change this workflow's published warning text.
	for _, m := range p.Milestones() {
		if m.Date.Before(p.AsOf()) && m.Key != "week-one-review" {
			p.Warn("MILESTONE_PASSED", "%s was due %s, before the plan date.", m.Title, engine.FormatDate(m.Date))
		}
	}
	p.Set("editorial_pitch_deadline", engine.FormatDate(pitchDeadline))
	return nil
}

// The split follows what independent release budgets commonly spend:
// most on paid promotion and PR, a share on content, and a reserve.
func releaseBudget(in *engine.Input, p *engine.Plan) error {
	if !in.Has("budget_usd") {
		return nil
	}
	b := in.Float("budget_usd")
	split := map[string]float64{
		"paid_ads":       engine.Money(b * 0.35),
		"pr_playlisting": engine.Money(b * 0.25),
		"content":        engine.Money(b * 0.25),
		"contingency":    engine.Money(b * 0.15),
	}
	p.Set("budget", map[string]any{"total_usd": engine.Money(b), "split_usd": split})
	if b < 500 {
		p.Warn("BUDGET_LOW", "A budget of $%.2f covers little paid promotion; lean on the editorial pitch, pre-save and organic content.", b)
	}
	return nil
}

func releaseRecommend(in *engine.Input, p *engine.Plan) error {
	release, _ := engine.ParseDate(p.Get("release_date").(string))
	artist, genre, kind := in.Str("artist"), in.Str("genre"), in.Str("release_type")
	days := p.Get("days_until_release").(int)
	if days >= 7 {
		due := engine.Later(p.AsOf(), engine.AddDays(release, -21))
		p.RecommendBy(engine.High, due, "Pitch to Spotify editorial",
			fmt.Sprintf("Pitch one unreleased track from Spotify for Artists with genre %q, mood and instrumentation filled in; it must be in by %s (7 days out) to reach followers' Release Radar.", genre, p.Get("editorial_pitch_deadline")))
	}
	p.RecommendBy(engine.High, engine.PrevWorkday(engine.AddDays(release, -28)), "Deliver to your distributor early",
		"Deliver 21–28 days before release so stores ingest it, the release appears in Spotify for Artists for pitching, and pre-save links work.")
	presave, _ := engine.ParseDate(p.Get("presave_opens").(string))
	p.RecommendBy(engine.Medium, presave, "Run a pre-save campaign",
		"Open pre-saves 2–4 weeks before release and point every announcement at one smart link.")
	if kind != "single" {
		p.Recommend(engine.Medium, "Lead with focus tracks",
			fmt.Sprintf("Release focus tracks four weeks apart on Fridays before the %s so each gets its own Release Radar and playlist cycle.", kind))
	}
	if hasFormat(in, "vinyl") {
		p.Recommend(engine.Medium, "Book vinyl pressing now", "Pressing plants quote 8–10+ weeks from approved test pressings; sell the vinyl as a pre-order if it arrives after release day.")
	}
	p.Recommend(engine.Low, "Plan week-one content", "Schedule short-form video and a behind-the-scenes post for release week; engagement in the first week feeds algorithmic playlists.")
	p.Strategy("Release %s's %s %s on Friday %s: deliver to the distributor by %s, pitch Spotify editorial by %s, and open pre-saves %s, building towards release week.",
		artist, genre, kind, engine.FormatDate(release),
		engine.FormatDate(engine.PrevWorkday(engine.AddDays(release, -28))), p.Get("editorial_pitch_deadline"), p.Get("presave_opens"))
	return nil
}

func hasFormat(in *engine.Input, f string) bool {
	for _, v := range in.Strings("formats") {
		if strings.EqualFold(v, f) {
			return true
		}
	}
	return false
}
