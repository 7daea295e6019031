package workflows_test

import (
	"testing"

	"github.com/creativeops/creativeops/engine/enginetest"
)

// Every publishing plan, over generated contexts across each schema's whole
// domain, keeps the engine's invariants: no advice due in the past, no
// silent past milestones, ordered milestones, deliverables on open days,
// finite numbers and clean text.
func TestInvariantsPublishing(t *testing.T) {
	t.Run("publishing-launch-timeline", func(t *testing.T) { enginetest.CheckWorkflow(t, "publishing-launch-timeline") })
	t.Run("publishing-query-plan", func(t *testing.T) { enginetest.CheckWorkflow(t, "publishing-query-plan") })
}

// Every input of every publishing workflow changes its plan.
func TestInputsMatterPublishing(t *testing.T) {
	t.Run("publishing-launch-timeline", func(t *testing.T) { enginetest.CheckInputsMatter(t, "publishing-launch-timeline") })
	t.Run("publishing-query-plan", func(t *testing.T) { enginetest.CheckInputsMatter(t, "publishing-query-plan") })
}
