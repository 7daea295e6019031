package workflows_test

import (
	"testing"

	"github.com/creativeops/creativeops/engine/enginetest"
)

// Every social media plan, over generated contexts across each schema's whole
// domain, keeps the engine's invariants: no advice due in the past, no
// silent past milestones, ordered milestones, deliverables on open days,
// finite numbers and clean text.
func TestInvariantsSocialMedia(t *testing.T) {
	t.Run("social-media-brand-deal", func(t *testing.T) { enginetest.CheckWorkflow(t, "social-media-brand-deal") })
	t.Run("social-media-content-calendar", func(t *testing.T) { enginetest.CheckWorkflow(t, "social-media-content-calendar") })
}

// Every input of every social media workflow changes its plan.
func TestInputsMatterSocialMedia(t *testing.T) {
	t.Run("social-media-brand-deal", func(t *testing.T) { enginetest.CheckInputsMatter(t, "social-media-brand-deal") })
	t.Run("social-media-content-calendar", func(t *testing.T) { enginetest.CheckInputsMatter(t, "social-media-content-calendar") })
}
