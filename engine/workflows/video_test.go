package workflows_test

import (
	"math"
	"testing"

	"github.com/creativeops/creativeops/engine"
)

func TestVideoPartnerEligibilityWatchHoursPath(t *testing.T) {
	res := entRun(t, "video-youtube-partner-eligibility", nil)
	entNoWarnings(t, res)
	// Rolling 12-month hours: each month +400, −1/12 of the total.
	w, month := 2100.0, 0
	for ; w < 4000 || 640+60*month < 1000; month++ {
		w += 400 - w/12
	}
	if got := entNum(t, res, "ad_revenue", "months_from_now"); int(got) != month {
		t.Errorf("eligible in %v months, want %d", got, month)
	}
	eligible := entDate(t, res, "ad_revenue", "eligible_on")
	if want := engine.AddMonths(entDay("2026-11-20"), month); !eligible.Equal(want) {
		t.Errorf("eligible on %v, want %v", eligible, want)
	}
	if d := engine.DaysBetween(eligible, milestoneDate(t, res, "decision")); d != 30 {
		t.Errorf("decision %d days after applying, want 30", d)
	}
	if got := entStr(t, res, "qualifying_path"); got != "watch hours" {
		t.Errorf("path %q, want watch hours", got)
	}
	// Fan funding: 500 subscribers, 3 uploads and 3,000 hours, 5 months out.
	if got := entStr(t, res, "fan_funding", "eligible_on"); got != "2027-04-20" {
		t.Errorf("fan funding %s, want 2027-04-20", got)
	}
}

func TestVideoPartnerEligibilityPlateauAndShorts(t *testing.T) {
	res := entRun(t, "video-youtube-partner-eligibility", map[string]any{"watch_hours_per_month": 250, "uploads_last_90_days": 2})
	entWant(t, res, "WATCH_HOURS_PLATEAU", "NOT_ELIGIBLE_WITHIN_36_MONTHS", "FAN_FUNDING_NEEDS_UPLOADS")
	if got := entNum(t, res, "watch_hours_plateau"); got != 3000 {
		t.Errorf("plateau %v, want 12 × 250", got)
	}
	a := math.Pow(11.0/12, 12)
	if got := entNum(t, res, "pace_needed_for_12_months", "watch_hours_per_month"); got != math.Ceil((4000-2100*a)/(12*(1-a))) {
		t.Errorf("pace needed %v", got)
	}
	if _, ok := res["fan_funding"]; ok {
		t.Error("fan funding needs 3 uploads in 90 days")
	}

	// 4M Shorts views a month fill the 90-day window past 10M in month 3;
	// subscribers reach 1,000 in month 6.
	shorts := entRun(t, "video-youtube-partner-eligibility", map[string]any{"shorts_views_per_month": 4000000})
	if got := entStr(t, shorts, "qualifying_path"); got != "Shorts views" {
		t.Errorf("path %q, want Shorts views", got)
	}
	if got := entStr(t, shorts, "ad_revenue", "eligible_on"); got != "2027-05-20" {
		t.Errorf("eligible %s, want 2027-05-20", got)
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
	if c := milestoneDate(t, res, "contract"); engine.FormatDate(c) != "2026-12-24" {
		t.Errorf("contract %v, want 21 days before publish on a workday", c)
	}
	if d := engine.DaysBetween(publish, milestoneDate(t, res, "payment-due")); d != 30 {
		t.Errorf("payment %d days after publish, want net 30", d)
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
	entWant(t, res, "SCHEDULE_TIGHT", "MILESTONE_PASSED", "EXCLUSIVITY_LONG")
	if got := entStr(t, res, "earliest_feasible_publish_date"); got != "2026-12-11" {
		t.Errorf("earliest publish %s, want 21 days after the plan date", got)
	}
	// 120 days = 4 started months × 10%, capped at 50%.
	if got := entNum(t, res, "rate", "exclusivity_pct"); got != 40 {
		t.Errorf("exclusivity uplift %v%%, want 40", got)
	}
}
