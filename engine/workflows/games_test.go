package workflows_test

import (
	"math"
	"testing"
	"time"

	"github.com/creativeops/creativeops/engine"
)

// Helpers for the games, tabletop, video, social-media, newsletters, comedy,
// theater and live-events tests.

// entRun runs a workflow on its example context with some keys replaced
// (a nil value removes the key).
func entRun(t *testing.T, id string, changes map[string]any) map[string]any {
	t.Helper()
	w, ok := engine.LookupWorkflow(id)
	if !ok {
		t.Fatalf("workflow %q not registered", id)
	}
	ctx := clone(w.ExampleContext)
	for k, v := range changes {
		if v == nil {
			delete(ctx, k)
		} else {
			ctx[k] = v
		}
	}
	return run(t, id, ctx)
}

// entAt walks nested result maps (and list indexes given as ints).
func entAt(t *testing.T, res map[string]any, path ...any) any {
	t.Helper()
	var cur any = res
	for _, k := range path {
		switch key := k.(type) {
		case string:
			m, ok := cur.(map[string]any)
			if !ok {
				t.Fatalf("%v: not an object at %q", path, key)
			}
			if cur, ok = m[key]; !ok {
				t.Fatalf("%v: no key %q in %v", path, key, m)
			}
		case int:
			l, ok := cur.([]any)
			if !ok || key >= len(l) {
				t.Fatalf("%v: no index %d", path, key)
			}
			cur = l[key]
		}
	}
	return cur
}

func entNum(t *testing.T, res map[string]any, path ...any) float64 {
	t.Helper()
	v, ok := entAt(t, res, path...).(float64)
	if !ok {
		t.Fatalf("%v is not a number: %v", path, entAt(t, res, path...))
	}
	return v
}

func entStr(t *testing.T, res map[string]any, path ...any) string {
	t.Helper()
	v, ok := entAt(t, res, path...).(string)
	if !ok {
		t.Fatalf("%v is not a string: %v", path, entAt(t, res, path...))
	}
	return v
}

func entDate(t *testing.T, res map[string]any, path ...any) time.Time {
	t.Helper()
	d, err := engine.ParseDate(entStr(t, res, path...))
	if err != nil {
		t.Fatal(err)
	}
	return d
}

func entDay(s string) time.Time { d, _ := engine.ParseDate(s); return d }

func entNear(a, b float64) bool { return math.Abs(a-b) < 0.006 }

func entWant(t *testing.T, res map[string]any, codes ...string) {
	t.Helper()
	for _, c := range codes {
		if !hasWarning(res, c) {
			t.Errorf("missing warning %s in %v", c, warningCodes(res))
		}
	}
}

func entNoWarnings(t *testing.T, res map[string]any) {
	t.Helper()
	if codes := warningCodes(res); len(codes) > 0 {
		t.Errorf("unexpected warnings %v", codes)
	}
}

func TestGamesSteamLaunchExample(t *testing.T) {
	res := entRun(t, "games-steam-launch", nil)
	entNoWarnings(t, res)
	// Fee unpaid: 30 days from the plan date; the page passes review in 7
	// and must then be public 14 days, so the fee sets the floor.
	if got := entStr(t, res, "earliest_allowed_launch_date"); got != "2026-12-20" {
		t.Errorf("earliest allowed launch %s, want 2026-12-20", got)
	}
	if got := entStr(t, res, "store_page_live_date"); got != "2026-11-27" {
		t.Errorf("store page live %s, want 2026-11-27 (plan date + 7-day review)", got)
	}
	start := entDate(t, res, "next_fest", "start")
	if start.Month() != time.June || start.Weekday() != time.Monday || start.Day() < 8 || start.Day() > 14 {
		t.Errorf("Next Fest start %v is not the second Monday of June", start)
	}
	if d := engine.DaysBetween(entDate(t, res, "next_fest", "registration_deadline"), start); d != 56 {
		t.Errorf("registration %d days before the fest, want 56", d)
	}
	if d := engine.DaysBetween(entDate(t, res, "next_fest", "demo_live_by"), start); d != 21 {
		t.Errorf("demo live %d days before the fest, want 21", d)
	}
	if !entDate(t, res, "next_fest", "end").Before(milestoneDate(t, res, "launch")) {
		t.Error("Next Fest must end before launch")
	}
	// 5,800 wishlists short over ceil(235/7) = 34 weeks.
	if got := entNum(t, res, "wishlist_plan", "needed_per_week"); got != 171 {
		t.Errorf("wishlists per week %v, want 171", got)
	}
	// Valve's 30% comes off adjusted gross, after the 15% VAT and regional
	// drag and 8% refunds, not off list price.
	if got := entNum(t, res, "first_week_forecast", "net_high_usd"); !entNear(got, engine.Money(engine.Money(240*19.99*0.85*0.92)*0.7)) {
		t.Errorf("first-week net high %v, want 20%% of 1,200 wishlists × $19.99 × 85%% × 92%% × 70%%", got)
	}
}

func TestGamesSteamLaunchTooSoonProposesDates(t *testing.T) {
	res := entRun(t, "games-steam-launch", map[string]any{"launch_date": "2026-12-10"})
	entWant(t, res, "LAUNCH_TOO_SOON", "SHORT_WISHLIST_RUNWAY", "NEXT_FEST_UNAVAILABLE", "WISHLISTS_BELOW_BENCHMARK")
	// Fee clears 2026-12-20 (a Sunday): the next Tuesday.
	if got := entStr(t, res, "earliest_feasible_launch_date"); got != "2026-12-22" {
		t.Errorf("earliest feasible %s, want 2026-12-22", got)
	}
	// Page public 2026-11-27 plus six months, on a Tuesday.
	if got := entStr(t, res, "recommended_launch_date"); got != "2027-06-01" {
		t.Errorf("recommended launch %s, want 2027-06-01", got)
	}
	// February 2027 Next Fest (22 Feb–1 Mar) is the next open edition.
	if got := entStr(t, res, "next_fest_launch_date"); got != "2027-03-09" {
		t.Errorf("launch after Next Fest %s, want 2027-03-09", got)
	}
}

func TestGamesSteamLaunchRiskyDayInSaleWithoutDemo(t *testing.T) {
	res := entRun(t, "games-steam-launch", map[string]any{"launch_date": "2027-06-25", "has_demo": false, "app_fee_paid_on": "2026-10-01"})
	entWant(t, res, "LAUNCH_DAY_RISKY", "LAUNCH_IN_SEASONAL_SALE", "NO_DEMO")
	if _, ok := res["next_fest"]; ok {
		t.Error("a game without a demo gets no Next Fest")
	}
	if hasWarning(res, "LAUNCH_TOO_SOON") {
		t.Error("the fee was paid long ago; launch is not too soon")
	}
}

func TestGamesSteamBreakEvenWaterfallAndMonth(t *testing.T) {
	res := entRun(t, "games-steam-break-even", nil)
	net := 19.99 * 0.75 * 0.85 * 0.92 * 0.70
	if got := entNum(t, res, "per_copy_usd", "developer_net"); !entNear(got, engine.Money(net)) {
		t.Errorf("developer net per copy %v, want %.2f", got, net)
	}
	if got := entNum(t, res, "break_even_units"); got != math.Ceil(60000/net) {
		t.Errorf("break-even units %v, want %v", got, math.Ceil(60000/net))
	}
	// 3,000 launch-month copies then 400 a month: recouped in month 12.
	if got := entStr(t, res, "break_even_month"); got != "2028-06" {
		t.Errorf("break-even month %s, want 2028-06", got)
	}
	if got := milestoneDate(t, res, "break-even"); engine.FormatDate(got) != "2028-07-30" {
		t.Errorf("break-even payout %v, want 30 days after the end of June 2028", got)
	}
	if d := engine.DaysBetween(milestoneDate(t, res, "launch"), milestoneDate(t, res, "refund-window")); d != 14 {
		t.Errorf("refund window %d days, want 14", d)
	}

	pub := entRun(t, "games-steam-break-even", map[string]any{"publisher_share_pct": 50})
	if got := entNum(t, pub, "per_copy_usd", "developer_net"); !entNear(got, engine.Money(net/2)) {
		t.Errorf("50%% publisher share leaves %v, want %.2f", got, net/2)
	}
	if entStr(t, pub, "break_even_month") <= "2028-06" {
		t.Error("a publisher share must push break-even later")
	}
}

func TestGamesSteamBreakEvenNoBreakEvenAndValveTiers(t *testing.T) {
	res := entRun(t, "games-steam-break-even", map[string]any{"budget_usd": 500000})
	entWant(t, res, "NO_BREAK_EVEN")
	perCopy := 19.99 * 0.75 * 0.85 * 0.92
	want := 19.99 * 500000 / (17000 * perCopy * 0.7)
	if got := entNum(t, res, "break_even_price_usd"); math.Abs(got-want) > 0.01 {
		t.Errorf("break-even price %v, want %.2f", got, want)
	}

	// A million launch-month copies pass $10M adjusted gross: Valve takes
	// 30% up to $10M and 25% above.
	big := entRun(t, "games-steam-break-even", map[string]any{"launch_month_units": 1000000, "budget_usd": 0})
	adjusted := 1e6 * perCopy
	wantNet := adjusted - (10e6*0.30 + (adjusted-10e6)*0.25)
	if got := entNum(t, big, "first_year_by_month", 0, "developer_net_usd"); math.Abs(got-wantNet) > 0.01 {
		t.Errorf("launch month net %v, want %.2f with the 25%% tier", got, wantNet)
	}
}

func TestGamesSteamDiscountCalendarCooldownAndLadder(t *testing.T) {
	res := entRun(t, "games-steam-discount-calendar", nil)
	entNoWarnings(t, res)
	list := entAt(t, res, "discounts").([]any)
	var prevEnd time.Time
	prevSeasonal := 0.0
	for i, d := range list {
		m := d.(map[string]any)
		start, end := entDay(m["start"].(string)), entDay(m["end"].(string))
		pct := m["discount_pct"].(float64)
		if !entNear(m["sale_price_usd"].(float64), engine.Money(19.99*(100-pct)/100)) {
			t.Errorf("%s sale price %v at %v%%", m["name"], m["sale_price_usd"], pct)
		}
		switch m["kind"] {
		case "own":
			// 28 clear days after the previous discount, and before the next.
			next := entDay(list[i+1].(map[string]any)["start"].(string))
			if engine.DaysBetween(prevEnd, start) < 29 || engine.DaysBetween(end, next) < 29 {
				t.Errorf("own discount %v–%v is within 28 days of %v or %v", start, end, prevEnd, next)
			}
			if pct > prevSeasonal && prevSeasonal > 0 {
				t.Errorf("own discount at %v%% is deeper than the last sale (%v%%)", pct, prevSeasonal)
			}
		case "seasonal":
			if pct <= prevSeasonal {
				t.Errorf("%s at %v%% does not deepen past %v%%", m["name"], pct, prevSeasonal)
			}
			prevSeasonal = pct
		}
		prevEnd = end
	}
	if first := list[0].(map[string]any); first["kind"] != "launch" || first["start"] != "2027-07-13" || first["end"] != "2027-07-19" {
		t.Errorf("first discount %v, want the launch week", first)
	}
	// Seasonal sales are exempt from the cooldown: Autumn and Winter, three
	// weeks apart, are both joined.
	if got := entNum(t, res, "seasonal_sales_joined"); got != 4 {
		t.Errorf("seasonal sales joined %v, want 4", got)
	}
	if got := milestoneDate(t, res, "discount-4"); engine.FormatDate(got) != "2027-12-16" || got.Weekday() != time.Thursday {
		t.Errorf("Winter Sale starts %v, want Thursday 2027-12-16", got)
	}
	if got := entNum(t, res, "deepest_discount_pct"); got != 50 {
		t.Errorf("deepest %v%%, want the 50%% cap", got)
	}
}

func TestGamesSteamDiscountSeasonalSaleLockouts(t *testing.T) {
	// Summer Sale 2027 starts 24 June, 21 days after a 3 June release.
	res := entRun(t, "games-steam-discount-calendar", map[string]any{"launch_date": "2027-06-03"})
	entWant(t, res, "SALE_TOO_SOON_AFTER_RELEASE")
	// With a week's launch discount: 7 days + 28 clear days before 24 June.
	if got := entStr(t, res, "latest_launch_for_first_sale"); got != "2027-05-20" {
		t.Errorf("latest launch %s, want 2027-05-20", got)
	}
	if ok := entRun(t, "games-steam-discount-calendar", map[string]any{"launch_date": "2027-05-20"}); len(warningCodes(ok)) > 0 {
		t.Errorf("launching on the proposed date still warns %v", warningCodes(ok))
	}
	blocked := entRun(t, "games-steam-discount-calendar", map[string]any{"launch_date": "2027-05-25"})
	entWant(t, blocked, "SALE_BLOCKED_BY_LAUNCH_DISCOUNT")
	none := entRun(t, "games-steam-discount-calendar", map[string]any{"launch_date": "2027-05-25", "launch_discount_pct": 0})
	first := entAt(t, none, "discounts", 0).(map[string]any)
	if first["name"] != "Steam Summer Sale" || first["discount_pct"] != 10.0 {
		t.Errorf("without a launch discount the first discount is %v, want the Summer Sale at 10%%", first)
	}
	small := entRun(t, "games-steam-discount-calendar", map[string]any{"launch_discount_pct": 5})
	entWant(t, small, "DISCOUNT_BELOW_STEAM_MINIMUM")
	if got := entNum(t, small, "discounts", 0, "discount_pct"); got != 10 {
		t.Errorf("launch discount %v%%, want Steam's 10%% minimum", got)
	}
}

// A launch in the 24 December–1 January dead week (inside Steam's Winter
// Sale) is warned about with a better Tuesday after it.
func TestGamesSteamLaunchInDeadWeekGetsBetterDate(t *testing.T) {
	w, _ := engine.LookupWorkflow("games-steam-launch")
	ctx := clone(w.ExampleContext)
	ctx["launch_date"] = "2027-12-28"
	res := run(t, "games-steam-launch", ctx)
	if !hasWarning(res, "LAUNCH_IN_DEAD_WEEK") || res["better_launch_date"] != "2028-01-04" {
		t.Fatalf("warnings %v, better %v", warningCodes(res), res["better_launch_date"])
	}
}

// The Steam Direct fee is recouped at $1,000 of adjusted gross, not of list
// price: 100 first-week copies at $10 gross $1,000 at list but about $782
// after VAT, regional pricing and refunds.
func TestGamesSteamLaunchAppFeeRecoupOnAdjustedGross(t *testing.T) {
	res := entRun(t, "games-steam-launch", map[string]any{"price_usd": 10, "wishlists": 500})
	if got := entNum(t, res, "first_week_forecast", "gross_high_usd"); got != 1000 {
		t.Fatalf("list gross %v, want 1000", got)
	}
	if got := entNum(t, res, "first_week_forecast", "adjusted_gross_high_usd"); !entNear(got, 782) {
		t.Errorf("adjusted gross %v, want 782", got)
	}
	entWant(t, res, "APP_FEE_NOT_RECOUPED")
}
