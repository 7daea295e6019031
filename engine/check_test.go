package engine_test

import (
	"errors"
	"testing"
	"time"

	"github.com/creativeops/creativeops/engine"
)

func TestWorkflowCheckRejectsInPrepare(t *testing.T) {
	engine.Register(&engine.Workflow{
		ID: "test-check", Name: "Check test", Vertical: "music", Description: "d",
		Fields: []engine.Field{{Name: "launch_date", Kind: engine.Date, Required: true}},
		Check: func(in *engine.Input, asOf time.Time) []engine.Violation {
			if in.Date("launch_date").Before(asOf) {
				return []engine.Violation{{Field: "context.launch_date", Description: "is before as_of"}}
			}
			return nil
		},
		Steps: []engine.Step{{Name: "noop", Run: func(*engine.Input, *engine.Plan) error { return nil }}},
	})
	w, _ := engine.LookupWorkflow("test-check")
	_, err := w.Prepare(map[string]any{"launch_date": "2026-01-01", "as_of": "2026-02-01"})
	var ce *engine.ContextError
	if !errors.As(err, &ce) || len(ce.Violations) != 1 || ce.Violations[0].Field != "context.launch_date" {
		t.Fatalf("Prepare = %v, want a ContextError on context.launch_date", err)
	}
	if _, err := w.Prepare(map[string]any{"launch_date": "2026-03-01", "as_of": "2026-02-01"}); err != nil {
		t.Fatal(err)
	}
}

func TestRegisterRejectsBadSource(t *testing.T) {
	defer func() {
		if recover() == nil {
			t.Error("a source without Checked was accepted")
		}
	}()
	engine.Register(&engine.Workflow{
		ID: "test-bad-source", Name: "n", Vertical: "music", Description: "d",
		Sources: []engine.Source{{Title: "ACX", URL: "https://www.acx.com"}},
		Steps:   []engine.Step{{Name: "noop", Run: func(*engine.Input, *engine.Plan) error { return nil }}},
	})
}

// Whatever a field's own range, 1e308 is a 400 naming the field, never a
// run that overflows to +Inf.
func TestHugeNumbersAreRejectedNamingTheField(t *testing.T) {
	engine.Register(&engine.Workflow{
		ID: "test-huge", Name: "Huge test", Vertical: "music", Description: "d",
		Fields: []engine.Field{
			{Name: "budget_usd", Kind: engine.Number},
			{Name: "items", Kind: engine.ObjectList, Items: []engine.Field{{Name: "cost", Kind: engine.Number}}},
		},
		Steps: []engine.Step{{Name: "noop", Run: func(*engine.Input, *engine.Plan) error { return nil }}},
	})
	w, _ := engine.LookupWorkflow("test-huge")
	_, err := w.Prepare(map[string]any{"budget_usd": 1e308, "items": []any{map[string]any{"cost": -1e13}}})
	var ce *engine.ContextError
	if !errors.As(err, &ce) || len(ce.Violations) != 2 || ce.Violations[0].Field != "context.budget_usd" || ce.Violations[1].Field != "context.items[0].cost" {
		t.Fatalf("Prepare = %v, want violations on context.budget_usd and context.items[0].cost", err)
	}
	if _, err := w.Prepare(map[string]any{"budget_usd": 1e12}); err != nil {
		t.Errorf("1e12 rejected: %v", err)
	}
}

// A number over its field's own maximum gets that one violation, not a
// second one from the global cap.
func TestHugeNumberOverFieldMaximumIsOneViolation(t *testing.T) {
	engine.Register(&engine.Workflow{
		ID: "test-huge-bounded", Name: "Huge bounded test", Vertical: "music", Description: "d",
		Fields: []engine.Field{{Name: "costs", Kind: engine.Number, Min: engine.Bound(0), Max: engine.Bound(500000)}},
		Steps:  []engine.Step{{Name: "noop", Run: func(*engine.Input, *engine.Plan) error { return nil }}},
	})
	w, _ := engine.LookupWorkflow("test-huge-bounded")
	_, err := w.Prepare(map[string]any{"costs": 1e308})
	var ce *engine.ContextError
	if !errors.As(err, &ce) || len(ce.Violations) != 1 || ce.Violations[0].Field != "context.costs" {
		t.Fatalf("Prepare = %v, want one violation on context.costs", err)
	}
}
