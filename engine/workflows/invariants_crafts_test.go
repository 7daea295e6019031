package workflows_test

import (
	"testing"

	"github.com/creativeops/creativeops/engine/enginetest"
)

func TestInvariantsCraftsEtsyPricing(t *testing.T) {
	enginetest.CheckWorkflow(t, "crafts-etsy-pricing")
}

func TestInputsMatterCraftsEtsyPricing(t *testing.T) {
	enginetest.CheckInputsMatter(t, "crafts-etsy-pricing")
}

func TestInvariantsCraftsMarketFair(t *testing.T) { enginetest.CheckWorkflow(t, "crafts-market-fair") }

func TestInputsMatterCraftsMarketFair(t *testing.T) {
	enginetest.CheckInputsMatter(t, "crafts-market-fair")
}
