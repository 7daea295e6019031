package engine

import (
	"fmt"
	"time"
	// Time zones are read from the binary, so a container without a zone
	// database still knows them.
	_ "time/tzdata"
)

// Input is a validated, normalised context. Accessors trust the schema: a
// required field is present and of its declared type, so steps read values
// without re-checking them.
type Input struct {
	values map[string]any
	pins   []float64
}

// NewInput wraps an already-valid context, for nested ObjectList items.
func newInput(v map[string]any) *Input { return &Input{values: v} }

// Has reports whether the key is present.
func (in *Input) Has(name string) bool { _, ok := in.values[name]; return ok }

// Str returns a string field, or "" when absent.
func (in *Input) Str(name string) string {
	s, _ := in.values[name].(string)
	return s
}

// Float returns a numeric field, or 0 when absent.
func (in *Input) Float(name string) float64 {
	switch v := in.values[name].(type) {
	case float64:
		return v
	case int:
		return float64(v)
	case int64:
		return float64(v)
	}
	return 0
}

// Int returns an integer field, or 0 when absent.
func (in *Input) Int(name string) int { return int(in.Float(name)) }

// Bool returns a boolean field, or false when absent.
func (in *Input) Bool(name string) bool {
	b, _ := in.values[name].(bool)
	return b
}

// Date returns a date field as midnight UTC, or the zero time when absent.
func (in *Input) Date(name string) time.Time {
	d, err := ParseDate(in.Str(name))
	if err != nil {
		return time.Time{}
	}
	return d
}

// AsOf is the date the plan is made on (see AsOfField).
func (in *Input) AsOf() time.Time { return in.Date(AsOfField) }

// Strings returns a StringList field.
func (in *Input) Strings(name string) []string {
	list, _ := in.values[name].([]any)
	out := make([]string, 0, len(list))
	for _, v := range list {
		if s, ok := v.(string); ok {
			out = append(out, s)
		}
	}
	return out
}

// List returns the items of an ObjectList field.
func (in *Input) List(name string) []*Input {
	list, _ := in.values[name].([]any)
	out := make([]*Input, 0, len(list))
	for _, v := range list {
		if m, ok := v.(map[string]any); ok {
			out = append(out, newInput(m))
		}
	}
	return out
}

// Values returns the normalised context, as stored on the job.
func (in *Input) Values() map[string]any { return in.values }

// setAsOf fills in the plan date when the caller did not give one: the
// date of now in the context's time zone.
func (in *Input) setAsOf(now time.Time) {
	if !in.Has(AsOfField) {
		in.values[AsOfField] = FormatDate(in.Today(now))
	}
}

// Today is the calendar date of now in the context's time_zone (UTC when
// none is given), as midnight UTC like every date of a plan.
func (in *Input) Today(now time.Time) time.Time {
	loc := time.UTC
	if tz := in.Str(TimeZoneField); tz != "" {
		if l, err := LoadTimeZone(tz); err == nil {
			loc = l
		}
	}
	y, m, d := now.In(loc).Date()
	return time.Date(y, m, d, 0, 0, 0, 0, time.UTC)
}

// LoadTimeZone loads an IANA time zone by name. "Local" is refused: it
// would make a plan depend on the server's configuration.
func LoadTimeZone(name string) (*time.Location, error) {
	if name == "" || name == "Local" {
		return nil, fmt.Errorf("%q is not an IANA time zone (such as \"America/New_York\" or \"UTC\")", name)
	}
	loc, err := time.LoadLocation(name)
	if err != nil {
		return nil, fmt.Errorf("%q is not an IANA time zone (such as \"America/New_York\" or \"UTC\")", name)
	}
	return loc, nil
}

// ParseDate parses an ISO 8601 calendar date, or an RFC 3339 date-time as
// the calendar date at its own offset.
func ParseDate(s string) (time.Time, error) {
	d, err := time.Parse(time.DateOnly, localDate(s))
	if err != nil {
		return time.Time{}, fmt.Errorf("%q is not a date (YYYY-MM-DD) or an RFC 3339 date-time", s)
	}
	return d, nil
}

// FormatDate renders a date as YYYY-MM-DD.
func FormatDate(d time.Time) string { return d.Format(time.DateOnly) }
