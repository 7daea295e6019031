package workflows_test

import (
	"testing"

	"github.com/creativeops/creativeops/engine/enginetest"
)

func TestInvariantsLiveEventsProductionTimeline(t *testing.T) {
	enginetest.CheckWorkflow(t, "live-events-production-timeline")
}

func TestInputsMatterLiveEventsProductionTimeline(t *testing.T) {
	enginetest.CheckInputsMatter(t, "live-events-production-timeline")
}

func TestInvariantsLiveEventsShowSettlement(t *testing.T) {
	enginetest.CheckWorkflow(t, "live-events-show-settlement")
}

func TestInputsMatterLiveEventsShowSettlement(t *testing.T) {
	enginetest.CheckInputsMatter(t, "live-events-show-settlement")
}
