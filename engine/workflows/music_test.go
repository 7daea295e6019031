package workflows_test

import (
	"math"
	"testing"
	"time"

	"github.com/creativeops/creativeops/engine"
)

// Helpers for the music, songwriting, film, television, screenwriting,
// publishing, audiobooks and podcasting tests.

// mediaAt walks a result through nested object keys.
func mediaAt(t *testing.T, res map[string]any, keys ...string) any {
	t.Helper()
	var v any = res
	for _, k := range keys {
		m, ok := v.(map[string]any)
		if !ok {
			t.Fatalf("%v: %q is not inside an object", keys, k)
		}
		if v, ok = m[k]; !ok {
			t.Fatalf("%v: no key %q in %v", keys, k, m)
		}
	}
	return v
}

// mediaNum reads a number from a result.
func mediaNum(t *testing.T, res map[string]any, keys ...string) float64 {
	t.Helper()
	f, ok := mediaAt(t, res, keys...).(float64)
	if !ok {
		t.Fatalf("%v is not a number", keys)
	}
	return f
}

// mediaDate reads a YYYY-MM-DD string from a result.
func mediaDate(t *testing.T, res map[string]any, keys ...string) time.Time {
	t.Helper()
	d, err := engine.ParseDate(mediaAt(t, res, keys...).(string))
	if err != nil {
		t.Fatal(err)
	}
	return d
}

func mediaClose(a, b float64) bool { return math.Abs(a-b) < 0.005 }

func mediaExample(t *testing.T, id string) map[string]any {
	t.Helper()
	w, ok := engine.LookupWorkflow(id)
	if !ok {
		t.Fatalf("no workflow %s", id)
	}
	return clone(w.ExampleContext)
}

func mediaDay(s string) time.Time {
	d, err := engine.ParseDate(s)
	if err != nil {
		panic(err)
	}
	return d
}

func TestMusicTourBudgetExampleAddsUp(t *testing.T) {
	res := run(t, "music-tour-budget", mediaExample(t, "music-tour-budget"))
	// 6 shows from 04-08 to 04-15 (8 days) + ceil(1335 / 440) = 4 days home.
	if d := mediaNum(t, res, "tour", "days_on_road"); d != 12 {
		t.Fatalf("days on road %v, want 12", d)
	}
	if m := mediaNum(t, res, "tour", "total_miles"); m != 3175 {
		t.Fatalf("total miles %v, want 3175", m)
	}
	gross := 1500.0 + 2000 + 2500 + 3000 + 1200 + 1500
	fuel := engine.Money(3175.0 / 13 * 3.75)
	costs := 12*110 + fuel + 2*11*130 + 4*12*35
	checks := map[string]float64{
		"gross_guarantees_usd":   gross,
		"agent_commission_usd":   gross * 0.10,
		"manager_commission_usd": gross * 0.15,
		"total_costs_usd":        costs,
		"net_usd":                gross*0.75 - costs,
	}
	for k, want := range checks {
		if got := mediaNum(t, res, "budget", k); !mediaClose(got, engine.Money(want)) {
			t.Errorf("%s = %v, want %v", k, got, engine.Money(want))
		}
	}
	if be := mediaNum(t, res, "break_even_avg_guarantee_usd"); !mediaClose(be, engine.Money(costs/0.75/6)) {
		t.Errorf("break-even %v, want %v", be, engine.Money(costs/0.75/6))
	}
	announce := milestoneDate(t, res, "announce")
	first := milestoneDate(t, res, "first-show")
	if announce.Weekday() != time.Tuesday || engine.DaysBetween(announce, first) < 42 || engine.DaysBetween(announce, first) > 48 {
		t.Errorf("announce %v is not the Tuesday 6 weeks before %v", announce, first)
	}
	if len(warningCodes(res)) != 0 {
		t.Errorf("unexpected warnings %v", warningCodes(res))
	}
}

func TestMusicTourBudgetVehicleSetsDriveLimitAndRooms(t *testing.T) {
	ctx := map[string]any{
		"artist": "A", "as_of": "2026-11-20",
		"shows": []any{
			map[string]any{"city": "Chicago", "date": "2027-05-06", "guarantee_usd": 5000, "miles_from_previous": 0},
			map[string]any{"city": "Nashville", "date": "2027-05-07", "guarantee_usd": 5000, "miles_from_previous": 500},
		},
		"travel_party": 6,
	}
	van := run(t, "music-tour-budget", clone(ctx))
	if !hasWarning(van, "DRIVE_TOO_LONG") {
		t.Fatalf("500 miles overnight in a van (8 h × 55 mph = 440) should warn: %v", warningCodes(van))
	}
	if r := mediaNum(t, van, "budget", "rooms_per_night"); r != 3 {
		t.Errorf("6 people in a van need 3 rooms, got %v", r)
	}
	ctx["vehicle"] = "bus"
	bus := run(t, "music-tour-budget", ctx)
	if hasWarning(bus, "DRIVE_TOO_LONG") {
		t.Errorf("a bus driver may drive 10 h (550 miles): %v", warningCodes(bus))
	}
	if r := mediaNum(t, bus, "budget", "rooms_per_night"); r != 1 {
		t.Errorf("a bus party sleeps on the bus, only the driver needs a room; got %v", r)
	}
}

func TestMusicTourBudgetTooSoonAndLosing(t *testing.T) {
	res := run(t, "music-tour-budget", map[string]any{
		"artist": "A", "as_of": "2026-11-20",
		"shows": []any{
			map[string]any{"city": "Leeds", "date": "2026-12-10", "guarantee_usd": 300, "miles_from_previous": 200},
			map[string]any{"city": "Glasgow", "date": "2026-12-11", "guarantee_usd": 300, "miles_from_previous": 220},
		},
	})
	for _, code := range []string{"BOOKING_LEAD_TIME", "ANNOUNCE_WINDOW_MISSED", "TOUR_LOSS"} {
		if !hasWarning(res, code) {
			t.Errorf("missing %s in %v", code, warningCodes(res))
		}
	}
	if got := res["earliest_feasible_start"]; got != "2027-03-20" {
		t.Errorf("earliest feasible start %v, want as_of + 120 days = 2027-03-20", got)
	}
	if net := mediaNum(t, res, "budget", "net_usd"); net >= 0 {
		t.Errorf("net %v should be a loss", net)
	}
}

func TestMusicMerchPlanQuantitiesMarginsAndDates(t *testing.T) {
	res := run(t, "music-merch-plan", mediaExample(t, "music-merch-plan"))
	order := res["order"].([]any)
	want := []struct {
		units  float64
		margin float64
	}{
		// 18 × 250 × $5 = $22,500; shirts 55% / $30 = 412.5 → 413, +10% → 455 → dozens → 456.
		{456, engine.Money(30*(1-0.20-0.026) - 0.15 - 9.5)},
		// vinyl 30% / $30 = 225, hard goods at half the venue cut.
		{225, engine.Money(30*(1-0.10-0.026) - 0.15 - 11)},
		// totes 15% / $20 = 168.75 → 169.
		{169, engine.Money(20*(1-0.20-0.026) - 0.15 - 6)},
	}
	for i, w := range want {
		line := order[i].(map[string]any)
		if line["units"].(float64) != w.units || !mediaClose(line["net_per_unit_usd"].(float64), w.margin) {
			t.Errorf("%v: units %v margin %v, want %v and %v", line["name"], line["units"], line["net_per_unit_usd"], w.units, w.margin)
		}
	}
	// Stock lands Thursday 04-01, a week before the first show; vinyl needs
	// 16 weeks at the plant (plants quote 12–16 from approved masters; the
	// safe end is planned) and 1 of shipping before that.
	if d := milestoneDate(t, res, "order-vinyl"); d != mediaDay("2026-12-03") {
		t.Errorf("vinyl order-by %v, want 2026-12-03 (17 weeks before arrival)", d)
	}
	if d := milestoneDate(t, res, "order-apparel"); engine.DaysBetween(d, mediaDay("2027-04-01")) != 28 {
		t.Errorf("apparel order-by %v, want 4 weeks before arrival", d)
	}
	if cost := mediaNum(t, res, "projection", "order_cost_usd"); cost != 456*9.5+225*11+169*6 {
		t.Errorf("order cost %v", cost)
	}
}

func TestMusicMerchPlanWarnsOnCostLateOrderAndCash(t *testing.T) {
	res := run(t, "music-merch-plan", map[string]any{
		"tour_start": "2026-12-18", "shows": 10, "avg_attendance": 200, "as_of": "2026-11-20",
		"items": []any{
			map[string]any{"name": "Hoodie", "kind": "apparel", "unit_cost_usd": 30, "price_usd": 35, "share_pct": 50},
			map[string]any{"name": "LP", "kind": "vinyl", "unit_cost_usd": 12, "price_usd": 30, "share_pct": 50},
		},
		"cash_budget_usd": 1000,
	})
	for _, code := range []string{"PRICE_BELOW_COST", "ORDER_DEADLINE_PASSED", "MERCH_BUDGET_SHORT"} {
		if !hasWarning(res, code) {
			t.Errorf("missing %s in %v", code, warningCodes(res))
		}
	}
	hoodie := res["order"].([]any)[0].(map[string]any)
	if be := hoodie["break_even_price_usd"].(float64); !mediaClose(be, engine.Money(30.15/0.774)) {
		t.Errorf("break-even price %v, want %v", be, engine.Money(30.15/0.774))
	}
	if res["earliest_arrival_vinyl"] != "2027-03-19" {
		t.Errorf("vinyl ordered 2026-11-20 lands after 16 weeks at the plant and 1 of shipping (2027-03-19), got %v", res["earliest_arrival_vinyl"])
	}
}

// Stock ordered late lands when it lands: an arrival forecast inside the
// year-end closure rolls forward to the first working day after it, never
// back to a day before the stock can exist.
func TestMerchLateArrivalRollsForwardOverYearEnd(t *testing.T) {
	w, _ := engine.LookupWorkflow("music-merch-plan")
	ctx := clone(w.ExampleContext)
	ctx["as_of"], ctx["tour_start"] = "2026-11-30", "2027-01-08"
	ctx["items"] = []any{map[string]any{"name": "Tour T-shirt", "kind": "apparel", "unit_cost_usd": 9.5, "price_usd": 30, "share_pct": 100}}
	res := run(t, w.ID, ctx)
	// Ordered on 2026-11-30, three weeks of production and a week of
	// shipping land it on 2026-12-28, inside the 24 Dec–1 Jan closure.
	m := milestoneByKey(t, res, "arrives-apparel")
	if m["kind"] != "arrival" || m["date"] != "2027-01-04" || m["moved_from"] != "2026-12-28" {
		t.Fatalf("late apparel arrival: %v", m)
	}
}
