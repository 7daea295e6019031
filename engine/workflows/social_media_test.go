package workflows_test

import (
	"testing"
	"time"

	"github.com/creativeops/creativeops/engine"
)

func TestSocialMediaBrandDealQuote(t *testing.T) {
	res := entRun(t, "social-media-brand-deal", nil)
	entWant(t, res, "OFFER_BELOW_RATE")
	// Instagram: 85k × $10/1k × (3.1% / 2% = 1.55) × 2 posts; TikTok:
	// 140k × $5/1k × (5.2% / 4% = 1.3) × 1.
	ig, tt := 85*10*1.55*2, 140*5*1.3
	if got := entNum(t, res, "quote", "lines", 0, "fee_usd"); !entNear(got, ig) {
		t.Errorf("Instagram fee %v, want %v", got, ig)
	}
	if got := entNum(t, res, "quote", "base_usd"); !entNear(got, ig+tt) {
		t.Errorf("base %v, want %v", got, ig+tt)
	}
	// 60 days of usage = 2 months × 20%, 30 days of exclusivity = 10%.
	total := entNum(t, res, "quote", "total_usd")
	if want := 5320.0; total != want {
		t.Errorf("total %v, want (3545 × 1.5) to the $10 = %v", total, want)
	}
	if got := entNum(t, res, "quote", "creator_net_usd"); !entNear(got, total*0.85) {
		t.Errorf("net after 15%% commission %v, want %v", got, total*0.85)
	}
	approval := milestoneDate(t, res, "approval")
	if engine.FormatDate(approval) != "2026-12-07" || approval.Weekday() != time.Monday {
		t.Errorf("approval %v, want 3 business days before Thursday 2026-12-10", approval)
	}
	if d := engine.DaysBetween(milestoneDate(t, res, "go-live"), milestoneDate(t, res, "usage-ends")); d != 60 {
		t.Errorf("usage rights end %d days after go-live, want 60", d)
	}
}

func TestSocialMediaBrandDealWarnings(t *testing.T) {
	res := entRun(t, "social-media-brand-deal", map[string]any{
		"deliverables":      []any{map[string]any{"platform": "instagram", "followers": 50000, "engagement_rate_pct": 0.6}},
		"go_live_date":      "2026-11-27",
		"usage_rights_days": 400,
		"exclusivity_days":  0,
		"offer_usd":         nil,
	})
	entWant(t, res, "LOW_ENGAGEMENT", "DRAFT_WINDOW_TIGHT")
	// Half the baseline for weak engagement; usage capped at +100%.
	if got := entNum(t, res, "quote", "usage_rights_pct"); got != 100 {
		t.Errorf("usage uplift %v%%, want the 100%% cap", got)
	}
	if got := entNum(t, res, "quote", "total_usd"); got != 50*10*0.5*2 {
		t.Errorf("total %v, want 500", got)
	}
	// 14 days after the plan date, and the ten working days making,
	// review and scheduling need: Thanksgiving takes one, so Monday
	// 7 December.
	if got := entStr(t, res, "earliest_feasible_go_live_date"); got != "2026-12-07" {
		t.Errorf("earliest go-live %s, want 2026-12-07 (14 days and 10 working days after the plan date)", got)
	}
}

func TestSocialMediaContentCalendarFitsHours(t *testing.T) {
	res := entRun(t, "social-media-content-calendar", nil)
	entNoWarnings(t, res)
	// Minimum cadence: 3 TikTok originals × 2 h, Instagram 3 and Shorts 2
	// reposted at 15 min, LinkedIn 2 × 45 min = 8.75 h ≤ 9 h.
	if got := entStr(t, res, "cadence_level"); got != "minimum" {
		t.Errorf("cadence %s, want minimum", got)
	}
	if got := entNum(t, res, "hours_per_week_needed"); got != 8.75 {
		t.Errorf("hours %v, want 8.75", got)
	}
	if got := entNum(t, res, "total_posts"); got != 60 {
		t.Errorf("total posts %v, want 10 a week × 6", got)
	}
	batches := entAt(t, res, "batch_sessions").([]any)
	if len(batches) != 6 || batches[0] != "2027-01-03" {
		t.Fatalf("batches %v, want 6 Sundays from 2027-01-03", batches)
	}
	for i, b := range batches {
		d := entDay(b.(string))
		if d.Weekday() != time.Sunday || engine.DaysBetween(entDay("2027-01-03"), d) != 7*i {
			t.Errorf("batch %d on %v is not the Sunday before week %d", i, d, i+1)
		}
	}
	if d := engine.DaysBetween(milestoneDate(t, res, "teaser-start"), milestoneDate(t, res, "launch")); d != 14 {
		t.Errorf("teaser %d days, want 14", d)
	}

	roomy := entRun(t, "social-media-content-calendar", map[string]any{"hours_per_week": 30})
	if got := entStr(t, roomy, "cadence_level"); got != "target" || entNum(t, roomy, "posts_per_week", "tiktok") != 7 {
		t.Errorf("30 hours should reach the target cadence, got %s", got)
	}
}

func TestSocialMediaContentCalendarOverCapacityAndDates(t *testing.T) {
	res := entRun(t, "social-media-content-calendar", map[string]any{"hours_per_week": 3, "launch_date": "2027-03-01"})
	entWant(t, res, "OVER_CAPACITY", "LAUNCH_OUTSIDE_CAMPAIGN")
	if got := entStr(t, res, "cadence_level"); got != "reduced" {
		t.Errorf("cadence %s, want reduced", got)
	}
	if got := entNum(t, res, "hours_per_week_needed"); got != 3.25 {
		t.Errorf("reduced plan %v hours, want one post per platform = 3.25", got)
	}
	late := entRun(t, "social-media-content-calendar", map[string]any{"campaign_start": "2026-11-21", "launch_date": nil})
	entWant(t, late, "FIRST_BATCH_PASSED")
	if got := entStr(t, late, "earliest_feasible_start_date"); got != "2026-11-23" {
		t.Errorf("earliest start %s, want the Monday after Sunday's batch", got)
	}
}
