package workflows_test

import (
	"testing"
	"time"

	"github.com/creativeops/creativeops/engine"
)

func TestPhotographyLicensingQuoteAndBudgetAlternative(t *testing.T) {
	w, _ := engine.LookupWorkflow("photography-licensing-quote")
	res := run(t, "photography-licensing-quote", clone(w.ExampleContext))
	q := res["quote"].(map[string]any)
	// 2 days × $2,500 = $5,000; advertising 150% × (1 + 0.5 for year 2) ×
	// national 1 = $11,250; pre-production 1 day at half rate = $1,250;
	// 24 images × $75 = $1,800.
	want := map[string]float64{"creative_fee_usd": 5000, "usage_license_usd": 11250, "preproduction_usd": 1250, "retouching_usd": 1800, "total_usd": 19300, "advance_usd": 9650}
	for k, v := range want {
		if q[k] != v {
			t.Errorf("%s = %v, want %v", k, q[k], v)
		}
	}
	// $15,000 budget: 2y regional is $16,487.50 and 1y national $15,550, so
	// the largest fitting licence is 1 year regional at $13,675.
	alt := res["budget_alternative"].(map[string]any)
	if !hasWarning(res, "BUDGET_BELOW_QUOTE") || alt["license_years"] != 1.0 || alt["territory"] != "regional" || alt["total_usd"] != 13675.0 {
		t.Fatalf("alternative %v, warnings %v", alt, warningCodes(res))
	}
	// Approval 5 business days + 1 pre-production day before the shoot.
	approve, shoot := milestoneDate(t, res, "estimate-approved"), milestoneDate(t, res, "shoot")
	if studioWorkdaysBetween(approve, shoot) != 6 {
		t.Fatalf("approval %v is not 6 business days before %v", approve, shoot)
	}
	if engine.FormatDate(milestoneDate(t, res, "license-expires")) != "2029-01-31" {
		t.Fatalf("2-year licence from delivery 2027-02-01 should expire 2029-01-31, got %v", milestoneDate(t, res, "license-expires"))
	}
}

func TestPhotographyLicensingTerritoryAndShootTooSoon(t *testing.T) {
	ctx := map[string]any{"shoot_date": "2026-11-24", "shoot_days": 2, "day_rate_usd": 2500, "usage": "advertising", "territory": "worldwide", "as_of": "2026-11-20"}
	res := run(t, "photography-licensing-quote", ctx)
	if res["quote"].(map[string]any)["usage_license_usd"] != 15000.0 {
		t.Fatalf("worldwide doubles the 1-year $7,500 licence: %v", res["quote"])
	}
	if !hasWarning(res, "SHOOT_TOO_SOON") || res["earliest_feasible_shoot_date"] != "2026-12-01" {
		t.Fatalf("want SHOOT_TOO_SOON and earliest 2026-12-01 (6 working days; Thanksgiving is not one), got %v %v", warningCodes(res), res["earliest_feasible_shoot_date"])
	}
}

func TestPhotographyPrintEditionTiers(t *testing.T) {
	w, _ := engine.LookupWorkflow("photography-print-editions")
	res := run(t, "photography-print-editions", clone(w.ExampleContext))
	tiers := res["tiers"].([]any)
	prices := []float64{1200, 1500, 1900} // +25% steps, rounded up to $50
	for i, tr := range tiers {
		if tr.(map[string]any)["price_usd"] != prices[i] || tr.(map[string]any)["count"] != 5.0 {
			t.Fatalf("tier %d = %v, want 5 prints at %v", i+1, tr, prices[i])
		}
	}
	s := res["sell_out"].(map[string]any)
	// 5 × (1200 + 1500 + 1900) = 23,000; 50% commission; 17 prints × $240.
	if s["revenue_usd"] != 23000.0 || s["commission_usd"] != 11500.0 || s["print_costs_usd"] != 4080.0 || s["artist_net_usd"] != 7420.0 {
		t.Fatalf("sell-out %v", s)
	}
	release := milestoneDate(t, res, "release")
	if studioWorkdaysBetween(milestoneDate(t, res, "order-prints"), release) != 15 {
		t.Fatal("prints not ordered 15 business days before release")
	}
}

func TestPhotographyPrintEditionWarnings(t *testing.T) {
	res := run(t, "photography-print-editions", map[string]any{
		"edition_size": 10, "artist_proofs": 4, "print_cost_usd": 300, "start_price_usd": 500, "release_date": "2026-12-01", "as_of": "2026-11-20",
	})
	for _, code := range []string{"ARTIST_PROOFS_EXCESSIVE", "PRICE_BELOW_COST", "RELEASE_TOO_SOON"} {
		if !hasWarning(res, code) {
			t.Errorf("missing %s in %v", code, warningCodes(res))
		}
	}
	if res["suggested_artist_proofs"] != 2.0 || res["minimum_start_price_usd"] != 600.0 {
		t.Errorf("suggested APs %v (want 2), minimum price %v (want 600 = 300 / 50%%)", res["suggested_artist_proofs"], res["minimum_start_price_usd"])
	}
	// Four weeks out, and the 20 working days proofing, the lab and
	// signing need: Thanksgiving takes one, so Monday 21 December.
	if res["earliest_feasible_release_date"] != "2026-12-21" {
		t.Errorf("earliest release %v, want 2026-12-21 (4 weeks and 20 working days out)", res["earliest_feasible_release_date"])
	}
}

// studioWorkdaysBetween counts the working days after a up to b on the
// calendar of a plan with no country: weekends, US federal holidays and the
// 24 December–1 January closure do not count.
func studioWorkdaysBetween(a, b time.Time) int { return usCalendar.WorkdaysBetween(a, b) }

// A budget below even a 1-year regional licence used to be answered with
// "deliver 0 retouched images". A job always delivers at least one image:
// fewer images first, then fewer shoot days, then the minimum quote.
func TestPhotographyLicensingNeverRecommendsZeroImages(t *testing.T) {
	base := map[string]any{"shoot_date": "2027-01-19", "shoot_days": 2, "day_rate_usd": 2500, "final_images": 24, "usage": "advertising", "as_of": "2026-11-20"}
	// 2 days at $2,500: creative $5,000 + pre-production $1,250 + usage
	// 150% × 0.75 = $5,625: $11,875 before retouching.
	check := func(budget float64) map[string]any {
		ctx := clone(base)
		ctx["client_budget_usd"] = budget
		res := run(t, "photography-licensing-quote", ctx)
		alt := res["budget_alternative"].(map[string]any)
		if n, ok := alt["final_images"]; ok && n.(float64) < 1 {
			t.Fatalf("budget %v: recommends %v images", budget, n)
		}
		return alt
	}
	if alt := check(12000); alt["final_images"] != 1.0 {
		t.Errorf("$12,000 leaves $125: 1 image, got %v", alt)
	}
	// $5,000: one day costs $5,937.50, half a day $2,968.75 + $75.
	if alt := check(5000); alt["final_images"] != 1.0 || alt["shoot_days"] != 0.5 {
		t.Errorf("$5,000: want a half-day shoot with 1 image, got %v", alt)
	}
	if alt := check(1000); alt["minimum_quote_usd"] != 3043.75 {
		t.Errorf("$1,000: want the $3,043.75 minimum quote, got %v", alt)
	}
}

// An edition the photographer sells in France within the 30-copy limit
// takes the 5.5 % rate on works of art sold by their author, not the
// standard 20 %; past the limit it is 20 % with a warning. Germany keeps
// photographs at 19 % (the 2025 art rate excludes them); a UK artist's
// sale is 20 %; a country the table has no art rate for is warned about.
func TestPrintEditionArtVATByCountry(t *testing.T) {
	w, _ := engine.LookupWorkflow("photography-print-editions")
	for _, c := range []struct {
		country       string
		size, aps     int
		rate          float64
		limit, unknow bool
	}{
		{"FR", 15, 2, 5.5, false, false},
		{"FR", 30, 3, 20, true, false},
		{"DE", 15, 2, 19, false, false},
		{"GB", 15, 2, 20, false, false},
		{"US", 15, 2, 0, false, false},
		{"IT", 15, 2, 22, false, true},
	} {
		ctx := clone(w.ExampleContext)
		ctx["country"], ctx["edition_size"], ctx["artist_proofs"] = c.country, c.size, c.aps
		res := run(t, w.ID, ctx)
		vat, _ := res["vat"].(map[string]any)
		if got, _ := vat["rate_pct"].(float64); got != c.rate {
			t.Errorf("%s %d+%d: VAT %v, want %v %%", c.country, c.size, c.aps, vat, c.rate)
		}
		if hasWarning(res, "ART_VAT_COPY_LIMIT") != c.limit {
			t.Errorf("%s %d+%d: ART_VAT_COPY_LIMIT %v, want %v", c.country, c.size, c.aps, !c.limit, c.limit)
		}
		if hasWarning(res, "JURISDICTION_UNKNOWN") != c.unknow {
			t.Errorf("%s: JURISDICTION_UNKNOWN %v, want %v: %v", c.country, !c.unknow, c.unknow, warningCodes(res))
		}
	}
}
