package workflows_test

import (
	"testing"

	"github.com/creativeops/creativeops/engine/enginetest"
)

// Every songwriting plan, over generated contexts across each schema's whole
// domain, keeps the engine's invariants: no advice due in the past, no
// silent past milestones, ordered milestones, deliverables on open days,
// finite numbers and clean text.
func TestInvariantsSongwriting(t *testing.T) {
	t.Run("songwriting-split-registration", func(t *testing.T) { enginetest.CheckWorkflow(t, "songwriting-split-registration") })
	t.Run("songwriting-sync-quote", func(t *testing.T) { enginetest.CheckWorkflow(t, "songwriting-sync-quote") })
}

// Every input of every songwriting workflow changes its plan.
func TestInputsMatterSongwriting(t *testing.T) {
	t.Run("songwriting-split-registration", func(t *testing.T) { enginetest.CheckInputsMatter(t, "songwriting-split-registration") })
	t.Run("songwriting-sync-quote", func(t *testing.T) { enginetest.CheckInputsMatter(t, "songwriting-sync-quote") })
}
