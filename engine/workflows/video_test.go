package workflows_test

import (
	"math"
	"strings"
	"testing"

	"github.com/creativeops/creativeops/engine"
)

// YouTube Help, "YouTube Partner Program overview & eligibility"
// (support.google.com/youtube/answer/72851, checked 2026-11): ad revenue
// sharing needs 1,000 subscribers and 4,000 valid public watch hours in the
// last 12 months, or 10M valid public Shorts views in the last 90 days. The
// 12-month total is a trailing window: from 2,100 hours earned evenly over
// the last 365 days and a new pace of 400 hours a month (4,800 a year), the
// total after t days is 2,100 + (4,800 − 2,100) × t / 365, which crosses
// 4,000 on day 257 (2027-08-04), with 1,000 subscribers reached on day 183.
// The old projection lost a twelfth of the total every month and dated it
// 2028-01-20, five and a half months late.
func TestVideoPartnerEligibilityTrailingWindow_4000HoursOnDay257(t *testing.T) {
	res := entRun(t, "video-youtube-partner-eligibility", nil)
	entNoWarnings(t, res)
	if got := entNum(t, res, "ad_revenue", "days_from_now"); got != 257 {
		t.Errorf("eligible after %v days, want 257 (2,100 + 2,700 × t / 365 ≥ 4,000; YouTube Help answer 72851: 4,000 watch hours in the last 12 months)", got)
	}
	if got := entStr(t, res, "ad_revenue", "eligible_on"); got != "2027-08-04" {
		t.Errorf("eligible on %s, want 2027-08-04 (YouTube Help answer 72851: 1,000 subscribers and 4,000 watch hours in the trailing 12 months)", got)
	}
	if got := entNum(t, res, "ad_revenue", "watch_hours_12mo"); got < 4000 || got > 4010 {
		t.Errorf("12-month watch hours on the day %v, want just over 4,000", got)
	}
	if d := engine.DaysBetween(entDate(t, res, "ad_revenue", "eligible_on"), milestoneDate(t, res, "decision")); d != 30 {
		t.Errorf("decision %d days after applying, want 30", d)
	}
	if got := entStr(t, res, "qualifying_path"); got != "watch hours" {
		t.Errorf("path %q, want watch hours", got)
	}
	// Fan funding: 500 subscribers, 3 uploads and 3,000 hours in 12 months:
	// 2,100 + 2,700 × t / 365 ≥ 3,000 on day 122.
	if got := entStr(t, res, "fan_funding", "eligible_on"); got != "2027-03-22" {
		t.Errorf("fan funding %s, want 2027-03-22 (3,000 hours on day 122)", got)
	}
}

func TestVideoPartnerEligibilityPlateauAndShorts(t *testing.T) {
	res := entRun(t, "video-youtube-partner-eligibility", map[string]any{"watch_hours_per_month": 250, "uploads_last_90_days": 2})
	entWant(t, res, "WATCH_HOURS_PLATEAU", "NOT_ELIGIBLE_WITHIN_36_MONTHS", "FAN_FUNDING_NEEDS_UPLOADS")
	if got := entNum(t, res, "watch_hours_plateau"); got != 3000 {
		t.Errorf("plateau %v, want 12 × 250", got)
	}
	// A full window of a new pace: 4,000 / 12 = 333.3 hours a month.
	if got := entNum(t, res, "pace_needed_for_12_months", "watch_hours_per_month"); got != 334 {
		t.Errorf("pace needed %v, want 334 hours a month", got)
	}
	// 10M views in 90 days is 10M / (90 / (365/12)) a month.
	if got := entNum(t, res, "pace_needed_for_12_months", "shorts_views_per_month"); got != 3379630 {
		t.Errorf("Shorts pace needed %v, want 3,379,630 a month", got)
	}
	if _, ok := res["fan_funding"]; ok {
		t.Error("fan funding needs 3 uploads in 90 days")
	}
	if strings.Contains(entStr(t, res, "strategy"), "e+") {
		t.Errorf("strategy in scientific notation: %s", entStr(t, res, "strategy"))
	}

	// 4M Shorts views a month: 400,000 × (90 − t) / 90 + 4M × 12 / 365 × t
	// passes 10M on day 76; subscribers reach 1,000 on day 183 (2027-05-22),
	// when the watch hours (3,454) are still short.
	shorts := entRun(t, "video-youtube-partner-eligibility", map[string]any{"shorts_views_per_month": 4000000})
	if got := entStr(t, shorts, "qualifying_path"); got != "Shorts views" {
		t.Errorf("path %q, want Shorts views", got)
	}
	if got := entStr(t, shorts, "ad_revenue", "eligible_on"); got != "2027-05-22" {
		t.Errorf("eligible %s, want 2027-05-22 (YouTube Help answer 72851: 10M Shorts views in 90 days, with 1,000 subscribers on day 183)", got)
	}
}

func TestVideoPartnerEligibilityAlreadyEligible(t *testing.T) {
	res := entRun(t, "video-youtube-partner-eligibility", map[string]any{"subscribers": 1200, "watch_hours_12mo": 4100})
	if got := entStr(t, res, "ad_revenue", "eligible_on"); got != "2026-11-20" {
		t.Errorf("eligible %s, want the plan date", got)
	}
}

func TestVideoPartnerEligibilityHugeInputsStayFinite(t *testing.T) {
	res := entRun(t, "video-youtube-partner-eligibility", map[string]any{"subscribers": 1e9, "watch_hours_12mo": 1e10, "shorts_views_90d": 1e12})
	if s := entStr(t, res, "strategy"); strings.Contains(s, "e+") || !strings.Contains(s, "1,000,000,000 subscribers") {
		t.Errorf("strategy %q", s)
	}
}

func TestVideoSponsoredIntegrationRateAndSchedule(t *testing.T) {
	res := entRun(t, "video-sponsored-integration", nil)
	entWant(t, res, "OFFER_BELOW_MARKET")
	// 48 × $25 CPM × 1.3 (tech) × (1 + 20% usage + 10% exclusivity), to $10.
	if got := entNum(t, res, "rate", "quote_usd"); got != math.Round(48*25*1.3*1.3/10)*10 {
		t.Errorf("quote %v, want 2030", got)
	}
	if lo, hi := entNum(t, res, "rate", "market_low_usd"), entNum(t, res, "rate", "market_high_usd"); lo != 1620 || hi != 4060 {
		t.Errorf("market range %v–%v, want 1620–4060 ($20–50 CPM)", lo, hi)
	}
	publish := milestoneDate(t, res, "publish")
	// 21 days before publish is 24 December, in the dead week, and so are
	// the script and its approval: they do not all land on 23 December.
	// Each keeps the working days its calendar days give it (5 in 7: a
	// week to write the script, two for the brand to approve it, two
	// between final approval and publishing), so the contract goes back to
	// 2026-12-14, a working week before the script.
	if c := milestoneDate(t, res, "contract"); engine.FormatDate(c) != "2026-12-14" {
		t.Errorf("contract %v, want 2026-12-14", c)
	}
	for _, g := range []struct {
		a, b string
		gap  int
	}{{"contract", "script", 5}, {"script", "script-approved", 2}, {"script-approved", "filming", 1}, {"draft", "final-approval", 2}, {"final-approval", "publish", 2}} {
		if d := usCalendar.WorkdaysBetween(milestoneDate(t, res, g.a), milestoneDate(t, res, g.b)); d < g.gap {
			t.Errorf("%s to %s: %d working days, want at least %d", g.a, g.b, d, g.gap)
		}
	}
	// Net 30, on the working day before when the 30th day is closed.
	if due := milestoneDate(t, res, "payment-due"); !due.Equal(usCalendar.PrevWorkday(engine.AddDays(publish, 30))) {
		t.Errorf("payment due %s, want net 30 from %s on a working day", engine.FormatDate(due), engine.FormatDate(publish))
	}
	dedicated := entRun(t, "video-sponsored-integration", map[string]any{"format": "dedicated", "niche": "gaming", "usage_rights_days": 0, "exclusivity_days": 0, "offer_usd": 2000})
	if got := entNum(t, dedicated, "rate", "quote_usd"); got != 2400 {
		t.Errorf("dedicated gaming video %v, want 48 × $25 × 2.5 × 0.8 = 2400", got)
	}
	if hasWarning(dedicated, "OFFER_BELOW_MARKET") {
		t.Error("$2,000 is inside the $1,920–4,800 range")
	}
}

func TestVideoSponsoredIntegrationTightSchedule(t *testing.T) {
	res := entRun(t, "video-sponsored-integration", map[string]any{"publish_date": "2026-12-01", "exclusivity_days": 120})
	entWant(t, res, "SCHEDULE_TIGHT", "REPLANNED", "EXCLUSIVITY_LONG")
	if got := entStr(t, res, "earliest_feasible_publish_date"); got != "2026-12-11" {
		t.Errorf("earliest publish %s, want 21 days after the plan date", got)
	}
	// Built on the feasible date: the contract is due on the plan date.
	if got := milestoneDate(t, res, "publish"); engine.FormatDate(got) != "2026-12-11" {
		t.Errorf("publish milestone %v, want 2026-12-11", got)
	}
	if got := milestoneDate(t, res, "contract"); engine.FormatDate(got) != "2026-11-20" {
		t.Errorf("contract %v, want the plan date", got)
	}
	// 120 days = 4 started months × 10%, capped at 50%.
	if got := entNum(t, res, "rate", "exclusivity_pct"); got != 40 {
		t.Errorf("exclusivity uplift %v%%, want 40", got)
	}
}

// The fourth quarter is the field's season: brands spend their remaining
// budgets and ad rates peak before the holidays, so an October video is
// quoted at the top of the range.
func TestVideoSponsoredIntegrationQ4Season(t *testing.T) {
	q4 := entRun(t, "video-sponsored-integration", map[string]any{"publish_date": "2027-10-14"})
	spring := entRun(t, "video-sponsored-integration", map[string]any{"publish_date": "2027-04-15"})
	has := func(res map[string]any) bool {
		for _, r := range res["recommendations"].([]any) {
			if r.(map[string]any)["title"] == "Quote at the top of the range for Q4" {
				return true
			}
		}
		return false
	}
	if !has(q4) || has(spring) {
		t.Errorf("Q4 advice: October %v, April %v; want only October", has(q4), has(spring))
	}
}
