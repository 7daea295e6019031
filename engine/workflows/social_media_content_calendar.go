package workflows

import (
	"fmt"
	"maps"
	"math"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/creativeops/creativeops/engine"
)

// Content calendar for a social campaign, sized to the hours a creator has.
// Rules used:
//   - Posting cadence per week, minimum and target, from platform guidance
//     and commonly cited creator practice: Instagram 3–5 (Reels and feed),
//     TikTok 3–7 (TikTok suggests up to several a day), YouTube Shorts 2–4,
//     LinkedIn 2–3, X 5–14 (one or two a day), Threads 3–7.
//   - Production time per original post: short vertical video about 2 hours
//     (idea, shoot, edit, caption), a LinkedIn post 45 minutes, a post on X
//     or Threads 15 minutes. One vertical video is cut once and reposted
//     natively to the other short-video platforms at 15 minutes each.
//   - Creators batch a week's content in one session before the week starts.
//   - A launch is teased for two weeks before it (standard launch practice).
func init() {
	engine.Register(&engine.Workflow{
		ID:           "social-media-content-calendar",
		Name:         "Campaign content calendar",
		Vertical:     "social-media",
		Jurisdiction: []engine.Area{engine.AreaAdvertising},
		PastDate:     engine.PastDate{Field: "campaign_start", Policy: engine.PastReplan},
		Description:  "Sets a weekly posting cadence per platform that fits the creator's production hours (repurposing vertical video across platforms), with weekly batch sessions, a teaser and launch phase, total posts, and warnings when even the minimum cadence does not fit. A campaign whose first batch session has passed is re-planned to start the day after the next session.",
		Fields: []engine.Field{
			engine.RegionField(),
			{Name: "campaign_start", Kind: engine.Date, Required: true, Description: "First day of posting."},
			{Name: "weeks", Kind: engine.Integer, Default: 4, Min: engine.Bound(1), Max: engine.Bound(26), Description: "Length of the campaign in weeks."},
			{Name: "platforms", Kind: engine.StringList, Required: true, Min: engine.Bound(1), Enum: []string{"instagram", "tiktok", "youtube-shorts", "linkedin", "x", "threads"}, Description: "Platforms to post on."},
			{Name: "hours_per_week", Kind: engine.Number, Default: 10, Min: engine.Bound(1), Max: engine.Bound(80), Description: "Hours a week available for making content."},
			{Name: "launch_date", Kind: engine.Date, Description: "A launch inside the campaign (product, release, event), if any."},
			{Name: "batch_day", Kind: engine.String, Enum: []string{"monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday"}, Default: "sunday", Description: "Day of the week for the batch production session."},
		},
		ExampleContext: map[string]any{
			"campaign_start": "2027-01-04",
			"weeks":          6,
			"platforms":      []any{"instagram", "tiktok", "youtube-shorts", "linkedin"},
			"hours_per_week": 9,
			"launch_date":    "2027-01-26",
			"batch_day":      "sunday",
			"as_of":          "2026-11-20",
		},
		Sources: []engine.Source{
			{Title: "Sprout Social: how often to post on each platform", URL: "https://sproutsocial.com/insights/how-often-to-post-on-social-media/", Checked: "2026-11"},
		},
		Steps: []engine.Step{
			{Name: "cadence", Run: socialCalCadence},
			{Name: "schedule", Run: socialCalSchedule},
			{Name: "recommend", Run: socialCalRecommend},
		},
	})
}

type socialCadence struct {
	min, target int
	video       bool
	hours       float64 // per original post
}

var socialCadences = map[string]socialCadence{
	"instagram":      {3, 5, true, 2},
	"tiktok":         {3, 7, true, 2},
	"youtube-shorts": {2, 4, true, 2},
	"linkedin":       {2, 3, false, 0.75},
	"x":              {5, 14, false, 0.25},
	"threads":        {3, 7, false, 0.25},
}

const socialRepostHours = 0.25

// socialCalHours is the weekly production time for a cadence: the busiest
// video platform's posts are made from scratch, the other video platforms
// repost them.
func socialCalHours(posts map[string]int) float64 {
	originals, videoPosts := 0, 0
	var hours float64
	for _, pl := range slices.Sorted(maps.Keys(posts)) {
		n, c := posts[pl], socialCadences[pl]
		if c.video {
			originals = max(originals, n)
			videoPosts += n
			continue
		}
		hours += float64(n) * c.hours
	}
	return hours + float64(originals)*2 + float64(videoPosts-originals)*socialRepostHours
}

func socialCalCadence(in *engine.Input, p *engine.Plan) error {
	platforms := in.Strings("platforms")
	sort.Strings(platforms)
	avail := in.Float("hours_per_week")
	at := func(pick func(socialCadence) int) map[string]int {
		m := map[string]int{}
		for _, pl := range platforms {
			m[pl] = pick(socialCadences[pl])
		}
		return m
	}
	level := "target"
	posts := at(func(c socialCadence) int { return c.target })
	if socialCalHours(posts) > avail {
		level = "minimum"
		posts = at(func(c socialCadence) int { return c.min })
	}
	if need := socialCalHours(posts); need > avail {
		level = "reduced"
		f := avail / need
		posts = at(func(c socialCadence) int { return max(1, int(math.Floor(float64(c.min)*f))) })
		p.Warn("OVER_CAPACITY", "Even the minimum cadence on %s takes %.1f hours a week against %.1f available; the plan drops below the minimum (%.1f hours), so consider fewer platforms.",
			engine.Plural(len(platforms), "platform", "platforms"), need, avail, socialCalHours(posts))
	}
	hours := socialCalHours(posts)
	perWeek := 0
	for _, n := range posts {
		perWeek += n
	}
	p.Set("cadence_level", level)
	p.Set("posts_per_week", posts)
	p.Set("hours_per_week_needed", engine.Round(hours, 2))
	p.Set("total_posts", perWeek*in.Int("weeks"))
	return nil
}

func socialCalSchedule(in *engine.Input, p *engine.Plan) error {
	requested, asOf := in.Date("campaign_start"), p.AsOf()
	weeks := in.Int("weeks")
	batchDay := socialWeekday(in.Str("batch_day"))
	// The first week is made in a batch session before it starts; a start
	// whose session has passed moves to the day after the next session.
	start := requested
	if first := engine.OnOrBefore(engine.AddDays(start, -1), batchDay); first.Before(asOf) {
		start = engine.AddDays(engine.OnOrAfter(asOf, batchDay), 1)
		why := fmt.Sprintf("The first batch session (%s) is before the plan date; starting %s would leave the first week unprepared.", engine.FormatDate(first), engine.FormatDate(requested))
		p.Warn("FIRST_BATCH_PASSED", "%s Earliest start after a batch session: %s.", why, engine.FormatDate(start))
		p.Replanned(requested, start, why)
		p.Set("earliest_feasible_start_date", engine.FormatDate(start))
	}
	end := engine.AddDays(engine.AddWeeks(start, weeks), -1)
	p.SetTarget(start)
	p.Set("campaign_start", engine.FormatDate(start))
	var batches []string
	for k := 0; k < weeks; k++ {
		batches = append(batches, engine.FormatDate(engine.OnOrBefore(engine.AddDays(engine.AddWeeks(start, k), -1), batchDay)))
	}
	p.SetSchedule("batch_sessions", "the weekly batch production sessions", batches)
	p.Set("campaign_end", engine.FormatDate(end))
	first, _ := engine.ParseDate(batches[0])
	p.Work("first-batch", "First batch production session", first)
	p.Event("campaign-start", "Campaign starts", start, "the campaign's posting schedule")
	p.DependsOn("campaign-start", "first-batch")
	if in.Has("launch_date") {
		launch := in.Date("launch_date")
		if launch.Before(start) || launch.After(end) {
			p.Warn("LAUNCH_OUTSIDE_CAMPAIGN", "The launch on %s is outside the campaign (%s to %s); the teaser and launch posts will not be covered.",
				engine.FormatDate(launch), engine.FormatDate(start), engine.FormatDate(end))
		} else {
			teaser := engine.Later(start, engine.AddDays(launch, -14))
			p.Set("teaser_days", engine.DaysBetween(teaser, launch))
			p.Event("teaser-start", "Teaser phase begins", teaser, "the campaign's posting schedule")
			p.Event("launch", "Launch day: post on every platform", launch, "the launch day the plan is built on")
			if engine.InDeadWeek(launch) {
				better := engine.OnOrAfter(time.Date(launch.Year()+map[bool]int{true: 1, false: 0}[launch.Month() == time.December], time.January, 2, 0, 0, 0, 0, time.UTC), launch.Weekday())
				p.Warn("LAUNCH_IN_DEAD_WEEK", "The launch on %s falls in the 24 December–1 January dead week, when audiences travel and brands and press are away; launch on %s instead.", engine.FormatDate(launch), engine.FormatDate(better))
				p.Set("better_launch_date", p.Label("launch clear of the dead week", better))
			}
		}
	}
	if weeks >= 4 {
		p.Work("mid-review", "Mid-campaign review: keep what performs, drop what does not", engine.AddWeeks(start, weeks/2))
	}
	p.Event("campaign-end", "Campaign ends", end, "the campaign's posting schedule")
	p.Handover(engine.KindDeliverable, "wrap-report", "Wrap report: reach, follows, clicks per platform", engine.AddDays(end, 7))
	return nil
}

func socialWeekday(s string) time.Weekday {
	for d := time.Sunday; d <= time.Saturday; d++ {
		if strings.EqualFold(d.String(), s) {
			return d
		}
	}
	return time.Sunday
}

func socialCalRecommend(in *engine.Input, p *engine.Plan) error {
	posts := p.Get("posts_per_week").(map[string]int)
	var parts []string
	for _, pl := range in.Strings("platforms") {
		parts = append(parts, fmt.Sprintf("%s %d", pl, posts[pl]))
	}
	sort.Strings(parts)
	batches := p.Get("batch_sessions").([]string)
	p.RecommendOn(engine.High, "first-batch", "Batch the first week",
		fmt.Sprintf("Block %s on %s for the first week's posts, then the same slot every week (%s).", amountOf(p.Get("hours_per_week_needed").(float64), "hour", "hours"), p.Ref("first-batch"), engine.Plural(len(batches), "session", "sessions")))
	video := 0
	for _, pl := range in.Strings("platforms") {
		if socialCadences[pl].video {
			video++
		}
	}
	if video > 1 {
		p.Recommend(engine.Medium, "Film once, post natively everywhere", "Export each vertical video without watermarks and upload it natively to each short-video platform with its own caption and sound; cross-posted watermarks are down-ranked.")
	}
	if in.Has("launch_date") && p.Get("teaser_days") != nil {
		p.RecommendOn(engine.High, "launch", "Plan launch-day posts", "Post on every platform on launch day and the day after, with the link in bio and stories pointing to it.")
	}
	p.Recommend(engine.Medium, "Label sponsored posts", "Any post made for a brand (paid, gifted or affiliate) carries the platform's paid-partnership label and an ad label up front. "+disclosureRule(in, p))
	p.Recommend(engine.Low, "Review at mid-point", "Compare saves, shares and follows per post by platform and move hours to what works.")
	p.Strategy("Post %s a week (%s cadence, %g of %s a week), %s over %s from %s to %s, batched on %ss.",
		strings.Join(parts, ", "), p.Get("cadence_level"), p.Get("hours_per_week_needed"), amountOf(in.Float("hours_per_week"), "hour", "hours"), engine.Plural(p.Get("total_posts").(int), "post", "posts"), engine.Plural(in.Int("weeks"), "week", "weeks"),
		p.Get("campaign_start"), p.Get("campaign_end"), in.Str("batch_day"))
	return nil
}
