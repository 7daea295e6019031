package workflows_test

import (
	"testing"

	"github.com/creativeops/creativeops/engine/enginetest"
)

func TestInvariantsFilmFestivalSubmissions(t *testing.T) {
	enginetest.CheckWorkflow(t, "film-festival-submissions")
}

func TestInputsMatterFilmFestivalSubmissions(t *testing.T) {
	enginetest.CheckInputsMatter(t, "film-festival-submissions")
}

func TestInvariantsFilmProductionSchedule(t *testing.T) {
	enginetest.CheckWorkflow(t, "film-production-schedule")
}

func TestInputsMatterFilmProductionSchedule(t *testing.T) {
	enginetest.CheckInputsMatter(t, "film-production-schedule")
}
