package workflows_test

import (
	"testing"

	"github.com/creativeops/creativeops/engine/enginetest"
)

func TestInvariantsNewslettersPaidLaunch(t *testing.T) {
	enginetest.CheckWorkflow(t, "newsletters-paid-launch")
}

func TestInputsMatterNewslettersPaidLaunch(t *testing.T) {
	enginetest.CheckInputsMatter(t, "newsletters-paid-launch")
}

func TestInvariantsNewslettersSenderWarmup(t *testing.T) {
	enginetest.CheckWorkflow(t, "newsletters-sender-warmup")
}

func TestInputsMatterNewslettersSenderWarmup(t *testing.T) {
	enginetest.CheckInputsMatter(t, "newsletters-sender-warmup")
}
