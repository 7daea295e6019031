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
	// podcasting, publishing, screenwriting, social-media, songwriting, tabletop, television, theater, video, visual-art
	"songwriting-split-registration",    // songwriting
	"songwriting-sync-quote",            // songwriting
	"television-episode-delivery",       // television
	"television-writers-room",           // television
	"screenwriting-contest-plan",        // screenwriting
	"screenwriting-draft-schedule",      // screenwriting
	"publishing-launch-timeline",        // publishing
	"publishing-query-plan",             // publishing
	"podcasting-launch-plan",            // podcasting
	"podcasting-sponsorship-rates",      // podcasting
	"visual-art-exhibition",             // visual-art
	"visual-art-open-calls",             // visual-art
	"visual-art-pricing",                // visual-art
	"tabletop-kickstarter-campaign",     // tabletop
	"tabletop-manufacturing-freight",    // tabletop
	"video-sponsored-integration",       // video
	"video-youtube-partner-eligibility", // video
	"social-media-brand-deal",           // social-media
	"social-media-content-calendar",     // social-media
	"theater-production-budget",         // theater
	"theater-rehearsal-schedule",        // theater
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
