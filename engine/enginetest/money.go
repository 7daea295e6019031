package enginetest

import (
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
		out = append(out, compareNumbers(plainJSON(ref), plainJSON(res), "result", base, cur, rate)...)
		out = append(out, compareProse(plainJSON(ref), plainJSON(res), base, cur, rate)...)
	}
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
	return strings.Contains(path, "."+engine.MoneyBasisKey) || strings.Contains(path, "."+engine.JurisdictionKey) || strings.HasSuffix(path, ".currency")
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
		if sameAmount(x, y, 0.01, 0.05) || sameAmount(x, y/rate, 0.01, minorUnit(to)/rate+centSlack+roundingSlack(x, 1)+roundingSlack(y, rate)) {
			return nil
		}
		return []Problem{{"amount not invariant", fmt.Sprintf("%s is %v in %s but %v in %s (%v back at %.6g)", path, x, from, y, to, y/rate, rate)}}
	}
	return nil
}

// roundingSlack admits a price rounded (or rounded up) to a round step
// (engine's PriceStep: $5, $10, ¥2,000): one step, for a value that is a
// multiple of ten (zero among them: a small quote rounds to nothing), up
// to the equivalent of ten US dollars.
func roundingSlack(v, rate float64) float64 {
	if v != math.Trunc(v) || math.Mod(v, 10) != 0 {
		return 0
	}
	if v == 0 {
		return 5
	}
	step := 10.0
	for math.Mod(v, step*10) == 0 && step*10/rate <= 10 {
		step *= 10
	}
	return math.Min(step, 10*rate) / rate
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
			slack := centSlack + roundingSlack(m.value, r)
			if m.decimals == 0 {
				slack += 0.5 / r
			}
			found := slices.ContainsFunc(refAmounts, func(a proseMoney) bool {
				aSlack := roundingSlack(a.value, 1)
				if a.decimals == 0 {
					aSlack += 0.5
				}
				code := a.code
				if m.code != to && code != m.code && !(code == from && m.code == from) {
					return false
				}
				return sameAmount(a.value, back, 0.01, slack+aSlack+0.01)
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
