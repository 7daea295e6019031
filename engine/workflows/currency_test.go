package workflows_test

import (
	"encoding/json"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/creativeops/creativeops/engine"
	"github.com/creativeops/creativeops/engine/enginetest"
)

// dollarAmount is a "$" before a digit: an amount shown as US dollars.
var dollarAmount = regexp.MustCompile(`\$\s?-?[0-9]`)

// Every workflow that takes a currency writes its amounts in it: run in
// euros or yen, no amount in the result reads as dollars, and a result
// that quotes amounts quotes them in the currency given. A platform fee set
// in US dollars is written "USD 100", never "$100".
func TestCurrencyNoDollarsInOtherCurrencies(t *testing.T) {
	for _, w := range engine.Workflows("") {
		if !slices.ContainsFunc(w.Fields, func(f engine.Field) bool { return f.Name == engine.CurrencyFieldName }) {
			continue
		}
		// Workflows whose prose quotes amounts in dollars must quote them in
		// the currency given.
		quotes := false
		walkStrings(jsonValue(t, run(t, w.ID, clone(w.ExampleContext))), "result", func(_, s string) {
			quotes = quotes || dollarAmount.MatchString(s)
		})
		for cur, mark := range map[string]string{"EUR": "€", "JPY": "¥", "CAD": "CAD "} {
			// Amounts follow the currency (see engine.Field.Money).
			ctx := enginetest.ConvertContext(w, w.ExampleContext, cur)
			res := jsonValue(t, run(t, w.ID, ctx))
			marked := false
			walkStrings(res, "result", func(path, s string) {
				if dollarAmount.MatchString(s) {
					t.Errorf("%s in %s: %s = %q", w.ID, cur, path, s)
				}
				marked = marked || strings.Contains(s, mark) || strings.Contains(s, "USD ")
			})
			if quotes && !marked {
				t.Errorf("%s in %s: no amount in the result is written in %s", w.ID, cur, cur)
			}
		}
	}
}

func walkStrings(v any, path string, f func(path, s string)) {
	switch t := v.(type) {
	case string:
		f(path, t)
	case map[string]any:
		for k, x := range t {
			walkStrings(x, path+"."+k, f)
		}
	case []any:
		for i, x := range t {
			walkStrings(x, fmt.Sprintf("%s[%d]", path, i), f)
		}
	}
}

// jsonValue is v as a client reads it, through JSON.
func jsonValue(t *testing.T, v any) any {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	var out any
	if err := json.Unmarshal(b, &out); err != nil {
		t.Fatal(err)
	}
	return out
}
