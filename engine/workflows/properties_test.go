package workflows_test

import (
	"encoding/json"
	"slices"
	"testing"

	"github.com/creativeops/creativeops/engine"
	"github.com/creativeops/creativeops/engine/enginetest"
)

// propertyContexts is how many generated contexts each property runs per
// workflow (the example among them).
func propertyContexts() int {
	if testing.Short() {
		return 3
	}
	return 10
}

// currencyPending are the workflows whose results still carry a US figure
// relabelled in the plan's currency: known defects, each to be fixed by
// carrying its benchmarks as engine.Benchmark and rounding prices with
// Input.PricePoint. It is empty: every workflow passes. A workflow listed
// must fail the property (the test fails once it passes).
var currencyPending = map[string]bool{}

// Currency invariance, over every workflow: the same context with every
// money input converted to JPY, GBP and EUR at the rate table's rates is
// accepted, and its amounts convert back to the first run's within 1 %;
// a benchmark set in another currency is converted, never relabelled.
func TestPropertyCurrencyInvariance(t *testing.T) {
	for _, w := range engine.Workflows("") {
		t.Run(w.ID, func(t *testing.T) {
			money := w.MoneyFields()
			hasCurrency := slices.ContainsFunc(w.Fields, func(f engine.Field) bool { return f.Name == engine.CurrencyFieldName })
			if len(money) > 0 && !hasCurrency && !currencyPending[w.ID] {
				t.Fatalf("money inputs %v but no `currency` input: amounts can only be US dollars", money)
			}
			if !hasCurrency {
				return
			}
			seen := map[string]bool{}
			example := enginetest.Example(w, enginetest.DefaultAsOf)
			for _, ctx := range enginetest.GenerateContexts(w, enginetest.DefaultAsOf, propertyContexts(), 7) {
				// Amounts are generated in the example's currency.
				if cur, ok := example[engine.CurrencyFieldName]; ok {
					ctx[engine.CurrencyFieldName] = cur
				} else {
					delete(ctx, engine.CurrencyFieldName)
				}
				for _, p := range enginetest.CurrencyInvariance(w, ctx, enginetest.DefaultAsOf) {
					if seen[p.Rule] {
						continue
					}
					seen[p.Rule] = true
					if currencyPending[w.ID] {
						t.Logf("pending: %s: %s", p.Rule, p.Detail)
					} else {
						c, _ := json.Marshal(ctx)
						t.Errorf("%s: %s\ncontext: %s", p.Rule, p.Detail, c)
					}
				}
			}
			if currencyPending[w.ID] && len(seen) == 0 {
				t.Errorf("listed in currencyPending but invariant now: take it off the list")
			}
		})
	}
}

// Country sensitivity, over every workflow: one that takes `country` gives
// different results for countries whose rules or holidays differ; one that
// does not says why in its declaration (Register refuses it otherwise).
func TestPropertyCountrySensitivity(t *testing.T) {
	for _, w := range engine.Workflows("") {
		t.Run(w.ID, func(t *testing.T) {
			if !slices.ContainsFunc(w.Fields, func(f engine.Field) bool { return f.Name == engine.RegionFieldName }) {
				if w.CountryIndependent == "" {
					t.Fatal("takes no `country` and does not say why")
				}
				return
			}
			ctx := enginetest.Example(w, enginetest.DefaultAsOf)
			for _, p := range enginetest.CountrySensitivity(w, ctx, enginetest.DefaultAsOf) {
				t.Errorf("%s: %s", p.Rule, p.Detail)
			}
		})
	}
}
