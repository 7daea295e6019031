package workflows

import (
	"fmt"
	"math"

	"github.com/creativeops/creativeops/engine"
)

// Commercial photography estimate: creative fee plus a usage licence priced
// by media, duration and territory, with the production calendar.
// Rules used:
//   - Usage-based licensing: the fee for the shoot (creative fee = day rate ×
//     days) is separate from the licence, which scales with media, duration
//     and territory (ASMP licensing guidance; Getty/industry rate tables use
//     the same three axes). ASMP publishes no fixed multipliers, so these are
//     conservative planning factors, expressed as a share of the creative
//     fee: editorial 25%, web/social 50%, print collateral 75%, advertising
//     150%, out-of-home 200%, all media 300%; each year beyond the first adds
//     50% of the first-year licence; regional ×0.75, national ×1,
//     worldwide ×2.
//   - Pre-production (scouting, casting, permits) is billed at half the day
//     rate, half a day per shoot day; retouching at $75 per final image
//     (commonly $50–$150).
//   - Commercial photographers take a 50% advance on signing; the balance is
//     invoiced on delivery, net 30.
//   - Estimate approval must leave 5 business days plus the pre-production
//     days before the shoot (city film permits commonly need 3–5 business
//     days); proofs 2 business days after the shoot, client selects within
//     3, retouching about 8 finished images per day.
//
// A shoot date too close or already past (this is a quote, so the shoot has
// not happened) is re-planned on the earliest feasible shoot date.
func init() {
	engine.Register(&engine.Workflow{
		ID:       "photography-licensing-quote",
		Name:     "Commercial shoot estimate and licence",
		Vertical: "photography",
		PastDate: engine.PastDate{Field: "shoot_date", Policy: engine.PastReplan},
		Sources: []engine.Source{
			{Title: "ASMP: licensing guide", URL: "https://www.asmp.org/business/licensing/", Checked: "2026-11"},
		},
		Description: "Quotes a commercial shoot (creative fee, usage licence by media, duration and territory, pre-production and retouching), schedules approval to delivery and licence expiry, and proposes the largest licence that fits a client's budget. A shoot date too close or already past (this is a quote) is re-planned on the earliest feasible shoot date.",
		Fields: []engine.Field{
			{Name: "shoot_date", Kind: engine.Date, Required: true, Description: "First shoot day."},
			{Name: "shoot_days", Kind: engine.Number, Default: 1, Min: engine.Bound(0.5), Max: engine.Bound(30), Description: "Shoot days (half days allowed)."},
			{Name: "day_rate_usd", Kind: engine.Number, Money: true, Required: true, Min: engine.Bound(100), Max: engine.Bound(50000), Description: "Your creative day rate in `currency`."},
			{Name: "final_images", Kind: engine.Integer, Default: 10, Min: engine.Bound(1), Max: engine.Bound(500), Description: "Retouched images delivered and licensed."},
			{Name: "usage", Kind: engine.String, Enum: []string{"editorial", "web_social", "print_collateral", "advertising", "out_of_home", "all_media"}, Default: "web_social", Description: "Media the images are licensed for."},
			{Name: "license_years", Kind: engine.Integer, Default: 1, Min: engine.Bound(1), Max: engine.Bound(10), Description: "Licence duration in years."},
			{Name: "territory", Kind: engine.String, Enum: []string{"regional", "national", "worldwide"}, Default: "national", Description: "Where the images may be used."},
			{Name: "client_budget_usd", Kind: engine.Number, Money: true, Min: engine.Bound(0), Max: engine.Bound(10000000), Description: "The client's stated budget, in `currency` (0–10,000,000)."},
			engine.RegionField(),
			engine.CurrencyField("USD"),
		},
		ExampleContext: map[string]any{
			"shoot_date":        "2027-01-19",
			"shoot_days":        2,
			"day_rate_usd":      2500,
			"final_images":      24,
			"usage":             "advertising",
			"license_years":     2,
			"territory":         "national",
			"client_budget_usd": 15000,
			"as_of":             "2026-11-20",
		},
		Steps: []engine.Step{
			{Name: "quote", Run: phLicQuote},
			{Name: "fit-budget", Run: phLicBudget},
			{Name: "schedule", Run: phLicSchedule},
			{Name: "recommend", Run: phLicRecommend},
		},
	})
}

var (
	phLicUsage     = map[string]float64{"editorial": 0.25, "web_social": 0.5, "print_collateral": 0.75, "advertising": 1.5, "out_of_home": 2, "all_media": 3}
	phLicTerritory = map[string]float64{"regional": 0.75, "national": 1, "worldwide": 2}
	phLicTerrOrder = []string{"regional", "national", "worldwide"}
)

// phLicRetouch is retouching per delivered image, a US-market figure in
// US dollars converted into the plan's currency at the reference rate.
var phLicRetouch = engine.Benchmark{Amount: engine.InUSD(75), What: "retouching per delivered image", Source: "ASMP licensing guide and US commercial photographers' rate sheets"}

// phLicFits reports whether a total fits the budget. Totals are summed
// from cent-rounded parts, so one that meets the budget but for that
// rounding fits it, in every currency alike.
func phLicFits(total, budget float64) bool { return total <= budget+0.05 }

// phLicTotal prices one combination of days, images and licence terms.
func phLicTotal(in *engine.Input, p *engine.Plan, years int, territory string) (creative, prepro, usage, retouch, total float64) {
	days, rate := in.Float("shoot_days"), in.Float("day_rate_usd")
	creative = engine.Money(rate * days)
	prepro = engine.Money(rate * 0.5 * (days * 0.5))
	usage = engine.Money(creative * phLicUsage[in.Str("usage")] * (1 + 0.5*float64(years-1)) * phLicTerritory[territory])
	retouch = engine.Money(in.Benchmark(p, phLicRetouch) * float64(in.Int("final_images")))
	total = engine.Money(creative + prepro + usage + retouch)
	return
}

func phLicQuote(in *engine.Input, p *engine.Plan) error {
	creative, prepro, usage, retouch, total := phLicTotal(in, p, in.Int("license_years"), in.Str("territory"))
	p.Set("quote", map[string]any{
		"creative_fee_usd":  creative,
		"preproduction_usd": prepro,
		"usage_license_usd": usage,
		"retouching_usd":    retouch,
		"total_usd":         total,
		"advance_usd":       engine.Money(total / 2),
		"balance_usd":       engine.Money(total - engine.Money(total/2)),
		"usage_pct_of_fee":  engine.Round(usage/creative*100, 1),
	})
	p.Set("total_usd", total)
	return nil
}

func phLicBudget(in *engine.Input, p *engine.Plan) error {
	if !in.Has("client_budget_usd") {
		return nil
	}
	budget, total := in.Float("client_budget_usd"), p.Get("total_usd").(float64)
	if phLicFits(total, budget) {
		return nil
	}
	// Keep the media (the client's need) and trade duration and territory
	// down until the quote fits; prefer the closest total to the budget.
	years, terr := in.Int("license_years"), in.Str("territory")
	bestTotal, bestYears, bestTerr := -1.0, 0, ""
	for y := years; y >= 1; y-- {
		for _, t := range phLicTerrOrder {
			if phLicTerritory[t] > phLicTerritory[terr] {
				continue
			}
			if _, _, _, _, tot := phLicTotal(in, p, y, t); phLicFits(tot, budget) && tot > bestTotal {
				bestTotal, bestYears, bestTerr = tot, y, t
			}
		}
	}
	if bestTotal > 0 {
		p.Set("budget_alternative", map[string]any{"license_years": bestYears, "territory": bestTerr, "total_usd": bestTotal})
		p.Warn("BUDGET_BELOW_QUOTE", "The quote is %s against a %s budget. Keeping %s usage, a %d-year %s licence fits at %s.",
			studioMoney(in, total), studioMoney(in, budget), studioLabel(in.Str("usage")), bestYears, bestTerr, studioMoney(in, bestTotal))
		return nil
	}
	// Even the smallest licence does not fit: trade images first (never
	// below one delivered image), then shoot days (in half days).
	creative, prepro, usage, _, _ := phLicTotal(in, p, 1, "regional")
	retouchOne := in.Benchmark(p, phLicRetouch)
	images := min(in.Int("final_images"), int(math.Floor(engine.Round((budget-creative-prepro-usage)/retouchOne, 6))))
	if images >= 1 {
		p.Warn("BUDGET_BELOW_QUOTE", "The quote is %s against a %s budget, and even a 1-year regional licence does not fit; deliver %s instead of %d.",
			studioMoney(in, total), studioMoney(in, budget), engine.Plural(images, "retouched image", "retouched images"), in.Int("final_images"))
		p.Set("budget_alternative", map[string]any{"license_years": 1, "territory": "regional", "final_images": images})
		return nil
	}
	// Cost of one shoot day with a 1-year regional licence: creative fee,
	// pre-production (a quarter of it) and usage, all proportional to days.
	perDay := (creative + prepro + usage) / in.Float("shoot_days")
	days := math.Floor(engine.Round((budget-retouchOne)/perDay*2, 6)) / 2
	if days >= 0.5 {
		p.Warn("BUDGET_BELOW_QUOTE", "The quote is %s against a %s budget, and even a 1-year regional licence with one image does not fit at %g shoot days; a %g-day shoot with 1 retouched image does.",
			studioMoney(in, total), studioMoney(in, budget), in.Float("shoot_days"), days)
		p.Set("budget_alternative", map[string]any{"license_years": 1, "territory": "regional", "final_images": 1, "shoot_days": days})
		return nil
	}
	minimum := engine.Money(perDay*0.5 + retouchOne)
	p.Warn("BUDGET_BELOW_MINIMUM", "The %s budget does not cover the smallest job at this day rate (a half-day shoot, 1 retouched image, 1-year regional licence: %s); decline, or ask for at least that.",
		studioMoney(in, budget), studioMoney(in, minimum))
	p.Set("budget_alternative", map[string]any{"minimum_quote_usd": minimum})
	return nil
}

func phLicSchedule(in *engine.Input, p *engine.Plan) error {
	shoot := in.Date("shoot_date")
	days := in.Float("shoot_days")
	lead := 5 + studioCeil(days*0.5)
	approve := p.Calendar().AddWorkdays(shoot, -lead)
	if approve.Before(p.AsOf()) {
		earliest := p.Calendar().AddWorkdays(p.AsOf(), lead)
		code := "SHOOT_TOO_SOON"
		if shoot.Before(p.AsOf()) {
			code = "SHOOT_DATE_PASSED"
		}
		p.Warn(code, "A %g-day shoot needs the estimate approved %s ahead for pre-production; from %s the earliest shoot date is %s.",
			days, engine.Plural(lead, "business day", "business days"), engine.FormatDate(p.AsOf()), engine.FormatDate(earliest))
		p.Set("earliest_feasible_shoot_date", p.Label("earliest feasible shoot", earliest))
		replanOn(p, shoot, earliest, "the estimate could not be approved in time for pre-production")
		shoot, approve = earliest, p.AsOf()
	}
	p.SetTarget(shoot)
	last := p.Calendar().AddWorkdays(shoot, max(studioCeil(days)-1, 0))
	proofs := p.Calendar().AddWorkdays(last, 2)
	selects := p.Calendar().AddWorkdays(proofs, 3)
	delivery := p.Calendar().AddWorkdays(selects, studioCeil(float64(in.Int("final_images"))/8))
	years := in.Int("license_years")
	p.Handover(engine.KindPayment, "estimate-approved", "Estimate signed and 50% advance paid", approve)
	p.Event("shoot", "Shoot day 1", shoot, "the shoot day")
	if last.After(shoot) {
		p.Event("shoot-wrap", "Last shoot day", last, "the last shoot day")
	}
	proofs = deliver(p, "proofs", "Proof gallery to client", proofs, in.Region(), last)
	// Selects and retouching are counted in open days from the proofs.
	selects = p.Calendar().AddWorkdays(proofs, 3)
	delivery = p.Calendar().AddWorkdays(selects, studioCeil(float64(in.Int("final_images"))/8))
	p.Handover(engine.KindAction, "client-selects", "Client selects due", selects)
	delivery = deliver(p, "delivery", "Retouched finals delivered; balance invoiced", delivery, in.Region(), selects)
	expires := engine.AddDays(engine.AddMonths(delivery, 12*years), -1)
	p.DependsOn("client-selects", "proofs")
	p.DependsOn("delivery", "client-selects")
	p.Handover(engine.KindPayment, "invoice-due", "Balance due (net 30)", engine.AddDays(delivery, 30))
	p.Handover(engine.KindAction, "renewal-offer", "Offer the client a renewal (two months before expiry)", engine.AddMonths(expires, -2))
	p.Event("license-expires", fmt.Sprintf("%d-year licence expires: renew or stop use", years), expires, "the licence term ends")
	p.Set("schedule", map[string]any{
		"estimate_approved_by": p.Ref("estimate-approved"),
		"shoot":                p.Ref("shoot"),
		"delivery":             p.Ref("delivery"),
		"license_expires":      p.Ref("license-expires"),
	})
	return nil
}

func phLicRecommend(in *engine.Input, p *engine.Plan) error {
	q := p.Get("quote").(map[string]any)
	s := p.Get("schedule").(map[string]any)
	p.RecommendOn(engine.High, "estimate-approved", "Get the estimate signed with the advance",
		fmt.Sprintf("Send the estimate with usage spelled out (%s, %s, %s) and take the %s advance before booking crew.",
			studioLabel(in.Str("usage")), in.Str("territory"), engine.Plural(in.Int("license_years"), "year", "years"), studioMoney(in, q["advance_usd"].(float64))))
	p.Recommend(engine.High, "License, don't sell", "Grant a licence for the stated media, term and territory; keep copyright and quote extensions separately rather than a buyout.")
	p.RecommendOn(engine.Medium, "renewal-offer", "Offer a renewal before expiry", "Contact the client two months before the licence ends; renewals are commonly priced at the original licence fee.")
	p.Recommend(engine.Low, "Bill production at cost", "Add crew, talent, location, props and travel as separate lines so the creative fee and licence stay visible.")
	p.Strategy("Quote %s: %s creative fee, %s for a %d-year %s %s licence (%g%% of the fee), %s pre-production and %s retouching; shoot %s, deliver %s, licence to %s.",
		studioMoney(in, q["total_usd"].(float64)), studioMoney(in, q["creative_fee_usd"].(float64)), studioMoney(in, q["usage_license_usd"].(float64)), in.Int("license_years"), in.Str("territory"), studioLabel(in.Str("usage")),
		q["usage_pct_of_fee"], studioMoney(in, q["preproduction_usd"].(float64)), studioMoney(in, q["retouching_usd"].(float64)), s["shoot"], s["delivery"], s["license_expires"])
	return nil
}
