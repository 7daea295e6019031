package workflows

import (
	"fmt"
	"strings"

	"github.com/creativeops/creativeops/engine"
)

// Card processing for in-person sales (a merch table, a craft fair) is
// priced per country by the processor: Square's published in-person rate
// where it trades, in the country's currency. A country without a rate
// here takes the US rate with its fixed fee converted, and says so.

// cardRate is a processor's in-person rate: a percentage of the sale plus
// a fixed fee in the country's currency.
type cardRate struct {
	pct   float64
	fixed engine.Benchmark
	title string
	url   string
}

func squareRate(country, cur string, pct, fixed float64) cardRate {
	url := "https://squareup.com/" + map[string]string{"GB": "gb/en", "US": "us/en", "AU": "au/en", "CA": "ca/en", "JP": "jp/ja"}[country] + "/payments/pricing"
	return cardRate{
		pct:   pct,
		fixed: engine.Benchmark{Amount: engine.In(fixed, cur), What: "Square in-person fixed fee (" + country + ")", Source: url},
		title: fmt.Sprintf("Square in-person rate (%s): %g%%", country, pct),
		url:   url,
	}
}

var cardRates = map[engine.Region]cardRate{
	"US": squareRate("US", "USD", 2.6, 0.15),
	"GB": squareRate("GB", "GBP", 1.75, 0),
	"AU": squareRate("AU", "AUD", 1.6, 0),
	"CA": squareRate("CA", "CAD", 2.65, 0),
	"JP": squareRate("JP", "JPY", 3.25, 0),
}

// cardRateFor returns the in-person card rate of the plan's country (its
// fixed fee in the plan's currency), warning LOCAL_CARD_RATE_UNKNOWN and
// using the US rate where the table has none.
func cardRateFor(in *engine.Input, p *engine.Plan) (pct, fixed float64, r cardRate) {
	r, ok := cardRates[in.Region()]
	if !ok {
		r = cardRates["US"]
		p.Warn("LOCAL_CARD_RATE_UNKNOWN", "No local card-processing rate is known for %s; Square's US rate (2.6%% + USD 0.15, converted) is used: enter your processor's rate in your head when reading the margins.", in.Region().Name())
	}
	fixed = 0
	if r.fixed.Value != 0 {
		fixed = in.Benchmark(p, r.fixed)
	}
	p.Set("card_rate", map[string]any{"rate": r.title, "pct": r.pct, "fixed": engine.Money(fixed), "source": r.url})
	return r.pct, fixed, r
}

// Card processing for online sales (a website checkout) is priced per
// country by Stripe's standard rate for domestic cards, in the country's
// currency. A country without a rate here takes the US rate with its
// fixed fee converted, and says so.

func stripeRate(country, cur string, pct, fixed float64) cardRate {
	url := "https://stripe.com/" + strings.ToLower(country) + "/pricing"
	return cardRate{
		pct:   pct,
		fixed: engine.Benchmark{Amount: engine.In(fixed, cur), What: "Stripe fixed fee per online card payment (" + country + ")", Source: url},
		title: fmt.Sprintf("Stripe standard domestic-card rate (%s): %g%%", country, pct),
		url:   url,
	}
}

var onlineCardRates = map[engine.Region]cardRate{
	"US": stripeRate("US", "USD", 2.9, 0.30),
	"GB": stripeRate("GB", "GBP", 1.5, 0.20),
	"AU": stripeRate("AU", "AUD", 1.7, 0.30),
	"CA": stripeRate("CA", "CAD", 2.9, 0.30),
	"JP": stripeRate("JP", "JPY", 3.6, 0),
	"AT": stripeRate("AT", "EUR", 1.5, 0.25), "BE": stripeRate("BE", "EUR", 1.5, 0.25),
	"DE": stripeRate("DE", "EUR", 1.5, 0.25), "ES": stripeRate("ES", "EUR", 1.5, 0.25),
	"FR": stripeRate("FR", "EUR", 1.5, 0.25), "IE": stripeRate("IE", "EUR", 1.5, 0.25),
	"IT": stripeRate("IT", "EUR", 1.5, 0.25), "NL": stripeRate("NL", "EUR", 1.5, 0.25),
}

// onlineCardRateFor returns the online card rate of the plan's country
// (its fixed fee in the plan's currency), warning LOCAL_CARD_RATE_UNKNOWN
// and using the US rate where the table has none.
func onlineCardRateFor(in *engine.Input, p *engine.Plan) (pct, fixed float64, r cardRate) {
	r, ok := onlineCardRates[in.Region()]
	if !ok {
		r = onlineCardRates["US"]
		p.Warn("LOCAL_CARD_RATE_UNKNOWN", "No local online card-processing rate is known for %s; Stripe's US rate (2.9%% + USD 0.30, converted) is used: enter your processor's rate in your head when reading the margins.", in.Region().Name())
	}
	if r.fixed.Value != 0 {
		fixed = in.Benchmark(p, r.fixed)
	}
	p.Set("online_card_rate", map[string]any{"rate": r.title, "pct": r.pct, "fixed": engine.Money(fixed), "source": r.url})
	return r.pct, fixed, r
}
