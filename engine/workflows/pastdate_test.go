package workflows_test

import (
	"strings"
	"testing"

	"github.com/creativeops/creativeops/engine"
	"github.com/creativeops/creativeops/engine/enginetest"
)

// Every workflow declares what it does when its event date is already
// past, and does it: a post-event plan with no pre-event task from as_of
// on, a re-plan on a feasible date, or passed entries left out.
func TestPastDatePolicy(t *testing.T) {
	for _, w := range engine.Workflows("") {
		t.Run(w.ID, func(t *testing.T) { enginetest.CheckPastDate(t, w.ID) })
	}
}

// A book already on sale is not "moved": the plan is for the book that is
// out, without galleys, pre-orders or a new publication date.
func TestPublishingBookOnSaleGetsPostEventPlan(t *testing.T) {
	ctx := mediaExample(t, "publishing-launch-timeline")
	ctx["pub_date"] = "2026-11-10"
	res := run(t, "publishing-launch-timeline", ctx)
	tl := res["timeline"].(map[string]any)
	if tl["post_event"] != true || tl["feasible_date"] != nil || !hasWarning(res, "POST_EVENT") {
		t.Fatalf("timeline %v, warnings %v: want a post-event plan, not a re-plan", tl, warningCodes(res))
	}
	for _, r := range res["recommendations"].([]any) {
		title := r.(map[string]any)["title"].(string)
		if strings.Contains(title, "galleys") || strings.Contains(title, "pre-order") || strings.Contains(title, "Move publication") {
			t.Errorf("pre-publication advice for a book on sale: %q", title)
		}
	}
	if s := res["strategy"].(string); !strings.Contains(s, "on sale since 2026-11-10") {
		t.Errorf("strategy %q", s)
	}
}

// A song out for weeks is not told to file "before release".
func TestSongwritingReleasedSongFilesNow(t *testing.T) {
	ctx := mediaExample(t, "songwriting-split-registration")
	ctx["release_date"] = "2026-09-03" // 78 days before the plan date
	res := run(t, "songwriting-split-registration", ctx)
	for _, r := range res["recommendations"].([]any) {
		rr := r.(map[string]any)
		if text := rr["title"].(string) + " " + rr["detail"].(string); strings.Contains(text, "before release") {
			t.Errorf("advice for a released song says %q", text)
		}
	}
	if !hasWarning(res, "POST_EVENT") {
		t.Errorf("warnings %v", warningCodes(res))
	}
}
