package workflows_test

import (
	"encoding/json"
	"math"
	"strings"
	"testing"

	"github.com/creativeops/creativeops/engine"
)

func TestDesignProjectQuote(t *testing.T) {
	w, _ := engine.LookupWorkflow("design-project-quote")
	res := run(t, "design-project-quote", clone(w.ExampleContext))
	q := res["quote"].(map[string]any)
	// Brand identity 80 h + 2 rounds × 15% of 50 h = 95 h, +10% = 104.5 h × $95.
	if q["hours"] != 104.5 || q["total"] != 9927.5 || q["business_days"] != 40.0 {
		t.Fatalf("quote %v", q)
	}
	sum := q["on_signing"].(float64) + q["on_concepts"].(float64) + q["on_delivery"].(float64)
	if engine.Money(sum) != 9927.5 || q["on_signing"] != 4963.75 {
		t.Fatalf("payments %v do not split 50/25/25", q)
	}
	// $9,200 budget: one revision round brings it to 96.25 h × $95 = $9,143.75.
	alt := res["budget_alternative"].(map[string]any)
	if !hasWarning(res, "BUDGET_BELOW_QUOTE") || alt["revision_rounds"] != 1.0 || alt["total"] != 9143.75 {
		t.Fatalf("budget alternative %v", alt)
	}
	if engine.FormatDate(milestoneDate(t, res, "final-files")) != "2027-02-26" || !milestoneDate(t, res, "concept-approval").Before(milestoneDate(t, res, "refinement-approval")) {
		t.Fatal("phases out of order or final files off the deadline")
	}
}

func TestDesignProjectQuoteRushInfeasibleAndScopeCut(t *testing.T) {
	w, _ := engine.LookupWorkflow("design-project-quote")
	ctx := clone(w.ExampleContext)
	delete(ctx, "client_budget")
	ctx["deadline"] = "2027-01-29" // 35 of 40 working days: the 24 Dec–1 Jan closure and US holidays do not count
	res := run(t, "design-project-quote", ctx)
	if q := res["quote"].(map[string]any); !hasWarning(res, "RUSH_FEE") || q["rush_pct"] != 25.0 || q["total"] != 12409.38 {
		t.Fatalf("want a 25%% rush: %v %v", warningCodes(res), q)
	}
	ctx["deadline"] = "2026-12-31" // 16 of 40
	res = run(t, "design-project-quote", ctx)
	if !hasWarning(res, "DEADLINE_INFEASIBLE") || res["earliest_feasible_deadline"] != "2027-02-05" {
		t.Fatalf("want DEADLINE_INFEASIBLE, earliest 2027-02-05: %v %v", warningCodes(res), res["earliest_feasible_deadline"])
	}
	ctx = clone(w.ExampleContext)
	ctx["client_budget"] = 8000
	alt := run(t, "design-project-quote", ctx)["budget_alternative"].(map[string]any)
	// $8,000 / $95 / 1.1 = 76.6 h of work against 87.5 h with one round.
	if alt["hours_affordable"] != 76.6 || alt["hours_to_cut"] != 10.9 {
		t.Fatalf("scope cut %v", alt)
	}
}

func TestDesignRateReview(t *testing.T) {
	w, _ := engine.LookupWorkflow("design-rate-review")
	res := run(t, "design-rate-review", clone(w.ExampleContext))
	b := res["breakdown"].(map[string]any)
	// $85,000 after SE tax needs $85,000 / (1 - 0.9235 × 0.153) profit;
	// + $9,000 expenses over 24 h × 45 weeks = $99.99 → $100.
	if b["profit_needed_usd"] != 98986.32 || b["self_employment_tax_usd"] != 13986.32 || b["billable_hours_per_year"] != 1080.0 {
		t.Fatalf("breakdown %v", b)
	}
	if res["rate_usd"] != 100.0 || res["day_rate_usd"] != 800.0 {
		t.Fatalf("rate %v day %v", res["rate_usd"], res["day_rate_usd"])
	}
	for _, code := range []string{"RATE_BELOW_SUSTAINABLE", "RETAINER_NOTICE_SHORT"} {
		if !hasWarning(res, code) {
			t.Errorf("missing %s in %v", code, warningCodes(res))
		}
	}
	if engine.DaysBetween(milestoneDate(t, res, "notify-clients"), milestoneDate(t, res, "effective")) < 30 || res["retainer_effective_date"] != "2027-02-01" {
		t.Fatalf("notice dates wrong: %v", res["timeline"])
	}
	noSE := clone(w.ExampleContext)
	noSE["us_self_employed"] = false
	if r := run(t, "design-rate-review", noSE)["rate_usd"]; r != 90.0 {
		t.Fatalf("without SE tax (85,000 + 9,000) / 1,080 → $90, got %v", r)
	}
}

func TestDesignRateReviewWarnings(t *testing.T) {
	res := run(t, "design-rate-review", map[string]any{
		"target_income_usd": 85000, "annual_expenses_usd": 9000, "billable_hours_per_week": 35, "weeks_off": 7,
		"current_rate_usd": 40, "effective_date": "2026-12-01", "as_of": "2026-11-20",
	})
	for _, code := range []string{"HOURS_OPTIMISTIC", "RATE_INCREASE_LARGE", "NOTICE_TOO_SHORT"} {
		if !hasWarning(res, code) {
			t.Errorf("missing %s in %v", code, warningCodes(res))
		}
	}
	// 107,986.32 / (35 × 45) = 68.56 → $70; at 25 h it would be $100.
	if res["rate_usd"] != 70.0 || res["rate_at_25_hours_usd"] != 100.0 {
		t.Errorf("rate %v, at 25 h %v", res["rate_usd"], res["rate_at_25_hours_usd"])
	}
	if res["earliest_feasible_effective_date"] != "2027-01-01" {
		t.Errorf("earliest effective %v, want 2027-01-01", res["earliest_feasible_effective_date"])
	}
	phased := res["phased_rates"].([]any)
	// +75%: half the rise first, $40 → $55, then $70 six months later.
	if phased[0].(map[string]any)["rate_usd"] != 55.0 || phased[1].(map[string]any)["rate_usd"] != 70.0 {
		t.Errorf("phased %v", phased)
	}
}

// A current rate that already pays the target is kept, never cut: the
// review reports the surplus and the floor instead.
func TestDesignRateReviewKeepsASustainableRate(t *testing.T) {
	res := run(t, "design-rate-review", map[string]any{
		"target_income_usd": 40000, "annual_expenses_usd": 9000, "billable_hours_per_week": 24, "weeks_off": 7,
		"current_rate_usd": 85, "effective_date": "2027-02-01", "as_of": "2026-11-20",
	})
	cur := res["current"].(map[string]any)
	if res["rate_usd"] != 85.0 || cur["increase_pct"] != 0.0 || cur["surplus_usd"].(float64) <= 0 || res["sustainable_rate_usd"].(float64) >= 85 {
		t.Fatalf("rate %v, sustainable %v, current %v: want the current $85 kept with its surplus", res["rate_usd"], res["sustainable_rate_usd"], cur)
	}
	if !hasWarning(res, "RATE_ALREADY_SUSTAINABLE") || hasWarning(res, "RATE_BELOW_SUSTAINABLE") {
		t.Errorf("warnings %v", warningCodes(res))
	}
	b, _ := json.Marshal(res["recommendations"])
	if strings.Contains(string(b), "new rate of") {
		t.Errorf("recommends a new rate: %s", b)
	}
}

// France's micro-entrepreneur scheme stops at its turnover ceiling: a rate
// that needs more turnover says the scheme it was computed under may not
// apply.
func TestDesignRateReviewFrenchCeiling(t *testing.T) {
	for target, want := range map[float64]bool{30000: false, 85000: true} {
		res := run(t, "design-rate-review", map[string]any{
			"country": "FR", "currency": "EUR", "target_income_usd": target, "annual_expenses_usd": 9000,
			"effective_date": "2027-02-01", "as_of": "2026-11-20",
		})
		if got := hasWarning(res, "SOCIAL_REGIME_CEILING"); got != want {
			t.Errorf("target %v: SOCIAL_REGIME_CEILING %v, want %v (%v)", target, got, want, warningCodes(res))
		}
	}
}

func TestDesignRateReviewPhasesFromFeasibleDate(t *testing.T) {
	res := run(t, "design-rate-review", map[string]any{
		"target_income_usd": 85000, "current_rate_usd": 40, "effective_date": "2026-12-01", "as_of": "2026-11-20",
	})
	phased := res["phased_rates"].([]any)
	if phased[0].(map[string]any)["effective"] != "2027-01-01" || phased[1].(map[string]any)["effective"] != "2027-07-01" {
		t.Fatalf("phases %v should start on the feasible date 2027-01-01", phased)
	}
}

// The quote bills 50% on signing, 25% on concept approval and 25% on final
// files: every instalment is on the timeline, the middle one with the
// concept gate it is due on.
func TestDesignProjectQuoteEveryInstalmentIsDated(t *testing.T) {
	w, _ := engine.LookupWorkflow("design-project-quote")
	res := run(t, "design-project-quote", clone(w.ExampleContext))
	titles := map[string]string{}
	for _, m := range res["timeline"].(map[string]any)["milestones"].([]any) {
		mm := m.(map[string]any)
		titles[mm["key"].(string)] = mm["title"].(string)
	}
	for key, want := range map[string]string{"kickoff": "50%", "concept-approval": "25%", "final-invoice": "25%"} {
		if !strings.Contains(titles[key], want) {
			t.Errorf("milestone %s %q does not carry the %s instalment", key, titles[key], want)
		}
	}
}

// Outside the US the rate pays the country's self-employed social
// contributions, from the rule table with its year and source: UK Class 4
// National Insurance, German health and care insurance, French
// micro-entrepreneur contributions (on turnover), Japan's National Pension
// and Health Insurance, Australia's Medicare levy. The pay left after them
// is the target; a country the table does not cover is warned about, not
// charged US tax or nothing in silence.
func TestDesignRateReviewSocialContributionsByCountry(t *testing.T) {
	w, _ := engine.LookupWorkflow("design-rate-review")
	for _, c := range []struct {
		country, currency string
		target, expenses  float64
		turnover          bool
	}{
		{"GB", "GBP", 45000, 4000, false},
		{"DE", "EUR", 50000, 5000, false},
		{"FR", "EUR", 40000, 4000, true},
		{"JP", "JPY", 6000000, 500000, false},
		{"AU", "AUD", 90000, 8000, false},
	} {
		ctx := clone(w.ExampleContext)
		ctx["country"], ctx["currency"], ctx["target_income_usd"], ctx["annual_expenses_usd"] = c.country, c.currency, c.target, c.expenses
		delete(ctx, "current_rate_usd")
		res := run(t, w.ID, ctx)
		b := res["breakdown"].(map[string]any)
		sc, _ := b["social_contributions_usd"].(float64)
		profit, _ := b["profit_needed_usd"].(float64)
		if sc <= 0 || math.Abs(profit-sc-c.target) > 0.02 {
			t.Errorf("%s: profit %v less contributions %v is not the target %v", c.country, profit, sc, c.target)
		}
		if c.turnover && math.Abs(b["revenue_needed_usd"].(float64)*0.256-sc) > 0.02 {
			t.Errorf("%s: contributions %v are not 25.6 %% of turnover %v", c.country, sc, b["revenue_needed_usd"])
		}
		j, _ := res["jurisdiction"].(map[string]any)
		rule, _ := j["social_contributions"].(map[string]any)
		if rule["year"] == nil || rule["source"] == nil || hasWarning(res, "JURISDICTION_UNKNOWN") {
			t.Errorf("%s: social contribution rule %v, warnings %v", c.country, rule, warningCodes(res))
		}
	}
	ctx := clone(w.ExampleContext)
	ctx["country"] = "BR"
	res := run(t, w.ID, ctx)
	if !hasWarning(res, "JURISDICTION_UNKNOWN") {
		t.Errorf("BR: no JURISDICTION_UNKNOWN in %v", warningCodes(res))
	}
	if sc := res["breakdown"].(map[string]any)["social_contributions_usd"]; sc != 0.0 {
		t.Errorf("BR: contributions %v charged from another country's rule", sc)
	}
}
