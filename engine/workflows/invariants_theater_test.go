package workflows_test

import (
	"testing"

	"github.com/creativeops/creativeops/engine/enginetest"
)

// Every theater plan, over generated contexts across each schema's whole
// domain, keeps the engine's invariants: no advice due in the past, no
// silent past milestones, ordered milestones, deliverables on open days,
// finite numbers and clean text.
func TestInvariantsTheater(t *testing.T) {
	t.Run("theater-production-budget", func(t *testing.T) { enginetest.CheckWorkflow(t, "theater-production-budget") })
	t.Run("theater-rehearsal-schedule", func(t *testing.T) { enginetest.CheckWorkflow(t, "theater-rehearsal-schedule") })
}

// Every input of every theater workflow changes its plan.
func TestInputsMatterTheater(t *testing.T) {
	t.Run("theater-production-budget", func(t *testing.T) { enginetest.CheckInputsMatter(t, "theater-production-budget") })
	t.Run("theater-rehearsal-schedule", func(t *testing.T) { enginetest.CheckInputsMatter(t, "theater-rehearsal-schedule") })
}
