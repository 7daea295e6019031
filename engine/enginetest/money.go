package enginetest

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/creativeops/creativeops/engine"
)

// InvarianceCurrencies are the currencies the currency-invariance property
// converts every context into.
var InvarianceCurrencies = []string{"JPY", "GBP", "EUR"}

// ConvertContext returns ctx with every money input (declared by
// engine.Field.Money) converted from its currency into to at the active
// rate table, and `currency` set to to.
func ConvertContext(w *engine.Workflow, ctx map[string]any, to string) map[string]any {
	from := currencyOf(w, ctx)
	rate, ok := engine.Rates().Rate(from, to)
	if !ok {
		panic("enginetest: no rate from " + from + " to " + to)
	}
	out := Clone(normalize(ctx))
	convertFields(out, w.Fields, rate)
	out[engine.CurrencyFieldName] = to
	return out
}

func convertFields(ctx map[string]any, fields []engine.Field, rate float64) {
	for _, f := range fields {
		v, ok := ctx[f.Name]
		if !ok {
			continue
		}
		switch t := v.(type) {
		case float64:
			if f.Money {
				ctx[f.Name] = t * rate
			}
		case []any:
			for _, item := range t {
				if m, isObj := item.(map[string]any); isObj {
					convertFields(m, f.Items, rate)
				}
			}
		}
	}
}

// CurrencyInvariance runs ctx in its own currency and converted into each
// of InvarianceCurrencies, and reports (1) a converted context refused
// (a bound that does not follow the currency), (2) a number of the result
// that is neither the same in both runs (a count, a percentage, a date's
// day count) nor the same amount at the table's rate within 1 %, and (3)
// an amount in the prose of the converted run with no counterpart in the
// first run at the rate (a US figure relabelled in another currency).
// Figures the plan labels in their own currency ("USD 100") are compared
// as they are. The country stays the context's, so a local benchmark of
// that country is used in both runs.
func CurrencyInvariance(w *engine.Workflow, ctx map[string]any, asOf time.Time) []Problem {
	base := currencyOf(w, ctx)
	ref, err := Run(w, ctx, asOf)
	if err != nil {
		return nil // a refused context says nothing about invariance
	}
	refPoints := pricePoints(ref)
	var out []Problem
	for _, cur := range InvarianceCurrencies {
		if cur == base {
			continue
		}
		rate, _ := engine.Rates().Rate(base, cur)
		conv := ConvertContext(w, ctx, cur)
		res, err := Run(w, conv, asOf)
		var ce *engine.ContextError
		if errors.As(err, &ce) {
			out = append(out, Problem{"converted input refused", fmt.Sprintf("in %s: %v", cur, err)})
			continue
		} else if err != nil {
			out = append(out, Problem{"converted input failed", fmt.Sprintf("in %s: %v", cur, err)})
			continue
		}
		if len(refPoints) > 0 {
			// Price points round to steps of the currency (¥2,000, £10),
			// so they are checked against their own step, and the rest of
			// the plan is compared in a run whose price points are the first
			// run's converted: every figure derived from a price (a net, a
			// commission, a margin) must then follow it within 1 %.
			out = append(out, pricePointsOnStep(pricePoints(res), cur)...)
			pins := make([]float64, len(refPoints))
			for i, pp := range refPoints {
				pins[i] = pp.price * rate
			}
			if res, err = RunPinned(w, conv, asOf, pins); err != nil {
				out = append(out, Problem{"converted input failed", fmt.Sprintf("in %s with the price points pinned: %v", cur, err)})
				continue
			}
			out = append(out, comparePricePoints(refPoints, pricePoints(res), base, cur, rate)...)
		}
		a, b := withoutConversionWarnings(ref), withoutConversionWarnings(res)
		out = append(out, compareNumbers(a, b, "result", base, cur, rate)...)
		out = append(out, compareProse(a, b, base, cur, rate)...)
	}
	return out
}

// RunPinned is Run with the plan's price points pinned to prices, in
// order (engine.Input.PinPricePoints).
func RunPinned(w *engine.Workflow, ctx map[string]any, asOf time.Time, prices []float64) (map[string]any, error) {
	in, err := w.Prepare(Clone(ctx))
	if err != nil {
		return nil, err
	}
	in.PinPricePoints(prices)
	return w.Run(context.Background(), in, asOf, nil)
}

type pricePoint struct {
	what                   string
	price, unrounded, step float64
}

func pricePoints(res map[string]any) []pricePoint {
	var out []pricePoint
	for _, v := range listOf(plainJSON(res).(map[string]any)[engine.PricePointsKey]) {
		m, _ := v.(map[string]any)
		f := func(k string) float64 { x, _ := m[k].(float64); return x }
		what, _ := m["what"].(string)
		out = append(out, pricePoint{what, f("price"), f("unrounded"), f("step")})
	}
	return out
}

// pricePointsOnStep reports a price point of a run more than one step
// from its unrounded figure.
func pricePointsOnStep(got []pricePoint, cur string) []Problem {
	var out []Problem
	for _, b := range got {
		if math.Abs(b.price-b.unrounded) > b.step*(1+1e-9)+minorUnit(cur) {
			out = append(out, Problem{"price point off its step", fmt.Sprintf("price point %q is %v in %s, more than a step of %v from its unrounded %v", b.what, b.price, cur, b.step, b.unrounded)})
		}
	}
	return out
}

// comparePricePoints holds each price point of the converted run whose
// price points were pinned to the first run's to the first run's: the
// same price points, each unrounded figure the same amount at the rate
// within 1 %, and each step worth about as much as the first run's (a
// step of the currency's magnitude, snapped to 1, 2 or 5 times a power of
// ten).
func comparePricePoints(ref, got []pricePoint, from, to string, rate float64) []Problem {
	if len(ref) != len(got) {
		return []Problem{{"currency changed the plan", fmt.Sprintf("%d price points in %s, %d in %s with the price points pinned", len(ref), from, len(got), to)}}
	}
	var out []Problem
	for i, a := range ref {
		b := got[i]
		switch {
		case b.what != a.what:
			out = append(out, Problem{"currency changed the plan", fmt.Sprintf("price point %d is %q in %s, %q in %s", i, a.what, from, b.what, to)})
		case !sameAmount(a.unrounded, b.unrounded/rate, 0.01, minorUnit(to)/rate+centSlack):
			out = append(out, Problem{"amount not invariant", fmt.Sprintf("price point %q is %v unrounded in %s but %v in %s (%v back at %.6g)", a.what, a.unrounded, from, b.unrounded, to, b.unrounded/rate, rate)})
		case a.step <= 0 || b.step/rate > 2.5*a.step || b.step/rate < a.step/2.5:
			out = append(out, Problem{"price step not invariant", fmt.Sprintf("price point %q steps by %v in %s but %v in %s (%v back at %.6g)", a.what, a.step, from, b.step, to, b.step/rate, rate)})
		}
	}
	return out
}

// withoutConversionWarnings is the result as plain JSON without the
// warnings about the conversion itself (RATES_STALE: a plan that converts
// says how old its rate table is; one in the benchmarks' own currency
// converts nothing).
func withoutConversionWarnings(res map[string]any) any {
	out := plainJSON(res).(map[string]any)
	var kept []any
	for _, w := range listOf(out["warnings"]) {
		if m, _ := w.(map[string]any); m["code"] != "RATES_STALE" {
			kept = append(kept, w)
		}
	}
	out["warnings"] = kept
	return out
}

func plainJSON(v any) any {
	b, _ := json.Marshal(v)
	var out any
	_ = json.Unmarshal(b, &out)
	return out
}

// skipPath are result sections that describe the conversion itself.
func skipPath(path string) bool {
	return strings.Contains(path, "."+engine.MoneyBasisKey) || strings.Contains(path, "."+engine.PricePointsKey) || strings.Contains(path, "."+engine.JurisdictionKey) || strings.HasSuffix(path, ".currency")
}

func compareNumbers(a, b any, path, from, to string, rate float64) []Problem {
	if skipPath(path) {
		return nil
	}
	switch x := a.(type) {
	case map[string]any:
		y, _ := b.(map[string]any)
		var out []Problem
		for _, k := range sortedKeys(x) {
			out = append(out, compareNumbers(x[k], y[k], path+"."+k, from, to, rate)...)
		}
		return out
	case []any:
		y, _ := b.([]any)
		if len(x) != len(y) {
			return []Problem{{"currency changed the plan", fmt.Sprintf("%s has %d items in %s, %d in %s", path, len(x), from, len(y), to)}}
		}
		var out []Problem
		for i := range x {
			out = append(out, compareNumbers(x[i], y[i], fmt.Sprintf("%s[%d]", path, i), from, to, rate)...)
		}
		return out
	case float64:
		y, ok := b.(float64)
		if !ok {
			return []Problem{{"currency changed the plan", fmt.Sprintf("%s is %v in %s, %v in %s", path, x, from, b, to)}}
		}
		// A ratio or a count derived from rounded amounts may move in its
		// last digit.
		if sameAmount(x, y, 0.01, 0.05) || sameAmount(x, y/rate, 0.01, minorUnit(to)/rate+centSlack) {
			return nil
		}
		return []Problem{{"amount not invariant", fmt.Sprintf("%s is %v in %s but %v in %s (%v back at %.6g)", path, x, from, y, to, y/rate, rate)}}
	}
	return nil
}

// centSlack admits amounts summed from several cent-rounded parts.
const centSlack = 0.05

func sameAmount(a, b, rel, abs float64) bool {
	return math.Abs(a-b) <= rel*math.Max(math.Abs(a), math.Abs(b))+abs
}

func minorUnit(code string) float64 {
	if code == "JPY" || code == "KRW" || code == "ISK" || code == "HUF" {
		return 1
	}
	return 0.01
}

// proseAmount finds amounts written in prose: "$1,234.50", "¥3,900",
// "£80", "€12", or a code before the number ("USD 25", "CAD 1,200").
var proseAmount = regexp.MustCompile(`(?:([$¥£€])|\b([A-Z]{3}) )(-?[0-9][0-9,]*(?:\.[0-9]+)?)`)

var symbolCode = map[string]string{"$": "USD", "¥": "JPY", "£": "GBP", "€": "EUR"}

type proseMoney struct {
	code     string
	value    float64
	decimals int
	text     string
}

func proseAmounts(s string) []proseMoney {
	var out []proseMoney
	for _, m := range proseAmount.FindAllStringSubmatch(s, -1) {
		code := symbolCode[m[1]]
		if code == "" {
			code = m[2]
			if !slices.Contains(engine.Rates().Currencies(), code) {
				continue
			}
		}
		v, err := strconv.ParseFloat(strings.ReplaceAll(m[3], ",", ""), 64)
		if err != nil {
			continue
		}
		dec := 0
		if i := strings.IndexByte(m[3], '.'); i >= 0 {
			dec = len(m[3]) - i - 1
		}
		out = append(out, proseMoney{code, v, dec, m[0]})
	}
	return out
}

func compareProse(ref, res any, from, to string, rate float64) []Problem {
	var refAmounts []proseMoney
	walkStrings(ref, "result", func(path, s string) {
		if !skipPath(path) {
			refAmounts = append(refAmounts, proseAmounts(s)...)
		}
	})
	var out []Problem
	walkStrings(res, "result", func(path, s string) {
		if skipPath(path) {
			return
		}
		for _, m := range proseAmounts(s) {
			// An amount in the plan's currency is the first run's amount at
			// the rate; a figure labelled in another currency is the same
			// figure in both runs.
			r := 1.0
			if m.code == to {
				r = rate
			}
			back := m.value / r
			slack := centSlack
			if m.decimals == 0 {
				slack += 0.5 / r
			}
			found := slices.ContainsFunc(refAmounts, func(a proseMoney) bool {
				aSlack := 0.0
				if a.decimals == 0 {
					aSlack = 0.5
				}
				code := a.code
				if m.code != to && code != m.code && !(code == from && m.code == from) {
					return false
				}
				return sameAmount(a.value, back, 0.01, slack+aSlack+0.01)
			})
			// A local figure stated in the plan's currency (a country's
			// fixed contribution in yen) is the same figure, in the same
			// currency, in the first run too; a relabelled US figure is
			// not, since the first run states it in dollars.
			found = found || m.code != from && slices.ContainsFunc(refAmounts, func(a proseMoney) bool {
				return a.code == m.code && sameAmount(a.value, m.value, 0.0001, 0.01)
			})
			if !found {
				out = append(out, Problem{"prose amount not invariant", fmt.Sprintf("%s: %q in %s has no counterpart in %s (%.4g back at %.6g)", path, m.text, to, from, back, rate)})
			}
		}
	})
	return out
}

func sortedKeys(m map[string]any) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// CountrySensitivity reports, for a workflow taking `country`, two
// countries whose rules or holidays differ inside the plan's window but
// whose results are identical (but for the echoed country): the country
// was taken and ignored. Rules differ between US and GB and between US and
// JP in every area the workflow declares (Workflow.Jurisdiction); holidays
// differ when a deliverable of the US plan (a hand-over, which must fall
// on an open day) is a public holiday of the other country.
func CountrySensitivity(w *engine.Workflow, ctx map[string]any, asOf time.Time) []Problem {
	runIn := func(c string) (string, map[string]any, error) {
		x := Clone(normalize(ctx))
		x[engine.RegionFieldName] = c
		res, err := Run(w, x, asOf)
		if err != nil {
			return "", nil, err
		}
		return strings.ReplaceAll(string(mustJSON(res)), `"`+c+`"`, `"<country>"`), res, nil
	}
	us, usRes, err := runIn("US")
	if err != nil {
		return []Problem{{"country refused", fmt.Sprintf("US: %v", err)}}
	}
	var others []string
	if len(w.Jurisdiction) > 0 {
		others = append(others, "GB", "JP")
	}
	// A country where a milestone of the US plan is a public holiday.
	tl, _ := plainJSON(usRes).(map[string]any)["timeline"].(map[string]any)
search:
	for _, r := range engine.Regions() {
		if r == engine.RegionUS {
			continue
		}
		for _, m := range listOf(tl["milestones"]) {
			ms, _ := m.(map[string]any)
			d, ok := date(ms["date"])
			if deliverable, _ := ms["deliverable"].(bool); !ok || !deliverable || d.Before(asOf) {
				continue
			}
			if _, hol := engine.Holiday(d, r); hol {
				if _, usHol := engine.Holiday(d, engine.RegionUS); !usHol {
					others = append(others, string(r))
					break search
				}
			}
		}
	}
	var out []Problem
	for _, c := range others {
		got, _, err := runIn(c)
		if err != nil {
			out = append(out, Problem{"country refused", fmt.Sprintf("%s: %v", c, err)})
			continue
		}
		if got == us {
			out = append(out, Problem{"country ignored", fmt.Sprintf("US and %s (whose rules or holidays differ in the plan's window) give the same result", c)})
		}
	}
	return out
}

func mustJSON(v any) []byte {
	b, _ := json.Marshal(v)
	return b
}
