package workflows_test

import (
	"testing"

	"github.com/creativeops/creativeops/engine/enginetest"
)

func TestInvariantsAnimationCommercialQuote(t *testing.T) {
	enginetest.CheckWorkflow(t, "animation-commercial-quote")
}

func TestInputsMatterAnimationCommercialQuote(t *testing.T) {
	enginetest.CheckInputsMatter(t, "animation-commercial-quote")
}

func TestInvariantsAnimationShortProduction(t *testing.T) {
	enginetest.CheckWorkflow(t, "animation-short-production")
}

func TestInputsMatterAnimationShortProduction(t *testing.T) {
	enginetest.CheckInputsMatter(t, "animation-short-production")
}
