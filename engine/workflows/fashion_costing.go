package workflows

import (
	"fmt"

	"github.com/creativeops/creativeops/engine"
)

// Garment costing: landed cost, wholesale and retail price, margins, and
// the production cash calendar for one style.
// Rules used:
//   - FOB cost = fabric (consumption × price per yard) + trims and CMT
//     (cut, make, trim). US Customs assesses ad valorem duty on the
//     transaction value, which excludes international freight, so duty is a
//     percentage of FOB (rates by HTS code, 0–32% for most apparel); freight
//     is added after duty. Landed cost = FOB + duty + freight.
//   - Brands commonly price wholesale at 2–2.5× landed cost (50–60% gross
//     margin); we use 2.5×. Retailers mark wholesale up 2–2.5× ("keystone"
//     is 2×); we use 2.2× and round retail up to a clean price point. A brand
//     margin below 50% on a target retail price is flagged.
//   - Direct-to-consumer sales pay card processing of about 2.9% + $0.30
//     (Shopify Payments / Stripe US standard rates).
//   - Overseas factories commonly take 30% deposit with the PO and the 70%
//     balance before shipment (T/T); bulk production takes about 12 weeks
//     from PO including fabric; ocean freight and customs about 5 weeks
//     after ex-factory, when duty and freight are paid. Runs under about
//     300 units per style and colour often carry small-run surcharges.
func init() {
	engine.Register(&engine.Workflow{
		ID:                 "fashion-costing",
		Name:               "Garment costing and production cash",
		Vertical:           "fashion",
		CountryIndependent: "Duty and freight are inputs for the destination market, and production dates follow the factory's closures (Chinese New Year), not the brand's country.",
		PastDate:           engine.PastDate{Field: "ex_factory_date", Policy: engine.PastReplan},
		Sources: []engine.Source{
			{Title: "U.S. Customs and Border Protection: duty on transaction value; Harmonized Tariff Schedule", URL: "https://hts.usitc.gov/", Checked: "2026-11"},
			{Title: "Stripe pricing (card processing)", URL: "https://stripe.com/pricing", Checked: "2026-11"},
		},
		Description: "Costs a style from fabric, trims/CMT, duty and freight to landed cost, sets wholesale and retail prices with brand, retailer and DTC margins, checks a target retail price, and schedules PO deposit, balance and landed-cost cash for the run. An ex-factory date the PO can no longer reach is re-planned on the earliest feasible one.",
		Fields: []engine.Field{
			{Name: "fabric_yards", Kind: engine.Number, Required: true, Min: engine.Bound(0.05), Max: engine.Bound(20), Description: "Fabric consumption per unit, in yards (including marker waste)."},
			{Name: "fabric_price_per_yard_usd", Kind: engine.Number, Money: true, Required: true, Min: engine.Bound(0.1), Max: engine.Bound(500), Description: "Fabric price per yard in `currency`."},
			{Name: "trims_cmt_usd", Kind: engine.Number, Money: true, Required: true, Min: engine.Bound(0), Max: engine.Bound(10000), Description: "Trims, labels, packaging and cut-make-trim labour per unit, in `currency` (0–10,000)."},
			{Name: "duty_pct", Kind: engine.Number, Default: 0, Min: engine.Bound(0), Max: engine.Bound(40), Description: "Import duty rate for the style's HTS code, in percent (0 for domestic production)."},
			{Name: "freight_per_unit_usd", Kind: engine.Number, Money: true, Default: 0, Min: engine.Bound(0), Max: engine.Bound(1000), Description: "Freight, brokerage and inbound shipping per unit, in `currency` (0–1,000)."},
			{Name: "units", Kind: engine.Integer, Required: true, Min: engine.Bound(1), Max: engine.Bound(1000000), Description: "Units in the production run."},
			{Name: "ex_factory_date", Kind: engine.Date, Required: true, Description: "Date the goods must leave the factory."},
			{Name: "target_retail_usd", Kind: engine.Number, Money: true, Min: engine.Bound(1), Max: engine.Bound(100000), Description: "Retail price the style must hit, in `currency` (1–100,000)."},
			engine.CurrencyField("USD"),
		},
		ExampleContext: map[string]any{
			"fabric_yards":              2.2,
			"fabric_price_per_yard_usd": 6.5,
			"trims_cmt_usd":             11.5,
			"duty_pct":                  16.5,
			"freight_per_unit_usd":      1.2,
			"units":                     600,
			"ex_factory_date":           "2027-05-14",
			"target_retail_usd":         150,
			"as_of":                     "2026-11-20",
		},
		Steps: []engine.Step{
			{Name: "landed-cost", Run: fsCostLanded},
			{Name: "pricing", Run: fsCostPricing},
			{Name: "cash-calendar", Run: fsCostCash},
			{Name: "recommend", Run: fsCostRecommend},
		},
	})
}

const (
	fsCostWholesaleMarkup = 2.5
	fsCostRetailMarkup    = 2.2
	fsCostMinMargin       = 0.5
)

func fsCostLanded(in *engine.Input, p *engine.Plan) error {
	fabric := engine.Money(in.Float("fabric_yards") * in.Float("fabric_price_per_yard_usd"))
	fob := engine.Money(fabric + in.Float("trims_cmt_usd"))
	duty := engine.Money(fob * in.Float("duty_pct") / 100)
	landed := engine.Money(fob + duty + in.Float("freight_per_unit_usd"))
	p.Set("unit_cost", map[string]any{
		"fabric_usd":  fabric,
		"fob_usd":     fob,
		"duty_usd":    duty,
		"freight_usd": in.Float("freight_per_unit_usd"),
		"landed_usd":  landed,
	})
	p.Set("landed_cost_usd", landed)
	return nil
}

// The DTC card rate: Stripe's US standard pricing (the brand's country is
// not an input; see CountryIndependent).
var fsStripeFixed = engine.Benchmark{Amount: engine.InUSD(0.30), What: "Stripe fixed fee per online card payment (US)", Source: "https://stripe.com/pricing"}

const fsStripePct = 0.029

func fsCostPricing(in *engine.Input, p *engine.Plan) error {
	landed := p.Get("landed_cost_usd").(float64)
	wholesale := engine.Money(landed * fsCostWholesaleMarkup)
	retail := studioCleanPrice(in, p, "retail price", wholesale*fsCostRetailMarkup)
	// The DTC checkout pays Stripe's US rate; its fixed fee is a US-dollar
	// figure converted into the plan's currency, never 0.30 of it.
	dtcNet := retail - (retail*fsStripePct + in.Benchmark(p, fsStripeFixed))
	pricing := map[string]any{
		"wholesale_usd":       wholesale,
		"retail_usd":          retail,
		"brand_margin_pct":    engine.Round((wholesale-landed)/wholesale*100, 1),
		"retailer_margin_pct": engine.Round((retail-wholesale)/retail*100, 1),
		"dtc_margin_pct":      engine.Round((dtcNet-landed)/retail*100, 1),
	}
	if in.Has("target_retail_usd") {
		target := in.Float("target_retail_usd")
		// The margin is read from the exact wholesale price; only the
		// figure shown is rounded, to the currency's minor unit.
		wsExact := target / fsCostRetailMarkup
		ws := in.RoundMinor(wsExact)
		margin := (wsExact - landed) / wsExact
		maxLanded := in.RoundMinor(wsExact * (1 - fsCostMinMargin))
		pricing["target_wholesale_usd"] = ws
		pricing["target_brand_margin_pct"] = engine.Round(margin*100, 1)
		pricing["max_landed_for_target_usd"] = maxLanded
		if margin < fsCostMinMargin {
			p.Warn("MARGIN_BELOW_TARGET", "At %s retail the wholesale price is %s and a %s landed cost leaves a %.1f%% brand margin, under 50%%. Cut %s a unit (to %s landed) or retail at %s.",
				studioMoney(in, target), studioMoney(in, ws), studioMoney(in, landed), margin*100, studioMoney(in, landed-maxLanded), studioMoney(in, maxLanded), studioMoney(in, studioCleanPrice(in, p, "retail price for a 50% margin", landed/(1-fsCostMinMargin)*fsCostRetailMarkup)))
		}
	}
	p.Set("pricing", pricing)
	return nil
}

func fsCostCash(in *engine.Input, p *engine.Plan) error {
	exf := in.Date("ex_factory_date")
	// Bulk production is about 12 weeks of the factory's working days:
	// the plan's calendar holds the Chinese New Year closure, so a run
	// across it takes longer, and the PO deposit is paid on a working day.
	p.UseClosure(engine.FactoryNewYear)
	cal := p.Calendar()
	po := cal.AddWorkWeeks(exf, -12)
	if po.Before(p.AsOf()) {
		earliest := cal.AddWorkWeeks(cal.NextWorkday(p.AsOf()), 12)
		p.Warn("PO_DATE_PASSED", "Bulk production needs about 12 weeks of factory working days from PO; for ex-factory %s the PO was due %s. The earliest ex-factory date from today is %s.",
			engine.FormatDate(exf), engine.FormatDate(po), engine.FormatDate(earliest))
		p.Set("earliest_feasible_ex_factory_date", engine.FormatDate(earliest))
		replanOn(p, exf, earliest, "bulk production needs about 12 weeks of factory working days from the PO")
		exf, po = earliest, cal.NextWorkday(p.AsOf())
	}
	uc := p.Get("unit_cost").(map[string]any)
	units := float64(in.Int("units"))
	fobTotal := engine.Money(uc["fob_usd"].(float64) * units)
	deposit := engine.Money(fobTotal * 0.3)
	arrival := cal.NextWorkday(engine.AddWeeks(exf, 5))
	p.Set("cash", map[string]any{
		"fob_total_usd":           fobTotal,
		"deposit_usd":             deposit,
		"balance_usd":             engine.Money(fobTotal - deposit),
		"duty_and_freight_usd":    engine.Money((uc["duty_usd"].(float64) + uc["freight_usd"].(float64)) * units),
		"landed_total_usd":        engine.Money(uc["landed_usd"].(float64) * units),
		"wholesale_value_usd":     engine.Money(p.Get("pricing").(map[string]any)["wholesale_usd"].(float64) * units),
		"po_date":                 p.Ref("po-deposit"),
		"ex_factory":              p.Ref("ex-factory"),
		"balance_due":             p.Ref("balance-due"),
		"arrival_duty_freight_on": p.Ref("arrival"),
	})
	p.SetTarget(exf)
	p.Milestone("costing-locked", "Costing and fabric prices locked", engine.Later(p.AsOf(), cal.AddWorkdays(po, -10)))
	p.Handover(engine.KindPayment, "po-deposit", "PO placed with 30% deposit", po)
	p.Handover(engine.KindAction, "top-sample", "Top-of-production sample approved", cal.AddWorkWeeks(po, 6))
	p.Handover(engine.KindPayment, "balance-due", "70% balance paid before shipment", cal.AddWorkdays(exf, -5))
	p.Deliverable("ex-factory", "Goods leave the factory", exf, "")
	p.Handover(engine.KindArrival, "arrival", "Arrival: duty, freight and brokerage paid", arrival)
	// The factory's steps in order, with the working days each needs:
	// top-of-production comes six weeks into the run, the balance is paid
	// a week before the goods leave, and they arrive after the crossing.
	p.DependsOn("po-deposit", "costing-locked")
	p.Precede("po-deposit", "top-sample", 30)
	p.Precede("top-sample", "balance-due", 0)
	p.Precede("balance-due", "ex-factory", 5)
	p.Precede("ex-factory", "arrival", 20)
	if in.Int("units") < 300 {
		p.Warn("SMALL_RUN", "%s is under the 300 per style and colour many factories set as a minimum; expect a small-run surcharge of 10–30%% on CMT, or combine colours.", engine.Plural(in.Int("units"), "unit", "units"))
	}
	return nil
}

func fsCostRecommend(in *engine.Input, p *engine.Plan) error {
	pr := p.Get("pricing").(map[string]any)
	cash := p.Get("cash").(map[string]any)
	p.RecommendOn(engine.High, "po-deposit", "Fund the deposit and balance",
		fmt.Sprintf("Have %s ready for the PO deposit and %s before shipment; wholesale customers typically pay net 30 after delivery, so the run is financed for months.",
			studioMoney(in, cash["deposit_usd"].(float64)), studioMoney(in, cash["balance_usd"].(float64))))
	if in.Float("duty_pct") == 0 {
		p.Recommend(engine.Medium, "Confirm the duty rate", "Look up the style's HTS code: most imported apparel pays 10–32% duty, which changes the landed cost and every price after it.")
	}
	p.Recommend(engine.Medium, "Cost at the real minimums", "Re-cost once the factory confirms MOQ and fabric minimums; leftover fabric is a cost of this style.")
	p.Recommend(engine.Low, "Protect wholesale pricing", "Keep your own DTC price at the suggested retail; undercutting stockists loses reorders.")
	target := ""
	if v, ok := pr["target_brand_margin_pct"].(float64); ok {
		target = fmt.Sprintf(" (at the %s target retail the brand margin is %.1f%%)", studioMoney(in, in.Float("target_retail_usd")), v)
	}
	p.Strategy("Landed cost %s (FOB %s + duty + freight) supports wholesale at %s and retail at %s: %.1f%% brand margin%s, %.1f%% DTC margin; PO on %s with a %s deposit, ex-factory %s.",
		studioMoney(in, p.Get("landed_cost_usd").(float64)), studioMoney(in, p.Get("unit_cost").(map[string]any)["fob_usd"].(float64)), studioMoney(in, pr["wholesale_usd"].(float64)), studioMoney(in, pr["retail_usd"].(float64)),
		pr["brand_margin_pct"], target, pr["dtc_margin_pct"], cash["po_date"], studioMoney(in, cash["deposit_usd"].(float64)), cash["ex_factory"])
	return nil
}
