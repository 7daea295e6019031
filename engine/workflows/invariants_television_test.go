package workflows_test

import (
	"testing"

	"github.com/creativeops/creativeops/engine/enginetest"
)

// Every television plan, over generated contexts across each schema's whole
// domain, keeps the engine's invariants: no advice due in the past, no
// silent past milestones, ordered milestones, deliverables on open days,
// finite numbers and clean text.
func TestInvariantsTelevision(t *testing.T) {
	t.Run("television-episode-delivery", func(t *testing.T) { enginetest.CheckWorkflow(t, "television-episode-delivery") })
	t.Run("television-writers-room", func(t *testing.T) { enginetest.CheckWorkflow(t, "television-writers-room") })
}

// Every input of every television workflow changes its plan.
func TestInputsMatterTelevision(t *testing.T) {
	t.Run("television-episode-delivery", func(t *testing.T) { enginetest.CheckInputsMatter(t, "television-episode-delivery") })
	t.Run("television-writers-room", func(t *testing.T) { enginetest.CheckInputsMatter(t, "television-writers-room") })
}
