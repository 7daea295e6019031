package workflows_test

import (
	"strings"
	"testing"

	"github.com/creativeops/creativeops/engine"
)

func TestPodcastingLaunchPlanBankAndCalendar(t *testing.T) {
	res := run(t, "podcasting-launch-plan", mediaExample(t, "podcasting-launch-plan"))
	// 3 launch episodes + 2 banked for weekly, 1 ready: 4 to make at 2.5 days.
	if mediaNum(t, res, "episodes_needed_at_launch") != 5 || mediaNum(t, res, "episodes_to_produce") != 4 || mediaNum(t, res, "production_days_needed") != 10 {
		t.Fatalf("needed %v, to produce %v, days %v", res["episodes_needed_at_launch"], res["episodes_to_produce"], res["production_days_needed"])
	}
	launch := mediaDay("2027-01-12")
	// Two weeks out is 2026-12-29, in the dead week: the feed goes in on
	// the last open day before it, Wednesday 2026-12-23.
	if d := engine.DaysBetween(milestoneDate(t, res, "feed-submitted"), launch); d != 20 {
		t.Errorf("feed submitted %d days before launch, want 20 (23 December, before the dead week)", d)
	}
	cal := res["release_calendar"].([]any)
	if cal[2].(map[string]any)["date"] != "2027-01-12" || cal[3].(map[string]any)["date"] != "2027-01-19" || cal[7].(map[string]any)["date"] != "2027-02-16" {
		t.Errorf("calendar %v", cal)
	}
	if !milestoneDate(t, res, "production-start").Before(milestoneDate(t, res, "trailer-ready")) {
		t.Error("production must start before the trailer is cut")
	}
	ctx := mediaExample(t, "podcasting-launch-plan")
	ctx["artwork_px"], ctx["cadence"] = 1200, "monthly"
	monthly := run(t, "podcasting-launch-plan", ctx)
	if !hasWarning(monthly, "ARTWORK_SPEC") {
		t.Errorf("1200 px art is below Apple's 1400 px: %v", warningCodes(monthly))
	}
	if mediaNum(t, monthly, "episodes_needed_at_launch") != 4 || monthly["release_calendar"].([]any)[3].(map[string]any)["date"] != "2027-02-09" {
		t.Errorf("monthly: bank of 1 and episode 4 four weeks after launch: %v", monthly["release_calendar"])
	}
}

func TestPodcastingLaunchPlanTooSoon(t *testing.T) {
	res := run(t, "podcasting-launch-plan", map[string]any{
		"show_name": "S", "launch_date": "2026-12-01", "production_days_per_episode": 3, "as_of": "2026-11-20",
	})
	if !hasWarning(res, "LAUNCH_TOO_SOON") {
		t.Fatalf("want LAUNCH_TOO_SOON: %v", warningCodes(res))
	}
	earliest := mediaDate(t, res, "earliest_feasible_launch")
	// 5 episodes × 3 days = 15 working days from 2026-11-20, skipping
	// Thanksgiving (26 November), end on 2026-12-14; banked three days
	// before launch, on the next Tuesday: 2026-12-22. The plan is built on
	// it, with the requested date beside it.
	if earliest != mediaDay("2026-12-22") {
		t.Errorf("earliest launch %v, want Tuesday 2026-12-22", earliest)
	}
	tl := res["timeline"].(map[string]any)
	if tl["requested_date"] != "2026-12-01" || tl["feasible_date"] != "2026-12-22" || !hasWarning(res, "REPLANNED") {
		t.Errorf("re-planned timeline %v, warnings %v", tl, warningCodes(res))
	}
	if got := milestoneDate(t, res, "launch"); got != mediaDay("2026-12-22") {
		t.Errorf("launch milestone %v, want the feasible date", got)
	}
}

func TestPodcastingSponsorshipRatesCard(t *testing.T) {
	res := run(t, "podcasting-sponsorship-rates", mediaExample(t, "podcasting-sponsorship-rates"))
	// 6,500 downloads: pre-roll $18 CPM = $117, mid-roll $25 CPM = $162.50.
	if v := mediaNum(t, res, "rate_card", "pre_roll", "per_episode_usd"); v != 117 {
		t.Errorf("pre-roll %v, want 117", v)
	}
	if v := mediaNum(t, res, "per_episode_all_slots_usd"); v != 279.5 {
		t.Errorf("per episode %v, want 279.50", v)
	}
	if v := mediaNum(t, res, "monthly", "expected_gross_usd"); !mediaClose(v, 279.5*4*0.6) {
		t.Errorf("gross %v, want %v", v, 279.5*4*0.6)
	}
	if v := mediaNum(t, res, "sponsor_package", "price_usd"); !mediaClose(v, 279.5*4*3*0.9) {
		t.Errorf("3-month package %v, want %v", v, 279.5*4*3*0.9)
	}
	if d := engine.DaysBetween(milestoneDate(t, res, "io-signed"), mediaDay("2027-01-05")); d < 14 {
		t.Errorf("insertion order only %d days before air", d)
	}
}

func TestPodcastingSponsorshipRatesSmallShowAndLateStart(t *testing.T) {
	res := run(t, "podcasting-sponsorship-rates", map[string]any{
		"downloads_per_episode": 800, "host_read": false, "ad_slots": []any{"mid_roll"}, "rep_commission_pct": 30,
		"campaign_start": "2026-11-27", "campaign_months": 1, "as_of": "2026-11-20",
	})
	for _, code := range []string{"BELOW_AD_MARKET_THRESHOLD", "IO_LEAD_TIME"} {
		if !hasWarning(res, code) {
			t.Errorf("missing %s in %v", code, warningCodes(res))
		}
	}
	// Pre-produced mid-roll at 60% of $25 = $15 CPM × 0.8 = $12 an episode.
	if v := mediaNum(t, res, "rate_card", "mid_roll", "per_episode_usd"); v != 12 {
		t.Errorf("mid-roll %v, want 12", v)
	}
	if v := mediaNum(t, res, "monthly", "expected_net_usd"); !mediaClose(v, engine.Money(12*4*0.5*0.7)) {
		t.Errorf("net %v, want %v", v, 12*4*0.5*0.7)
	}
	if v := mediaNum(t, res, "sponsor_package", "discount_pct"); v != 0 {
		t.Errorf("a one-month buy gets no discount, got %v%%", v)
	}
	// The pitch goes out ten working days before the IO, which is signed
	// 14 days before the first episode: from 2026-11-20 (Thanksgiving
	// not counted) the first Friday that leaves both is 2026-12-25.
	if res["earliest_campaign_start"] != "2026-12-25" {
		t.Errorf("earliest start %v, want 2026-12-25", res["earliest_campaign_start"])
	}
	if d := usCalendar.WorkdaysBetween(milestoneDate(t, res, "pitch"), milestoneDate(t, res, "io-signed")); d < 10 {
		t.Errorf("pitch to signed IO %d working days, want at least 10", d)
	}
}

// Cover art outside Apple's 1400–3000 px is a reason Apple Podcasts
// refuses a show, so the plan does not submit the feed beside it: the fix
// is dated before submission, recommended and stated in the strategy.
func TestPodcastingLaunchPlanFixesArtworkBeforeSubmitting(t *testing.T) {
	res := entRun(t, "podcasting-launch-plan", map[string]any{"artwork_px": 1000})
	entWant(t, res, "ARTWORK_SPEC")
	fix := entDate(t, res, "artwork_fix_by")
	if !fix.Before(milestoneDate(t, res, "feed-submitted")) {
		t.Errorf("art fixed %s, not before the feed goes in on %s", engine.FormatDate(fix), engine.FormatDate(milestoneDate(t, res, "feed-submitted")))
	}
	if s := entStr(t, res, "strategy"); !strings.Contains(s, "re-export the cover art") {
		t.Errorf("strategy submits the feed without fixing the art: %s", s)
	}
	ok := entRun(t, "podcasting-launch-plan", map[string]any{"artwork_px": 3000})
	if _, has := ok["artwork_fix_by"]; has || strings.Contains(entStr(t, ok, "strategy"), "cover art") {
		t.Errorf("art in spec still asks for a fix: %v", ok["strategy"])
	}
}
