package workflows

import (
	"testing"
	"time"

	"github.com/creativeops/creativeops/engine"
)

// A hand-over kept after the step it depends on reports where it was
// asked for, like one moved off a closed day.
func TestDeliverReportsMoveAfterDependency(t *testing.T) {
	day := func(s string) (d time.Time) { d, _ = engine.ParseDate(s); return d }
	p := &engine.Plan{}
	got := deliver(p, "proofs", "Proofs", day("2027-02-10"), engine.RegionUS, day("2027-02-12"))
	res, err := p.Result()
	if err != nil {
		t.Fatal(err)
	}
	m := res["timeline"].(map[string]any)["milestones"].([]any)[0].(map[string]any)
	if engine.FormatDate(got) != "2027-02-12" || m["date"] != "2027-02-12" || m["moved_from"] != "2027-02-10" || m["note"] == nil {
		t.Errorf("deliver = %s, milestone %v: want 2027-02-12 moved from 2027-02-10 with a note", engine.FormatDate(got), m)
	}
}
