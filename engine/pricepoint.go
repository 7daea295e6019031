package engine

import (
	"math"

	"github.com/bojanz/currency"
)

// MinorUnit is the smallest amount of the ISO 4217 currency code that is
// written or paid: 0.01 for dollars, pounds and euros, 1 for yen and won
// (CLDR's fraction digits, as the amounts are formatted).
func MinorUnit(code string) float64 {
	d, ok := currency.GetDigits(code)
	if !ok {
		d = 2
	}
	return math.Pow(10, -float64(d))
}

// RoundMinor rounds v to the minor unit of code: cents, or whole yen.
// Round once, at the end: a per-item price rounded to the cent and then
// multiplied compounds the rounding.
func RoundMinor(v float64, code string) float64 {
	u := MinorUnit(code)
	return math.Round(Round(v/u, 6)) * u
}

// RoundMinor rounds v to the minor unit of the plan's currency.
func (in *Input) RoundMinor(v float64) float64 { return RoundMinor(v, in.PlanCurrency()) }

// PricePointsKey is the result key listing each price a plan rounded to a
// price point: what it is, the price, the unrounded figure, the step and
// its currency.
const PricePointsKey = "price_points"

// PriceRounding is how a price point is reached from the computed figure.
type PriceRounding int

const (
	// RoundUp never prices below the figure (a price that must recover a
	// cost).
	RoundUp PriceRounding = iota
	// RoundNearest rounds to the nearest step (a quote).
	RoundNearest
)

// PricePoint rounds exact, an amount in the plan's currency, to a price
// point: a multiple of a step worth about stepUSD US dollars in that
// currency, snapped to 1, 2 or 5 times a power of ten (PriceStep: $10,
// £10, €10, ¥2,000). The price point is what the creator charges, so
// every figure the plan derives from it (a commission, a net, a margin)
// is computed from the returned price. The result lists it under
// price_points with the unrounded figure and the step, so a reader sees
// how far the rounding moved it and in which currency.
func (in *Input) PricePoint(p *Plan, what string, exact, stepUSD float64, mode PriceRounding) float64 {
	cur := in.PlanCurrency()
	// The step only sets how round the price reads; converting it with an
	// old table does not make a price wrong, so it does not count as using
	// the rates (usedRates).
	step := in.PriceStep(stepUSD)
	var price float64
	switch mode {
	case RoundNearest:
		price = math.Round(Round(exact/step, 6)) * step
	default:
		price = math.Ceil(Round(exact/step, 6)) * step
	}
	i := len(p.pricePoints)
	if i < len(p.pins) {
		// A property test pins the price points to another run's, converted,
		// to check that everything derived from them follows them exactly.
		price = p.pins[i]
	}
	p.pricePoints = append(p.pricePoints, map[string]any{
		"what": what, "price": price, "unrounded": Round(exact, 4), "step": step, "currency": cur,
	})
	p.Set(PricePointsKey, p.pricePoints)
	return price
}

// PricePointIn is PricePoint with the step chosen by the figure's size in
// US dollars at the reference rate: steps is a list of (below, step)
// pairs in US dollars, the last step applying above them all. Studio
// prices round to $1 under $20, $5 under $100, $10 under $1,000, $50
// under $5,000 and $100 above, and the same magnitudes in every currency.
func (in *Input) PricePointIn(p *Plan, what string, exact float64, steps []PriceBand, mode PriceRounding) float64 {
	usd := exact
	if r, ok := Rates().Rate("USD", in.PlanCurrency()); ok && r > 0 {
		usd = exact / r
	}
	step := steps[len(steps)-1].Step
	for _, b := range steps {
		if usd < b.Below {
			step = b.Step
			break
		}
	}
	return in.PricePoint(p, what, exact, step, mode)
}

// PriceBand is a price step in US dollars for figures below an amount in
// US dollars (math.Inf(1) for the last band).
type PriceBand struct{ Below, Step float64 }

// PinPricePoints makes the plan run with in return prices instead of
// rounding: the i-th price point of the run is prices[i]. The currency
// invariance property uses it to run a converted context with the first
// run's price points converted, so that the figures derived from a price
// point are held to the 1 % tolerance while the price point itself is
// checked against its own step. Plans served to users never pin.
func (in *Input) PinPricePoints(prices []float64) { in.pins = prices }

// usedRates records that the plan converted with the reference rates, and
// warns once when the table is older than RatesStaleAfter days before the
// plan's date.
func (p *Plan) usedRates() {
	if p.ratesChecked {
		return
	}
	p.ratesChecked = true
	t := Rates()
	if age := DaysBetween(t.Date, p.asOf); age > RatesStaleAfter {
		p.Warn("RATES_STALE", "Amounts converted between currencies use the %s of %s, %d days before the plan date; exchange rates move, so check the converted figures against today's rates (an operator refreshes the table with --rates-file).",
			t.Name, FormatDate(t.Date), age)
	}
}

// RatesStaleAfter is how many days a reference-rate table may be older
// than a plan's date before the plan warns that it is stale.
const RatesStaleAfter = 45

// QuoteBands are the steps a quote rounds to, in US dollars at the
// reference rate: $1 under $20, $5 under $100, then $10, so a quote reads
// as a quote in every currency (¥2,000 steps on a ¥150,000 quote) and no
// small quote rounds to nothing.
var QuoteBands = []PriceBand{{Below: 20, Step: 1}, {Below: 100, Step: 5}, {Below: math.Inf(1), Step: 10}}

// Quote rounds a quoted fee to the nearest price point of QuoteBands in
// the plan's currency (PricePointIn). What the plan derives from the
// quote (a commission, the creator's net) follows the rounded quote.
func (in *Input) Quote(p *Plan, what string, v float64) float64 {
	return in.PricePointIn(p, what, v, QuoteBands, RoundNearest)
}
