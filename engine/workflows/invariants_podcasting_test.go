package workflows_test

import (
	"testing"

	"github.com/creativeops/creativeops/engine/enginetest"
)

// Every podcasting plan, over generated contexts across each schema's whole
// domain, keeps the engine's invariants: no advice due in the past, no
// silent past milestones, ordered milestones, deliverables on open days,
// finite numbers and clean text.
func TestInvariantsPodcasting(t *testing.T) {
	t.Run("podcasting-launch-plan", func(t *testing.T) { enginetest.CheckWorkflow(t, "podcasting-launch-plan") })
	t.Run("podcasting-sponsorship-rates", func(t *testing.T) { enginetest.CheckWorkflow(t, "podcasting-sponsorship-rates") })
}

// Every input of every podcasting workflow changes its plan.
func TestInputsMatterPodcasting(t *testing.T) {
	t.Run("podcasting-launch-plan", func(t *testing.T) { enginetest.CheckInputsMatter(t, "podcasting-launch-plan") })
	t.Run("podcasting-sponsorship-rates", func(t *testing.T) { enginetest.CheckInputsMatter(t, "podcasting-sponsorship-rates") })
}
