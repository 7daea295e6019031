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
//   - Watch hours and Shorts views are rolling windows: each month roughly a
//     twelfth of the 12-month watch hours ages out, and a 90-day Shorts
//     total settles at three months of views (a steady-rate model; it
//     understates channels whose older videos keep being watched).
func init() {
	engine.Register(&engine.Workflow{
		ID:          "video-youtube-partner-eligibility",
		Name:        "YouTube Partner Program eligibility",
		Vertical:    "video",
		Description: "Projects a channel's subscribers, rolling 12-month watch hours and 90-day Shorts views month by month to the dates it qualifies for YouTube fan funding and for ad revenue sharing, with the monthly rates needed when the current pace never gets there.",
		Fields: []engine.Field{
			{Name: "subscribers", Kind: engine.Integer, Required: true, Min: engine.Bound(0), Description: "Subscribers today."},
			{Name: "subscribers_per_month", Kind: engine.Integer, Default: 0, Min: engine.Bound(0), Description: "Net new subscribers per month at the current pace."},
			{Name: "watch_hours_12mo", Kind: engine.Number, Default: 0, Min: engine.Bound(0), Description: "Public long-form watch hours in the last 12 months (YouTube Studio)."},
			{Name: "watch_hours_per_month", Kind: engine.Number, Default: 0, Min: engine.Bound(0), Description: "Public long-form watch hours gained per month at the current pace."},
			{Name: "shorts_views_90d", Kind: engine.Integer, Default: 0, Min: engine.Bound(0), Description: "Public Shorts views in the last 90 days."},
			{Name: "shorts_views_per_month", Kind: engine.Integer, Default: 0, Min: engine.Bound(0), Description: "Shorts views per month at the current pace."},
			{Name: "uploads_last_90_days", Kind: engine.Integer, Default: 0, Min: engine.Bound(0), Description: "Public uploads in the last 90 days."},
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
		Steps: []engine.Step{
			{Name: "project", Run: videoYPPProject},
			{Name: "gaps", Run: videoYPPGaps},
			{Name: "recommend", Run: videoYPPRecommend},
		},
	})
}

const (
	videoYPPMonths        = 36
	videoYPPReviewDays    = 30
	videoYPPSubs          = 1000
	videoYPPWatchHours    = 4000.0
	videoYPPShortsViews   = 10_000_000.0
	videoFanSubs          = 500
	videoFanUploads       = 3
	videoFanWatchHours    = 3000.0
	videoFanShortsViews   = 3_000_000.0
	videoWatchWindowMonth = 12.0
)

type videoYPPMonth struct {
	subs               int
	watchHours, shorts float64
}

// videoYPPProjection returns the channel's standing m months from now.
func videoYPPProjection(in *engine.Input, months int) []videoYPPMonth {
	out := make([]videoYPPMonth, months+1)
	w, rate := in.Float("watch_hours_12mo"), in.Float("watch_hours_per_month")
	v0, vRate := float64(in.Int("shorts_views_90d")), float64(in.Int("shorts_views_per_month"))
	for m := 0; m <= months; m++ {
		if m > 0 {
			w += rate - w/videoWatchWindowMonth
		}
		window := math.Min(float64(m), 3)
		out[m] = videoYPPMonth{
			subs:       in.Int("subscribers") + m*in.Int("subscribers_per_month"),
			watchHours: w,
			shorts:     v0*(3-window)/3 + window*vRate,
		}
	}
	return out
}

func videoYPPProject(in *engine.Input, p *engine.Plan) error {
	asOf := p.AsOf()
	proj := videoYPPProjection(in, videoYPPMonths)
	uploadsOK := in.Int("uploads_last_90_days") >= videoFanUploads
	full, fan := -1, -1
	fullPath := ""
	for m, s := range proj {
		if fan < 0 && uploadsOK && s.subs >= videoFanSubs && (s.watchHours >= videoFanWatchHours || s.shorts >= videoFanShortsViews) {
			fan = m
		}
		if full < 0 && s.subs >= videoYPPSubs && (s.watchHours >= videoYPPWatchHours || s.shorts >= videoYPPShortsViews) {
			full = m
			fullPath = "watch hours"
			if s.watchHours < videoYPPWatchHours {
				fullPath = "Shorts views"
			}
		}
	}
	record := func(key, milestone, title string, m int) {
		d := engine.AddMonths(asOf, m)
		p.Set(key, map[string]any{
			"eligible_on": engine.FormatDate(d), "months_from_now": m,
			"decision_expected": engine.FormatDate(engine.AddDays(d, videoYPPReviewDays)),
			"subscribers":       proj[m].subs, "watch_hours_12mo": math.Round(proj[m].watchHours), "shorts_views_90d": math.Round(proj[m].shorts),
		})
		p.Milestone(milestone, title, d)
	}
	if fan >= 0 {
		record("fan_funding", "fan-funding", "Eligible for fan funding (memberships, Super Thanks)", fan)
	}
	if full >= 0 {
		record("ad_revenue", "ad-revenue", "Eligible for ad revenue sharing: apply in YouTube Studio", full)
		d := engine.AddMonths(asOf, full)
		p.SetTarget(d)
		p.Set("qualifying_path", fullPath)
		p.Milestone("decision", "YouTube's review decision expected", engine.AddDays(d, videoYPPReviewDays))
	} else {
		p.Warn("NOT_ELIGIBLE_WITHIN_36_MONTHS", "At the current pace the channel does not reach 1,000 subscribers with 4,000 watch hours or 10M Shorts views within 36 months (month 36: %d subscribers, %.0f watch hours, %.0f Shorts views).",
			proj[videoYPPMonths].subs, proj[videoYPPMonths].watchHours, proj[videoYPPMonths].shorts)
		p.Milestone("year-review", "Review the channel strategy against the pace needed", engine.AddMonths(asOf, 12))
	}
	p.Milestone("check-in", "Re-run with this month's Studio numbers", engine.AddMonths(asOf, 1))
	if !uploadsOK {
		p.Warn("FAN_FUNDING_NEEDS_UPLOADS", "Fan funding needs 3 public uploads in the last 90 days; the channel has %d.", in.Int("uploads_last_90_days"))
	}
	return nil
}

// videoYPPGaps finds the monthly pace that qualifies within a year.
func videoYPPGaps(in *engine.Input, p *engine.Plan) error {
	decay := math.Pow(1-1/videoWatchWindowMonth, 12)
	w0, rate := in.Float("watch_hours_12mo"), in.Float("watch_hours_per_month")
	needRate := math.Max(0, (videoYPPWatchHours-w0*decay)/(videoWatchWindowMonth*(1-decay)))
	subsNeed := int(math.Ceil(math.Max(0, float64(videoYPPSubs-in.Int("subscribers"))) / 12))
	plateau := rate * videoWatchWindowMonth
	p.Set("pace_needed_for_12_months", map[string]any{
		"watch_hours_per_month":  math.Ceil(needRate),
		"subscribers_per_month":  subsNeed,
		"shorts_views_per_month": math.Ceil(videoYPPShortsViews / 3),
	})
	p.Set("watch_hours_plateau", math.Round(plateau))
	if plateau < videoYPPWatchHours && in.Float("watch_hours_12mo") < videoYPPWatchHours && p.Get("qualifying_path") != "Shorts views" {
		p.Warn("WATCH_HOURS_PLATEAU", "At %.0f watch hours a month the rolling 12-month total levels off at %.0f, below 4,000; it takes about %.0f a month to qualify within a year.",
			rate, plateau, math.Ceil(needRate))
	}
	return nil
}

func videoYPPRecommend(in *engine.Input, p *engine.Plan) error {
	pace := p.Get("pace_needed_for_12_months").(map[string]any)
	if ad, ok := p.Get("ad_revenue").(map[string]any); ok {
		due, _ := engine.ParseDate(ad["eligible_on"].(string))
		p.RecommendBy(engine.High, due, "Apply as soon as you cross the line",
			fmt.Sprintf("Turn on the notification in YouTube Studio's Earn tab and apply on %s; set up AdSense and check the channel against the monetisation policies first, as reused content is the common rejection.", ad["eligible_on"]))
	}
	if fan, ok := p.Get("fan_funding").(map[string]any); ok {
		due, _ := engine.ParseDate(fan["eligible_on"].(string))
		p.RecommendBy(engine.Medium, due, "Open memberships early",
			fmt.Sprintf("Fan funding opens around %s: memberships and Super Thanks earn from the core audience before ads do.", fan["eligible_on"]))
	}
	p.Recommend(engine.Medium, "Make longer videos that hold viewers",
		fmt.Sprintf("Watch hours are the slower threshold: about %.0f public watch hours a month qualify within a year; Shorts views do not count towards them.", pace["watch_hours_per_month"]))
	p.Recommend(engine.Low, "Keep a steady upload cadence", "Three or more public uploads every 90 days keep fan funding eligible, and a weekly schedule compounds subscribers.")
	when := "not within 36 months at the current pace"
	if ad, ok := p.Get("ad_revenue").(map[string]any); ok {
		when = fmt.Sprintf("on %s via %s (decision about %s)", ad["eligible_on"], p.Get("qualifying_path"), ad["decision_expected"])
	}
	p.Strategy("From %d subscribers and %.0f watch hours, the channel qualifies for ad revenue sharing %s; at %.0f watch hours a month the 12-month total levels off at %.0f, and %.0f a month would qualify within a year.",
		in.Int("subscribers"), in.Float("watch_hours_12mo"), when, in.Float("watch_hours_per_month"), p.Get("watch_hours_plateau"), pace["watch_hours_per_month"])
	return nil
}
