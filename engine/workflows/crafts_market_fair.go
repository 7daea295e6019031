package workflows

import (
	"fmt"
	"math"

	"github.com/creativeops/creativeops/engine"
)

// Craft fair or market plan: how much stock to make, when to start making
// it, and whether the booth pays.
// Rules used:
//   - Professional makers aim to sell about 10 times the booth fee at an
//     event (the long-standing "10× booth fee" rule of craft-fair vendors;
//     put the other way, the booth fee should be no more than about 10–20%
//     of sales).
//   - Vendors sell only part of what they bring: 20–30% of the stock on
//     the table at a larger show is commonly reported, and an emptying
//     table sells less. Stock to bring = sales goal / expected sell-through.
//   - Card sales cost the country's in-person rate (card_rates.go: Square
//     US 2.6% + $0.15, UK 1.75%, ...); the plan assumes every sale is a card sale, one item
//     each, which is the cautious case.
//   - Production stops 3 days before the fair for pricing, tagging and
//     packing; a practice booth set-up two weeks before catches display
//     problems.
func init() {
	engine.Register(&engine.Workflow{
		ID:       "crafts-market-fair",
		Name:     "Craft fair stock and break-even",
		Vertical: "crafts",
		PastDate: engine.PastDate{Field: "fair_date", Policy: engine.PastPostEvent},
		Sources: []engine.Source{
			{Title: "Square: in-person payment pricing (US)", URL: "https://squareup.com/us/en/payments/pricing", Checked: "2026-11"},
		},
		Description: "Plans a craft fair: break-even units after booth, costs and card fees, a sales goal of 10× the booth fee, the stock to bring at your sell-through rate, and the production start date at your weekly capacity, with warnings for stock shortfalls and likely losses. A fair already held gets a post-event plan.",
		Fields: []engine.Field{
			engine.RegionField(),
			{Name: "fair_date", Kind: engine.Date, Required: true, Description: "First day of the fair or market."},
			{Name: "booth_fee_usd", Kind: engine.Number, Money: true, Required: true, Min: engine.Bound(0), Max: engine.Bound(100000), Description: "Booth or table fee in `currency` (0–100,000)."},
			{Name: "other_costs_usd", Kind: engine.Number, Money: true, Default: 0, Min: engine.Bound(0), Max: engine.Bound(100000), Description: "Travel, lodging, jury fee, display and insurance for this event, in `currency` (0–100,000)."},
			{Name: "avg_price_usd", Kind: engine.Number, Money: true, Required: true, Min: engine.Bound(0.5), Max: engine.Bound(100000), Description: "Average selling price per item, in `currency` (0.5–100,000)."},
			{Name: "unit_cost_usd", Kind: engine.Number, Money: true, Required: true, Min: engine.Bound(0), Max: engine.Bound(100000), Description: "Materials and packaging per item, in `currency` (0–100,000)."},
			{Name: "units_per_week", Kind: engine.Number, Required: true, Min: engine.Bound(0.5), Max: engine.Bound(10000), Description: "Items you can make per week."},
			{Name: "units_in_stock", Kind: engine.Integer, Default: 0, Min: engine.Bound(0), Max: engine.Bound(100000), Description: "Items already made."},
			{Name: "sell_through_pct", Kind: engine.Number, Default: 30, Min: engine.Bound(5), Max: engine.Bound(100), Description: "Share of the stock you bring that you expect to sell, in percent."},
			engine.CurrencyField("USD"),
		},
		ExampleContext: map[string]any{
			"fair_date":        "2026-12-12",
			"booth_fee_usd":    250,
			"other_costs_usd":  120,
			"avg_price_usd":    32,
			"unit_cost_usd":    9,
			"units_per_week":   25,
			"units_in_stock":   60,
			"sell_through_pct": 30,
			"as_of":            "2026-11-20",
		},
		Steps: []engine.Step{
			{Name: "break-even", Run: crFairBreakEven},
			{Name: "stock-target", Run: crFairStock},
			{Name: "production", Run: crFairProduction},
			{Name: "recommend", Run: crFairRecommend},
		},
	})
}

// crFairContribution is what one sale leaves after materials and the
// card fee at the country's in-person rate.
func crFairContribution(in *engine.Input, p *engine.Plan) (card, contribution float64) {
	price := in.Float("avg_price_usd")
	pct, fixed, _ := cardRateFor(in, p)
	card = engine.Money(price*pct/100 + fixed)
	return card, engine.Money(price - in.Float("unit_cost_usd") - card)
}

// crFairBreakEvenPrice is the price whose card fee and materials leave
// nothing over.
func crFairBreakEvenPrice(in *engine.Input, p *engine.Plan) float64 {
	pct, fixed, _ := cardRateFor(in, p)
	return (in.Float("unit_cost_usd") + fixed) / (1 - pct/100)
}

func crFairBreakEven(in *engine.Input, p *engine.Plan) error {
	fixed := in.Float("booth_fee_usd") + in.Float("other_costs_usd")
	card, contribution := crFairContribution(in, p)
	p.Set("event_costs_usd", engine.Money(fixed))
	p.Set("per_item", map[string]any{"price_usd": in.Float("avg_price_usd"), "cost_usd": in.Float("unit_cost_usd"), "card_fee_usd": card, "contribution_usd": contribution})
	if contribution <= 0 {
		p.Warn("PRICE_BELOW_COST", "At %s an item, materials (%s) and card fees (%s) leave nothing to pay the %s event costs; raise prices above %s.",
			studioMoney(in, in.Float("avg_price_usd")), studioMoney(in, in.Float("unit_cost_usd")), studioMoney(in, card), studioMoney(in, fixed), studioMoney(in, crFairBreakEvenPrice(in, p)))
		return nil
	}
	p.Set("break_even_units", studioCeil(fixed/contribution))
	return nil
}

func crFairStock(in *engine.Input, p *engine.Plan) error {
	price := in.Float("avg_price_usd")
	goalUnits := studioCeil(10 * in.Float("booth_fee_usd") / price)
	if be, ok := p.Get("break_even_units").(int); ok && be > goalUnits {
		goalUnits = be
	}
	through := in.Float("sell_through_pct") / 100
	stock := studioCeil(float64(goalUnits) / through)
	p.Set("sales_goal", map[string]any{"units": goalUnits, "revenue_usd": engine.Money(float64(goalUnits) * price), "rule": "10x booth fee"})
	p.Set("stock_target", stock)
	p.Set("units_to_make", max(stock-in.Int("units_in_stock"), 0))
	return nil
}

func crFairProduction(in *engine.Input, p *engine.Plan) error {
	fair := in.Date("fair_date")
	p.SetTarget(fair)
	if fair.Before(p.AsOf()) {
		// A fair already held: a post-event plan, the forecast as the
		// yardstick for the review and the restock.
		p.PostEvent(fair, "compare the sales with this forecast and restock the best-sellers for the next fair.")
		p.Set("post_event", true)
		_, contribution := crFairContribution(in, p)
		stock := p.Get("stock_target").(int)
		sold := int(math.Floor(engine.Round(float64(stock)*in.Float("sell_through_pct")/100, 6)))
		p.Set("forecast", map[string]any{
			"stock_brought": stock, "expected_sold": sold,
			"expected_sales_usd":     engine.Money(float64(sold) * in.Float("avg_price_usd")),
			"expected_profit_usd":    engine.Money(float64(sold)*contribution - p.Get("event_costs_usd").(float64)),
			"booth_fee_pct_of_sales": crFairBoothShare(in, sold),
		})
		p.Event("fair", "Fair day", fair, "the fair's date")
		p.Work("restock-review", "Review what sold; restock best-sellers", engine.Later(p.AsOf(), engine.AddDays(fair, 7)))
		return nil
	}
	end := engine.AddDays(fair, -3)
	toMake := p.Get("units_to_make").(int)
	rate := in.Float("units_per_week")
	days := studioCeil(float64(toMake) / rate * 7)
	start := engine.AddDays(end, -days)
	stock := p.Get("stock_target").(int)
	if start.Before(p.AsOf()) {
		left := max(engine.DaysBetween(p.AsOf(), end), 0)
		can := int(math.Floor(engine.Round(rate*float64(left)/7, 6)))
		stock = in.Int("units_in_stock") + can
		need := engine.AddDays(p.AsOf(), days+3)
		bring := fmt.Sprintf("you can bring %d of the %d target", stock, p.Get("stock_target").(int))
		if stock == 0 {
			// Never plan a fair with nothing on the table.
			bring = "you would have nothing to sell: skip this fair"
		}
		p.Warn("PRODUCTION_SHORTFALL", "Making %s at %g a week takes %s, but %d remain before the %s cut-off; %s. A fair on or after %s leaves time for full stock.",
			engine.Plural(toMake, "item", "items"), rate, engine.Plural(days, "day", "days"), left, engine.FormatDate(end), bring, engine.FormatDate(need))
		p.Set("max_stock_by_fair", stock)
		start = p.AsOf()
	}
	_, contribution := crFairContribution(in, p)
	sold := int(math.Floor(engine.Round(float64(stock)*in.Float("sell_through_pct")/100, 6)))
	fixed := p.Get("event_costs_usd").(float64)
	profit := engine.Money(float64(sold)*contribution - fixed)
	p.Set("forecast", map[string]any{
		"stock_brought":          stock,
		"expected_sold":          sold,
		"expected_sales_usd":     engine.Money(float64(sold) * in.Float("avg_price_usd")),
		"expected_profit_usd":    profit,
		"booth_fee_pct_of_sales": crFairBoothShare(in, sold),
	})
	if profit < 0 {
		p.Warn("LOSS_LIKELY", "Selling %d of %s (%g%%) brings %s against %s of event costs: an expected loss of %s. Bring more stock, raise prices or skip this fair.",
			sold, engine.Plural(stock, "item", "items"), in.Float("sell_through_pct"), studioMoney(in, float64(sold)*in.Float("avg_price_usd")), studioMoney(in, fixed), studioMoney(in, -profit))
	}
	if toMake > 0 {
		p.Work("production-start", "Start making "+engine.Plural(toMake, "item", "items"), start)
	}
	p.Work("mock-booth", "Practice booth set-up, price signs, card reader test", engine.Later(p.AsOf(), engine.AddDays(fair, -14)))
	p.Work("production-end", "Production stops: price, tag and pack", engine.Later(p.AsOf(), end))
	p.Event("fair", "Fair day", fair, "the fair's date")
	p.Work("restock-review", "Review what sold; restock best-sellers", engine.AddDays(fair, 7))
	chain(p, "production-start", "production-end", "fair", "restock-review")
	p.DependsOn("fair", "mock-booth")
	return nil
}

func crFairRecommend(in *engine.Input, p *engine.Plan) error {
	f := p.Get("forecast").(map[string]any)
	goal := p.Get("sales_goal").(map[string]any)
	fair := in.Date("fair_date")
	if p.Get("post_event") == nil {
		p.RecommendBy(engine.High, engine.Later(p.AsOf(), engine.AddDays(fair, -14)), "Set up the booth once at home",
			"Build the full display, price every item and run a test card payment two weeks out; fixing a display at the fair costs sales.")
	}
	p.Recommend(engine.Medium, "Offer a range of price points", fmt.Sprintf("Mix an impulse item under %s with your core pieces; small sales cover the booth while bigger ones make the profit.", in.MoneyWhole(crFairImpulsePrice(in, p))))
	p.Recommend(engine.Medium, "Collect emails at the booth", "Most visitors don't buy on the day; an email list turns them into online customers after the fair.")
	p.Recommend(engine.Low, "Record sales by item", "Log every sale by item and hour; the restock review uses it to decide what to make for the next fair.")
	be := "no break-even at this price"
	if v, ok := p.Get("break_even_units").(int); ok {
		be = "break even at " + engine.Plural(v, "item", "items")
	}
	p.Strategy("For the %s fair, the %s goal (%s, 10× the booth fee) needs %s at %g%% sell-through; you will bring %s, %s, and can expect %s and %s profit.",
		engine.FormatDate(fair), studioMoney(in, goal["revenue_usd"].(float64)), engine.Plural(goal["units"].(int), "sale", "sales"), engine.Plural(p.Get("stock_target").(int), "item", "items"),
		in.Float("sell_through_pct"), engine.Plural(f["stock_brought"].(int), "item", "items"), be, engine.Plural(f["expected_sold"].(int), "sale", "sales"), studioMoney(in, f["expected_profit_usd"].(float64)))
	return nil
}

// crFairImpulse is the price under which a sale is an impulse buy, a
// US-market figure in US dollars.
var crFairImpulse = engine.Benchmark{Amount: engine.InUSD(15), What: "impulse-buy price point at a craft fair", Source: "craft-fair vendor guides, US market"}

// crFairImpulsePrice is the impulse price point in the plan's currency,
// converted and rounded to a step that reads as round there (USD 15 is
// £12, €14, ¥2,200), never the bare number 15 relabelled.
func crFairImpulsePrice(in *engine.Input, p *engine.Plan) float64 {
	return in.PricePoint(p, "impulse-buy price point", in.Benchmark(p, crFairImpulse), 1, engine.RoundNearest)
}

// crFairBoothShare is the booth fee as a percentage of the expected sales,
// to one decimal. The ratio is the same in every currency; float noise from
// converting both amounts is dropped before rounding, so a share on a
// rounding edge (0.25 %) does not round one way in dollars and the other
// in yen.
func crFairBoothShare(in *engine.Input, sold int) float64 {
	share := in.Float("booth_fee_usd") / math.Max(float64(sold)*in.Float("avg_price_usd"), 0.01) * 100
	return engine.Round(engine.Round(share, 9), 1)
}
