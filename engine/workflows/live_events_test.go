package workflows_test

import (
	"math"
	"strings"
	"testing"
	"time"

	"github.com/creativeops/creativeops/engine"
)

func TestLiveEventsSettlementVersusDeal(t *testing.T) {
	res := entRun(t, "live-events-show-settlement", nil)
	entNoWarnings(t, res)
	perTicket := 35 / 1.05 * 0.97
	if got := entNum(t, res, "break_even", "tickets"); got != math.Ceil(26500/perTicket) {
		t.Errorf("break-even %v tickets, want (expenses + guarantee) / net per ticket = %v", got, math.Ceil(26500/perTicket))
	}
	// 900 sold do not reach the split point (26,500 × 1.15): guarantee only.
	if got := entNum(t, res, "settlement", "artist_payout"); got != 12000 {
		t.Errorf("artist payout %v, want the guarantee", got)
	}
	if got := entNum(t, res, "settlement", "promoter_result"); !entNear(got, engine.Money(900*perTicket-26500)) {
		t.Errorf("promoter %v, want %.2f", got, 900*perTicket-26500)
	}
	sellout := entRun(t, "live-events-show-settlement", map[string]any{"sell_through_pct": 100})
	net := 1200 * perTicket
	artist := 12000 + 0.85*(net-26500*1.15)
	if got := entNum(t, sellout, "settlement", "artist_payout"); !entNear(got, engine.Money(artist)) {
		t.Errorf("sell-out artist payout %v, want guarantee + 85%% of overage = %.2f", got, artist)
	}
	on := milestoneDate(t, res, "on-sale")
	if on.Weekday() != time.Friday || engine.DaysBetween(on, milestoneDate(t, res, "show")) != 56 {
		t.Errorf("on-sale %v, want the Friday 8 weeks before the show", on)
	}
}

func TestLiveEventsSettlementWarnings(t *testing.T) {
	res := entRun(t, "live-events-show-settlement", map[string]any{"guarantee": 40000, "event_date": "2026-12-18"})
	entWant(t, res, "BREAK_EVEN_ABOVE_CAPACITY", "PROJECTED_LOSS", "ON_SALE_LATE")
	high := entRun(t, "live-events-show-settlement", map[string]any{"guarantee": 15000})
	entWant(t, high, "BREAK_EVEN_HIGH")
}

func TestLiveEventsTimelineStaffing(t *testing.T) {
	res := entRun(t, "live-events-production-timeline", nil)
	entWant(t, res, "VENUE_LEAD_TIME")
	if hasWarning(res, "EVENT_TOO_SOON") {
		t.Error("nine months is enough for permits and sales")
	}
	if got := entStr(t, res, "next_year_event_date"); got != "2028-08-19" {
		t.Errorf("next year %s, want the same Saturday a year on", got)
	}
	// 4,500 people with alcohol: security 1:75, crowd managers 1:250,
	// first aid 2 per 1,000, toilets 1:100 × 9/4 hours × 1.2.
	want := map[string]float64{"security": 60, "crowd_managers": 18, "first_aiders": 9, "portable_toilets": math.Ceil(45 * 2.25 * 1.2)}
	for k, v := range want {
		if got := entNum(t, res, "staffing", k); got != v {
			t.Errorf("%s %v, want %v", k, got, v)
		}
	}
	if d := engine.DaysBetween(milestoneDate(t, res, "permit"), milestoneDate(t, res, "event")); d < 90 {
		t.Errorf("permit filed %d days out, want at least 90", d)
	}
	club := entRun(t, "live-events-production-timeline", map[string]any{"event_type": "club-show", "attendance": 400, "alcohol": false, "venue_booked": true})
	if _, ok := entAt(t, club, "staffing").(map[string]any)["portable_toilets"]; ok {
		t.Error("a club has plumbing")
	}
	if got, cm := entNum(t, club, "staffing", "security"), entNum(t, club, "staffing", "crowd_managers"); got != 4 || cm != 2 {
		t.Errorf("club security %v and crowd managers %v, want 400/100 and 400/250 rounded up", got, cm)
	}
}

func TestLiveEventsTimelineTooSoon(t *testing.T) {
	res := entRun(t, "live-events-production-timeline", map[string]any{"event_type": "club-show", "event_date": "2026-12-05", "attendance": 300})
	entWant(t, res, "EVENT_TOO_SOON", "SELLING_WINDOW_SHORT", "VENUE_LEAD_TIME")
	// Club minimum: max(30 days insurance, half of 8 weeks) = 30 days from
	// 2026-11-20, on the event's weekday (Saturday).
	if got := entStr(t, res, "earliest_feasible_event_date"); got != "2026-12-26" {
		t.Errorf("earliest date %s, want Saturday 2026-12-26", got)
	}
}

// Re-planned, not only warned: a club show 15 days out is built on the
// earliest feasible date, and the lead times already missed are due now,
// never before the plan date.
func TestLiveEventsTimelineReplannedNotInThePast(t *testing.T) {
	res := entRun(t, "live-events-production-timeline", map[string]any{"event_type": "club-show", "event_date": "2026-12-05", "attendance": 300})
	entWant(t, res, "REPLANNED")
	if got := milestoneDate(t, res, "event"); got != mediaDay("2026-12-26") {
		t.Errorf("event milestone %v, want the re-planned 2026-12-26", got)
	}
	for _, m := range res["timeline"].(map[string]any)["milestones"].([]any) {
		if mm := m.(map[string]any); mm["passed"] == true {
			t.Errorf("milestone %v on %v lies before the plan date", mm["key"], mm["date"])
		}
	}
	if a, o := milestoneDate(t, res, "announce"), milestoneDate(t, res, "on-sale"); !a.Before(o) {
		t.Errorf("announce %v is not before on-sale %v", a, o)
	}
}

// A show already held gets a post-event plan: the settlement.
func TestLiveEventsTimelinePastEventGetsPostEventPlan(t *testing.T) {
	res := entRun(t, "live-events-production-timeline", map[string]any{"event_type": "club-show", "event_date": "2026-11-01", "attendance": 300})
	entWant(t, res, "POST_EVENT")
	if res["plan_kind"] != "post_event" || res["timeline"].(map[string]any)["post_event"] != true || milestoneDate(t, res, "settlement") != mediaDay("2026-11-20") {
		t.Fatalf("plan %v, settlement %v", res["plan_kind"], milestoneDate(t, res, "settlement"))
	}
}

// A missed on-sale moves to the next Friday and the later steps follow it:
// nothing is due before the plan date.
func TestLiveEventsSettlementLateOnSaleIsReplanned(t *testing.T) {
	res := entRun(t, "live-events-show-settlement", map[string]any{"event_date": "2026-12-18"})
	entWant(t, res, "ON_SALE_LATE")
	if got := milestoneDate(t, res, "on-sale"); got != mediaDay("2026-11-20") {
		t.Errorf("on-sale %v, want Friday 2026-11-20 (the plan date)", got)
	}
	for _, m := range res["timeline"].(map[string]any)["milestones"].([]any) {
		if mm := m.(map[string]any); mm["passed"] == true {
			t.Errorf("milestone %v on %v lies before the plan date", mm["key"], mm["date"])
		}
	}
	past := entRun(t, "live-events-show-settlement", map[string]any{"event_date": "2026-10-02"})
	if past["plan_kind"] != "post_event" {
		t.Errorf("past show: %v", past["plan_kind"])
	}
}

// An outdoor festival outside the May–September season is warned about
// with an in-season date on the same weekday.
func TestLiveEventsOutdoorFestivalOutOfSeason(t *testing.T) {
	res := entRun(t, "live-events-production-timeline", map[string]any{"event_date": "2028-02-19"})
	entWant(t, res, "OUTSIDE_FESTIVAL_SEASON")
	if got := entStr(t, res, "in_season_event_date"); got != "2028-06-03" {
		t.Errorf("in-season date %s, want Saturday 2028-06-03", got)
	}
}

// A UK promoter settles in pounds: the currency input changes every amount
// in the text, grouped and never in scientific notation.
func TestLiveEventsSettlementInPounds(t *testing.T) {
	res := entRun(t, "live-events-show-settlement", map[string]any{"currency": "GBP"})
	s := res["strategy"].(string)
	if !strings.Contains(s, "£12,000.00") || strings.Contains(s, "$") || res["currency"] != "GBP" {
		t.Fatalf("strategy %q, currency %v", s, res["currency"])
	}
}

// An Australian December festival is midsummer there: no season warning,
// while the same date in the US is told to move to June, and an
// Australian June festival is told to move to December.
func TestFestivalSeasonByHemisphere(t *testing.T) {
	w, _ := engine.LookupWorkflow("live-events-production-timeline")
	for _, c := range []struct {
		country, date string
		warned        bool
		month         time.Month
	}{
		{"AU", "2027-12-11", false, 0},
		{"US", "2027-12-11", true, time.June},
		{"AU", "2027-06-12", true, time.December},
	} {
		ctx := clone(w.ExampleContext)
		ctx["country"], ctx["event_type"], ctx["event_date"] = c.country, "outdoor-festival", c.date
		res := run(t, w.ID, ctx)
		if hasWarning(res, "OUTSIDE_FESTIVAL_SEASON") != c.warned {
			t.Errorf("%s festival on %s: OUTSIDE_FESTIVAL_SEASON %v, want %v", c.country, c.date, !c.warned, c.warned)
			continue
		}
		if c.warned {
			d, _ := engine.ParseDate(res["in_season_event_date"].(string))
			if d.Month() != c.month {
				t.Errorf("%s festival on %s: suggested %v, want a date in %v", c.country, c.date, res["in_season_event_date"], c.month)
			}
		}
	}
}
