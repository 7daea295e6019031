package workflows_test

import (
	"testing"

	"github.com/creativeops/creativeops/engine/enginetest"
)

func TestInvariantsDesignProjectQuote(t *testing.T) {
	enginetest.CheckWorkflow(t, "design-project-quote")
}

func TestInputsMatterDesignProjectQuote(t *testing.T) {
	enginetest.CheckInputsMatter(t, "design-project-quote")
}

func TestInvariantsDesignRateReview(t *testing.T) { enginetest.CheckWorkflow(t, "design-rate-review") }

func TestInputsMatterDesignRateReview(t *testing.T) {
	enginetest.CheckInputsMatter(t, "design-rate-review")
}
