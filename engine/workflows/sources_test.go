package workflows_test

import (
	"testing"

	"github.com/creativeops/creativeops/engine"
)

// Every workflow names the published rules its figures follow, with the
// month each was checked, so docs/workflows.md tells users what to re-check
// when a platform or union changes a rule.
func TestEveryWorkflowListsItsSources(t *testing.T) {
	for _, w := range engine.Workflows("") {
		if len(w.Sources) == 0 {
			t.Errorf("%s: no Sources", w.ID)
		}
	}
}
