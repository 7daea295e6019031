package workflows_test

import (
	"context"
	"reflect"
	"testing"
	"time"

	"github.com/creativeops/creativeops/engine"
	_ "github.com/creativeops/creativeops/engine/workflows"
)

// run prepares and runs a workflow, failing the test on any error.
func run(t *testing.T, id string, ctx map[string]any) map[string]any {
	t.Helper()
	w, ok := engine.LookupWorkflow(id)
	if !ok {
		t.Fatalf("workflow %q not registered", id)
	}
	in, err := w.Prepare(ctx)
	if err != nil {
		t.Fatalf("%s: prepare: %v", id, err)
	}
	res, err := w.Run(context.Background(), in, time.Date(2026, 11, 20, 0, 0, 0, 0, time.UTC), nil)
	if err != nil {
		t.Fatalf("%s: run: %v", id, err)
	}
	return res
}

// clone deep-copies a context so a run cannot alter the example it came from.
func clone(m map[string]any) map[string]any {
	out := make(map[string]any, len(m))
	for k, v := range m {
		switch t := v.(type) {
		case map[string]any:
			out[k] = clone(t)
		case []any:
			items := make([]any, len(t))
			for i, x := range t {
				if mm, ok := x.(map[string]any); ok {
					items[i] = clone(mm)
				} else {
					items[i] = x
				}
			}
			out[k] = items
		default:
			out[k] = v
		}
	}
	return out
}

func warningCodes(res map[string]any) []string {
	var codes []string
	for _, w := range res["warnings"].([]any) {
		codes = append(codes, w.(map[string]any)["code"].(string))
	}
	return codes
}

func hasWarning(res map[string]any, code string) bool {
	for _, c := range warningCodes(res) {
		if c == code {
			return true
		}
	}
	return false
}

func milestoneDate(t *testing.T, res map[string]any, key string) time.Time {
	t.Helper()
	for _, m := range res["timeline"].(map[string]any)["milestones"].([]any) {
		mm := m.(map[string]any)
		if mm["key"] == key {
			d, err := engine.ParseDate(mm["date"].(string))
			if err != nil {
				t.Fatal(err)
			}
			return d
		}
	}
	t.Fatalf("no milestone %q in %v", key, res["timeline"])
	return time.Time{}
}

// Every workflow: runs on its example, yields the common result shape with
// ordered timeline dates, and is deterministic.
func TestEveryWorkflowRunsItsExample(t *testing.T) {
	all := engine.Workflows("")
	perVertical := map[string]int{}
	for _, w := range all {
		perVertical[w.Vertical]++
		t.Run(w.ID, func(t *testing.T) {
			if w.ExampleContext == nil {
				t.Fatal("no example context")
			}
			a := run(t, w.ID, clone(w.ExampleContext))
			b := run(t, w.ID, clone(w.ExampleContext))
			if !reflect.DeepEqual(a, b) {
				t.Fatal("same context gave different results")
			}
			if s, _ := a["strategy"].(string); len(s) < 40 {
				t.Errorf("strategy too thin: %q", s)
			}
			recs, _ := a["recommendations"].([]any)
			if len(recs) < 2 {
				t.Errorf("want at least 2 recommendations, got %d", len(recs))
			}
			for _, r := range recs {
				rr := r.(map[string]any)
				if rr["title"] == "" || rr["detail"] == "" {
					t.Errorf("recommendation without title/detail: %v", rr)
				}
				switch rr["priority"] {
				case "high", "medium", "low":
				default:
					t.Errorf("bad priority %v", rr["priority"])
				}
			}
			ms := a["timeline"].(map[string]any)["milestones"].([]any)
			if len(ms) < 2 {
				t.Errorf("want at least 2 milestones, got %d", len(ms))
			}
			var prev string
			for _, m := range ms {
				d := m.(map[string]any)["date"].(string)
				if _, err := engine.ParseDate(d); err != nil {
					t.Errorf("milestone date %q: %v", d, err)
				}
				if d < prev {
					t.Errorf("timeline out of order: %s after %s", d, prev)
				}
				prev = d
			}
		})
	}
	for _, v := range engine.Verticals() {
		if perVertical[v.Key] < 2 {
			t.Errorf("vertical %s has %d workflows, want at least 2", v.Key, perVertical[v.Key])
		}
	}
	if len(all) < 50 {
		t.Errorf("%d workflows registered, want at least 50", len(all))
	}
}

// A context missing required keys is rejected naming each key.
func TestContextValidationNamesFields(t *testing.T) {
	w, _ := engine.LookupWorkflow("release-strategy")
	_, err := w.Prepare(map[string]any{"artist": "", "releaseDate": "2027-02-30", "tempo": 3})
	ce, ok := err.(*engine.ContextError)
	if !ok {
		t.Fatalf("want ContextError, got %v", err)
	}
	got := map[string]bool{}
	for _, v := range ce.Violations {
		got[v.Field] = true
	}
	for _, f := range []string{"context.artist", "context.genre", "context.release_date", "context.tempo"} {
		if !got[f] {
			t.Errorf("no violation for %s in %v", f, ce.Violations)
		}
	}
}
