package workflows_test

import (
	"testing"

	"github.com/creativeops/creativeops/engine/enginetest"
)

// Every visual art plan, over generated contexts across each schema's whole
// domain, keeps the engine's invariants: no advice due in the past, no
// silent past milestones, ordered milestones, deliverables on open days,
// finite numbers and clean text.
func TestInvariantsVisualArt(t *testing.T) {
	t.Run("visual-art-exhibition", func(t *testing.T) { enginetest.CheckWorkflow(t, "visual-art-exhibition") })
	t.Run("visual-art-open-calls", func(t *testing.T) { enginetest.CheckWorkflow(t, "visual-art-open-calls") })
	t.Run("visual-art-pricing", func(t *testing.T) { enginetest.CheckWorkflow(t, "visual-art-pricing") })
}

// Every input of every visual art workflow changes its plan.
func TestInputsMatterVisualArt(t *testing.T) {
	t.Run("visual-art-exhibition", func(t *testing.T) { enginetest.CheckInputsMatter(t, "visual-art-exhibition") })
	t.Run("visual-art-open-calls", func(t *testing.T) { enginetest.CheckInputsMatter(t, "visual-art-open-calls") })
	t.Run("visual-art-pricing", func(t *testing.T) { enginetest.CheckInputsMatter(t, "visual-art-pricing") })
}
