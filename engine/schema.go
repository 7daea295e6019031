package engine

import (
	"errors"
	"fmt"
	"maps"
	"math"
	"slices"
	"sort"
	"strings"
	"time"
	"unicode"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/santhosh-tekuri/jsonschema/v6/kind"
	"golang.org/x/text/language"
	"golang.org/x/text/message"
)

var messages = message.NewPrinter(language.English)

// Kind is the JSON type of a context field.
type Kind int

const (
	String Kind = iota
	// Date is an ISO 8601 calendar date ("2026-03-06").
	Date
	Integer
	Number
	Boolean
	StringList
	// ObjectList is an array of objects described by Field.Items.
	ObjectList
)

// Field describes one key of a workflow's context.
type Field struct {
	Name        string
	Kind        Kind
	Required    bool
	Description string
	// Enum restricts a String (or each StringList element) to these values.
	// Values are matched case-insensitively and stored as written here.
	Enum []string
	// Aliases are further accepted values of an Enum field, each read as
	// the Enum value it maps to (`UK` for `GB`).
	Aliases map[string]string
	// Min and Max bound a number, or the length of a string, or the number
	// of items of a list.
	Min, Max *float64
	// Default is applied before the workflow runs when the key is absent.
	Default any
	// Items describes the objects of an ObjectList.
	Items []Field
	// Money marks an amount in the plan's currency (the `currency` input,
	// USD without one). Its Min and Max are in US dollars and are checked
	// after conversion through the rate table (see money.go), so bounds
	// follow the currency.
	Money bool
	// RequiredWhen makes the field required when a sibling enum field has
	// one of the given values (a flat deal needs its guarantee); it is
	// published as a JSON Schema if/then.
	RequiredWhen *When
}

// When is a condition on a sibling String field: its value is one of
// Values.
type When struct {
	Field  string
	Values []string
}

// Bound is shorthand for Field.Min and Field.Max literals.
func Bound(v float64) *float64 { return &v }

// AsOfField is accepted by every workflow: the date the plan is made on.
// Deadlines "already passed" are judged against it, which keeps runs
// reproducible; it defaults to the job's creation date.
const AsOfField = "as_of"

// TimeZoneField is accepted by every workflow: the IANA zone whose date is
// "today" when as_of is omitted, so a plan made late in the evening in Los
// Angeles is not dated tomorrow.
const TimeZoneField = "time_zone"

// Violation is one problem with a context, named by its path
// ("context.release_date").
type Violation struct {
	Field       string
	Description string
}

// MaxViolations bounds the problems a ContextError lists, as the request
// text checks bound theirs: a context of thousands of invalid keys was
// answered with an error 13 to 21 times its size.
const MaxViolations = 20

// ContextError lists the problems found in a context: the first
// MaxViolations by field path, and how many more there were.
type ContextError struct {
	Violations []Violation
	// Omitted is how many problems were found beyond those listed.
	Omitted int
}

// NewContextError is the error of a context with these problems: sorted
// by field, the first MaxViolations listed.
func NewContextError(violations []Violation) *ContextError {
	sort.SliceStable(violations, func(i, j int) bool { return violations[i].Field < violations[j].Field })
	e := &ContextError{Violations: violations}
	if n := len(violations); n > MaxViolations {
		e.Violations, e.Omitted = violations[:MaxViolations:MaxViolations], n-MaxViolations
	}
	return e
}

func (e *ContextError) Error() string {
	parts := make([]string, len(e.Violations))
	for i, v := range e.Violations {
		parts[i] = v.Field + ": " + v.Description
	}
	msg := "invalid context: " + strings.Join(parts, "; ")
	if e.Omitted > 0 {
		msg += fmt.Sprintf("; and %d more problems not listed", e.Omitted)
	}
	return msg
}

type compiledSchema struct {
	doc    map[string]any
	schema *jsonschema.Schema
	fields []Field
}

func compileSchema(id string, fields []Field) (*compiledSchema, error) {
	all := append([]Field{
		{Name: AsOfField, Kind: Date, Description: "Date the plan is made on; defaults to the day the job is created, in time_zone."},
		{Name: TimeZoneField, Kind: String, Max: Bound(64), Description: "IANA time zone (\"Europe/Berlin\") whose calendar date is \"today\" when as_of is omitted; defaults to UTC."},
	}, fields...)
	doc := objectSchema(all)
	doc["$schema"] = "https://json-schema.org/draft/2020-12/schema"
	doc["title"] = id + " context"
	c := jsonschema.NewCompiler()
	c.AssertFormat()
	url := "mem://workflows/" + id + ".json"
	if err := c.AddResource(url, JSONValue(doc)); err != nil {
		return nil, err
	}
	s, err := c.Compile(url)
	if err != nil {
		return nil, err
	}
	return &compiledSchema{doc: doc, schema: s, fields: all}, nil
}

func objectSchema(fields []Field) map[string]any {
	props := map[string]any{}
	var required []string
	for _, f := range fields {
		props[f.Name] = fieldSchema(f)
		if f.Required {
			required = append(required, f.Name)
		}
	}
	s := map[string]any{"type": "object", "properties": props, "additionalProperties": false}
	if len(required) > 0 {
		s["required"] = required
	}
	var conditions []any
	for _, f := range fields {
		if w := f.RequiredWhen; w != nil {
			conditions = append(conditions, map[string]any{
				"if":   map[string]any{"properties": map[string]any{w.Field: map[string]any{"enum": slices.Clone(w.Values)}}, "required": []any{w.Field}},
				"then": map[string]any{"required": []any{f.Name}},
			})
		}
	}
	if len(conditions) > 0 {
		s["allOf"] = conditions
	}
	return s
}

func fieldSchema(f Field) map[string]any {
	var s map[string]any
	switch f.Kind {
	case String:
		s = map[string]any{"type": "string"}
		if f.Min != nil {
			s["minLength"] = int(*f.Min)
		}
		if f.Max != nil {
			s["maxLength"] = int(*f.Max)
		}
		if len(f.Enum) > 0 {
			s["enum"] = enumWithAliases(f)
		}
	case Date:
		// A date-time is read as its local date at its own offset; the
		// context stores the date.
		s = map[string]any{"type": "string", "anyOf": []any{map[string]any{"format": "date"}, map[string]any{"format": "date-time"}}}
	case Integer, Number:
		t := "number"
		if f.Kind == Integer {
			t = "integer"
		}
		s = map[string]any{"type": t}
		switch {
		case f.Money:
			// Dollar bounds are checked after conversion (money.go); only a
			// bound that means the same in every currency is published.
			if f.Min != nil && *f.Min <= 0 {
				s["minimum"] = *f.Min
			}
		default:
			if f.Min != nil {
				s["minimum"] = *f.Min
			}
			if f.Max != nil {
				s["maximum"] = *f.Max
			}
		}
	case Boolean:
		s = map[string]any{"type": "boolean"}
	case StringList, ObjectList:
		items := map[string]any{"type": "string"}
		if f.Kind == StringList && len(f.Enum) > 0 {
			items["enum"] = enumWithAliases(f)
		}
		if f.Kind == ObjectList {
			items = objectSchema(f.Items)
		}
		s = map[string]any{"type": "array", "items": items}
		if f.Min != nil {
			s["minItems"] = int(*f.Min)
		}
		if f.Max != nil {
			s["maxItems"] = int(*f.Max)
		}
	default:
		panic(fmt.Sprintf("engine: field %q: unknown kind %d", f.Name, f.Kind))
	}
	if f.Description != "" {
		s["description"] = f.Description
	}
	if f.Money {
		s["description"] = strings.TrimSpace(f.Description + " " + moneyFieldNote(f))
		s["x-money"] = true
	}
	if w := f.RequiredWhen; w != nil {
		s["description"] = strings.TrimSpace(fmt.Sprint(s["description"]) + fmt.Sprintf(" Required when `%s` is %s.", w.Field, strings.Join(w.Values, " or ")))
	}
	if f.Default != nil {
		s["default"] = f.Default
	}
	return s
}

// JSONValue converts Go literals ([]string, int, map[string]any...) into
// the plain JSON value types the schema compiler expects. Maps and slices
// are copied, so the result shares nothing with v.
func JSONValue(v any) any {
	switch t := v.(type) {
	case map[string]any:
		out := make(map[string]any, len(t))
		for k, x := range t {
			out[k] = JSONValue(x)
		}
		return out
	case []any:
		out := make([]any, len(t))
		for i, x := range t {
			out[i] = JSONValue(x)
		}
		return out
	case []string:
		out := make([]any, len(t))
		for i, x := range t {
			out[i] = x
		}
		return out
	case int:
		return float64(t)
	case int64:
		return float64(t)
	default:
		return v
	}
}

// Prepare normalises a context (lowerCamelCase keys become snake_case,
// defaults are filled in), validates it against the workflow's schema and
// returns the input the steps read.
func (w *Workflow) Prepare(raw map[string]any) (*Input, error) {
	return w.prepare(raw, time.Time{})
}

// PrepareAt is Prepare for a plan dated now's calendar date (in the
// context's time_zone) when the context gives no as_of: the date is
// filled in before the workflow's checks, so they and the run see the
// same day. Tracked plans date their runs by the service's clock.
func (w *Workflow) PrepareAt(raw map[string]any, now time.Time) (*Input, error) {
	return w.prepare(raw, now)
}

func (w *Workflow) prepare(raw map[string]any, now time.Time) (*Input, error) {
	ctx, violations := normalizeKeys(raw, "context")
	applyMoneyDefaults(ctx, w.schema.fields)
	ctx = applyDefaults(ctx, w.schema.fields)
	normalizeValues(ctx, w.schema.fields)
	if err := w.schema.schema.Validate(JSONValue(ctx)); err != nil {
		var ve *jsonschema.ValidationError
		if !errors.As(err, &ve) {
			return nil, err
		}
		violations = append(violations, flattenViolations(ve)...)
	}
	for _, v := range hugeNumbers(ctx, "context") {
		// A field whose own maximum already rejected the number needs no
		// second violation.
		if !slices.ContainsFunc(violations, func(x Violation) bool { return x.Field == v.Field }) {
			violations = append(violations, v)
		}
	}
	for _, v := range moneyViolations(ctx, w.schema.fields) {
		if !slices.ContainsFunc(violations, func(x Violation) bool { return x.Field == v.Field }) {
			violations = append(violations, v)
		}
	}
	if tz, ok := ctx[TimeZoneField].(string); ok {
		if _, err := LoadTimeZone(tz); err != nil {
			violations = append(violations, Violation{Field: "context." + TimeZoneField, Description: err.Error()})
		}
	}
	if len(violations) == 0 && !now.IsZero() {
		(&Input{values: ctx}).setAsOf(now)
	}
	if len(violations) == 0 && w.Check != nil {
		in := &Input{values: ctx}
		asOf := in.AsOf()
		if asOf.IsZero() {
			asOf = in.Today(time.Now())
		}
		violations = w.Check(in, asOf)
	}
	if len(violations) > 0 {
		return nil, NewContextError(violations)
	}
	return &Input{values: ctx}, nil
}

// DuplicateKeys names the keys of m given twice, in snake_case and as its
// lowerCamelCase alias (release_date and releaseDate): a context names each
// field once, and which of two values would win is left to chance.
func DuplicateKeys(m map[string]any, path string) []Violation {
	seen := make(map[string]bool, len(m))
	var out []Violation
	for k := range m {
		key := snakeCase(k)
		if seen[key] {
			out = append(out, duplicateKey(path, key))
		}
		seen[key] = true
	}
	return out
}

func duplicateKey(path, key string) Violation {
	return Violation{Field: path + "." + key, Description: fmt.Sprintf("given twice (as %q and its alias)", key)}
}

func normalizeKeys(m map[string]any, path string) (map[string]any, []Violation) {
	out := make(map[string]any, len(m))
	var violations []Violation
	for k, v := range m {
		key := snakeCase(k)
		if _, dup := out[key]; dup {
			violations = append(violations, duplicateKey(path, key))
			continue
		}
		switch t := v.(type) {
		case map[string]any:
			var vs []Violation
			v, vs = normalizeKeys(t, path+"."+key)
			violations = append(violations, vs...)
		case []any:
			items := make([]any, len(t))
			for i, item := range t {
				if obj, ok := item.(map[string]any); ok {
					var vs []Violation
					items[i], vs = normalizeKeys(obj, fmt.Sprintf("%s.%s[%d]", path, key, i))
					violations = append(violations, vs...)
				} else {
					items[i] = item
				}
			}
			v = items
		}
		out[key] = v
	}
	return out, violations
}

// ContextKey is the name a context key is stored under: lowerCamelCase
// aliases ("releaseDate") become snake_case ("release_date"), as Prepare
// normalises them.
func ContextKey(k string) string { return snakeCase(k) }

func snakeCase(s string) string {
	if strings.IndexFunc(s, unicode.IsUpper) < 0 {
		return s
	}
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

func applyDefaults(ctx map[string]any, fields []Field) map[string]any {
	for _, f := range fields {
		v, ok := ctx[f.Name]
		if !ok && f.Default != nil {
			ctx[f.Name] = JSONValue(f.Default)
			continue
		}
		if list, isList := v.([]any); isList && f.Kind == ObjectList {
			for _, item := range list {
				if obj, isObj := item.(map[string]any); isObj {
					applyDefaults(obj, f.Items)
				}
			}
		}
	}
	return ctx
}

// enumWithAliases is the enum a published schema lists: the canonical
// values, then the aliases, so a client validating against it accepts what
// the API accepts (in the canonical case).
func enumWithAliases(f Field) []string {
	out := slices.Clone(f.Enum)
	for _, a := range slices.Sorted(maps.Keys(f.Aliases)) {
		out = append(out, a)
	}
	return out
}

// normalizeValues rewrites values given in an accepted spelling to the one
// the steps read: an enum value in another case ("ep", "Digital") or an
// alias ("UK") becomes the value the workflow declares, and an RFC 3339
// date-time in a Date field becomes its local date at its own offset.
// Values matching nothing are left for the schema to refuse, naming what is
// accepted.
func normalizeValues(ctx map[string]any, fields []Field) {
	for _, f := range fields {
		v, ok := ctx[f.Name]
		if !ok {
			continue
		}
		switch t := v.(type) {
		case string:
			if f.Kind == String && len(f.Enum) > 0 {
				ctx[f.Name] = canonicalEnum(f, t)
			}
			if f.Kind == Date {
				ctx[f.Name] = localDate(t)
			}
		case []any:
			for i, item := range t {
				switch it := item.(type) {
				case string:
					if f.Kind == StringList && len(f.Enum) > 0 {
						t[i] = canonicalEnum(f, it)
					}
				case map[string]any:
					if f.Kind == ObjectList {
						normalizeValues(it, f.Items)
					}
				}
			}
		}
	}
}

// localDate turns an RFC 3339 date-time into the calendar date it names at
// its own offset ("2026-11-20T23:30:00-08:00" is 20 November, though it is
// already the 21st in UTC); anything else is returned as it is.
func localDate(s string) string {
	if t, err := time.Parse(time.RFC3339, s); err == nil {
		return FormatDate(t)
	}
	return s
}

func canonicalEnum(f Field, s string) string {
	trimmed := strings.TrimSpace(s)
	for _, e := range f.Enum {
		if strings.EqualFold(e, trimmed) {
			return e
		}
	}
	for alias, canonical := range f.Aliases {
		if strings.EqualFold(alias, trimmed) {
			return canonical
		}
	}
	return s
}

// MaxMagnitude bounds every number of every context, whatever its field's
// own range: a safety net so that no input (1e308) can overflow a plan's
// arithmetic to infinity and fail the run instead of answering 400. Each
// field's documented Min and Max are the real ranges; the ranges test in
// engine/workflows requires them.
const MaxMagnitude = 1e12

func hugeNumbers(v any, path string) []Violation {
	switch t := v.(type) {
	case float64:
		if math.IsNaN(t) || math.Abs(t) > MaxMagnitude {
			return []Violation{{Field: path, Description: fmt.Sprintf("must be between -%s and %s", FormatInt(MaxMagnitude), FormatInt(MaxMagnitude))}}
		}
	case map[string]any:
		var out []Violation
		for k, x := range t {
			out = append(out, hugeNumbers(x, path+"."+k)...)
		}
		return out
	case []any:
		var out []Violation
		for i, x := range t {
			out = append(out, hugeNumbers(x, fmt.Sprintf("%s[%d]", path, i))...)
		}
		return out
	}
	return nil
}

func flattenViolations(ve *jsonschema.ValidationError) []Violation {
	if len(ve.Causes) > 0 {
		var out []Violation
		for _, c := range ve.Causes {
			out = append(out, flattenViolations(c)...)
		}
		return out
	}
	path := "context"
	for _, tok := range ve.InstanceLocation {
		if isIndex(tok) {
			path += "[" + tok + "]"
		} else {
			path += "." + tok
		}
	}
	switch k := ve.ErrorKind.(type) {
	case *kind.Required:
		out := make([]Violation, len(k.Missing))
		for i, name := range k.Missing {
			out[i] = Violation{Field: path + "." + name, Description: "is required"}
		}
		return out
	case *kind.AdditionalProperties:
		out := make([]Violation, len(k.Properties))
		for i, name := range k.Properties {
			out[i] = Violation{Field: path + "." + name, Description: "is not a field of this workflow's context"}
		}
		return out
	}
	return []Violation{{Field: path, Description: ve.ErrorKind.LocalizedString(messages)}}
}

func isIndex(s string) bool {
	if s == "" {
		return false
	}
	for _, r := range s {
		if r < '0' || r > '9' {
			return false
		}
	}
	return true
}
