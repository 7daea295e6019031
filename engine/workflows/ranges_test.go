package workflows_test

import (
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/creativeops/creativeops/engine"
	"github.com/creativeops/creativeops/engine/enginetest"
)

// unbounded lists the Number and Integer fields (items of lists included)
// without both a Min and a Max.
func unbounded(fields []engine.Field, prefix string) []string {
	var out []string
	for _, f := range fields {
		if (f.Kind == engine.Number || f.Kind == engine.Integer) && (f.Min == nil || f.Max == nil) {
			out = append(out, prefix+f.Name)
		}
		out = append(out, unbounded(f.Items, prefix+f.Name+"[].")...)
	}
	return out
}

// Every numeric input has a documented range, so that 1e308 is a 400 naming
// the field rather than a run failing with "unsupported value: +Inf".
func TestEveryNumberHasARange(t *testing.T) {
	for _, w := range engine.Workflows("") {
		if missing := unbounded(w.Fields, ""); len(missing) > 0 {
			t.Errorf("%s: numeric inputs without Min and Max: %s", w.ID, strings.Join(missing, ", "))
		}
	}
}

// Beyond its maximum, every bounded number is a ContextError naming it.
func TestNumberAboveMaximumIsRejectedNamingTheField(t *testing.T) {
	for _, w := range engine.Workflows("") {
		for _, f := range w.Fields {
			if (f.Kind != engine.Number && f.Kind != engine.Integer) || f.Max == nil {
				continue
			}
			for _, v := range []float64{*f.Max + 1, 1e308} {
				ctx := enginetest.Example(w, enginetest.DefaultAsOf)
				ctx[f.Name] = v
				_, err := w.Prepare(ctx)
				var ce *engine.ContextError
				if !errors.As(err, &ce) || !slices.ContainsFunc(ce.Violations, func(v engine.Violation) bool { return v.Field == "context."+f.Name }) {
					t.Errorf("%s: %s = %g: got %v, want a violation on context.%s", w.ID, f.Name, v, err, f.Name)
				}
			}
		}
	}
}
