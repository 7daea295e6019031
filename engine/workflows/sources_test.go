package workflows_test

import (
	"slices"
	"testing"

	"github.com/creativeops/creativeops/engine"
)

// sourcesPending lists the workflows whose owners had not yet listed the
// published rules they follow when this test was written; each owner
// removes its entries as it fills in Workflow.Sources. An entry for a
// workflow that lists its sources fails the test, so the list only shrinks.
// It must be empty when the engine issue is closed.
var sourcesPending = []string{
	// crafts, design, fashion, film, games, illustration, live-events, music, newsletters, photography
	"music-merch-plan",                // music
	"music-tour-budget",               // music
	"release-strategy",                // music
	"film-festival-submissions",       // film
	"film-production-schedule",        // film
	"photography-licensing-quote",     // photography
	"photography-print-editions",      // photography
	"illustration-commission-quote",   // illustration
	"illustration-picture-book",       // illustration
	"fashion-costing",                 // fashion
	"fashion-wholesale-calendar",      // fashion
	"design-project-quote",            // design
	"design-rate-review",              // design
	"crafts-etsy-pricing",             // crafts
	"crafts-market-fair",              // crafts
	"games-steam-break-even",          // games
	"games-steam-discount-calendar",   // games
	"games-steam-launch",              // games
	"newsletters-paid-launch",         // newsletters
	"newsletters-sender-warmup",       // newsletters
	"live-events-production-timeline", // live-events
	"live-events-show-settlement",     // live-events
}

// Every workflow names the published rules its figures follow, with the
// month each was checked, so docs/workflows.md tells users what to re-check
// when a platform or union changes a rule.
func TestEveryWorkflowListsItsSources(t *testing.T) {
	for _, w := range engine.Workflows("") {
		pending := slices.Contains(sourcesPending, w.ID)
		switch {
		case len(w.Sources) == 0 && !pending:
			t.Errorf("%s: no Sources", w.ID)
		case len(w.Sources) > 0 && pending:
			t.Errorf("%s: lists its sources now: remove it from sourcesPending", w.ID)
		}
	}
}
