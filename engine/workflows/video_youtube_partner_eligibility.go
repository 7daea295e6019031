package workflows

import (
	"fmt"
	"math"

	"github.com/creativeops/creativeops/engine"
)

// YouTube Partner Program eligibility projection. Rules used (YouTube Help,
// "YouTube Partner Program overview & eligibility", thresholds since June
// 2023):
//   - Ad revenue sharing: 1,000 subscribers and either 4,000 valid public
//     watch hours in the last 12 months or 10 million valid public Shorts
//     views in the last 90 days.
//   - Fan funding (memberships, Super Thanks) opens earlier, where
//     available: 500 subscribers, 3 public uploads in the last 90 days, and
//     either 3,000 watch hours in 12 months or 3 million Shorts views in 90
//     days.
//   - After applying, YouTube's review usually takes about a month.
//   - Watch hours and Shorts views are trailing windows: "the last 12
//     months" is the last 365 days, "the last 90 days" is 90 days. A day
//     from the window's far end ages out as each new day comes in, so with
//     the current total earned evenly over its window (the steady-rate
//     model; a channel whose back catalogue keeps being watched does
//     better), after t days the 12-month total is
//     W(t) = W0 × (365 − t) / 365 + (daily rate) × t   for t ≤ 365
//     and (daily rate) × 365 from then on: it moves in a straight line from
//     today's total to 12 months of the new pace, not by losing a twelfth
//     of itself each month. The same holds for the 90-day Shorts total.
//     Projected by day, so the date is the day the line is crossed.
//
// Source: YouTube Help, "YouTube Partner Program overview & eligibility",
// https://support.google.com/youtube/answer/72851 (checked 2026-11).
func init() {
	engine.Register(&engine.Workflow{
		ID:                 "video-youtube-partner-eligibility",
		Name:               "YouTube Partner Program eligibility",
		Vertical:           "video",
		CountryIndependent: "The YouTube Partner Program thresholds are the same in every country where the program is available.",
		PastDate:           engine.PastDate{Policy: engine.PastNotApplicable},
		Description:        "Projects a channel's subscribers, rolling 12-month watch hours and 90-day Shorts views day by day (trailing 365- and 90-day windows) to the dates it qualifies for YouTube fan funding and for ad revenue sharing, with the monthly rates needed when the current pace never gets there. Nothing is dated before the plan date.",
		Fields: []engine.Field{
			{Name: "subscribers", Kind: engine.Integer, Required: true, Min: engine.Bound(0), Max: engine.Bound(1e9), Description: "Subscribers today (0 to 1,000,000,000)."},
			{Name: "subscribers_per_month", Kind: engine.Integer, Default: 0, Min: engine.Bound(0), Max: engine.Bound(1e8), Description: "Net new subscribers per month at the current pace (0 to 100,000,000)."},
			{Name: "watch_hours_12mo", Kind: engine.Number, Default: 0, Min: engine.Bound(0), Max: engine.Bound(1e10), Description: "Public long-form watch hours in the last 12 months (YouTube Studio; 0 to 10,000,000,000)."},
			{Name: "watch_hours_per_month", Kind: engine.Number, Default: 0, Min: engine.Bound(0), Max: engine.Bound(1e9), Description: "Public long-form watch hours gained per month at the current pace (0 to 1,000,000,000)."},
			{Name: "shorts_views_90d", Kind: engine.Integer, Default: 0, Min: engine.Bound(0), Max: engine.Bound(1e12), Description: "Public Shorts views in the last 90 days (0 to 1,000,000,000,000)."},
			{Name: "shorts_views_per_month", Kind: engine.Integer, Default: 0, Min: engine.Bound(0), Max: engine.Bound(1e12), Description: "Shorts views per month at the current pace (0 to 1,000,000,000,000)."},
			{Name: "uploads_last_90_days", Kind: engine.Integer, Default: 0, Min: engine.Bound(0), Max: engine.Bound(10000), Description: "Public uploads in the last 90 days (0 to 10,000)."},
		},
		ExampleContext: map[string]any{
			"subscribers":            640,
			"subscribers_per_month":  60,
			"watch_hours_12mo":       2100,
			"watch_hours_per_month":  400,
			"shorts_views_90d":       400000,
			"shorts_views_per_month": 150000,
			"uploads_last_90_days":   6,
			"as_of":                  "2026-11-20",
		},
		Sources: []engine.Source{
			{Title: "YouTube Help: YouTube Partner Program overview & eligibility (1,000 subscribers; 4,000 watch hours in 12 months or 10M Shorts views in 90 days; 500/3,000/3M for fan funding)", URL: "https://support.google.com/youtube/answer/72851", Checked: "2026-11"},
		},
		Steps: []engine.Step{
			{Name: "project", Run: videoYPPProject},
			{Name: "gaps", Run: videoYPPGaps},
			{Name: "recommend", Run: videoYPPRecommend},
		},
	})
}

const (
	videoYPPHorizonDays = 36 * 365 / 12 // project three years ahead
	videoYPPReviewDays  = 30
	videoYPPSubs        = 1000
	videoYPPWatchHours  = 4000.0
	videoYPPShortsViews = 10_000_000.0
	videoFanSubs        = 500
	videoFanUploads     = 3
	videoFanWatchHours  = 3000.0
	videoFanShortsViews = 3_000_000.0
	videoWatchWindow    = 365 // days in "the last 12 months"
	videoShortsWindow   = 90  // days in "the last 90 days"
	videoDaysPerMonth   = 365.0 / 12
)

type videoYPPDay struct {
	subs               int
	watchHours, shorts float64
}

// videoTrailing is a trailing-window total t days from now: the total
// today, earned evenly over a window of the given days, loses the days that
// age out while the new pace fills the window.
func videoTrailing(total, perDay float64, window, t int) float64 {
	if t >= window {
		return perDay * float64(window)
	}
	return total*float64(window-t)/float64(window) + perDay*float64(t)
}

// videoYPPProjection returns the channel's standing t days from now.
func videoYPPProjection(in *engine.Input, t int) videoYPPDay {
	return videoYPPDay{
		subs:       in.Int("subscribers") + int(math.Floor(float64(in.Int("subscribers_per_month"))*float64(t)/videoDaysPerMonth)),
		watchHours: videoTrailing(in.Float("watch_hours_12mo"), in.Float("watch_hours_per_month")/videoDaysPerMonth, videoWatchWindow, t),
		shorts:     videoTrailing(float64(in.Int("shorts_views_90d")), float64(in.Int("shorts_views_per_month"))/videoDaysPerMonth, videoShortsWindow, t),
	}
}

func videoYPPProject(in *engine.Input, p *engine.Plan) error {
	asOf := p.AsOf()
	uploadsOK := in.Int("uploads_last_90_days") >= videoFanUploads
	full, fan := -1, -1
	fullPath := ""
	for t := 0; t <= videoYPPHorizonDays && full < 0; t++ {
		s := videoYPPProjection(in, t)
		if fan < 0 && uploadsOK && s.subs >= videoFanSubs && (s.watchHours >= videoFanWatchHours || s.shorts >= videoFanShortsViews) {
			fan = t
		}
		if s.subs >= videoYPPSubs && (s.watchHours >= videoYPPWatchHours || s.shorts >= videoYPPShortsViews) {
			full = t
			fullPath = "watch hours"
			if s.watchHours < videoYPPWatchHours {
				fullPath = "Shorts views"
			}
		}
	}
	record := func(key, milestone, title string, t int) {
		d := engine.AddDays(asOf, t)
		s := videoYPPProjection(in, t)
		p.Set(key, map[string]any{
			"eligible_on": p.Ref(milestone), "days_from_now": t, "months_from_now": engine.Round(float64(t)/videoDaysPerMonth, 1),
			"decision_expected": p.Label("YouTube's review decision expected", engine.AddDays(d, videoYPPReviewDays)),
			"subscribers":       s.subs, "watch_hours_12mo": math.Round(s.watchHours), "shorts_views_90d": math.Round(s.shorts),
		})
		p.Event(milestone, title, d, "the day the projection crosses the threshold")
	}
	if fan >= 0 {
		record("fan_funding", "fan-funding", "Eligible for fan funding (memberships, Super Thanks)", fan)
	}
	if full >= 0 {
		record("ad_revenue", "ad-revenue", "Eligible for ad revenue sharing: apply in YouTube Studio", full)
		d := engine.AddDays(asOf, full)
		p.SetTarget(d)
		p.Set("qualifying_path", fullPath)
		p.Event("decision", "YouTube's review decision expected", engine.AddDays(d, videoYPPReviewDays), "YouTube's review takes its own time")
		p.DependsOn("decision", "ad-revenue")
	} else {
		end := videoYPPProjection(in, videoYPPHorizonDays)
		p.Warn("NOT_ELIGIBLE_WITHIN_36_MONTHS", "At the current pace the channel does not reach 1,000 subscribers with 4,000 watch hours or 10M Shorts views within 36 months (month 36: %s, %s, %s).",
			engine.Plural(end.subs, "subscriber", "subscribers"), roundedCount(end.watchHours, "watch hour", "watch hours"), roundedCount(end.shorts, "Shorts view", "Shorts views"))
		p.Work("year-review", "Review the channel strategy against the pace needed", engine.AddMonths(asOf, 12))
	}
	p.Work("check-in", "Re-run with this month's Studio numbers", engine.AddMonths(asOf, 1))
	if !uploadsOK {
		p.Warn("FAN_FUNDING_NEEDS_UPLOADS", "Fan funding needs 3 public uploads in the last 90 days; the channel has %d.", in.Int("uploads_last_90_days"))
	}
	return nil
}

// videoYPPGaps finds the monthly pace that qualifies within a year. The
// 12-month total moves in a straight line from today's total to 12 months
// of the new pace, so within a year it peaks at one end or the other: at
// 4,000 hours or more today, or at a pace of 4,000 / 12 a month.
func videoYPPGaps(in *engine.Input, p *engine.Plan) error {
	w0, rate := in.Float("watch_hours_12mo"), in.Float("watch_hours_per_month")
	needRate := 0.0
	if w0 < videoYPPWatchHours {
		needRate = videoYPPWatchHours / 12
	}
	subsNeed := int(math.Ceil(math.Max(0, float64(videoYPPSubs-in.Int("subscribers"))) / 12))
	plateau := rate * 12
	p.Set("pace_needed_for_12_months", map[string]any{
		"watch_hours_per_month":  math.Ceil(needRate),
		"subscribers_per_month":  subsNeed,
		"shorts_views_per_month": math.Ceil(videoYPPShortsViews / (videoShortsWindow / videoDaysPerMonth)),
	})
	p.Set("watch_hours_plateau", math.Round(plateau))
	if plateau < videoYPPWatchHours && w0 < videoYPPWatchHours && p.Get("qualifying_path") != "Shorts views" {
		p.Warn("WATCH_HOURS_PLATEAU", "At %s watch hours a month the rolling 12-month total levels off at %s, below 4,000; it takes about %s a month to qualify within a year.",
			engine.FormatInt(int(math.Round(rate))), engine.FormatInt(int(math.Round(plateau))), engine.FormatInt(int(math.Ceil(needRate))))
	}
	return nil
}

func videoYPPRecommend(in *engine.Input, p *engine.Plan) error {
	pace := p.Get("pace_needed_for_12_months").(map[string]any)
	if ad, ok := p.Get("ad_revenue").(map[string]any); ok {
		p.RecommendOn(engine.High, "ad-revenue", "Apply as soon as you cross the line",
			fmt.Sprintf("Turn on the notification in YouTube Studio's Earn tab and apply on %s; set up AdSense and check the channel against the monetisation policies first, as reused content is the common rejection.", ad["eligible_on"]))
	}
	if fan, ok := p.Get("fan_funding").(map[string]any); ok {
		p.RecommendOn(engine.Medium, "fan-funding", "Open memberships early",
			fmt.Sprintf("Fan funding opens around %s: memberships and Super Thanks earn from the core audience before ads do.", fan["eligible_on"]))
	}
	if need := pace["watch_hours_per_month"].(float64); need > 0 {
		p.Recommend(engine.Medium, "Make longer videos that hold viewers",
			fmt.Sprintf("Watch hours are the slower threshold: about %s public watch hours a month qualify within a year; Shorts views do not count towards them.", engine.FormatInt(int(need))))
	} else {
		p.Recommend(engine.Medium, "Keep the watch hours coming",
			fmt.Sprintf("The channel has %s in its 12-month window today; hours older than 365 days drop out every day, so keep long-form uploads going until the application is approved.", roundedCount(in.Float("watch_hours_12mo"), "watch hour", "watch hours")))
	}
	p.Recommend(engine.Low, "Keep a steady upload cadence", "Three or more public uploads every 90 days keep fan funding eligible, and a weekly schedule compounds subscribers.")
	when := "not within 36 months at the current pace"
	if ad, ok := p.Get("ad_revenue").(map[string]any); ok {
		when = fmt.Sprintf("on %s via %s (decision about %s)", ad["eligible_on"], p.Get("qualifying_path"), ad["decision_expected"])
	}
	p.Strategy("From %s and %s, the channel qualifies for ad revenue sharing %s; at %s a month the 12-month total levels off at %s, and %s a month would qualify within a year.",
		engine.Plural(in.Int("subscribers"), "subscriber", "subscribers"), roundedCount(in.Float("watch_hours_12mo"), "watch hour", "watch hours"), when,
		roundedCount(in.Float("watch_hours_per_month"), "watch hour", "watch hours"), engine.FormatInt(int(p.Get("watch_hours_plateau").(float64))), engine.FormatInt(int(pace["watch_hours_per_month"].(float64))))
	return nil
}
