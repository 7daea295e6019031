package enginetest

import (
	"slices"
	"testing"

	"github.com/creativeops/creativeops/engine"
)

// pastWorkflow plans a release with a post-event policy; keepPre keeps
// the pre-release deliverable on the plan date after the release, the
// mistake the policy check must catch.
func pastWorkflow(id string, keepPre bool) *engine.Workflow {
	if w, ok := engine.LookupWorkflow(id); ok {
		return w
	}
	engine.Register(&engine.Workflow{
		ID: id, Name: "Release", Vertical: "music", Description: "test",
		PastDate:       engine.PastDate{Field: "release_date", Policy: engine.PastPostEvent},
		Fields:         []engine.Field{{Name: "release_date", Kind: engine.Date, Required: true}},
		ExampleContext: map[string]any{"release_date": "2027-03-05"},
		Steps: []engine.Step{{Name: "plan", Run: func(in *engine.Input, p *engine.Plan) error {
			release := in.Date("release_date")
			p.SetTarget(release)
			out := release.Before(p.AsOf())
			if out {
				p.PostEvent(release, "the music is out.")
			}
			if !out || keepPre {
				p.Milestone("masters", "Masters delivered", engine.Later(p.AsOf(), engine.AddDays(release, -30)))
				p.RecommendOn(engine.High, "masters", "Deliver the masters", "Deliver them.")
			}
			p.Milestone("release", "Release", release)
			p.Milestone("review", "Four-week review", engine.Later(p.AsOf(), engine.AddDays(release, 28)))
			p.Strategy("Release on %s.", p.Ref("release"))
			return nil
		}}},
	})
	w, _ := engine.LookupWorkflow(id)
	return w
}

func TestPastDateProblemsPostEvent(t *testing.T) {
	if ps := PastDateProblems(pastWorkflow("enginetest-past-ok", false), asOf); len(ps) != 0 {
		t.Errorf("a clean post-event plan: %v", ps)
	}
	got := rules(PastDateProblems(pastWorkflow("enginetest-past-pre", true), asOf))
	if !slices.Contains(got, RulePreEventAfterAsOf) {
		t.Errorf("masters kept after the release not reported: %v", got)
	}
}

// The release workflow re-plans a past date: declared as a post-event
// plan, it is reported.
func TestPastDateProblemsWrongPolicy(t *testing.T) {
	w := *testWorkflow()
	w.PastDate = engine.PastDate{Field: "release_date", Policy: engine.PastPostEvent}
	if got := rules(PastDateProblems(&w, asOf)); !slices.Contains(got, RulePastPolicy) {
		t.Errorf("a re-plan declared as a post-event plan not reported: %v", got)
	}
	w.PastDate.Policy = engine.PastReplan
	if ps := PastDateProblems(&w, asOf); len(ps) != 0 {
		t.Errorf("declared as a re-plan: %v", ps)
	}
}
