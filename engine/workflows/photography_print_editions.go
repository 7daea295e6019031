package workflows

import (
	"fmt"
	"math"

	"github.com/creativeops/creativeops/engine"
)

// Limited-edition fine-art photographic prints: tiered pricing, what the
// edition earns, and the proofing and printing calendar to release day.
// Rules used:
//   - Editions are fixed and disclosed: New York Arts and Cultural Affairs
//     Law art. 15 and California Civil Code §1740 et seq. require sellers of
//     limited-edition multiples to disclose edition size and proofs, so the
//     numbers here are final once announced.
//   - Artist's proofs are conventionally no more than about 10% of the
//     edition (2 are accepted for small editions).
//   - Fine-art photography editions commonly run 3–25, sometimes up to 50;
//     larger editions read to collectors as open editions.
//   - Tiered ("step") pricing: the edition is sold in equal tranches and the
//     price rises by a fixed step as each sells out, standard practice for
//     photography editions; prices are rounded up to clean steps.
//   - Galleries commonly take 50% of the retail price; print and framing
//     costs stay with the artist.
//   - Archival pigment print labs quote 5–10 business days; proofing on the
//     chosen paper takes about a week before that, so plan 4 weeks from
//     first test print to release.
func init() {
	engine.Register(&engine.Workflow{
		ID:           "photography-print-editions",
		Name:         "Limited print edition",
		Vertical:     "photography",
		Jurisdiction: []engine.Area{engine.AreaTax, engine.AreaArtCopies, engine.AreaArtVAT},
		PastDate:     engine.PastDate{Field: "release_date", Policy: engine.PastReplan},
		Sources: []engine.Source{
			{Title: "New York Arts and Cultural Affairs Law, art 15 (limited edition multiples)", URL: "https://www.nysenate.gov/legislation/laws/ACA/A15", Checked: "2026-11"},
		},
		Description: "Prices a limited photographic edition in rising tiers, computes revenue, commission and print costs if it sells out, checks artist's proofs and edition size against convention, and schedules proofing, printing and release. A release too close for proofing and printing, or already past, is re-planned on the earliest feasible release.",
		Fields: []engine.Field{
			{Name: "edition_size", Kind: engine.Integer, Required: true, Min: engine.Bound(1), Max: engine.Bound(500), Description: "Number of numbered prints in the edition."},
			{Name: "artist_proofs", Kind: engine.Integer, Default: 0, Min: engine.Bound(0), Max: engine.Bound(50), Description: "Artist's proofs (AP) outside the numbered edition."},
			{Name: "print_cost_usd", Kind: engine.Number, Money: true, Required: true, Min: engine.Bound(0), Max: engine.Bound(1000000), Description: "Lab, paper, mounting and framing cost per print, in `currency` (0–1,000,000)."},
			{Name: "start_price_usd", Kind: engine.Number, Money: true, Required: true, Min: engine.Bound(1), Max: engine.Bound(10000000), Description: "Retail price of the first tier, in `currency` (1–10,000,000)."},
			{Name: "tiers", Kind: engine.Integer, Default: 3, Min: engine.Bound(1), Max: engine.Bound(5), Description: "Number of price tiers the edition is split into."},
			{Name: "step_pct", Kind: engine.Number, Default: 25, Min: engine.Bound(0), Max: engine.Bound(200), Description: "Price rise from one tier to the next, in percent."},
			{Name: "commission_pct", Kind: engine.Number, Default: 50, Min: engine.Bound(0), Max: engine.Bound(90), Description: "Gallery or platform commission, in percent (0 for direct sales)."},
			{Name: "release_date", Kind: engine.Date, Required: true, Description: "Day the edition goes on sale."},
			engine.RegionField(),
			engine.CurrencyField("USD"),
		},
		ExampleContext: map[string]any{
			"edition_size":    15,
			"artist_proofs":   2,
			"print_cost_usd":  240,
			"start_price_usd": 1200,
			"tiers":           3,
			"step_pct":        25,
			"commission_pct":  50,
			"release_date":    "2027-03-04",
			"as_of":           "2026-11-20",
		},
		Steps: []engine.Step{
			{Name: "check-edition", Run: phEdCheck},
			{Name: "price-tiers", Run: phEdTiers},
			{Name: "schedule", Run: phEdSchedule},
			{Name: "recommend", Run: phEdRecommend},
		},
	})
}

// Working days each production step needs: a week of proofing on the
// chosen paper, the lab's run (5–10 business days quoted, 10 planned),
// and a week to inspect, sign, number and certify before release.
const (
	phEdProofWorkdays = 5
	phEdLabWorkdays   = 10
	phEdSignWorkdays  = 5
)

func phEdCheck(in *engine.Input, p *engine.Plan) error {
	size, aps := in.Int("edition_size"), in.Int("artist_proofs")
	allowed := max(2, studioCeil(float64(size)*0.1))
	if aps > allowed {
		p.Warn("ARTIST_PROOFS_EXCESSIVE", "%d artist's proofs on an edition of %d is %.0f%%; convention is about 10%%, so keep to %d.", aps, size, float64(aps)/float64(size)*100, allowed)
		p.Set("suggested_artist_proofs", allowed)
	}
	if size > 50 {
		p.Warn("EDITION_LARGE", "An edition of %d is above the 3–25 (at most ~50) collectors expect of a limited fine-art photograph; consider %d in two sizes, or an open edition at a lower price.", size, 25)
	}
	commission := in.Float("commission_pct") / 100
	minimum := studioCleanPrice(in, p, "lowest price recovering the print cost", in.Float("print_cost_usd")/(1-commission))
	if in.Float("start_price_usd") < minimum {
		p.Warn("PRICE_BELOW_COST", "At %s with %g%% commission, a print nets %s, below its %s print cost; start the edition at %s or more.",
			studioMoney(in, in.Float("start_price_usd")), in.Float("commission_pct"), studioMoney(in, in.Float("start_price_usd")*(1-commission)), studioMoney(in, in.Float("print_cost_usd")), studioMoney(in, minimum))
		p.Set("minimum_start_price_usd", minimum)
	}
	phEdVAT(in, p, size+aps)
	return nil
}

// phEdVAT sets the VAT the photographer's own sales take. Where the
// country has a reduced rate for works of art sold by their creator that
// covers photographs (France: 5.5 %), an edition within the copy limit
// (the EU: 30, all sizes and mounts) takes it, and one past the limit the
// standard rate, with a warning; where photographs take the standard rate
// (Germany, the UK) it is that. A VAT country the table has no art rate
// for is warned about (JURISDICTION_UNKNOWN) and shown the standard rate.
func phEdVAT(in *engine.Input, p *engine.Plan, copies int) {
	tax, ok := in.Rule(p, engine.AreaTax)
	if !ok {
		return
	}
	vat := map[string]any{"name": tax.Name, "rate_pct": tax.RatePct, "included_in_prices": tax.IncludedInPrices, "basis": tax.Rule, "source": tax.Source}
	defer p.Set("vat", vat)
	if tax.Name != "VAT" {
		return
	}
	art, known := in.Rule(p, engine.AreaArtVAT)
	limit, capped := engine.RuleOf(in.Region(), engine.AreaArtCopies)
	if capped {
		in.Rule(p, engine.AreaArtCopies)
	}
	reduced := !known || art.RatePct < tax.RatePct
	if capped && reduced && copies > limit.Copies {
		p.Warn("ART_VAT_COPY_LIMIT", "%d prints with the artist's proofs: in %s the reduced VAT rate for photographs as works of art covers at most %d copies in all sizes and mounts, so these sell at the standard %g %%; keep the edition and proofs to %d to keep the reduced rate.",
			copies, in.Region().Name(), limit.Copies, tax.RatePct, limit.Copies)
		vat["basis"] = fmt.Sprintf("standard rate: %d copies exceed the %d-copy limit of the reduced rate on works of art", copies, limit.Copies)
		return
	}
	if known {
		vat["rate_pct"], vat["basis"], vat["source"] = art.RatePct, art.Rule, art.Source
	}
}

func phEdTiers(in *engine.Input, p *engine.Plan) error {
	size, tiers := in.Int("edition_size"), min(in.Int("tiers"), in.Int("edition_size"))
	start, step := in.Float("start_price_usd"), in.Float("step_pct")/100
	commission, cost := in.Float("commission_pct")/100, in.Float("print_cost_usd")
	var rows []map[string]any
	revenue, first := 0.0, 1
	for i := 0; i < tiers; i++ {
		// Earlier tiers take the remainder so the edition ends on its
		// scarcest, most expensive prints.
		n := size / tiers
		if i < size%tiers {
			n++
		}
		price := start
		if i > 0 {
			price = studioCleanPrice(in, p, fmt.Sprintf("tier %d price", i+1), start*math.Pow(1+step, float64(i)))
		}
		rows = append(rows, map[string]any{"tier": i + 1, "prints": fmt.Sprintf("%d–%d", first, first+n-1), "count": n, "price_usd": price})
		revenue += price * float64(n)
		first += n
	}
	printed := size + in.Int("artist_proofs")
	comm := engine.Money(revenue * commission)
	printing := engine.Money(cost * float64(printed))
	p.Set("tiers", rows)
	p.Set("sell_out", map[string]any{
		"revenue_usd":         engine.Money(revenue),
		"commission_usd":      comm,
		"print_costs_usd":     printing,
		"prints_made":         printed,
		"artist_net_usd":      engine.Money(revenue - comm - printing),
		"average_price_usd":   engine.Money(revenue / float64(size)),
		"top_price_usd":       rows[len(rows)-1]["price_usd"],
		"net_first_print_usd": engine.Money(start*(1-commission) - cost),
		"edition_declared":    fmt.Sprintf("%d + %d AP", size, in.Int("artist_proofs")),
	})
	return nil
}

func phEdSchedule(in *engine.Input, p *engine.Plan) error {
	release := in.Date("release_date")
	proof := p.Calendar().PrevWorkday(engine.AddWeeks(release, -4))
	if proof.Before(p.AsOf()) {
		earliest := engine.Later(p.Calendar().NextWorkday(engine.AddWeeks(p.AsOf(), 4)), p.Calendar().AddWorkdays(p.AsOf(), phEdProofWorkdays+phEdLabWorkdays+phEdSignWorkdays))
		away := engine.Plural(engine.DaysBetween(p.AsOf(), release), "day", "days") + " away"
		why := "proofing and printing need 4 weeks"
		if release.Before(p.AsOf()) {
			away, why = "already past", "the requested release date has passed"
		}
		p.Warn("RELEASE_TOO_SOON", "Proofing and printing need 4 weeks (test prints, then a 5–10 business-day lab run); %s is %s. The plan is built on the earliest release, %s.",
			engine.FormatDate(release), away, engine.FormatDate(earliest))
		p.Set("earliest_feasible_release_date", engine.FormatDate(earliest))
		replanOn(p, release, earliest, why)
		release, proof = earliest, p.AsOf()
	}
	p.SetTarget(release)
	if engine.InDeadWeek(release) {
		better := p.Calendar().NextWorkday(release)
		p.Warn("RELEASE_IN_DEAD_WEEK", "%s falls in the 24 December–1 January dead week, after the last gift-shipping dates, when collectors and press are away; a better release is %s.",
			engine.FormatDate(release), p.Label("release date clear of the dead week", better))
		p.Set("better_release_date", p.Label("release date clear of the dead week", better))
	}
	order := p.Calendar().AddWorkdays(release, -(phEdLabWorkdays + phEdSignWorkdays))
	arrive := p.Calendar().AddWorkdays(order, phEdLabWorkdays)
	p.Work("test-prints", "Test prints on the chosen paper; approve a reference proof", proof)
	deliver(p, "order-prints", "First tier ordered from the lab (10 business days)", order, in.Region(), proof)
	p.Precede("test-prints", "order-prints", phEdProofWorkdays)
	p.Handover(engine.KindArrival, "prints-arrive", "Prints arrive: inspect, sign, number, certificates of authenticity", arrive)
	p.Handover(engine.KindAnnounce, "announce", "Edition announced with size, AP count, paper and price tiers", engine.Later(p.AsOf(), engine.AddDays(release, -14)))
	p.Handover(engine.KindOnSale, "release", "Edition on sale (tier 1)", release)
	p.Precede("order-prints", "prints-arrive", phEdLabWorkdays)
	p.Precede("prints-arrive", "release", phEdSignWorkdays)
	p.DependsOn("release", "announce")
	p.Work("tier-review", "Quarterly review: move to the next tier once the current one sells out", engine.AddMonths(release, 3))
	p.Set("release_date", engine.FormatDate(release))
	return nil
}

func phEdRecommend(in *engine.Input, p *engine.Plan) error {
	s := p.Get("sell_out").(map[string]any)
	release := p.GetDate("release_date")
	p.RecommendOn(engine.High, "announce", "Declare the edition in writing",
		fmt.Sprintf("Publish the edition as %s with paper, size and print date on the certificate; the number cannot grow later.", s["edition_declared"]))
	p.Recommend(engine.Medium, "Print to order by tier", "Order prints as each tier sells rather than the whole edition at once; keep the approved proof as the colour reference.")
	p.Recommend(engine.Medium, "Announce each price step", "Tell collectors when a tier is nearly gone; the rising price rewards early buyers and sells the first tier faster.")
	if vat, ok := p.Get("vat").(map[string]any); ok {
		include := "added to the price at the till"
		if vat["included_in_prices"] == true {
			include = "included in the price collectors pay"
		}
		p.Recommend(engine.Medium, "Price with the sales tax in mind", fmt.Sprintf("In %s, %s at %g%% is %s once you are registered for it (%s); the prices here are what the buyer pays.", in.Region().Name(), vat["name"], vat["rate_pct"], include, vat["basis"]))
	}
	p.Recommend(engine.Low, "Keep an edition ledger", "Record every print number, buyer, price and date; galleries and resale markets ask for provenance.")
	p.Strategy("Release %s on %s from %s to %s in %s; a sell-out grosses %s and nets you %s after %s commission and %s printing.",
		s["edition_declared"], engine.FormatDate(release), studioMoney(in, in.Float("start_price_usd")), studioMoney(in, s["top_price_usd"].(float64)), engine.Plural(len(p.Get("tiers").([]map[string]any)), "tier", "tiers"),
		studioMoney(in, s["revenue_usd"].(float64)), studioMoney(in, s["artist_net_usd"].(float64)), studioMoney(in, s["commission_usd"].(float64)), studioMoney(in, s["print_costs_usd"].(float64)))
	return nil
}
