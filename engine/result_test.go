package engine_test

import (
	"reflect"
	"testing"
	"time"

	"github.com/creativeops/creativeops/engine"
	_ "github.com/creativeops/creativeops/engine/workflows" // registers every workflow
)

// A run's result is made plain directly, not by a JSON round trip; it must
// be exactly what the round trip would give, for every workflow, on plan
// dates that take each through its early, late and post-event branches.
func TestResultIsTheJSONRoundTrip(t *testing.T) {
	dates := []time.Time{
		time.Date(2026, 11, 20, 0, 0, 0, 0, time.UTC),
		time.Date(2025, 1, 2, 0, 0, 0, 0, time.UTC),
		time.Date(2027, 6, 30, 0, 0, 0, 0, time.UTC),
		time.Date(2028, 12, 24, 0, 0, 0, 0, time.UTC),
	}
	checked := 0
	for _, w := range engine.Workflows("") {
		if w.ExampleContext == nil {
			continue // registered by another test
		}
		checked++
		for _, asOf := range dates {
			in, err := w.Prepare(w.ExampleContext)
			if err != nil {
				t.Fatalf("%s: example context: %v", w.ID, err)
			}
			checkResultIsRoundTrip(t, w, in, asOf)
		}
	}
	if checked < len(engine.Verticals()) {
		t.Fatalf("checked %d workflows, fewer than the %d verticals", checked, len(engine.Verticals()))
	}
}

func checkResultIsRoundTrip(t *testing.T, w *engine.Workflow, in *engine.Input, asOf time.Time) {
	t.Helper()
	direct, roundTrip, err := engine.ResultBothWays(w, in, asOf)
	if err != nil {
		return // a run that fails has no result; Run reports it
	}
	if !reflect.DeepEqual(direct, roundTrip) {
		t.Fatalf("%s as of %s: result\n%#v\nwant the JSON round trip's\n%#v", w.ID, asOf.Format(time.DateOnly), direct, roundTrip)
	}
}
