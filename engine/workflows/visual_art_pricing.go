package workflows

import (
	"fmt"

	"github.com/creativeops/creativeops/engine"
)

// Pricing an original artwork by size, so every work in a body of work is
// priced on one consistent rule.
// Rules used:
//   - Square-inch method: width × height × rate + materials; linear-inch
//     method: (width + height) × rate + materials (standard artist-business
//     practice, e.g. Artwork Archive's pricing guides; the rate is the
//     artist's own, set from past sales).
//   - Retail prices are rounded up to clean steps ($10 under $1,000, $50
//     under $5,000, then $100).
//   - One retail price on every channel: consignment galleries expect the
//     artist never to undercut them. What changes is the artist's net.
//   - Galleries commonly take 50% of the retail price; Saatchi Art keeps
//     40% on originals (Saatchi Art payout policy); own-website card sales
//     cost the country's Stripe rate (US 2.9% + $0.30, UK 1.5% + 20p, ...)
//     and in-person studio sales its Square rate (US 2.6% + $0.15, UK
//     1.75%, ...), as card_rates.go lists them.
//   - Consignment galleries commonly pay the artist within 30 days of a
//     sale; prices are reviewed yearly (a common rule is +10–15% once about
//     half a year's work has sold).
func init() {
	engine.Register(&engine.Workflow{
		ID:          "visual-art-pricing",
		Name:        "Artwork pricing",
		Vertical:    "visual-art",
		PastDate:    engine.PastDate{Field: "sale_date", Policy: engine.PastReplan},
		Description: "Prices an original artwork by square or linear inch plus materials, shows what the artist nets through a gallery, marketplace, website or studio sale, builds a size price ladder and warns when the price does not recover costs. A sale date already past is re-planned to the plan date.",
		Fields: []engine.Field{
			{Name: "width_in", Kind: engine.Number, Required: true, Min: engine.Bound(1), Max: engine.Bound(600), Description: "Width of the work in inches (unframed)."},
			{Name: "height_in", Kind: engine.Number, Required: true, Min: engine.Bound(1), Max: engine.Bound(600), Description: "Height of the work in inches (unframed)."},
			{Name: "method", Kind: engine.String, Enum: []string{"square_inch", "linear_inch"}, Default: "square_inch", Description: "Pricing rule: width × height × rate, or (width + height) × rate."},
			{Name: "rate_usd", Kind: engine.Number, Money: true, Required: true, Min: engine.Bound(0.01), Max: engine.Bound(1000), Description: "Your rate in `currency` per square inch or per linear inch."},
			{Name: "materials_cost_usd", Kind: engine.Number, Money: true, Default: 0, Min: engine.Bound(0), Max: engine.Bound(1000000), Description: "Cost of materials and framing for this work, in `currency`."},
			{Name: "channel", Kind: engine.String, Enum: []string{"gallery", "marketplace", "website", "studio"}, Default: "gallery", Description: "Where the work sells: consignment gallery, online marketplace (Saatchi Art), own website, or studio/in person."},
			{Name: "commission_pct", Kind: engine.Number, Min: engine.Bound(0), Max: engine.Bound(90), Description: "Commission the seller keeps, in percent; defaults to 50 for a gallery, 40 for a marketplace, 0 otherwise."},
			engine.RegionField(),
			{Name: "sale_date", Kind: engine.Date, Description: "When the work goes on sale (exhibition opening, listing day); defaults to 30 days after the plan date."},
			engine.CurrencyField("USD"),
		},
		ExampleContext: map[string]any{
			"width_in":           24,
			"height_in":          36,
			"method":             "square_inch",
			"rate_usd":           2.5,
			"materials_cost_usd": 180,
			"channel":            "gallery",
			"sale_date":          "2027-02-04",
			"as_of":              "2026-11-20",
		},
		Sources: []engine.Source{
			{Title: "Alan Bamberger, ArtBusiness.com: how to price art (size-based pricing, gallery commission)", URL: "https://www.artbusiness.com/price.html", Checked: "2026-11"},
			{Title: "Stripe pricing (standard domestic-card rate, per country)", URL: "https://stripe.com/pricing", Checked: "2026-11"},
			{Title: "Square payments pricing (in-person rate, per country)", URL: "https://squareup.com/us/en/payments/pricing", Checked: "2026-11"},
		},
		Steps: []engine.Step{
			{Name: "price-by-size", Run: vaPricingSize},
			{Name: "channel-net", Run: vaPricingNet},
			{Name: "schedule", Run: vaPricingSchedule},
			{Name: "recommend", Run: vaPricingRecommend},
		},
	})
}

// vaPricingUnits is the size measure the rate applies to.
func vaPricingUnits(method string, w, h float64) float64 {
	if method == "linear_inch" {
		return w + h
	}
	return w * h
}

func vaPricingSize(in *engine.Input, p *engine.Plan) error {
	w, h, rate := in.Float("width_in"), in.Float("height_in"), in.Float("rate_usd")
	method, materials := in.Str("method"), in.Float("materials_cost_usd")
	units := vaPricingUnits(method, w, h)
	raw := units*rate + materials
	price := studioCleanPrice(in, p, "retail price", raw)
	p.Set("size_units", engine.Round(units, 2))
	p.Set("formula_price_usd", engine.Money(raw))
	p.Set("price_usd", price)

	// Materials scale with surface, so the ladder carries them over per
	// square inch of this work.
	perSqIn := materials / (w * h)
	var ladder []map[string]any
	for _, s := range [][2]float64{{8, 10}, {11, 14}, {16, 20}, {18, 24}, {24, 36}, {30, 40}, {36, 48}} {
		v := vaPricingUnits(method, s[0], s[1])*rate + perSqIn*s[0]*s[1]
		ladder = append(ladder, map[string]any{"size": fmt.Sprintf("%gx%g in", s[0], s[1]), "price_usd": studioCleanPrice(in, p, "ladder price "+fmt.Sprintf("%gx%g in", s[0], s[1]), v)})
	}
	p.Set("price_ladder", ladder)
	return nil
}

func vaPricingNet(in *engine.Input, p *engine.Plan) error {
	channel := in.Str("channel")
	price := p.Get("price_usd").(float64)
	materials := in.Float("materials_cost_usd")
	pct := map[string]float64{"gallery": 50, "marketplace": 40}[channel]
	if in.Has("commission_pct") {
		pct = in.Float("commission_pct")
	}
	// Card fees are the country's: Stripe's online rate for a website
	// sale, Square's in-person rate for a studio sale, each with its fixed
	// fee in the plan's currency (card_rates.go).
	var procPct, procFixed float64
	switch channel {
	case "website":
		procPct, procFixed, _ = onlineCardRateFor(in, p)
		procPct /= 100
	case "studio":
		procPct, procFixed, _ = cardRateFor(in, p)
		procPct /= 100
	}
	commission := engine.Money(price * pct / 100)
	processing := 0.0
	if procPct > 0 {
		processing = engine.Money(price*procPct + procFixed)
	}
	net := engine.Money(price - commission - processing)
	p.Set("sale", map[string]any{
		"channel":                    channel,
		"commission_pct":             pct,
		"commission_usd":             commission,
		"processing_usd":             processing,
		"artist_net_usd":             net,
		"profit_after_materials_usd": engine.Money(net - materials),
	})
	p.Set("artist_net_usd", net)

	if net < materials {
		minimum := studioCleanPrice(in, p, "lowest price recovering materials", (materials+procFixed)/(1-pct/100-procPct))
		p.Warn("PRICE_BELOW_COST", "At %s through a %s taking %g%%, you net %s, less than the %s materials; the lowest clean price that recovers materials is %s.",
			studioMoney(in, price), channel, pct, studioMoney(in, net), studioMoney(in, materials), studioMoney(in, minimum))
		p.Set("minimum_price_usd", minimum)
	}
	if channel == "gallery" && pct > 50 {
		p.Warn("COMMISSION_ABOVE_STANDARD", "A %g%% commission is above the 50%% galleries commonly take: it costs you %s on this work. Negotiate to 50%% or ask the gallery to cover framing, shipping or promotion.",
			pct, studioMoney(in, price*(pct-50)/100))
	}
	return nil
}

func vaPricingSchedule(in *engine.Input, p *engine.Plan) error {
	sale := engine.AddDays(p.AsOf(), 30)
	if in.Has("sale_date") {
		sale = in.Date("sale_date")
	}
	if sale.Before(p.AsOf()) {
		why := fmt.Sprintf("The sale date %s is before the plan date %s; the plan prices the work for sale from today.", engine.FormatDate(sale), engine.FormatDate(p.AsOf()))
		p.Warn("SALE_DATE_PASSED", "%s", why)
		p.Replanned(sale, p.AsOf(), why)
		sale = p.AsOf()
	}
	p.SetTarget(sale)
	p.Set("sale_date", engine.FormatDate(sale))
	// What must be ready before the sale goes to a working day before
	// it, or is done today when the sale comes first.
	now := "the sale comes before the next working day"
	handoverBefore(p, engine.KindDeliverable, "price-list", "Price list final: one retail price on every channel", engine.Later(p.AsOf(), engine.AddDays(sale, -14)), sale, now)
	switch in.Str("channel") {
	case "gallery":
		handoverBefore(p, engine.KindDeliverable, "consignment-agreement", "Consignment agreement signed: commission, insurance, payment within 30 days of sale", engine.Later(p.AsOf(), engine.AddDays(sale, -21)), sale, now)
		p.Handover(engine.KindPayment, "payment-due", "Gallery payment due for a sale on opening day (30 days)", engine.AddDays(sale, 30))
	default:
		handoverBefore(p, engine.KindDeliverable, "photograph-and-list", "Work photographed, described and listed with size and materials", engine.Later(p.AsOf(), engine.AddDays(sale, -7)), sale, now)
	}
	p.Event("on-sale", "Work on sale", sale, "the date the work goes on sale")
	p.Work("price-review", "Yearly price review: raise 10–15% if about half the year's work sold", engine.AddMonths(sale, 12))
	p.DependsOn("on-sale", "price-list", "consignment-agreement", "photograph-and-list")
	chain(p, "on-sale", "payment-due")
	chain(p, "on-sale", "price-review")
	return nil
}

func vaPricingRecommend(in *engine.Input, p *engine.Plan) error {
	price := p.Get("price_usd").(float64)
	net := p.Get("artist_net_usd").(float64)
	sale := p.GetDate("sale_date")
	units, method := p.Get("size_units").(float64), "square inches"
	if in.Str("method") == "linear_inch" {
		method = "linear inches"
	}
	p.RecommendBy(engine.High, engine.Later(p.AsOf(), p.Calendar().PrevWorkday(engine.AddDays(sale, -14))), "Publish one price everywhere",
		fmt.Sprintf("List the work at %s on every channel; collectors and galleries check, and undercutting a gallery ends the relationship.", studioMoney(in, price)))
	if in.Str("channel") == "gallery" {
		p.RecommendBy(engine.High, engine.Later(p.AsOf(), p.Calendar().PrevWorkday(engine.AddDays(sale, -21))), "Get the consignment terms in writing",
			"Commission, who pays framing and shipping, insurance while on the walls, discounts (cap them at 10% and split them), and payment within 30 days of sale.")
	}
	p.Recommend(engine.Medium, "Price the rest of the series from the ladder",
		"Use the price ladder for other sizes so a larger work never costs less than a smaller one; keep the rate unchanged until the yearly review.")
	p.Recommend(engine.Low, "Track sell-through", "Record every sale with size, channel and days on the wall; the yearly review raises the rate only when demand supports it.")
	p.Strategy("Price the %gx%g in work at %s (%g %s × %s + %s materials, rounded up) for sale from %s; through the %s you net %s, and the price holds on every channel until the review on %s.",
		in.Float("width_in"), in.Float("height_in"), studioMoney(in, price), units, method, studioMoney(in, in.Float("rate_usd")), studioMoney(in, in.Float("materials_cost_usd")),
		engine.FormatDate(sale), in.Str("channel"), studioMoney(in, net), engine.FormatDate(engine.AddMonths(sale, 12)))
	return nil
}
