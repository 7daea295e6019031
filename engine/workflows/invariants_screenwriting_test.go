package workflows_test

import (
	"testing"

	"github.com/creativeops/creativeops/engine/enginetest"
)

// Every screenwriting plan, over generated contexts across each schema's whole
// domain, keeps the engine's invariants: no advice due in the past, no
// silent past milestones, ordered milestones, deliverables on open days,
// finite numbers and clean text.
func TestInvariantsScreenwriting(t *testing.T) {
	t.Run("screenwriting-contest-plan", func(t *testing.T) { enginetest.CheckWorkflow(t, "screenwriting-contest-plan") })
	t.Run("screenwriting-draft-schedule", func(t *testing.T) { enginetest.CheckWorkflow(t, "screenwriting-draft-schedule") })
}

// Every input of every screenwriting workflow changes its plan.
func TestInputsMatterScreenwriting(t *testing.T) {
	t.Run("screenwriting-contest-plan", func(t *testing.T) { enginetest.CheckInputsMatter(t, "screenwriting-contest-plan") })
	t.Run("screenwriting-draft-schedule", func(t *testing.T) { enginetest.CheckInputsMatter(t, "screenwriting-draft-schedule") })
}
