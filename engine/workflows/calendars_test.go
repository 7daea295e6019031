package workflows_test

import (
	"testing"

	"github.com/creativeops/creativeops/engine"
	"github.com/creativeops/creativeops/engine/enginetest"
)

// Every workflow that takes a country keeps its hand-overs off the closed
// days of each of the engine's calendars, and its precedences, when it is
// planned and when it is re-planned later.
func TestEveryWorkflowOnEveryCalendar(t *testing.T) {
	for _, w := range engine.Workflows("") {
		// Runs are independent: in parallel, the 35 calendars of every
		// workflow take half the time on two cores.
		t.Run(w.ID, func(t *testing.T) {
			t.Parallel()
			enginetest.CheckCalendars(t, w.ID)
		})
	}
}
