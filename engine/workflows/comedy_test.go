package workflows_test

import (
	"fmt"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/creativeops/creativeops/engine"
)

func TestComedyFringeDatesAndBreakEven(t *testing.T) {
	res := entRun(t, "comedy-edinburgh-fringe", nil)
	entWant(t, res, "BREAK_EVEN_HIGH", "PROJECTED_LOSS")
	open, closing := milestoneDate(t, res, "opening"), milestoneDate(t, res, "closing")
	if engine.FormatDate(open) != "2027-08-06" || open.Weekday() != time.Friday {
		t.Errorf("opens %v, want the first Friday of August 2027", open)
	}
	if d := engine.DaysBetween(open, closing); d != 24 || closing.Weekday() != time.Monday {
		t.Errorf("closes %v, want the Monday 24 days later", closing)
	}
	if r := milestoneDate(t, res, "registration"); engine.FormatDate(r) != "2027-04-01" || r.Weekday() != time.Thursday {
		t.Errorf("registration %v, want the first Thursday of April", r)
	}
	// £15 incl. 20% VAT, less 10% commissions, 60% to the performer.
	per := 15 / 1.2 * 0.9 * 0.6
	if got := entNum(t, res, "box_office", "performer_per_ticket"); !entNear(got, engine.Money(per)) {
		t.Errorf("per ticket %v, want %.2f", got, per)
	}
	tickets := math.Ceil(9500 / per)
	if got := entNum(t, res, "box_office", "break_even_tickets"); got != tickets {
		t.Errorf("break-even tickets %v, want %v", got, tickets)
	}
	if got := entNum(t, res, "box_office", "break_even_per_night"); got != math.Ceil(tickets/24) {
		t.Errorf("per night %v, want %v", got, math.Ceil(tickets/24))
	}
	if got := entNum(t, res, "box_office", "projected_result"); !entNear(got, 576*per-9500) {
		t.Errorf("result at 40%% %v, want %.2f", got, 576*per-9500)
	}
	cheap := entRun(t, "comedy-edinburgh-fringe", map[string]any{"costs": 3000})
	if hasWarning(cheap, "PROJECTED_LOSS") || hasWarning(cheap, "BREAK_EVEN_HIGH") {
		t.Errorf("a £3,000 run breaks even at 31%% full: %v", warningCodes(cheap))
	}
}

func TestComedyFringeDeadlines(t *testing.T) {
	late := entRun(t, "comedy-edinburgh-fringe", map[string]any{"as_of": "2027-05-01"})
	entWant(t, late, "REGISTRATION_DEADLINE_PASSED")
	if got := entNum(t, late, "next_feasible_year"); got != 2028 {
		t.Errorf("next year %v, want 2028", got)
	}
	venues := entRun(t, "comedy-edinburgh-fringe", map[string]any{"as_of": "2027-02-15"})
	entWant(t, venues, "VENUE_DEADLINE_PASSED")
	auto := entRun(t, "comedy-edinburgh-fringe", map[string]any{"as_of": "2027-05-01", "year": nil})
	if got := entNum(t, auto, "festival_year"); got != 2028 || hasWarning(auto, "REGISTRATION_DEADLINE_PASSED") {
		t.Errorf("without a year the plan should pick 2028, got %v %v", got, warningCodes(auto))
	}
	if got := engine.FormatDate(milestoneDate(t, auto, "opening")); got != "2028-08-04" {
		t.Errorf("2028 opens %s, want 2028-08-04", got)
	}
	// A festival that has ended is re-planned on the next one whose
	// registration is open, with the requested opening kept beside it.
	passed := entRun(t, "comedy-edinburgh-fringe", map[string]any{"year": 2026})
	entWant(t, passed, "FESTIVAL_PASSED", "REPLANNED")
	tl := passed["timeline"].(map[string]any)
	if tl["requested_date"] != "2026-08-07" || tl["feasible_date"] != "2027-08-06" || engine.FormatDate(milestoneDate(t, passed, "opening")) != "2027-08-06" {
		t.Errorf("passed festival re-planned as %v", tl)
	}
}

// The Fringe sells tickets and charges fees in pounds sterling, so the plan
// is in GBP unless the performer budgets in another currency.
func TestComedyFringeMoneyInPounds(t *testing.T) {
	res := entRun(t, "comedy-edinburgh-fringe", nil)
	if res["currency"] != "GBP" {
		t.Fatalf("currency %v, want GBP", res["currency"])
	}
	// 576 tickets × £6.75 = £3,888 against £9,500: -£5,612.00.
	if s := res["strategy"].(string); !strings.Contains(s, "the run returns -£5,612.00") || strings.Contains(s, "$") {
		t.Errorf("strategy not in pounds: %s", s)
	}
	usd := entRun(t, "comedy-edinburgh-fringe", map[string]any{"currency": "USD"})
	if s := usd["strategy"].(string); !strings.Contains(s, "the run returns -$5,612.00") {
		t.Errorf("strategy not in dollars: %s", s)
	}
	for _, bad := range []map[string]any{{"ticket_price": 1e308}, {"costs": 1e308}, {"currency": "XYZ"}} {
		w, _ := engine.LookupWorkflow("comedy-edinburgh-fringe")
		ctx := clone(w.ExampleContext)
		for k, v := range bad {
			ctx[k] = v
		}
		if _, err := w.Prepare(ctx); err == nil {
			t.Errorf("%v accepted", bad)
		}
	}
}

func TestComedyClubTourSettlements(t *testing.T) {
	res := entRun(t, "comedy-club-tour", nil)
	entWant(t, res, "FLAT_DEAL_BELOW_DOOR")
	if hasWarning(res, "DOUBLE_BOOKED") {
		t.Error("early and late shows in one city are not a double booking")
	}
	// Chicago versus: 280 × 65% × $30, less 5% fees, 70% to the comic,
	// beats the $2,500 guarantee; 25% commissions and $650 costs off.
	door := 280 * 0.65 * 30 * 0.95 * 0.7
	row := entAt(t, res, "shows", 0).(map[string]any)
	if !entNear(row["pay_usd"].(float64), engine.Money(door)) || !entNear(row["net_usd"].(float64), engine.Money(door*0.75-650)) {
		t.Errorf("Chicago row %v, want pay %.2f net %.2f", row, door, door*0.75-650)
	}
	for i := 1; i <= 4; i++ {
		on := milestoneDate(t, res, fmt.Sprintf("on-sale-%d", i))
		show := milestoneDate(t, res, fmt.Sprintf("show-%d", i))
		if on.Weekday() != time.Friday || engine.DaysBetween(on, show) < 28 {
			t.Errorf("show %d on-sale %v is not a Friday well ahead of %v", i, on, show)
		}
	}
	if got := engine.FormatDate(milestoneDate(t, res, "on-sale-4")); got != "2026-12-11" {
		t.Errorf("theatre on-sale %s, want the Friday 12+ weeks before 2027-03-06", got)
	}
	var sum float64
	for _, r := range entAt(t, res, "shows").([]any) {
		sum += r.(map[string]any)["net_usd"].(float64)
	}
	if got := entNum(t, res, "totals", "net_usd"); math.Abs(got-sum) > 0.02 {
		t.Errorf("tour net %v, rows sum to %v", got, sum)
	}
}

func TestComedyClubTourConflictsAndLosses(t *testing.T) {
	res := entRun(t, "comedy-club-tour", map[string]any{"shows": []any{
		map[string]any{"city": "Denver, CO", "date": "2027-01-15", "venue_type": "theater", "capacity": 600, "ticket_price_usd": 35, "deal": "flat", "guarantee_usd": 6000},
		map[string]any{"city": "Boulder, CO", "date": "2027-01-15", "venue_type": "alt-room", "capacity": 40, "ticket_price_usd": 10, "deal": "door", "door_pct": 80, "costs_usd": 800},
	}})
	entWant(t, res, "DOUBLE_BOOKED", "ON_SALE_LATE", "SHOW_LOSES_MONEY")
	// 40 × 65% × $10 × 95% × 80% = $197.60, less 25%, against $800.
	if got := entNum(t, res, "shows", 1, "net_usd"); !entNear(got, engine.Money(197.6*0.75-800)) {
		t.Errorf("Boulder net %v, want %.2f", got, 197.6*0.75-800)
	}
}

// On-sales are re-planned, never left in the past or on a holiday: a late
// on-sale goes on sale on the plan date, one that falls on Good Friday (a UK
// bank holiday) moves to the Friday before, and played shows carry no
// milestones.
func TestComedyTourReplansOnSales(t *testing.T) {
	res := run(t, "comedy-club-tour", map[string]any{
		"comic": "Dana Okafor", "country": "UK", "as_of": "2026-11-20",
		"shows": []any{
			map[string]any{"city": "Leeds", "date": "2026-11-10", "capacity": 200, "ticket_price_usd": 20, "guarantee_usd": 300, "door_pct": 70},
			map[string]any{"city": "York", "date": "2026-12-11", "capacity": 200, "ticket_price_usd": 20, "guarantee_usd": 300, "door_pct": 70},
			// 6 weeks before 2027-05-07 is Friday 2027-03-26, Good Friday.
			map[string]any{"city": "Hull", "date": "2027-05-07", "capacity": 200, "ticket_price_usd": 20, "guarantee_usd": 300, "door_pct": 70},
		},
	})
	for _, code := range []string{"SHOW_DATE_PASSED", "ON_SALE_LATE", "ON_SALE_MOVED"} {
		if !hasWarning(res, code) {
			t.Errorf("missing %s in %v", code, warningCodes(res))
		}
	}
	if d := engine.FormatDate(milestoneDate(t, res, "on-sale-2")); d != "2026-11-20" {
		t.Errorf("late on-sale %s, want the plan date 2026-11-20", d)
	}
	if d := engine.FormatDate(milestoneDate(t, res, "on-sale-3")); d != "2027-03-19" {
		t.Errorf("Good Friday on-sale moved to %s, want 2027-03-19", d)
	}
	for _, m := range res["timeline"].(map[string]any)["milestones"].([]any) {
		if strings.Contains(m.(map[string]any)["title"].(string), "Leeds") {
			t.Errorf("played show still on the timeline: %v", m)
		}
	}
	if st := res["shows"].([]any)[0].(map[string]any)["status"]; st != "played" {
		t.Errorf("Leeds status %v, want played", st)
	}
	// Every show played: a post-event plan.
	done := run(t, "comedy-club-tour", map[string]any{
		"comic": "Dana Okafor", "as_of": "2026-11-20",
		"shows": []any{map[string]any{"city": "Leeds", "date": "2026-11-10", "capacity": 200, "ticket_price_usd": 20, "guarantee_usd": 300, "door_pct": 70}},
	})
	if !hasWarning(done, "POST_EVENT") || done["timeline"].(map[string]any)["post_event"] != true {
		t.Errorf("all shows played: %v", warningCodes(done))
	}
}
