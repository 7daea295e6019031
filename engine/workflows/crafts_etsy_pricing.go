package workflows

import (
	"fmt"
	"math"

	"github.com/creativeops/creativeops/engine"
)

// Pricing a handmade item for Etsy: the handmade pricing formula, Etsy's
// fees, and what each sale really pays.
// Rules used:
//   - Handmade pricing formula (widely taught, e.g. in Etsy's Seller
//     Handbook): cost = materials + labour (hours × wage) + overhead;
//     wholesale = 2 × cost; retail = 2 × wholesale. Retail below 2 × cost
//     leaves no room to sell wholesale at the usual 50% of retail.
//   - Etsy fees (Etsy Fees & Payments Policy): listing USD 0.20 per
//     listing in every country, renewed every 4 months or after each sale;
//     transaction fee 6.5% of item price plus shipping and gift wrap; Etsy
//     Payments processing by the seller's country (US 3% + $0.25, UK 4% +
//     £0.20, euro countries 4% + €0.30) and the UK's regulatory operating
//     fee (0.32%) of the order total; Offsite Ads 15% of an
//     attributed order (12% for shops over $10,000 a year; capped at $100
//     per order), which shops under $10,000 can opt out of.
//   - Shipping charged is treated as passing through to the postage label,
//     but Etsy's percentage fees still apply to it.
func init() {
	engine.Register(&engine.Workflow{
		ID:       "crafts-etsy-pricing",
		Name:     "Etsy pricing",
		Vertical: "crafts",
		PastDate: engine.PastDate{Field: "listing_date", Policy: engine.PastReplan},
		Sources: []engine.Source{
			{Title: "Etsy Fees & Payments Policy", URL: "https://www.etsy.com/legal/fees/", Checked: "2026-11"},
			{Title: "Etsy Seller Handbook: pricing", URL: "https://www.etsy.com/seller-handbook", Checked: "2026-11"},
		},
		Description: "Prices a handmade item with the materials + labour + overhead formula, applies Etsy's listing, transaction, processing and Offsite Ads fees, and shows net per sale, effective hourly wage, break-even price and the listing calendar.",
		Fields: []engine.Field{
			engine.CurrencyField("USD"),
			engine.RegionField(),
			{Name: "materials_cost_usd", Kind: engine.Number, Money: true, Required: true, Min: engine.Bound(0), Max: engine.Bound(10000), Description: "Materials per item, in US dollars (0–10,000 USD)."},
			{Name: "labor_hours", Kind: engine.Number, Required: true, Min: engine.Bound(0), Max: engine.Bound(200), Description: "Hours of work per item."},
			{Name: "hourly_wage_usd", Kind: engine.Number, Money: true, Default: 15, Min: engine.Bound(0), Max: engine.Bound(500), Description: "What you pay yourself per hour, in US dollars."},
			{Name: "overhead_per_item_usd", Kind: engine.Number, Money: true, Default: 1, Min: engine.Bound(0), Max: engine.Bound(10000), Description: "Packaging, tools and utilities per item, in US dollars (0–10,000 USD)."},
			{Name: "price_usd", Kind: engine.Number, Money: true, Min: engine.Bound(0.2), Max: engine.Bound(100000), Description: "Your current or planned price; when absent the formula price is used (0.2–100,000 USD)."},
			{Name: "shipping_charged_usd", Kind: engine.Number, Money: true, Default: 0, Min: engine.Bound(0), Max: engine.Bound(1000), Description: "Shipping charged to the buyer (spent on postage), in US dollars (0–1,000 USD)."},
			{Name: "offsite_ads", Kind: engine.Boolean, Default: false, Description: "Whether the shop is in Etsy Offsite Ads."},
			{Name: "listing_date", Kind: engine.Date, Description: "When the listing goes live; defaults to a week after the plan date."},
		},
		ExampleContext: map[string]any{
			"materials_cost_usd":    8.5,
			"labor_hours":           1.5,
			"hourly_wage_usd":       18,
			"overhead_per_item_usd": 1.25,
			"price_usd":             68,
			"shipping_charged_usd":  6,
			"offsite_ads":           true,
			"listing_date":          "2026-12-01",
			"as_of":                 "2026-11-20",
		},
		Steps: []engine.Step{
			{Name: "cost", Run: crEtsyCost},
			{Name: "fees", Run: crEtsyFees},
			{Name: "schedule", Run: crEtsySchedule},
			{Name: "recommend", Run: crEtsyRecommend},
		},
	})
}

const (
	crEtsyTransaction = 0.065
	crEtsyOffsite     = 0.15
)

// Etsy's fees by the seller's country: the listing fee and the Offsite Ads
// cap are set in US dollars for every shop (converted into the plan's
// currency); Etsy Payments processing is set per country in its currency;
// the UK adds a regulatory operating fee on every order.
var (
	crEtsyListingFee = engine.Benchmark{Amount: engine.InUSD(0.20), What: "Etsy listing fee", Source: "https://www.etsy.com/legal/fees/"}
	crEtsyAdsCap     = engine.Benchmark{Amount: engine.InUSD(100), What: "Etsy Offsite Ads fee cap per order", Source: "https://www.etsy.com/legal/fees/"}
	crEtsyProcessing = map[engine.Region]crEtsyProc{
		"US": {0.03, engine.In(0.25, "USD")},
		"GB": {0.04, engine.In(0.20, "GBP")},
		"CA": {0.03, engine.In(0.25, "CAD")},
		"AU": {0.03, engine.In(0.25, "AUD")},
		"DE": {0.04, engine.In(0.30, "EUR")}, "FR": {0.04, engine.In(0.30, "EUR")},
		"IE": {0.04, engine.In(0.30, "EUR")}, "NL": {0.04, engine.In(0.30, "EUR")},
		"ES": {0.04, engine.In(0.30, "EUR")}, "IT": {0.04, engine.In(0.30, "EUR")},
	}
	// crEtsyRegulatoryFee is Etsy's regulatory operating fee, a share of
	// each order's total, where Etsy charges one.
	crEtsyRegulatoryFee = map[engine.Region]float64{"GB": 0.0032}
)

type crEtsyProc struct {
	pct   float64
	fixed engine.Amount
}

// crEtsyRates are the fees of the plan's country in the plan's currency.
type crEtsyRates struct {
	listing, procPct, procFixed, regulatoryPct, adsCap float64
}

func crEtsyRatesFor(in *engine.Input, p *engine.Plan) crEtsyRates {
	proc, ok := crEtsyProcessing[in.Region()]
	if !ok {
		proc = crEtsyProcessing["US"]
		p.Warn("LOCAL_FEES_UNKNOWN", "Etsy Payments' processing fee for %s is not in this plan's table; the US fee (3%% + USD 0.25, converted) is used: check Etsy's fee page for your country.", in.Region().Name())
	}
	return crEtsyRates{
		listing:       in.Benchmark(p, crEtsyListingFee),
		procPct:       proc.pct,
		procFixed:     in.Benchmark(p, engine.Benchmark{Amount: proc.fixed, What: "Etsy Payments processing fixed fee (" + string(in.Region()) + ")", Source: "https://www.etsy.com/legal/fees/"}),
		regulatoryPct: crEtsyRegulatoryFee[in.Region()],
		adsCap:        in.Benchmark(p, crEtsyAdsCap),
	}
}

// feesFor returns Etsy's fees on one order at a price; processing
// includes the regulatory operating fee where there is one.
func (r crEtsyRates) feesFor(price, ship float64, offsite bool) (listing, transaction, processing, ads float64) {
	order := price + ship
	listing = r.listing
	transaction = engine.Money(order * crEtsyTransaction)
	processing = engine.Money(order*(r.procPct+r.regulatoryPct) + r.procFixed)
	if offsite {
		ads = engine.Money(math.Min(order*crEtsyOffsite, r.adsCap))
	}
	return
}

// breakEven is the price whose net after fees equals cost.
func (r crEtsyRates) breakEven(cost, ship float64, offsite bool) float64 {
	rate := crEtsyTransaction + r.procPct + r.regulatoryPct
	if offsite {
		rate += crEtsyOffsite
	}
	return math.Ceil((cost+r.listing+r.procFixed+rate*ship)/(1-rate)*100) / 100
}

func crEtsyCost(in *engine.Input, p *engine.Plan) error {
	labor := engine.Money(in.Float("labor_hours") * in.Float("hourly_wage_usd"))
	cost := engine.Money(in.Float("materials_cost_usd") + labor + in.Float("overhead_per_item_usd"))
	wholesale := engine.Money(2 * cost)
	formula := studioCleanPrice(in, p, "retail price (2 × wholesale)", 2*wholesale)
	price := formula
	if in.Has("price_usd") {
		price = in.Float("price_usd")
	}
	p.Set("cost", map[string]any{"materials_usd": in.Float("materials_cost_usd"), "labor_usd": labor, "overhead_usd": in.Float("overhead_per_item_usd"), "total_usd": cost})
	p.Set("wholesale_price_usd", wholesale)
	p.Set("formula_price_usd", formula)
	p.Set("price_usd", price)
	if price/2 < cost {
		p.Warn("NO_WHOLESALE_MARGIN", "At %s, a shop paying the usual 50%% wholesale would pay %s, below your %s cost; the formula retail price is %s (wholesale %s).",
			studioMoney(in, price), studioMoney(in, price/2), studioMoney(in, cost), studioMoney(in, formula), studioMoney(in, wholesale))
	}
	return nil
}

func crEtsyFees(in *engine.Input, p *engine.Plan) error {
	price, ship := p.Get("price_usd").(float64), in.Float("shipping_charged_usd")
	cost := p.Get("cost").(map[string]any)["total_usd"].(float64)
	rates := crEtsyRatesFor(in, p)
	listing, transaction, processing, _ := rates.feesFor(price, ship, false)
	fees := engine.Money(listing + transaction + processing)
	net := engine.Money(price - fees)
	cash := net - in.Float("materials_cost_usd") - in.Float("overhead_per_item_usd")
	sale := map[string]any{
		"listing_usd":     listing,
		"transaction_usd": transaction,
		"processing_usd":  processing,
		"fees_usd":        fees,
		"fees_pct":        engine.Round(fees/price*100, 1),
		"net_usd":         net,
		"profit_usd":      engine.Money(net - cost),
	}
	if h := in.Float("labor_hours"); h > 0 {
		sale["effective_hourly_usd"] = engine.Money(cash / h)
	}
	p.Set("sale", sale)
	be := rates.breakEven(cost, ship, false)
	p.Set("break_even_price_usd", be)
	if net < cost {
		p.Warn("PRICE_BELOW_COST", "At %s you keep %s after %s of Etsy fees, below the %s cost including %g h at %s; the break-even price is %s and the formula price %s.",
			studioMoney(in, price), studioMoney(in, net), studioMoney(in, fees), studioMoney(in, cost), in.Float("labor_hours"), studioMoney(in, in.Float("hourly_wage_usd")), studioMoney(in, be), studioMoney(in, p.Get("formula_price_usd").(float64)))
	}
	if in.Bool("offsite_ads") {
		_, _, _, ads := rates.feesFor(price, ship, true)
		adNet := engine.Money(net - ads)
		sale["offsite_ads_usd"] = ads
		sale["net_with_offsite_ads_usd"] = adNet
		if net >= cost && adNet < cost {
			beAds := rates.breakEven(cost, ship, true)
			p.Warn("OFFSITE_ADS_LOSS", "An order through Offsite Ads pays a further %s (15%% of %s) and nets %s, below your %s cost; price at %s or more, or opt out if the shop is under %s a year.",
				studioMoney(in, ads), studioMoney(in, price+ship), studioMoney(in, adNet), studioMoney(in, cost), studioMoney(in, beAds), in.MoneyIn(10000, "USD"))
			p.Set("break_even_with_offsite_ads_usd", beAds)
		}
	}
	return nil
}

func crEtsySchedule(in *engine.Input, p *engine.Plan) error {
	listing := engine.AddDays(p.AsOf(), 7)
	if in.Has("listing_date") {
		listing = in.Date("listing_date")
	}
	if listing.Before(p.AsOf()) {
		p.Warn("LISTING_DATE_PASSED", "The listing date %s is before the plan date %s; the plan lists from today.", engine.FormatDate(listing), engine.FormatDate(p.AsOf()))
		replanOn(p, listing, p.AsOf(), "the requested listing date has passed")
		listing = p.AsOf()
	}
	p.SetTarget(listing)
	p.Set("listing_date", engine.FormatDate(listing))
	p.Work("listing-prep", "Photos, title, 13 tags and shipping profile ready", engine.Later(p.AsOf(), engine.AddDays(listing, -7)))
	fee := in.MoneyIn(crEtsyListingFee.Value, "USD")
	p.Event("listing-live", "Listing live ("+fee+" listing fee)", listing, "the listing date you chose; Etsy lists any day")
	p.Work("first-review", "30-day review: views, favourites and conversion", engine.AddDays(listing, 30))
	p.Event("auto-renew", "Listing auto-renews ("+fee+") if it has not sold", engine.AddMonths(listing, 4), "Etsy renews automatically four months after listing")
	p.DependsOn("listing-live", "listing-prep")
	return nil
}

func crEtsyRecommend(in *engine.Input, p *engine.Plan) error {
	sale := p.Get("sale").(map[string]any)
	price := p.Get("price_usd").(float64)
	listing := p.GetDate("listing_date")
	p.RecommendBy(engine.High, engine.Later(p.AsOf(), engine.AddDays(listing, -7)), "Price from cost, not from competitors",
		fmt.Sprintf("Your cost is %s; the formula retail price is %s and the break-even on Etsy is %s. Charge at least the break-even and work towards the formula price.",
			studioMoney(in, p.Get("cost").(map[string]any)["total_usd"].(float64)), studioMoney(in, p.Get("formula_price_usd").(float64)), studioMoney(in, p.Get("break_even_price_usd").(float64))))
	p.RecommendBy(engine.Medium, engine.AddDays(listing, 30), "Review after 30 days", "If views are high but sales low, improve photos before cutting the price; if favourites are high, test a higher price.")
	p.Recommend(engine.Medium, "Build shipping into the price", "Offer free shipping over a threshold with postage folded into the item price; Etsy's fees apply to shipping either way.")
	p.Recommend(engine.Low, "Track fees monthly", "Reconcile Etsy's monthly statement: listing renewals, Offsite Ads and currency conversion add up beyond the per-sale fees.")
	hourly := ""
	if h, ok := sale["effective_hourly_usd"].(float64); ok {
		hourly = fmt.Sprintf(", %s an hour for your time", studioMoney(in, h))
	}
	p.Strategy("At %s, Etsy fees take %s (%g%%) and each sale nets %s, %s over your %s cost%s; list on %s and review on %s.",
		studioMoney(in, price), studioMoney(in, sale["fees_usd"].(float64)), sale["fees_pct"], studioMoney(in, sale["net_usd"].(float64)), studioMoney(in, sale["profit_usd"].(float64)),
		studioMoney(in, p.Get("cost").(map[string]any)["total_usd"].(float64)), hourly, engine.FormatDate(listing), engine.FormatDate(engine.AddDays(listing, 30)))
	return nil
}
