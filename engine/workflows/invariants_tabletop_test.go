package workflows_test

import (
	"testing"

	"github.com/creativeops/creativeops/engine/enginetest"
)

// Every tabletop plan, over generated contexts across each schema's whole
// domain, keeps the engine's invariants: no advice due in the past, no
// silent past milestones, ordered milestones, deliverables on open days,
// finite numbers and clean text.
func TestInvariantsTabletop(t *testing.T) {
	t.Run("tabletop-kickstarter-campaign", func(t *testing.T) { enginetest.CheckWorkflow(t, "tabletop-kickstarter-campaign") })
	t.Run("tabletop-manufacturing-freight", func(t *testing.T) { enginetest.CheckWorkflow(t, "tabletop-manufacturing-freight") })
}

// Every input of every tabletop workflow changes its plan.
func TestInputsMatterTabletop(t *testing.T) {
	t.Run("tabletop-kickstarter-campaign", func(t *testing.T) { enginetest.CheckInputsMatter(t, "tabletop-kickstarter-campaign") })
	t.Run("tabletop-manufacturing-freight", func(t *testing.T) { enginetest.CheckInputsMatter(t, "tabletop-manufacturing-freight") })
}
