package workflows

import (
	"slices"

	"github.com/creativeops/creativeops/engine"
)

// Kickstarter's fees: 5 % of the funds collected, plus payment processing
// that Kickstarter sets per project country in that country's currency:
// 3 % + 0.20 a pledge, or 5 % + 0.05 for a pledge under 10, in US
// dollars, pounds, euros, Canadian, Australian and New Zealand dollars
// (Kickstarter's fees page). A project of another country pays its own
// schedule; the plan uses the US one converted and says so.
const (
	ksPlatformPct        = 0.05
	ksProcessingPct      = 0.03
	ksSmallProcessingPct = 0.05
	ksFeesSource         = "https://www.kickstarter.com/help/fees"
)

// ksFeeCurrency is the currency Kickstarter charges a project of the
// country in, for the countries whose schedule is known here.
var ksFeeCurrency = map[engine.Region]string{
	"US": "USD", "GB": "GBP", "CA": "CAD", "AU": "AUD", "NZ": "NZD",
	"DE": "EUR", "FR": "EUR", "ES": "EUR", "IT": "EUR", "NL": "EUR", "IE": "EUR", "AT": "EUR", "BE": "EUR", "LU": "EUR",
}

// ksFees returns Kickstarter's processing percentage and per-pledge fee,
// in the plan's currency, for a pledge (also in the plan's currency): the
// project country's schedule, converted when the plan is in another
// currency.
func ksFees(in *engine.Input, p *engine.Plan, pledge float64) (processingPct, perPledge float64) {
	r := in.Region()
	cur, ok := ksFeeCurrency[r]
	where := r.Name()
	if !ok {
		cur, where = "USD", "US"
		if !slices.ContainsFunc(p.Warnings(), func(w engine.Warning) bool { return w.Code == "KICKSTARTER_FEES_UNKNOWN" }) {
			p.Warn("KICKSTARTER_FEES_UNKNOWN", "Kickstarter's payment processing fee for a project in %s is not in this plan's table; the US schedule (3%% + USD 0.20 a pledge, 5%% + USD 0.05 under USD 10), converted, is used: check Kickstarter's fees page for your country.", r.Name())
		}
	}
	bm := func(v float64, what string) engine.Benchmark {
		return engine.Benchmark{Amount: engine.In(v, cur), What: "Kickstarter " + what + " (" + where + ")", Source: ksFeesSource}
	}
	if pledge < in.Benchmark(p, bm(10, "small-pledge threshold"))*(1-1e-9) {
		return ksSmallProcessingPct, in.Benchmark(p, bm(0.05, "processing fee per pledge under 10"))
	}
	return ksProcessingPct, in.Benchmark(p, bm(0.20, "processing fee per pledge"))
}
