package workflows

import (
	"fmt"
	"math"
	"strings"
	"time"

	"github.com/creativeops/creativeops/engine"
)

// Webcomic serialisation plan: the buffer to launch with, when the buffer
// runs out at the chosen update schedule, and when each collected print
// volume is complete online.
// Rules used:
//   - Launch with a buffer: creators and platforms (WEBTOON Canvas, Tapas
//     creator guides) advise 8–12 weeks of finished updates in hand; we aim
//     for 10 weeks after the launch drop.
//   - Launch with about three updates at once so new readers have enough to
//     subscribe to (common WEBTOON/Tapas launch advice).
//   - A schedule is sustainable only if production keeps up with it: when
//     pages per week posted exceed pages per week drawn, the buffer drains
//     at the difference, and a missed update costs readers.
//   - Print collections gather a fixed number of pages; file preparation
//     (cover, extras, corrections, print files) takes about 6 weeks after
//     the last page of a volume is online.
//   - Re-planning: a launch date already past is re-planned on the plan
//     date; a launch without the 10-week buffer is re-planned on the first
//     update day with a full buffer; a launch in the 24 December–1 January
//     week (readers and platform features are away) moves a week at a time,
//     on the same update weekday, until it is out of it. The requested date
//     is reported beside the feasible one. Print files are a hand-over to
//     the printer, kept on working days of the creator's country.
func init() {
	engine.Register(&engine.Workflow{
		ID:          "comics-webcomic-launch",
		Name:        "Webcomic launch and buffer plan",
		Vertical:    "comics",
		PastDate:    engine.PastDate{Field: "launch_date", Policy: engine.PastReplan},
		Description: "Plans a webcomic launch: buffer at launch, whether production keeps up with the update schedule, the date the buffer runs out, when each collected volume is complete online and when the story ends, with the earliest launch that has a full buffer. A launch already past, without the 10-week buffer or in the 24 December–1 January week is re-planned on the first update day that works.",
		Fields: []engine.Field{
			{Name: "launch_date", Kind: engine.Date, Required: true, Description: "First update; later updates fall on the same weekday."},
			{Name: "pages_per_week", Kind: engine.Number, Default: 2, Min: engine.Bound(0.5), Max: engine.Bound(14), Description: "Pages posted per week once launched."},
			{Name: "production_pages_per_week", Kind: engine.Number, Required: true, Min: engine.Bound(0.1), Max: engine.Bound(20), Description: "Finished pages you (or the team) produce per week."},
			{Name: "buffer_pages", Kind: engine.Integer, Default: 0, Min: engine.Bound(0), Max: engine.Bound(5000), Description: "Finished pages already in hand."},
			{Name: "story_pages", Kind: engine.Integer, Required: true, Min: engine.Bound(10), Max: engine.Bound(5000), Description: "Pages in the story (or first arc)."},
			{Name: "volume_pages", Kind: engine.Integer, Default: 120, Min: engine.Bound(24), Max: engine.Bound(400), Description: "Pages per collected print volume."},
			engine.RegionField(),
		},
		Sources: []engine.Source{
			{Title: "WEBTOON CANVAS Creators 101: keeping a buffer and an update schedule", URL: "https://www.webtoons.com/en/creators101/webtoon-canvas", Checked: "2026-11"},
			{Title: "Tapas Creator Guide: launching a series with several episodes", URL: "https://tapas.io/creators", Checked: "2026-11"},
		},
		ExampleContext: map[string]any{
			"launch_date":               "2027-03-01",
			"pages_per_week":            2,
			"production_pages_per_week": 1.5,
			"buffer_pages":              12,
			"story_pages":               300,
			"volume_pages":              120,
			"as_of":                     "2026-11-20",
		},
		Steps: []engine.Step{
			{Name: "buffer", Run: coWebBuffer},
			{Name: "burn-down", Run: coWebBurn},
			{Name: "volumes", Run: coWebVolumes},
			{Name: "recommend", Run: coWebRecommend},
		},
	})
}

const (
	coWebLaunchWeeks = 3  // updates posted on launch day
	coWebTargetWeeks = 10 // buffer kept after the launch drop
)

// coWebLaunch is the launch day actually planned (see coWebBuffer).
func coWebLaunch(_ *engine.Input, p *engine.Plan) time.Time { return p.GetDate("launch_date") }

// coWebPages renders a page rate: "1 page", "1.5 pages", "0 pages".
func coWebPages(n float64) string {
	if n == 1 {
		return "1 page"
	}
	return fmt.Sprintf("%g pages", n)
}

// coWebBufferAt is the buffer at a launch date: pages in hand, the launch
// drop, and the pages left after it.
func coWebBufferAt(in *engine.Input, p *engine.Plan, launch time.Time) (atLaunch, dump, after int) {
	prod, story := in.Float("production_pages_per_week"), in.Int("story_pages")
	weeks := float64(engine.DaysBetween(p.AsOf(), launch)) / 7
	atLaunch = min(in.Int("buffer_pages")+int(math.Floor(engine.Round(prod*weeks, 6))), story)
	dump = min(studioCeil(coWebLaunchWeeks*in.Float("pages_per_week")), story)
	return atLaunch, dump, atLaunch - dump
}

// coWebPostDate is the day page n goes online: on the update schedule, but
// never before the page can be drawn.
func coWebPostDate(in *engine.Input, p *engine.Plan, n int) time.Time {
	launch := coWebLaunch(in, p)
	ppw, prod := in.Float("pages_per_week"), in.Float("production_pages_per_week")
	dump := min(studioCeil(coWebLaunchWeeks*ppw), in.Int("story_pages"))
	post := launch
	if n > dump {
		post = engine.AddWeeks(launch, studioCeil(float64(n-dump)/ppw))
	}
	if extra := n - in.Int("buffer_pages"); extra > 0 {
		drawn := engine.OnOrAfter(engine.AddDays(p.AsOf(), studioCeil(float64(extra)/prod*7)), launch.Weekday())
		post = engine.Later(drawn, post)
	}
	return post
}

func coWebBuffer(in *engine.Input, p *engine.Plan) error {
	requested := in.Date("launch_date")
	launch := requested
	var why []string
	if launch.Before(p.AsOf()) {
		p.Warn("LAUNCH_DATE_PASSED", "The launch date %s is before the plan date %s; the plan launches today.", engine.FormatDate(launch), engine.FormatDate(p.AsOf()))
		launch = p.AsOf()
		why = append(why, "The launch date has passed.")
	}
	ppw, prod, story := in.Float("pages_per_week"), in.Float("production_pages_per_week"), in.Int("story_pages")
	target := studioCeil(coWebTargetWeeks * ppw)
	atLaunch, dump, after := coWebBufferAt(in, p, launch)
	if after < target && story-dump > after {
		w := studioCeil(float64(dump+target-in.Int("buffer_pages")) / prod)
		earliest := engine.OnOrAfter(engine.AddWeeks(p.AsOf(), w), launch.Weekday())
		p.Warn("BUFFER_BELOW_TARGET", "At %s you would have %s; after the %d-page launch drop that leaves %d, under the %d-page (10-week) buffer. The plan launches on %s %s, with a full buffer.",
			engine.FormatDate(launch), engine.Plural(atLaunch, "page", "pages"), dump, after, target, earliest.Weekday(), engine.FormatDate(earliest))
		p.Set("earliest_full_buffer_launch_date", p.Label("earliest launch with a full buffer", earliest))
		launch = earliest
		why = append(why, "A launch without a 10-week buffer misses updates once production falls behind.")
	}
	if engine.InDeadWeek(launch) {
		better := launch
		for engine.InDeadWeek(better) {
			better = engine.AddWeeks(better, 1)
		}
		p.Warn("LAUNCH_IN_DEAD_WEEK", "A launch on %s falls in the 24 December–1 January week, when readers are away and platforms feature nothing new; launch on %s instead.",
			engine.FormatDate(launch), engine.FormatDate(better))
		launch = better
		why = append(why, "The launch fell in the dead week.")
	}
	if !launch.Equal(requested) {
		p.Replanned(requested, launch, strings.Join(why, " "))
	}
	p.Set("launch_date", engine.FormatDate(launch))
	p.SetTarget(launch)
	atLaunch, dump, after = coWebBufferAt(in, p, launch)
	p.Set("buffer", map[string]any{
		"pages_at_launch":           atLaunch,
		"launch_drop_pages":         dump,
		"pages_after_launch":        after,
		"target_pages":              target,
		"weeks_of_buffer":           engine.Round(float64(max(after, 0))/ppw, 1),
		"pages_drawn_before_launch": atLaunch - in.Int("buffer_pages"),
	})
	p.Event("launch", fmt.Sprintf("Launch: first %s online", engine.Plural(dump, "page", "pages")), launch, "the launch day the plan is built on")
	p.Work("launch-prep", "Banner, thumbnail, synopsis and first pages uploaded as drafts", engine.Later(p.AsOf(), engine.AddDays(launch, -7)))
	p.DependsOn("launch", "launch-prep")
	return nil
}

func coWebBurn(in *engine.Input, p *engine.Plan) error {
	launch := coWebLaunch(in, p)
	ppw, prod := in.Float("pages_per_week"), in.Float("production_pages_per_week")
	b := p.Get("buffer").(map[string]any)
	after := b["pages_after_launch"].(int)
	drain := ppw - prod
	sustainable := math.Floor(prod*2) / 2
	p.Set("sustainable_pages_per_week", sustainable)
	if drain <= 0 {
		p.Set("buffer_empty_date", nil)
		return nil
	}
	postingWeeks := float64(in.Int("story_pages")-b["launch_drop_pages"].(int)) / ppw
	weeksLeft := math.Max(float64(after), 0) / drain
	if weeksLeft >= postingWeeks {
		p.Set("buffer_empty_date", nil)
		return nil
	}
	empty := engine.AddWeeks(launch, int(math.Floor(weeksLeft)))
	p.Set("buffer_empty_date", p.Ref("buffer-empty"))
	p.Event("buffer-empty", "Buffer runs out: updates slip to production pace", empty, "an update day of the posting schedule")
	p.Handover(engine.KindAnnounce, "announce-change", "Schedule change or hiatus announced to readers", engine.Later(p.AsOf(), engine.AddWeeks(empty, -4)))
	p.Warn("BUFFER_RUNS_OUT", "Posting %s a week while drawing %g drains the buffer by %g a week: the %s left after launch run out on %s. Post %s a week, or plan a hiatus before then.",
		coWebPages(ppw), prod, drain, engine.Plural(max(after, 0), "page", "pages"), p.Ref("buffer-empty"), coWebPages(sustainable))
	return nil
}

func coWebVolumes(in *engine.Input, p *engine.Plan) error {
	story, vol := in.Int("story_pages"), in.Int("volume_pages")
	n := (story + vol - 1) / vol
	var volumes []map[string]any
	for i := 1; i <= n; i++ {
		last := min(i*vol, story)
		online := coWebPostDate(in, p, last)
		ready := engine.AddWeeks(online, 6)
		volumes = append(volumes, map[string]any{"volume": i, "pages": fmt.Sprintf("%d–%d", (i-1)*vol+1, last), "complete_online": engine.FormatDate(online), "print_files_ready": engine.FormatDate(ready)})
		if i == 1 {
			volumes[0]["complete_online"], volumes[0]["print_files_ready"] = p.Ref("volume-1-online"), p.Ref("volume-1-print-ready")
			p.Event("volume-1-online", "Volume 1 complete online", online, "an update day of the posting schedule")
			p.Deliverable("volume-1-print-ready", "Volume 1 print files ready (cover, extras, corrections)", ready, in.Region())
			p.DependsOn("volume-1-online", "launch")
			p.DependsOn("volume-1-print-ready", "volume-1-online")
		}
	}
	end := coWebPostDate(in, p, story)
	p.SetSchedule("volumes", "when each volume is complete online and its print files are ready", volumes)
	p.Set("story_complete_date", p.Ref("volume-1-online"))
	if n > 1 {
		p.Event("story-complete", "Final page online", end, "an update day of the posting schedule")
		p.Set("story_complete_date", p.Ref("story-complete"))
		p.DependsOn("story-complete", "volume-1-online")
	}
	return nil
}

func coWebRecommend(in *engine.Input, p *engine.Plan) error {
	launch := coWebLaunch(in, p)
	b := p.Get("buffer").(map[string]any)
	p.RecommendOn(engine.High, "launch-prep", "Queue the launch drop",
		fmt.Sprintf("Upload the first %d pages and schedule the next updates before launch day; keep the update weekday fixed (%s).", b["launch_drop_pages"], launch.Weekday()))
	if empty, ok := p.Get("buffer_empty_date").(string); ok {
		p.RecommendOn(engine.High, "announce-change", "Announce a schedule change before the buffer ends",
			fmt.Sprintf("Drop to %s a week or announce a planned hiatus a month before %s; readers forgive a planned break, not silence.", coWebPages(p.Get("sustainable_pages_per_week").(float64)), empty))
	}
	p.Recommend(engine.Medium, "Draw volume extras as you go", "Sketches, pin-ups and a short bonus story make the print collection worth buying for readers who followed online.")
	p.Recommend(engine.Low, "Track reader retention per chapter", "Check subscribers and drop-off after each chapter; adjust pacing before the collected volume is laid out.")
	empty := "production keeps up with the schedule"
	if e, ok := p.Get("buffer_empty_date").(string); ok {
		empty = "the buffer runs out on " + e
	}
	p.Strategy("Launch on %s with %s in hand (%d in the launch drop, %g weeks of buffer after it) at %s a week; %s, volume 1 is complete online on %s and the story on %s.",
		p.Ref("launch"), engine.Plural(b["pages_at_launch"].(int), "page", "pages"), b["launch_drop_pages"], b["weeks_of_buffer"], coWebPages(in.Float("pages_per_week")), empty,
		p.Get("volumes").([]map[string]any)[0]["complete_online"], p.Get("story_complete_date"))
	return nil
}
