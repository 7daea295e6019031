package enginetest

import (
	"encoding/json"
	"fmt"
	"math"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/creativeops/creativeops/engine"
)

// shifts move every date of the example (as_of included) together, so a
// field whose effect depends on the calendar (country: which holidays a
// deliverable meets) is tried on every day of a year, in an order that
// spreads the first tries over the seasons and weekdays (11 days apart:
// 0, 11, 22...; 11 and 366 are coprime, so every shift comes round). Most
// fields matter at the first shift.
var shifts = func() []int {
	out := make([]int, 366)
	for i := range out {
		out[i] = i * 11 % 366
	}
	return out
}()

// dateKeys are result keys whose strings are dates, compared verbatim.
var dateKeys = map[string]bool{"date": true, "due_date": true, "target_date": true, "start": true, "end": true,
	"requested_date": true, "feasible_date": true, "moved_from": true, "as_of": true}

// CheckInputsMatter proves, field by field, that every input of workflow id
// changes its plan. For each field of the schema (and each field of a list's
// items, varied in the first item) it tries values across the field's
// domain — every other enum value, the bounds and midpoint of a number,
// dates moved by a week to a year, booleans flipped, lists shortened and
// lengthened, an optional field left out — starting from the example
// context and from copies of it shifted through the year. The field matters
// when some value changes the result beyond echoing it: for enums, numbers
// and list values the changed value's own text is blanked out of the prose
// before comparing, so a genre that only changes the wording of the
// strategy does not count.
//
// allow names fields that legitimately change the plan only in combinations
// the search does not reach; each call site says why in a comment. An
// allowed field that is found to matter fails the test, so the list only
// shrinks.
func CheckInputsMatter(t *testing.T, id string, allow ...string) {
	t.Helper()
	w, ok := engine.LookupWorkflow(id)
	if !ok {
		t.Fatalf("workflow %q not registered", id)
	}
	for _, name := range allow {
		if !slices.ContainsFunc(fieldPaths(w.Fields, ""), func(p string) bool { return p == name }) {
			t.Errorf("%s: allow-list names %q, not a field", id, name)
		}
	}
	for _, path := range fieldPaths(w.Fields, "") {
		matters, tried := fieldMatters(w, path)
		allowed := slices.Contains(allow, path)
		switch {
		case tried == 0:
			t.Errorf("%s: %s: no variation of it could be run", id, path)
		case !matters && !allowed:
			t.Errorf("%s: input %s does not change the plan (%d values tried from the example): use it or remove it from the schema", id, path, tried)
		case matters && allowed:
			t.Errorf("%s: %s is on the allow-list but changes the plan: remove it from the list", id, path)
		}
	}
}

// fieldPaths lists the fields to vary: top-level names, and "list[].item"
// for the fields of list items.
func fieldPaths(fields []engine.Field, prefix string) []string {
	var out []string
	for _, f := range fields {
		out = append(out, prefix+f.Name)
		if f.Kind == engine.ObjectList {
			out = append(out, fieldPaths(f.Items, prefix+f.Name+"[].")...)
		}
	}
	return out
}

// lookupField finds the field a path names.
func lookupField(fields []engine.Field, path string) (engine.Field, string, bool) {
	top, sub, nested := strings.Cut(path, "[].")
	for _, f := range fields {
		if f.Name != top {
			continue
		}
		if !nested {
			return f, "", true
		}
		item, _, ok := lookupField(f.Items, sub)
		return item, f.Name, ok
	}
	return engine.Field{}, "", false
}

// fieldMatters reports whether varying path changes the plan, and how many
// variations could be run.
func fieldMatters(w *engine.Workflow, path string) (matters bool, tried int) {
	f, list, _ := lookupField(w.Fields, path)
	for _, shift := range shifts {
		asOf := engine.AddDays(DefaultAsOf, shift)
		base := shiftDates(w, Example(w, DefaultAsOf), shift)
		baseRes, err := Run(w, base, asOf)
		if err != nil {
			continue
		}
		cur := current(base, f.Name, list)
		if cur == nil && f.Default != nil {
			// An absent field takes its default: vary away from that.
			cur = cloneValue(f.Default)
		}
		for _, v := range variants(f, cur) {
			ctx := Clone(base)
			if !set(ctx, f.Name, list, v) {
				continue
			}
			res, err := Run(w, ctx, asOf)
			if err != nil {
				continue
			}
			tried++
			echoes := echoesOf(f, cur, v)
			if !reflect.DeepEqual(substance(baseRes, echoes), substance(res, echoes)) {
				return true, tried
			}
		}
	}
	return false, tried
}

// current returns the field's value in ctx (in the first item of list).
func current(ctx map[string]any, name, list string) any {
	if list == "" {
		return ctx[name]
	}
	items, _ := ctx[list].([]any)
	if len(items) == 0 {
		return nil
	}
	m, _ := items[0].(map[string]any)
	return m[name]
}

// set stores v (absent deletes) as the field's value; false when the list
// has no item to vary.
func set(ctx map[string]any, name, list string, v any) bool {
	target := ctx
	if list != "" {
		items, _ := ctx[list].([]any)
		if len(items) == 0 {
			return false
		}
		m, ok := items[0].(map[string]any)
		if !ok {
			return false
		}
		target = m
	}
	if v == absent {
		delete(target, name)
	} else {
		target[name] = v
	}
	return true
}

// variants lists the values to try for a field whose current value is cur.
func variants(f engine.Field, cur any) []any {
	var out []any
	addIf := func(v any) {
		if !reflect.DeepEqual(v, cur) {
			out = append(out, v)
		}
	}
	switch f.Kind {
	case engine.String:
		for _, e := range f.Enum {
			addIf(e)
		}
		if len(f.Enum) == 0 {
			s, _ := cur.(string)
			addIf(s + " Changed")
			addIf("Another Value")
		}
	case engine.Date:
		d, err := engine.ParseDate(str(cur))
		if err != nil {
			d = DefaultAsOf
		}
		for _, n := range []int{7, -7, 30, -30, 90, -90, 365, -365} {
			addIf(engine.FormatDate(engine.AddDays(d, n)))
		}
	case engine.Integer, engine.Number:
		// Money fields are tried in the example's currency, US dollars
		// unless it says otherwise; bounds are converted then (see
		// engine.Field.Money), so the dollar bounds are the ones to try.
		lo, hi := (&gen{}).bounds(f)
		c, isNum := cur.(float64)
		cands := []float64{lo, hi, (lo + hi) / 2}
		if isNum {
			cands = append(cands, c*2, c/2, c+1, c-1, c*10, c/10)
		}
		for _, x := range cands {
			if f.Kind == engine.Integer {
				x = math.Round(x)
			}
			if x >= lo && x <= hi {
				addIf(x)
			}
		}
	case engine.Boolean:
		b, _ := cur.(bool)
		out = append(out, !b)
	case engine.StringList:
		items, _ := cur.([]any)
		lo, hi := listBounds(f)
		if len(items) > lo && len(items) > 0 {
			addIf(append([]any(nil), items[:len(items)-1]...))
			addIf(append([]any(nil), items[1:]...))
		}
		for _, e := range f.Enum {
			if lo <= 1 && hi >= 1 {
				addIf([]any{e})
			}
			if !slices.Contains(items, any(e)) && len(items) < hi {
				addIf(append(append([]any(nil), items...), e))
			}
		}
		if len(f.Enum) == 0 && len(items) < hi {
			addIf(append(append([]any(nil), items...), "another item"))
		}
	case engine.ObjectList:
		items, _ := cur.([]any)
		lo, _ := listBounds(f)
		hi := MaxListItems * 2
		if f.Max != nil && int(*f.Max) < hi {
			hi = int(*f.Max)
		}
		if len(items) > lo && len(items) > 0 {
			addIf(cloneValue(items[:len(items)-1]))
			addIf(cloneValue(items[1:]))
		}
		if len(items) > 0 && len(items) < hi {
			addIf(cloneValue(append(append([]any(nil), items...), items[0])))
		}
	}
	if !f.Required && cur != nil {
		out = append(out, absent)
	}
	return out
}

// echoesOf lists the texts of the old and new values that may appear in
// prose without the plan having changed (a genre named in the strategy).
// Free-text fields (names, titles) have none: echoing them is their use.
func echoesOf(f engine.Field, old, new any) []string {
	var out []string
	add := func(v any) {
		switch t := v.(type) {
		case string:
			if t != "" && (len(f.Enum) > 0 || f.Kind == engine.StringList) {
				out = append(out, t, strings.ReplaceAll(t, "_", " "), strings.ReplaceAll(t, "-", " "))
			}
		case float64:
			if f.Kind == engine.Integer || f.Kind == engine.Number {
				out = append(out, numberTexts(t)...)
			}
		case []any:
			for _, x := range t {
				if s, ok := x.(string); ok && s != "" {
					out = append(out, s, strings.ReplaceAll(s, "_", " "), strings.ReplaceAll(s, "-", " "))
				}
			}
		}
	}
	add(old)
	add(new)
	// Longest first, so "vinyl-lp" is blanked before "vinyl".
	slices.SortFunc(out, func(a, b string) int { return len(b) - len(a) })
	return out
}

func numberTexts(v float64) []string {
	out := []string{strconv.FormatFloat(v, 'f', -1, 64), strconv.FormatFloat(v, 'f', 2, 64)}
	if v == math.Trunc(v) && math.Abs(v) < 1e15 {
		out = append(out, engine.FormatInt(int(v)))
	}
	out = append(out, strings.TrimPrefix(engine.FormatMoney(v, "USD"), "$"))
	return out
}

// substance is the result with echoes blanked out of its prose (every
// string but dates), case-insensitively.
func substance(res map[string]any, echoes []string) string {
	var clean func(key string, v any) any
	clean = func(key string, v any) any {
		switch t := v.(type) {
		case string:
			if dateKeys[key] {
				return t
			}
			for _, e := range echoes {
				t = replaceFold(t, e)
			}
			return t
		case map[string]any:
			out := make(map[string]any, len(t))
			for k, x := range t {
				out[k] = clean(k, x)
			}
			return out
		case []any:
			out := make([]any, len(t))
			for i, x := range t {
				out[i] = clean(key, x)
			}
			return out
		}
		return v
	}
	b, _ := json.Marshal(clean("", res))
	return string(b)
}

// replaceFold blanks every case-insensitive occurrence of e in s.
func replaceFold(s, e string) string {
	if e == "" {
		return s
	}
	ls, le := strings.ToLower(s), strings.ToLower(e)
	if len(ls) != len(s) { // non-ASCII case mapping changed lengths
		return strings.ReplaceAll(s, e, "∅")
	}
	var b strings.Builder
	for {
		i := strings.Index(ls, le)
		if i < 0 {
			b.WriteString(s)
			return b.String()
		}
		b.WriteString(s[:i])
		b.WriteString("∅")
		s, ls = s[i+len(e):], ls[i+len(e):]
	}
}

// shiftDates moves every date field of ctx (top level and list items) and
// as_of by n days.
func shiftDates(w *engine.Workflow, ctx map[string]any, n int) map[string]any {
	if n == 0 {
		return ctx
	}
	shift := func(m map[string]any, fields []engine.Field) {
		for _, f := range fields {
			if f.Kind != engine.Date {
				continue
			}
			if d, err := engine.ParseDate(str(m[f.Name])); err == nil {
				m[f.Name] = engine.FormatDate(engine.AddDays(d, n))
			}
		}
	}
	shift(ctx, append([]engine.Field{{Name: engine.AsOfField, Kind: engine.Date}}, w.Fields...))
	for _, f := range w.Fields {
		if f.Kind != engine.ObjectList {
			continue
		}
		items, _ := ctx[f.Name].([]any)
		for _, it := range items {
			if m, ok := it.(map[string]any); ok {
				shift(m, f.Items)
			}
		}
	}
	return ctx
}

// Describe summarises which fields of a workflow matter, for reports.
func Describe(w *engine.Workflow) []string {
	var out []string
	for _, path := range fieldPaths(w.Fields, "") {
		matters, tried := fieldMatters(w, path)
		out = append(out, fmt.Sprintf("%s: matters=%v (%d tried)", path, matters, tried))
	}
	return out
}
