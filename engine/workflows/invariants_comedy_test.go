package workflows_test

import (
	"testing"

	"github.com/creativeops/creativeops/engine/enginetest"
)

func TestInvariantsComedyClubTour(t *testing.T) { enginetest.CheckWorkflow(t, "comedy-club-tour") }

func TestInputsMatterComedyClubTour(t *testing.T) {
	enginetest.CheckInputsMatter(t, "comedy-club-tour")
}

func TestInvariantsComedyEdinburghFringe(t *testing.T) {
	enginetest.CheckWorkflow(t, "comedy-edinburgh-fringe")
}

func TestInputsMatterComedyEdinburghFringe(t *testing.T) {
	enginetest.CheckInputsMatter(t, "comedy-edinburgh-fringe")
}
