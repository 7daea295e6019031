package workflows_test

import (
	"testing"

	"github.com/creativeops/creativeops/engine/enginetest"
)

func TestInvariantsAudiobooksAcxCheck(t *testing.T) {
	enginetest.CheckWorkflow(t, "audiobooks-acx-check")
}

func TestInputsMatterAudiobooksAcxCheck(t *testing.T) {
	enginetest.CheckInputsMatter(t, "audiobooks-acx-check")
}

func TestInvariantsAudiobooksProductionPlan(t *testing.T) {
	enginetest.CheckWorkflow(t, "audiobooks-production-plan")
}

func TestInputsMatterAudiobooksProductionPlan(t *testing.T) {
	enginetest.CheckInputsMatter(t, "audiobooks-production-plan")
}
