package workflows_test

import (
	"strings"
	"testing"
	"time"

	"github.com/creativeops/creativeops/engine"
)

func TestIllustrationCommissionQuote(t *testing.T) {
	w, _ := engine.LookupWorkflow("illustration-commission-quote")
	res := run(t, "illustration-commission-quote", clone(w.ExampleContext))
	q := res["quote"].(map[string]any)
	// 3 × 14 h × $85 = $3,570; book cover usage ×1.5 = $5,355.
	if q["base_fee"] != 3570.0 || q["total"] != 5355.0 || q["rush_fee"] != 0.0 || q["deposit"] != 0.0 {
		t.Fatalf("quote %v", q)
	}
	// 42 h at 6 h/day: sketches 3 + review 2 + finals 5 + 2 rounds × 3 = 16
	// days, and 19 working days (Thanksgiving is not one) remain to
	// 2026-12-18.
	if res["working_days_needed"] != 16.0 || res["working_days_available"] != 19.0 || len(warningCodes(res)) != 0 {
		t.Fatalf("days %v/%v warnings %v", res["working_days_needed"], res["working_days_available"], warningCodes(res))
	}
	k := res["kill_fees"].(map[string]any)
	if k["before_sketch_approval"] != 1338.75 || k["after_sketch_approval"] != 2677.5 || k["after_finals"] != 5355.0 {
		t.Fatalf("kill fees %v, want 25/50/100%%", k)
	}
	if !milestoneDate(t, res, "sketch-approval").Before(milestoneDate(t, res, "finals")) {
		t.Fatal("finals before sketch approval")
	}
}

func TestIllustrationCommissionRushTiers(t *testing.T) {
	w, _ := engine.LookupWorkflow("illustration-commission-quote")
	cases := []struct {
		delivery string
		rush     float64
		total    float64
		code     string
	}{
		{"2026-12-11", 25, 6693.75, "RUSH_FEE"}, // 14 of 16 working days (Thanksgiving is not one)
		{"2026-12-08", 50, 8032.5, "RUSH_FEE"},  // 11 of 16
		{"2026-12-03", 0, 5355, "DEADLINE_INFEASIBLE"},
	}
	for _, c := range cases {
		ctx := clone(w.ExampleContext)
		ctx["delivery_date"] = c.delivery
		res := run(t, "illustration-commission-quote", ctx)
		if !hasWarning(res, c.code) || res["rush_pct"] != c.rush || res["quote"].(map[string]any)["total"] != c.total {
			t.Errorf("%s: rush %v total %v warnings %v; want %v%% %v %s", c.delivery, res["rush_pct"], res["quote"].(map[string]any)["total"], warningCodes(res), c.rush, c.total, c.code)
		}
		if c.code == "DEADLINE_INFEASIBLE" && res["earliest_feasible_delivery_date"] != "2026-12-15" {
			t.Errorf("earliest delivery %v, want 2026-12-15 (16 working days)", res["earliest_feasible_delivery_date"])
		}
	}
	ctx := clone(w.ExampleContext)
	ctx["usage"] = "advertising"
	q := run(t, "illustration-commission-quote", ctx)["quote"].(map[string]any)
	if q["total"] != 7140.0 || q["deposit"] != 3570.0 {
		t.Fatalf("advertising ×2 = 7140 with a 50%% deposit, got %v", q)
	}
}

func TestIllustrationPictureBookSchedule(t *testing.T) {
	w, _ := engine.LookupWorkflow("illustration-picture-book")
	res := run(t, "illustration-picture-book", clone(w.ExampleContext))
	art := res["art"].(map[string]any)
	// 32 pages - 4 front matter = 14 spreads + jacket; dummy 30 days +
	// 15 × 5 days of finals.
	if art["story_spreads"] != 14.0 || art["art_units"] != 15.0 || art["working_days"] != 105.0 {
		t.Fatalf("art %v", art)
	}
	finals := milestoneDate(t, res, "finals")
	if engine.FormatDate(finals) != "2027-06-04" || finals.Weekday() != time.Friday {
		t.Fatalf("finals %v, want Friday 2027-06-04 (12 months before, previous workday)", finals)
	}
	if studioWorkdaysBetween(milestoneDate(t, res, "art-start"), finals) != 105 {
		t.Fatal("latest start is not 105 working days before finals")
	}
	a := res["advance"].(map[string]any)
	// $12,000 / ($18.99 × 5%) = 12,638.2 → 12,639 copies.
	if a["on_signing_usd"] != 4000.0 || a["copies_to_earn_out"] != 12639.0 {
		t.Fatalf("advance %v", a)
	}
}

func TestIllustrationPictureBookAtRisk(t *testing.T) {
	res := run(t, "illustration-picture-book", map[string]any{
		"publication_date": "2027-12-07", "page_count": 36, "advance_usd": 9000, "as_of": "2026-11-20",
	})
	for _, code := range []string{"FINALS_AT_RISK", "PAGE_COUNT_NOT_SIGNATURE"} {
		if !hasWarning(res, code) {
			t.Errorf("missing %s in %v", code, warningCodes(res))
		}
	}
	if res["suggested_page_count"] != 40.0 {
		t.Errorf("suggested pages %v, want 40", res["suggested_page_count"])
	}
	// 36 pages: 16 spreads + jacket = 17 × 5 + 30 = 115 working days.
	earliest, _ := engine.ParseDate(res["earliest_feasible_finals_date"].(string))
	if studioWorkdaysBetween(time.Date(2026, 11, 20, 0, 0, 0, 0, time.UTC), earliest) != 115 {
		t.Fatalf("earliest finals %v is not 115 working days out", earliest)
	}
	late := run(t, "illustration-picture-book", map[string]any{
		"publication_date": "2028-06-06", "finals_due": "2028-02-01", "advance_usd": 9000, "as_of": "2026-11-20",
	})
	if !hasWarning(late, "FINALS_TOO_LATE_FOR_PRINT") {
		t.Errorf("finals 4 months before publication should warn: %v", warningCodes(late))
	}
}

// Illustrators quote in their own currency: a euro quote says so in every
// amount of its text.
func TestIllustrationCommissionQuoteInEuros(t *testing.T) {
	w, _ := engine.LookupWorkflow("illustration-commission-quote")
	ctx := clone(w.ExampleContext)
	ctx["currency"] = "EUR"
	res := run(t, "illustration-commission-quote", ctx)
	if s := res["strategy"].(string); !strings.Contains(s, "€") || strings.Contains(s, "$") || res["currency"] != "EUR" {
		t.Fatalf("strategy %q, currency %v", s, res["currency"])
	}
}
