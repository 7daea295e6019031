package main

import (
	"time"

	"github.com/creativeops/creativeops/engine"
)

// slowWorkflow exists only in this package's test binary, and so in the
// servers the tests re-execute it as. Its runs take long enough that a
// SIGKILL catches some of them mid-run, which is what the failure test is
// about; release-strategy finishes in a millisecond.
const slowWorkflow = "music-test-slow"

func init() {
	engine.Register(&engine.Workflow{
		ID:             slowWorkflow,
		Name:           "Test: slow",
		Vertical:       "music",
		Description:    "Test-only workflow whose first step takes 700 ms.",
		Fields:         []engine.Field{{Name: "label", Kind: engine.String, Required: true}},
		ExampleContext: map[string]any{"label": "x"},
		Steps: []engine.Step{
			{Name: "wait", Run: func(in *engine.Input, p *engine.Plan) error {
				time.Sleep(700 * time.Millisecond)
				return nil
			}},
			{Name: "plan", Run: func(in *engine.Input, p *engine.Plan) error {
				p.Strategy("slow run for %s", in.Str("label"))
				p.Milestone("done", "Done", p.AsOf())
				return nil
			}},
		},
	})
}
