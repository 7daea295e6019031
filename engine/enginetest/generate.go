// Package enginetest checks workflows as properties over their whole input
// domain: GenerateContexts builds contexts across a schema (dates three years
// either side of as_of, every enum value, numbers at their bounds and
// between, lists of bounded length), CheckInvariants states what every plan
// must satisfy whatever the input, CheckWorkflow runs a few hundred generated
// contexts through the real run path, and CheckInputsMatter proves, field by
// field, that every input changes the plan.
package enginetest

import (
	"math"
	"math/rand/v2"
	"strings"
	"time"
	"unicode"

	"github.com/creativeops/creativeops/engine"
)

// DateSpanDays is how far from as_of generated dates go, either way.
const DateSpanDays = 3 * 365

// MaxListItems caps generated lists whatever their schema maximum, so a
// context stays small.
const MaxListItems = 6

// Unbounded numbers (which the ranges test forbids) are generated within
// these, so a missing Max shows up as a failing range test rather than as a
// harness that never finishes.
const (
	unboundedMin = 0
	unboundedMax = 1e6
)

// GenerateContexts returns contexts for w planned on asOf. It starts with
// the example context, then one context per boundary value of each field
// (each enum value, each number at its minimum and maximum, each date at the
// ends of the ±3-year span and on as_of, each boolean, an absent optional
// field, lists at their shortest and longest) with the rest of the example
// kept, then random contexts (every field drawn across its domain, optional
// fields sometimes left out) until there are n. When the boundary contexts
// alone are more than n, all of them are returned. The same seed gives the
// same contexts.
func GenerateContexts(w *engine.Workflow, asOf time.Time, n int, seed int64) []map[string]any {
	base := Example(w, asOf)
	rate, _ := engine.Rates().Rate("USD", currencyOf(w, base))
	g := &gen{rng: rand.New(rand.NewPCG(uint64(seed), 0x5eed)), asOf: asOf, rate: rate}
	out := []map[string]any{Clone(base)}
	for _, f := range w.Fields {
		for _, v := range g.boundaries(f, base[f.Name]) {
			c := Clone(base)
			if v == absent {
				delete(c, f.Name)
			} else {
				c[f.Name] = v
			}
			out = append(out, c)
		}
	}
	for len(out) < n {
		c := Clone(base)
		for _, f := range w.Fields {
			// Keep about a third of the example's values, so that
			// combinations near a realistic plan are covered too.
			if _, ok := base[f.Name]; ok && g.rng.IntN(3) == 0 {
				continue
			}
			if !f.Required && f.RequiredWhen == nil && g.rng.IntN(4) == 0 {
				delete(c, f.Name)
				continue
			}
			c[f.Name] = g.value(f, base[f.Name])
		}
		out = append(out, c)
	}
	return out
}

// Example returns the workflow's example context with snake_case keys and
// as_of set to asOf.
func Example(w *engine.Workflow, asOf time.Time) map[string]any {
	c := normalize(Clone(w.ExampleContext))
	c[engine.AsOfField] = engine.FormatDate(asOf)
	return c
}

// absent marks "leave the optional field out" among boundary values.
var absent = &struct{}{}

type gen struct {
	rng  *rand.Rand
	asOf time.Time
	// rate converts the US-dollar bounds of money fields into the
	// example's currency.
	rate float64
}

func (g *gen) bounds(f engine.Field) (lo, hi float64) {
	lo, hi = unboundedMin, unboundedMax
	if f.Min != nil {
		lo = *f.Min
	}
	if f.Max != nil {
		hi = *f.Max
	}
	if f.Money && g.rate > 0 {
		// Inside the converted bounds: a generated amount is refused by
		// neither rounding nor the converted bound.
		lo, hi = math.Ceil(lo*g.rate*100)/100, math.Floor(hi*g.rate*100)/100
	}
	return lo, hi
}

// currencyOf is the currency a context's amounts are in.
func currencyOf(w *engine.Workflow, ctx map[string]any) string {
	if c, ok := ctx[engine.CurrencyFieldName].(string); ok && c != "" {
		return strings.ToUpper(c)
	}
	for _, f := range w.Fields {
		if f.Name == engine.CurrencyFieldName {
			if d, ok := f.Default.(string); ok {
				return d
			}
		}
	}
	return "USD"
}

func listBounds(f engine.Field) (lo, hi int) {
	lo, hi = 0, MaxListItems
	if f.Min != nil {
		lo = int(*f.Min)
	}
	if f.Max != nil && int(*f.Max) < hi {
		hi = int(*f.Max)
	}
	if hi < lo {
		hi = lo
	}
	return lo, hi
}

// boundaries lists the edge values of a field (see GenerateContexts).
func (g *gen) boundaries(f engine.Field, example any) []any {
	var out []any
	switch f.Kind {
	case engine.String:
		for _, e := range f.Enum {
			out = append(out, e)
		}
		if len(f.Enum) == 0 {
			out = append(out, g.str(f, example, true), g.str(f, example, false))
		}
	case engine.Date:
		for _, d := range []int{-DateSpanDays, -1, 0, 1, DateSpanDays} {
			out = append(out, engine.FormatDate(engine.AddDays(g.asOf, d)))
		}
	case engine.Integer:
		lo, hi := g.bounds(f)
		out = append(out, math.Ceil(lo), math.Floor(hi))
	case engine.Number:
		lo, hi := g.bounds(f)
		out = append(out, lo, hi)
	case engine.Boolean:
		out = append(out, true, false)
	case engine.StringList:
		lo, hi := listBounds(f)
		out = append(out, g.strList(f, example, lo), g.strList(f, example, hi))
		for _, e := range f.Enum {
			if lo <= 1 && hi >= 1 {
				out = append(out, []any{e})
			}
		}
	case engine.ObjectList:
		lo, hi := listBounds(f)
		out = append(out, g.objList(f, example, lo), g.objList(f, example, hi))
		// Each item field at its edges, in a one-item list.
		if lo <= 1 && hi >= 1 {
			item := g.item(f, example)
			for _, sub := range f.Items {
				for _, v := range g.boundaries(sub, item[sub.Name]) {
					it := Clone(item)
					if v == absent {
						delete(it, sub.Name)
					} else {
						it[sub.Name] = v
					}
					out = append(out, []any{it})
				}
			}
		}
	}
	if !f.Required {
		out = append(out, absent)
	}
	return out
}

// value draws one value of a field across its domain.
func (g *gen) value(f engine.Field, example any) any {
	switch f.Kind {
	case engine.String:
		if len(f.Enum) > 0 {
			return f.Enum[g.rng.IntN(len(f.Enum))]
		}
		return g.str(f, example, g.rng.IntN(2) == 0)
	case engine.Date:
		return engine.FormatDate(engine.AddDays(g.asOf, g.rng.IntN(2*DateSpanDays+1)-DateSpanDays))
	case engine.Integer:
		lo, hi := g.bounds(f)
		return math.Round(g.number(lo, hi))
	case engine.Number:
		lo, hi := g.bounds(f)
		return g.number(lo, hi)
	case engine.Boolean:
		return g.rng.IntN(2) == 0
	case engine.StringList:
		lo, hi := listBounds(f)
		return g.strList(f, example, lo+g.rng.IntN(hi-lo+1))
	case engine.ObjectList:
		lo, hi := listBounds(f)
		n := lo + g.rng.IntN(hi-lo+1)
		out := make([]any, n)
		for i := range out {
			it := g.item(f, example)
			for _, sub := range f.Items {
				if !sub.Required && sub.RequiredWhen == nil && g.rng.IntN(4) == 0 {
					delete(it, sub.Name)
					continue
				}
				if g.rng.IntN(3) > 0 {
					it[sub.Name] = g.value(sub, it[sub.Name])
				}
			}
			out[i] = it
		}
		return out
	}
	return example
}

// number draws from [lo, hi]: a bound a fifth of the time each side,
// otherwise uniformly, or log-uniformly when the range spans several orders
// of magnitude (so that 1–1,000,000 is not nearly always six digits).
func (g *gen) number(lo, hi float64) float64 {
	switch r := g.rng.IntN(10); {
	case r == 0:
		return lo
	case r == 1:
		return hi
	case r < 5 && lo >= 0 && hi > 100*math.Max(lo, 1):
		l := math.Log(math.Max(lo, 1))
		return math.Min(hi, math.Exp(l+g.rng.Float64()*(math.Log(hi)-l)))
	}
	return lo + g.rng.Float64()*(hi-lo)
}

// str returns the example value of a free-text field, or a generated one of
// its shortest or longest allowed length.
func (g *gen) str(f engine.Field, example any, short bool) any {
	if s, ok := example.(string); ok && g.rng.IntN(2) == 0 {
		return s
	}
	n := 12
	if short {
		n = 1
		if f.Min != nil && int(*f.Min) > n {
			n = int(*f.Min)
		}
	} else if f.Max != nil && int(*f.Max) < 200 {
		n = int(*f.Max)
	} else if f.Max != nil {
		n = 200
	}
	if f.Min != nil && n < int(*f.Min) {
		n = int(*f.Min)
	}
	return strings.Repeat("x", n)
}

func (g *gen) strList(f engine.Field, example any, n int) []any {
	out := make([]any, 0, n)
	if len(f.Enum) > 0 {
		perm := g.rng.Perm(len(f.Enum))
		for i := 0; i < n && i < len(perm); i++ {
			out = append(out, f.Enum[perm[i]])
		}
		// Enum lists longer than the enum repeat values: only when the
		// schema's minimum demands it.
		for i := 0; len(out) < n; i++ {
			out = append(out, f.Enum[i%len(f.Enum)])
		}
		return out
	}
	ex, _ := example.([]any)
	for i := 0; len(out) < n; i++ {
		if i < len(ex) {
			out = append(out, ex[i])
		} else {
			out = append(out, "item "+string(rune('a'+i%26)))
		}
	}
	return out
}

// item returns a list item to vary: a copy of the example's first item
// (snake_cased), completed with generated values for required item fields.
func (g *gen) item(f engine.Field, example any) map[string]any {
	it := map[string]any{}
	if ex, _ := example.([]any); len(ex) > 0 {
		if m, ok := ex[g.rng.IntN(len(ex))].(map[string]any); ok {
			it = normalize(Clone(m))
		}
	}
	for _, sub := range f.Items {
		if _, ok := it[sub.Name]; !ok && (sub.Required || sub.RequiredWhen != nil) {
			it[sub.Name] = g.value(sub, nil)
		}
	}
	return it
}

func (g *gen) objList(f engine.Field, example any, n int) []any {
	out := make([]any, n)
	ex, _ := example.([]any)
	for i := range out {
		if i < len(ex) {
			if m, ok := ex[i].(map[string]any); ok {
				out[i] = normalize(Clone(m))
				continue
			}
		}
		out[i] = g.item(f, example)
	}
	return out
}

// Clone deep-copies a context.
func Clone(m map[string]any) map[string]any {
	return engine.JSONValue(m).(map[string]any)
}

// cloneValue deep-copies one context value, as JSON values.
func cloneValue(v any) any { return engine.JSONValue(v) }

// normalize turns lowerCamelCase keys into the snake_case the schema uses,
// as Prepare does, so generated values replace the example's rather than
// duplicating them under an alias.
func normalize(m map[string]any) map[string]any {
	out := make(map[string]any, len(m))
	for k, v := range m {
		switch t := v.(type) {
		case map[string]any:
			v = normalize(t)
		case []any:
			for i, x := range t {
				if mm, ok := x.(map[string]any); ok {
					t[i] = normalize(mm)
				}
			}
		}
		out[snake(k)] = v
	}
	return out
}

func snake(s string) string {
	var b strings.Builder
	for i, r := range s {
		if unicode.IsUpper(r) {
			if i > 0 {
				b.WriteByte('_')
			}
			r = unicode.ToLower(r)
		}
		b.WriteRune(r)
	}
	return b.String()
}
