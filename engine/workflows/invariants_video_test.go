package workflows_test

import (
	"testing"

	"github.com/creativeops/creativeops/engine/enginetest"
)

// Every video plan, over generated contexts across each schema's whole
// domain, keeps the engine's invariants: no advice due in the past, no
// silent past milestones, ordered milestones, deliverables on open days,
// finite numbers and clean text.
func TestInvariantsVideo(t *testing.T) {
	t.Run("video-sponsored-integration", func(t *testing.T) { enginetest.CheckWorkflow(t, "video-sponsored-integration") })
	t.Run("video-youtube-partner-eligibility", func(t *testing.T) { enginetest.CheckWorkflow(t, "video-youtube-partner-eligibility") })
}

// Every input of every video workflow changes its plan.
func TestInputsMatterVideo(t *testing.T) {
	t.Run("video-sponsored-integration", func(t *testing.T) { enginetest.CheckInputsMatter(t, "video-sponsored-integration") })
	t.Run("video-youtube-partner-eligibility", func(t *testing.T) { enginetest.CheckInputsMatter(t, "video-youtube-partner-eligibility") })
}
