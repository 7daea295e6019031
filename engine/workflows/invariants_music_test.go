package workflows_test

import (
	"testing"

	"github.com/creativeops/creativeops/engine/enginetest"
)

func TestInvariantsMusicMerchPlan(t *testing.T) { enginetest.CheckWorkflow(t, "music-merch-plan") }

func TestInputsMatterMusicMerchPlan(t *testing.T) {
	enginetest.CheckInputsMatter(t, "music-merch-plan")
}

func TestInvariantsMusicTourBudget(t *testing.T) { enginetest.CheckWorkflow(t, "music-tour-budget") }

func TestInputsMatterMusicTourBudget(t *testing.T) {
	enginetest.CheckInputsMatter(t, "music-tour-budget")
}

func TestInvariantsReleaseStrategy(t *testing.T) { enginetest.CheckWorkflow(t, "release-strategy") }

func TestInputsMatterReleaseStrategy(t *testing.T) {
	enginetest.CheckInputsMatter(t, "release-strategy")
}
