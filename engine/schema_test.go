package engine_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/creativeops/creativeops/engine"
)

// TestEnumsIgnoreCase: an enum value in another case is accepted and
// stored in the workflow's spelling, in plain fields, string lists and the
// fields of list items; a value matching nothing is a violation naming the
// field and the accepted values.
func TestEnumsIgnoreCase(t *testing.T) {
	engine.Register(&engine.Workflow{
		ID: "test-enum-case", Name: "Enum case", Vertical: "music", Description: "d",
		Fields: []engine.Field{
			{Name: "format", Kind: engine.String, Enum: []string{"single", "EP", "album"}},
			{Name: "channels", Kind: engine.StringList, Enum: []string{"digital", "vinyl"}},
			{Name: "tracks", Kind: engine.ObjectList, Items: []engine.Field{{Name: "role", Kind: engine.String, Enum: []string{"focus", "deep-cut"}}}},
		},
		Steps: []engine.Step{{Name: "noop", Run: func(*engine.Input, *engine.Plan) error { return nil }}},
	})
	w, _ := engine.LookupWorkflow("test-enum-case")
	in, err := w.Prepare(map[string]any{
		"format": "ep", "channels": []any{"Digital", "VINYL"},
		"tracks": []any{map[string]any{"role": "Focus"}},
	})
	if err != nil {
		t.Fatal(err)
	}
	if got := in.Str("format"); got != "EP" {
		t.Errorf("format = %q, want EP", got)
	}
	if got := in.Strings("channels"); len(got) != 2 || got[0] != "digital" || got[1] != "vinyl" {
		t.Errorf("channels = %v, want [digital vinyl]", got)
	}
	if got := in.List("tracks")[0].Str("role"); got != "focus" {
		t.Errorf("tracks[0].role = %q, want focus", got)
	}
	_, err = w.Prepare(map[string]any{"format": "LP"})
	var ce *engine.ContextError
	if !errors.As(err, &ce) || ce.Violations[0].Field != "context.format" || !strings.Contains(ce.Violations[0].Description, "'EP'") {
		t.Errorf("format LP: %v; want a violation of context.format naming the accepted values", err)
	}
}

// TestDatesAndTimeZone: a date field accepts an RFC 3339 date-time as its
// local date at its own offset, and time_zone decides which date "today" is
// when as_of is omitted.
func TestDatesAndTimeZone(t *testing.T) {
	engine.Register(&engine.Workflow{
		ID: "test-dates", Name: "Dates", Vertical: "music", Description: "d",
		Fields: []engine.Field{{Name: "release_date", Kind: engine.Date, Required: true}},
		Steps:  []engine.Step{{Name: "noop", Run: func(*engine.Input, *engine.Plan) error { return nil }}},
	})
	w, _ := engine.LookupWorkflow("test-dates")
	in, err := w.Prepare(map[string]any{"release_date": "2027-03-05T23:30:00-08:00", "as_of": "2026-11-20T00:15:00+09:00"})
	if err != nil {
		t.Fatal(err)
	}
	// 23:30 in Los Angeles is already 6 March in UTC; 00:15 in Tokyo is
	// still 19 November in UTC.
	if got := in.Str("release_date"); got != "2027-03-05" {
		t.Errorf("release_date stored as %q, want 2027-03-05", got)
	}
	if got := engine.FormatDate(in.AsOf()); got != "2026-11-20" {
		t.Errorf("as_of = %s, want 2026-11-20", got)
	}

	// 04:00 UTC on 21 November is still the 20th in Los Angeles.
	now := time.Date(2026, 11, 21, 4, 0, 0, 0, time.UTC)
	for tz, want := range map[string]string{"America/Los_Angeles": "2026-11-20", "Asia/Tokyo": "2026-11-21", "": "2026-11-21"} {
		raw := map[string]any{"release_date": "2027-03-05"}
		if tz != "" {
			raw["time_zone"] = tz
		}
		in, err := w.Prepare(raw)
		if err != nil {
			t.Fatalf("time_zone %q: %v", tz, err)
		}
		res, err := w.Run(context.Background(), in, now, nil)
		if err != nil {
			t.Fatal(err)
		}
		if got := res["as_of"]; got != want {
			t.Errorf("time_zone %q: as_of %v, want %s", tz, got, want)
		}
	}

	for field, value := range map[string]string{"time_zone": "Mars/Olympus_Mons", "release_date": "2027-03-05T25:00:00Z"} {
		raw := map[string]any{"release_date": "2027-03-05", field: value}
		_, err := w.Prepare(raw)
		var ce *engine.ContextError
		if !errors.As(err, &ce) || ce.Violations[0].Field != "context."+field {
			t.Errorf("%s %q: %v; want a violation of context.%s", field, value, err, field)
		}
	}
}

// A context with thousands of problems lists the first MaxViolations of
// them, by field, and says how many more there were: its error stays
// small whatever the context holds.
func TestContextErrorListsAtMostMaxViolations(t *testing.T) {
	engine.Register(&engine.Workflow{
		ID: "test-many-violations", Name: "Many violations", Vertical: "music", Description: "d",
		Fields: []engine.Field{{Name: "title", Kind: engine.String}},
		Steps:  []engine.Step{{Name: "noop", Run: func(*engine.Input, *engine.Plan) error { return nil }}},
	})
	w, _ := engine.LookupWorkflow("test-many-violations")
	for _, n := range []int{engine.MaxViolations, 3000} {
		raw := map[string]any{}
		for i := range n {
			raw[fmt.Sprintf("unknown_%04d", i)] = i
		}
		_, err := w.Prepare(raw)
		var ce *engine.ContextError
		if !errors.As(err, &ce) {
			t.Fatalf("%d unknown keys: %v, want a ContextError", n, err)
		}
		if len(ce.Violations) != engine.MaxViolations || ce.Omitted != n-engine.MaxViolations {
			t.Fatalf("%d unknown keys: %d listed, %d omitted; want %d and %d", n, len(ce.Violations), ce.Omitted, engine.MaxViolations, n-engine.MaxViolations)
		}
		if ce.Violations[0].Field != "context.unknown_0000" {
			t.Errorf("first violation %q, want the first field by path", ce.Violations[0].Field)
		}
		more := strings.Contains(err.Error(), fmt.Sprintf("and %d more problems not listed", n-engine.MaxViolations))
		if more != (n > engine.MaxViolations) || len(err.Error()) > 4096 {
			t.Errorf("%d unknown keys: message of %d bytes %q", n, len(err.Error()), err.Error()[:min(200, len(err.Error()))])
		}
	}
}
