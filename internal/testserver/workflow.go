package testserver

import (
	"os"
	"sync"

	"github.com/creativeops/creativeops/engine"
)

// GatedWorkflow is a workflow registered only in test binaries. Its middle
// step waits until the test opens the gate, so tests can observe a job in
// "processing" with partial progress, or kill a server mid-run.
const GatedWorkflow = "music-test-gated"

var (
	gateMu sync.Mutex
	gate   chan struct{}
)

// HoldRuns makes gated runs wait at their middle step until the returned
// function is called.
func HoldRuns() (release func()) {
	gateMu.Lock()
	defer gateMu.Unlock()
	ch := make(chan struct{})
	gate = ch
	var once sync.Once
	return func() { once.Do(func() { close(ch) }) }
}

func currentGate() chan struct{} {
	gateMu.Lock()
	defer gateMu.Unlock()
	return gate
}

func init() {
	// A child server process started with CREATIVEOPS_TEST_HOLD=1 holds
	// every gated run forever, to be killed mid-run.
	if os.Getenv("CREATIVEOPS_TEST_HOLD") == "1" {
		HoldRuns()
	}
	engine.Register(&engine.Workflow{
		ID:             GatedWorkflow,
		Name:           "Test: gated",
		Vertical:       "music",
		Description:    "Test-only workflow whose middle step waits for the test.",
		Fields:         []engine.Field{{Name: "label", Kind: engine.String, Required: true}},
		ExampleContext: map[string]any{"label": "x"},
		Steps: []engine.Step{
			{Name: "before", Run: func(in *engine.Input, p *engine.Plan) error { return nil }},
			{Name: "gate", Run: func(in *engine.Input, p *engine.Plan) error {
				if g := currentGate(); g != nil {
					<-g
				}
				return nil
			}},
			{Name: "after", Run: func(in *engine.Input, p *engine.Plan) error {
				p.Strategy("gated run for %s", in.Str("label"))
				p.Milestone("done", "Done", p.AsOf())
				return nil
			}},
			{Name: "finish", Run: func(in *engine.Input, p *engine.Plan) error { return nil }},
		},
	})
}
