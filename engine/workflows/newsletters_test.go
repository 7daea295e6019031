package workflows_test

import (
	"math"
	"strings"
	"testing"
	"time"

	"github.com/creativeops/creativeops/engine"
)

func TestNewslettersPaidLaunchFeesAndGoal(t *testing.T) {
	res := entRun(t, "newsletters-paid-launch", nil)
	entWant(t, res, "GOAL_OUT_OF_REACH")
	// Substack 10% + Stripe 2.9% + 0.7% billing + $0.30 a charge.
	monthly := 8*(1-0.136) - 0.30
	annual := (80*(1-0.136) - 0.30) / 12
	blended := 0.7*monthly + 0.3*annual
	if got := entNum(t, res, "net_per_paid_subscriber_usd", "monthly_plan"); !entNear(got, engine.Money(monthly)) {
		t.Errorf("monthly net %v, want %.2f", got, monthly)
	}
	if got := entNum(t, res, "projection", "base", "paid_subscribers"); got != 210 {
		t.Errorf("paid at 5%% of 4,200: %v, want 210", got)
	}
	if got := entNum(t, res, "projection", "base", "monthly_net_usd"); !entNear(got, engine.Money(210*blended)) {
		t.Errorf("base monthly net %v, want %.2f", got, 210*blended)
	}
	needed := math.Ceil(3000 / blended)
	if got := entNum(t, res, "income_goal", "paid_subscribers_needed"); got != needed {
		t.Errorf("subscribers for $3,000 %v, want %v", got, needed)
	}
	if got := entNum(t, res, "income_goal", "free_list_needed_at_5pct"); got != math.Ceil(needed/0.05) {
		t.Errorf("list needed %v, want %v", got, math.Ceil(needed/0.05))
	}
	// Two weeks of announcement are ten working days: across the 24
	// Dec–1 Jan closure the announcement goes out earlier.
	if d := usCalendar.WorkdaysBetween(milestoneDate(t, res, "announce"), milestoneDate(t, res, "launch")); d != 10 {
		t.Errorf("announcement %d working days ahead, want 10", d)
	}

	// beehiiv takes no revenue share but its plan fee comes off the top.
	bh := entRun(t, "newsletters-paid-launch", map[string]any{"platform": "beehiiv", "platform_cost_usd": 49})
	bBlended := 0.7*(8*(1-0.036)-0.30) + 0.3*(80*(1-0.036)-0.30)/12
	if got := entNum(t, bh, "projection", "base", "monthly_net_usd"); !entNear(got, engine.Money(210*bBlended-49)) {
		t.Errorf("beehiiv monthly net %v, want %.2f", got, 210*bBlended-49)
	}
}

func TestNewslettersPaidLaunchPricingChecks(t *testing.T) {
	low := entRun(t, "newsletters-paid-launch", map[string]any{"monthly_price_usd": 4, "annual_price_usd": nil})
	entWant(t, low, "PRICE_BELOW_MINIMUM")
	if got := entNum(t, low, "requested_prices", "annual_usd"); got != 40 {
		t.Errorf("default annual %v, want 10 × monthly", got)
	}
	// Substack cannot be set below $5 / $50, so the plan and its projection
	// use those prices, not the $4 / $40 asked for.
	if m, y := entNum(t, low, "monthly_price_usd"), entNum(t, low, "annual_price_usd"); m != 5 || y != 50 {
		t.Errorf("planned prices %v / %v, want Substack's 5 / 50", m, y)
	}
	lowBlended := 0.7*(5*(1-0.136)-0.30) + 0.3*(50*(1-0.136)-0.30)/12
	if got := entNum(t, low, "net_per_paid_subscriber_usd", "blended"); !entNear(got, engine.Money(lowBlended)) {
		t.Errorf("blended net %v, want %.2f at the $5 / $50 Substack can set", got, lowBlended)
	}
	if s := entStr(t, low, "strategy"); !strings.Contains(s, "$5.00/month") {
		t.Errorf("strategy launches at a price Substack refuses: %s", s)
	}
	if hasWarning(entRun(t, "newsletters-paid-launch", map[string]any{"platform": "ghost", "monthly_price_usd": 4, "annual_price_usd": nil}), "PRICE_BELOW_MINIMUM") {
		t.Error("the $5 minimum is Substack's, not Ghost's")
	}
	entWant(t, entRun(t, "newsletters-paid-launch", map[string]any{"annual_price_usd": 96}), "ANNUAL_NO_DISCOUNT")
	entWant(t, entRun(t, "newsletters-paid-launch", map[string]any{"annual_price_usd": 50}), "ANNUAL_DISCOUNT_DEEP")
	soon := entRun(t, "newsletters-paid-launch", map[string]any{"launch_date": "2026-11-27", "free_subscribers": 600})
	entWant(t, soon, "LAUNCH_TOO_SOON", "LIST_TOO_SMALL", "REPLANNED")
	// Two weeks and ten working days of announcement: Thanksgiving takes
	// one, so Monday 7 December, not a launch squeezed to nine.
	if got := entStr(t, soon, "earliest_feasible_launch_date"); got != "2026-12-07" {
		t.Errorf("earliest launch %s, want 2026-12-07 (14 days and 10 working days after the plan date)", got)
	}
	if hasWarning(soon, "PRECEDENCE_SHORT") {
		t.Errorf("re-planned launch leaves the announcement short: %v", warningCodes(soon))
	}
	// Re-planned, not only warned: the launch is the feasible date and the
	// announcement is not in the past.
	if hasWarning(soon, "MILESTONE_PASSED") || milestoneDate(t, soon, "launch") != mediaDay("2026-12-07") || milestoneDate(t, soon, "announce") != mediaDay("2026-11-20") {
		t.Errorf("launch %v, announce %v, warnings %v", milestoneDate(t, soon, "launch"), milestoneDate(t, soon, "announce"), warningCodes(soon))
	}
}

func TestNewslettersSenderWarmupRamp(t *testing.T) {
	res := entRun(t, "newsletters-sender-warmup", nil)
	entWant(t, res, "MISSING_AUTHENTICATION")
	if hasWarning(res, "AUTH_LEAD_TIME") {
		t.Error("17 days leave time to publish DMARC")
	}
	ramp := entAt(t, res, "warmup_schedule").([]any)
	want := []float64{2000, 4000, 8000, 16000, 32000, 38000}
	if len(ramp) != len(want) {
		t.Fatalf("ramp %v, want %v", ramp, want)
	}
	var prev time.Time
	for i, r := range ramp {
		m := r.(map[string]any)
		d := entDay(m["date"].(string))
		if m["volume"] != want[i] {
			t.Errorf("day %d volume %v, want %v", i+1, m["volume"], want[i])
		}
		if d.Weekday() == time.Saturday || d.Weekday() == time.Sunday || (i > 0 && !d.After(prev)) {
			t.Errorf("send day %v is not the next business day", d)
		}
		prev = d
	}
	if got := entStr(t, res, "full_list_date"); got != "2026-12-14" {
		t.Errorf("full list %s, want 2026-12-14 (Monday after the weekend)", got)
	}
	if got := entAt(t, res, "missing_authentication").([]any); len(got) != 1 || got[0] != "DMARC" {
		t.Errorf("missing %v, want DMARC", got)
	}

	small := entRun(t, "newsletters-sender-warmup", map[string]any{"list_size": 3000, "situation": "new-domain", "authentication": []any{"spf"}})
	entNoWarnings(t, small)
	if got := entNum(t, small, "warmup_send_days"); got != 4 {
		t.Errorf("500 → 1,000 → 2,000 → 3,000 is 4 days, got %v", got)
	}
}

func TestNewslettersSenderWarmupCompliance(t *testing.T) {
	res := entRun(t, "newsletters-sender-warmup", map[string]any{
		"start_date": "2026-11-24", "authentication": []any{}, "one_click_unsubscribe": false,
		"spam_rate_pct": 0.35, "engaged_pct": 10,
	})
	entWant(t, res, "MISSING_AUTHENTICATION", "AUTH_LEAD_TIME", "ONE_CLICK_UNSUBSCRIBE_MISSING", "SPAM_RATE_TOO_HIGH", "LOW_ENGAGEMENT")
	if got := entStr(t, res, "earliest_feasible_start_date"); got != "2026-11-27" {
		t.Errorf("earliest start %s, want a week after the plan date", got)
	}
	if got := entStr(t, res, "first_send_date"); got != "2026-11-27" {
		t.Errorf("ramp starts %s, want the feasible date", got)
	}
	entWant(t, entRun(t, "newsletters-sender-warmup", map[string]any{"spam_rate_pct": 0.15}), "SPAM_RATE_ELEVATED")
	est := entRun(t, "newsletters-sender-warmup", map[string]any{"situation": "established", "authentication": []any{"spf", "dkim", "dmarc"}})
	entNoWarnings(t, est)
	if got := entNum(t, est, "warmup_send_days"); got != 1 {
		t.Errorf("an established sender needs no ramp, got %v days", got)
	}
}

// Gmail's sender guidelines (February 2024) set a 0.3% spam-rate limit:
// a warm-up does not ramp while the rate is over it. The ramp holds at the
// first send to engaged readers, no full-list day is promised, and the
// strategy says why.
func TestNewslettersSenderWarmupHoldsOverTheSpamLimit(t *testing.T) {
	res := entRun(t, "newsletters-sender-warmup", map[string]any{"list_size": 120000, "spam_rate_pct": 0.35, "authentication": []any{"spf", "dkim", "dmarc"}})
	entWant(t, res, "SPAM_RATE_TOO_HIGH")
	if res["ramp_held"] != true {
		t.Fatalf("ramp_held %v at a 0.35%% spam rate", res["ramp_held"])
	}
	ramp := entAt(t, res, "warmup_schedule").([]any)
	// 35% of 120,000 are engaged; the migration start of 2,000 is under that.
	if len(ramp) != 1 || ramp[0].(map[string]any)["volume"] != 2000.0 {
		t.Errorf("held ramp %v, want one send of 2,000", ramp)
	}
	if _, ok := res["full_list_date"]; ok {
		t.Errorf("a held ramp promises the full list on %v", res["full_list_date"])
	}
	for _, m := range res["timeline"].(map[string]any)["milestones"].([]any) {
		if k := m.(map[string]any)["key"]; k == "full-list" {
			t.Errorf("milestone %v in a held ramp", k)
		}
	}
	// 2,000 → 4,000 → … → 120,000 is 7 send days once the rate is under 0.3%.
	if got := entNum(t, res, "send_days_once_resumed"); got != 7 {
		t.Errorf("send days once resumed %v, want 7", got)
	}
	if s := entStr(t, res, "strategy"); !strings.Contains(s, "Hold the warm-up") || !strings.Contains(s, "0.3% limit") {
		t.Errorf("strategy does not hold the ramp: %s", s)
	}
	// Under the limit the ramp runs to the full list.
	ok := entRun(t, "newsletters-sender-warmup", map[string]any{"list_size": 120000, "spam_rate_pct": 0.25, "authentication": []any{"spf", "dkim", "dmarc"}})
	if ok["ramp_held"] != false || entNum(t, ok, "warmup_send_days") != 7 {
		t.Errorf("0.25%%: held %v, %v send days", ok["ramp_held"], ok["warmup_send_days"])
	}
}
