package enginetest

import (
	"math"
	"slices"
	"testing"

	"github.com/creativeops/creativeops/engine"
)

// priceWorkflow prices an item at twice its cost, rounded to a price
// point, and derives a commission and a net from the price. Its `mode`
// plants one defect at a time.
func priceWorkflow() *engine.Workflow {
	if w, ok := engine.LookupWorkflow("enginetest-price"); ok {
		return w
	}
	fee := engine.Benchmark{Amount: engine.InUSD(3), What: "fixed fee", Source: "test"}
	engine.Register(&engine.Workflow{
		ID: "enginetest-price", Name: "Price", Vertical: "crafts", Description: "test",
		CountryIndependent: "test",
		Fields: []engine.Field{
			{Name: "cost_usd", Kind: engine.Number, Money: true, Min: engine.Bound(1), Max: engine.Bound(100000), Required: true},
			{Name: "mode", Kind: engine.String, Enum: []string{"sound", "relabelled-fee", "relabelled-price", "unlabelled-rounding"}, Default: "sound"},
			engine.CurrencyField("USD"),
		},
		ExampleContext: map[string]any{"cost_usd": 23.4},
		Steps: []engine.Step{{Name: "price", Run: func(in *engine.Input, p *engine.Plan) error {
			exact := 2 * in.Float("cost_usd")
			fixed := in.Benchmark(p, fee)
			var price float64
			switch in.Str("mode") {
			case "relabelled-price":
				// The price point of a US figure read as the plan's currency.
				price = in.PricePoint(p, "retail price", 2*23.4, 5, engine.RoundUp)
			case "unlabelled-rounding":
				price = math.Ceil(exact/10) * 10
			default:
				price = in.PricePoint(p, "retail price", exact, 5, engine.RoundUp)
			}
			if in.Str("mode") == "relabelled-fee" {
				fixed = fee.Value
			}
			commission := price * 0.2
			p.Set("price_usd", price)
			p.Set("commission_usd", engine.Money(commission))
			p.Set("net_usd", engine.Money(price-commission-fixed))
			p.Strategy("Sell at %s and net %s.", in.Money(price), in.Money(price-commission-fixed))
			return nil
		}}},
	})
	w, _ := engine.LookupWorkflow("enginetest-price")
	return w
}

// The currency property holds a price point to its own step and every
// figure derived from it to 1 %, and still catches a relabelled figure,
// a relabelled price point and a rounding the plan does not label.
func TestCurrencyInvariancePricePoints(t *testing.T) {
	w := priceWorkflow()
	for mode, want := range map[string]string{
		"sound":               "",
		"relabelled-fee":      "amount not invariant",
		"relabelled-price":    "amount not invariant",
		"unlabelled-rounding": "amount not invariant",
	} {
		t.Run(mode, func(t *testing.T) {
			ctx := map[string]any{"cost_usd": 23.4, "mode": mode}
			got := rules(CurrencyInvariance(w, ctx, asOf))
			if want == "" && len(got) > 0 {
				t.Fatalf("a sound price point reported %v", got)
			}
			if want != "" && !slices.Contains(got, want) {
				t.Fatalf("rules %v, want %q", got, want)
			}
		})
	}
	// The rounded price itself moves by up to a step (¥2,000 steps are not
	// $5 steps), and the result lists it with its unrounded figure.
	res, err := Run(w, map[string]any{"cost_usd": 23.4 * 150, "currency": "JPY"}, asOf)
	if err != nil {
		t.Fatal(err)
	}
	pp := pricePoints(res)
	if len(pp) != 1 || pp[0].step != 1000 || pp[0].price != 8000 || pp[0].unrounded != 7020 {
		t.Fatalf("price points %+v, want ¥7,020 rounded up to ¥8,000 in ¥1,000 steps", pp)
	}
}
