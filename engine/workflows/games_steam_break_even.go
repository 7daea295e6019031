package workflows

import (
	"fmt"
	"math"
	"time"

	"github.com/creativeops/creativeops/engine"
)

// Revenue waterfall and break-even for a premium game sold on Steam. Rules
// used:
//   - Valve's revenue share is 30% of adjusted gross up to $10M, 25% from
//     $10M to $50M and 20% beyond (Steam Distribution Agreement, tiers
//     announced by Valve in 2018).
//   - Adjusted gross is after refunds and chargebacks. Steam refunds any
//     purchase within 14 days and under 2 hours played (Steam Refunds
//     policy); 5–10% refund rates are common for indies, 8% is the default.
//   - EU/UK prices include VAT (17–27%), which Valve remits, and Valve's
//     suggested regional prices are lower than the US price; 15% of list
//     revenue is set aside for both (a conservative estimate for a typical
//     regional mix).
//   - Valve pays monthly, about 30 days after the end of each month
//     (Steamworks, payments).
//   - The $100 Steam Direct fee is returned once adjusted gross reaches
//     $1,000.
//   - Most indie games earn the bulk of their lifetime revenue in the first
//     year; a break-even later than 12 months is flagged.
func init() {
	engine.Register(&engine.Workflow{
		ID:                 "games-steam-break-even",
		Name:               "Steam revenue and break-even",
		Vertical:           "games",
		CountryIndependent: "Steam's revenue share, refunds and regional pricing are the same for every developer; taxes withheld are the `tax_pct` input.",
		PastDate:           engine.PastDate{Field: "launch_date", Policy: engine.PastPostEvent},
		Sources: []engine.Source{
			{Title: "Steam refunds policy (14 days, under 2 hours played)", URL: "https://store.steampowered.com/steam_refunds/", Checked: "2026-11"},
			{Title: "Steamworks: payments and revenue share tiers", URL: "https://partner.steamgames.com/doc/finance/payments_salesreporting", Checked: "2026-11"},
		},
		Description: "Turns a price and a sales curve into a per-copy revenue waterfall (discounts, taxes and regional pricing, refunds, Valve's tiered share, publisher share) and finds the month and payout date the budget is recouped, or the price and units that would recoup it. For a game already launched it is a post-launch projection to compare with actual sales.",
		Fields: []engine.Field{
			{Name: "price_usd", Kind: engine.Number, Money: true, Required: true, Min: engine.Bound(0.99), Max: engine.Bound(200), Description: "Base price in `currency`."},
			{Name: "budget_usd", Kind: engine.Number, Money: true, Required: true, Min: engine.Bound(0), Max: engine.Bound(1000000000), Description: "Development and marketing spend to recoup, in `currency` (0–1,000,000,000)."},
			{Name: "launch_date", Kind: engine.Date, Required: true, Description: "Release day on Steam."},
			{Name: "launch_month_units", Kind: engine.Integer, Required: true, Min: engine.Bound(1), Max: engine.Bound(100000000), Description: "Copies expected to sell in the launch month (1–100,000,000)."},
			{Name: "monthly_units", Kind: engine.Integer, Default: 0, Min: engine.Bound(0), Max: engine.Bound(10000000), Description: "Copies expected per month afterwards (the long tail) (0–10,000,000)."},
			{Name: "avg_discount_pct", Kind: engine.Number, Default: 25, Min: engine.Bound(0), Max: engine.Bound(90), Description: "Average discount across all copies sold (launch discount and sales), in percent."},
			{Name: "refund_rate_pct", Kind: engine.Number, Default: 8, Min: engine.Bound(0), Max: engine.Bound(50), Description: "Share of purchases refunded, in percent."},
			{Name: "publisher_share_pct", Kind: engine.Number, Default: 0, Min: engine.Bound(0), Max: engine.Bound(90), Description: "Publisher's share of net revenue, in percent (0 when self-published)."},
			engine.CurrencyField("USD"),
		},
		ExampleContext: map[string]any{
			"price_usd":          19.99,
			"budget_usd":         60000,
			"launch_date":        "2027-07-13",
			"launch_month_units": 3000,
			"monthly_units":      400,
			"avg_discount_pct":   25,
			"refund_rate_pct":    8,
			"as_of":              "2026-11-20",
		},
		Steps: []engine.Step{
			{Name: "waterfall", Run: gamesBreakEvenWaterfall},
			{Name: "project", Run: gamesBreakEvenProject},
			{Name: "recommend", Run: gamesBreakEvenRecommend},
		},
	})
}

const (
	gamesTaxRegionalDrag   = 0.15
	gamesRefundWindowDays  = 14
	gamesPayoutLagDays     = 30
	gamesProjectionMonths  = 36
	gamesAppFeeRecoupGross = 1000.0
)

// Valve sets its revenue-share tiers and the Steam Direct fee's recoup
// threshold in US dollars of adjusted gross; a plan in another currency
// converts them at the reference rate, never reads 10,000,000 yen as the
// first tier.
var (
	gamesValveTier1   = engine.Benchmark{Amount: engine.InUSD(10e6), What: "Steam revenue share: 30 % up to this adjusted gross", Source: "https://partner.steamgames.com/doc/finance/payments_salesreporting"}
	gamesValveTier2   = engine.Benchmark{Amount: engine.InUSD(50e6), What: "Steam revenue share: 25 % up to this adjusted gross, 20 % above", Source: "https://partner.steamgames.com/doc/finance/payments_salesreporting"}
	gamesAppFeeRecoup = engine.Benchmark{Amount: engine.InUSD(gamesAppFeeRecoupGross), What: "adjusted gross that recoups the Steam Direct fee", Source: "https://partner.steamgames.com/doc/gettingstarted/appfee"}
)

// gamesValveTiers are Valve's revenue-share tiers in the plan's currency.
func gamesValveTiers(in *engine.Input, p *engine.Plan) [2]float64 {
	return [2]float64{in.Benchmark(p, gamesValveTier1), in.Benchmark(p, gamesValveTier2)}
}

// gamesValveShare is Valve's cut of one more unit of adjusted gross when
// the game has already earned cum, with the tiers in the plan's currency.
func gamesValveShare(tier [2]float64, cum, amount float64) float64 {
	tiers := []struct{ upTo, rate float64 }{{tier[0], 0.30}, {tier[1], 0.25}, {math.Inf(1), 0.20}}
	share := 0.0
	for _, t := range tiers {
		if cum < t.upTo && amount > 0 {
			part := math.Min(amount, t.upTo-cum)
			share += part * t.rate
			amount -= part
			cum += part
		}
	}
	return share
}

func gamesBreakEvenWaterfall(in *engine.Input, p *engine.Plan) error {
	price := in.Float("price_usd")
	disc, refund, pub := in.Float("avg_discount_pct")/100, in.Float("refund_rate_pct")/100, in.Float("publisher_share_pct")/100
	realised := price * (1 - disc)
	afterTax := realised * (1 - gamesTaxRegionalDrag)
	adjusted := afterTax * (1 - refund)
	// Per copy at Valve's first tier, which covers all but the rare hit.
	valve := adjusted * gamesSteamCut
	publisher := (adjusted - valve) * pub
	net := adjusted - valve - publisher
	p.Set("per_copy_usd", map[string]any{
		"list_price":          engine.Money(price),
		"after_discounts":     engine.Money(realised),
		"after_tax_regional":  engine.Money(afterTax),
		"after_refunds":       engine.Money(adjusted),
		"valve_share":         engine.Money(valve),
		"publisher_share":     engine.Money(publisher),
		"developer_net":       engine.Money(net),
		"developer_net_ratio": engine.Round(net/price, 4),
	})
	units := int(math.Ceil(engine.Round(in.Float("budget_usd")/net, 6)))
	p.Set("break_even_units", units)
	return nil
}

func gamesBreakEvenProject(in *engine.Input, p *engine.Plan) error {
	price, budget := in.Float("price_usd"), in.Float("budget_usd")
	launch := in.Date("launch_date")
	p.SetTarget(launch)
	disc, refund, pub := in.Float("avg_discount_pct")/100, in.Float("refund_rate_pct")/100, in.Float("publisher_share_pct")/100
	perCopyAdjusted := price * (1 - disc) * (1 - gamesTaxRegionalDrag) * (1 - refund)
	monthStart := time.Date(launch.Year(), launch.Month(), 1, 0, 0, 0, 0, time.UTC)
	payout := func(m int) time.Time {
		return engine.AddDays(engine.AddDays(engine.AddMonths(monthStart, m+1), -1), gamesPayoutLagDays)
	}

	var cumAdjusted, cumNet float64
	tiers, feeRecoup := gamesValveTiers(in, p), in.Benchmark(p, gamesAppFeeRecoup)
	var totalUnits int
	breakEven, feeBack := -1, -1
	var months []map[string]any
	for m := 0; m < gamesProjectionMonths; m++ {
		units := in.Int("monthly_units")
		if m == 0 {
			units = in.Int("launch_month_units")
		}
		adjusted := float64(units) * perCopyAdjusted
		valve := gamesValveShare(tiers, cumAdjusted, adjusted)
		net := (adjusted - valve) * (1 - pub)
		cumAdjusted += adjusted
		cumNet += net
		totalUnits += units
		if feeBack < 0 && cumAdjusted >= feeRecoup*(1-1e-9) {
			feeBack = m
		}
		if breakEven < 0 && cumNet >= budget {
			breakEven = m
		}
		if m < 12 {
			months = append(months, map[string]any{
				"month": engine.AddMonths(monthStart, m).Format("2006-01"), "units": units,
				"developer_net_usd": engine.Money(net), "cumulative_net_usd": engine.Money(cumNet),
				"paid_on": engine.FormatDate(payout(m)),
			})
		}
	}
	p.SetSchedule("first_year_by_month", "Steam's payout for each month's sales", months)
	p.Set("projected_36_month_net_usd", engine.Money(cumNet))
	p.Set("projected_36_month_units", totalUnits)

	p.Event("launch", "Launch on Steam", launch, "the launch date the plan is built on")
	p.Event("refund-window", "Launch-day buyers' refund window closes (14 days)", engine.AddDays(launch, gamesRefundWindowDays), "Steam's 14-day refund window")
	p.Event("first-payout", "First Steam payout (launch month)", payout(0), "Valve pays out on its own schedule")
	chain(p, "launch", "refund-window")
	chain(p, "launch", "first-payout")
	if feeBack >= 0 {
		p.Set("app_fee_recouped_month", engine.AddMonths(monthStart, feeBack).Format("2006-01"))
	}
	if breakEven >= 0 {
		p.Set("break_even_month", engine.AddMonths(monthStart, breakEven).Format("2006-01"))
		p.Set("break_even_payout_date", p.Ref("break-even"))
		p.Event("break-even", "Budget recouped (payout received)", payout(breakEven), "Valve pays out on its own schedule")
		if breakEven >= 12 {
			p.Warn("BREAK_EVEN_SLOW", "The budget of %s is recouped only in month %d (%s); most indie games earn the bulk of their revenue in the first year, so the long-tail estimate of %s a month carries the plan.",
				in.Money(budget), breakEven+1, p.Get("break_even_month"), engine.Plural(in.Int("monthly_units"), "copy", "copies"))
		}
		gamesBreakEvenHistory(p, launch)
		return nil
	}
	// Net is linear in price below Valve's $10M tier, which covers any budget
	// that fails to break even here.
	needed := engine.Money(price * budget / cumNet)
	p.Set("break_even_price_usd", needed)
	p.Warn("NO_BREAK_EVEN", "%s over 36 months earn %s against a budget of %s; break-even needs %s at %s or a price of %s on this sales curve.",
		engine.Plural(totalUnits, "copy", "copies"), in.Money(cumNet), in.Money(budget), engine.Plural(p.Get("break_even_units").(int), "copy", "copies"), in.Money(price), in.Money(needed))
	p.Event("projection-end", "End of the 36-month projection", payout(gamesProjectionMonths-1), "the end of the projection")
	gamesBreakEvenHistory(p, launch)
	return nil
}

// gamesBreakEvenHistory: a launch already past makes the projection a
// post-launch one (compare it with actual sales); steps of it already
// behind the plan date are named as such.
func gamesBreakEvenHistory(p *engine.Plan, launch time.Time) {
	if launch.Before(p.AsOf()) {
		p.PostEvent(launch, "compare the projection with actual Steam sales and refunds month by month.")
		notePassed(p, "launch")
	}
}

func gamesBreakEvenRecommend(in *engine.Input, p *engine.Plan) error {
	per := p.Get("per_copy_usd").(map[string]any)
	ratio := per["developer_net_ratio"].(float64)
	p.Recommend(engine.High, "Budget on the developer net, not the price",
		fmt.Sprintf("Each copy listed at %s returns %s to you (%.0f%% of list) after discounts, taxes and regional pricing, refunds and Valve's 30%%.",
			in.Money(per["list_price"].(float64)), in.Money(per["developer_net"].(float64)), ratio*100))
	p.RecommendOn(engine.Medium, "refund-window", "Read the refund reasons",
		"Steam reports a reason with each refund; a rate above 10% in the first two weeks points at performance or expectation problems worth patching before the first sale.")
	if in.Float("publisher_share_pct") > 0 {
		p.Recommend(engine.Medium, "Check the publisher's recoup terms",
			fmt.Sprintf("At a %.0f%% publisher share, confirm whether their marketing spend is recouped before the split; it moves your break-even.", in.Float("publisher_share_pct")))
	}
	p.Recommend(engine.Low, "Keep the tail alive", "Seasonal sales, updates and bundles drive the monthly long tail the break-even depends on; plan them with games-steam-discount-calendar.")
	when := "not within 36 months"
	if d, ok := p.Get("break_even_payout_date").(string); ok {
		when = "with the payout of " + d
	}
	p.Strategy("At %s a copy nets %s; the %s budget needs %s and is recouped %s (36-month projection: %s, %s net).",
		in.Money(in.Float("price_usd")), in.Money(per["developer_net"].(float64)), in.Money(in.Float("budget_usd")), engine.Plural(p.Get("break_even_units").(int), "copy", "copies"), when,
		engine.Plural(p.Get("projected_36_month_units").(int), "copy", "copies"), in.Money(p.Get("projected_36_month_net_usd").(float64)))
	return nil
}
