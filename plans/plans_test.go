package plans

import (
	"testing"
	"time"
)

func mustTime(s string) time.Time {
	t, err := time.Parse(time.RFC3339, s)
	if err != nil {
		panic(err)
	}
	return t
}

func TestMilestonesOf(t *testing.T) {
	result := map[string]any{"timeline": map[string]any{"milestones": []any{
		map[string]any{"key": "a", "title": "A", "date": "2027-01-01", "deliverable": true},
		map[string]any{"key": "b", "title": "B", "date": "2027-01-02"},
		map[string]any{"key": "a", "title": "A again", "date": "2027-01-03"}, // a repeated key keeps its first
		map[string]any{"title": "no key", "date": "2027-01-04"},
	}}}
	ms := milestonesOf(result, 4)
	if len(ms) != 2 || ms[0].Key != "a" || ms[0].Title != "A" || !ms[0].Deliverable || ms[1].Deliverable ||
		ms[0].State != Pending || ms[0].Revision != 4 || !ms[1].Current {
		t.Fatalf("milestones: %+v", ms)
	}
}

func TestStateOf(t *testing.T) {
	done := Milestone{State: Done, Current: true}
	pending := Milestone{State: Pending, Current: true}
	dropped := Milestone{State: Pending, Current: false}
	if stateOf([]Milestone{done, pending}) != Active || stateOf([]Milestone{done, {State: Skipped, Current: true}}) != Completed ||
		stateOf([]Milestone{done, dropped}) != Completed || stateOf(nil) != Completed {
		t.Error("a plan is active while a current milestone is pending, completed otherwise")
	}
}
