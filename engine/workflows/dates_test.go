package workflows_test

import (
	"strings"
	"testing"
)

// milestoneByKey returns the timeline entry of key.
func milestoneByKey(t *testing.T, res map[string]any, key string) map[string]any {
	t.Helper()
	for _, m := range res["timeline"].(map[string]any)["milestones"].([]any) {
		if mm := m.(map[string]any); mm["key"] == key {
			return mm
		}
	}
	t.Fatalf("no milestone %q", key)
	return nil
}

// A festival deadline in the dead week is entered before it, and the moved
// date is the one the timeline, the submissions list and the advice give.
func TestFestivalEntryMovedOffDeadWeekEverywhere(t *testing.T) {
	ctx := mediaExample(t, "film-festival-submissions")
	ctx["picture_lock_date"] = "2026-12-01"
	ctx["festivals"] = []any{map[string]any{"name": "Winter Lights", "festival_date": "2027-04-09", "premiere_required": "none",
		"regular_deadline": "2026-12-25", "regular_fee_usd": 40}}
	res := run(t, "film-festival-submissions", ctx)
	var moved map[string]any
	for _, m := range res["timeline"].(map[string]any)["milestones"].([]any) {
		if mm := m.(map[string]any); mm["moved_from"] == "2026-12-25" {
			moved = mm
		}
	}
	if moved == nil || moved["date"] != "2026-12-23" {
		t.Fatalf("submission milestone not moved from 2026-12-25 to 2026-12-23: %v", res["timeline"])
	}
	if got := res["submissions"].([]any)[0].(map[string]any)["submit_by"]; got != "2026-12-23" {
		t.Errorf("submissions[0].submit_by = %v, want the moved 2026-12-23", got)
	}
	for _, r := range res["recommendations"].([]any) {
		if rr := r.(map[string]any); strings.HasPrefix(rr["title"].(string), "Submit to") && rr["due_date"] != "2026-12-23" {
			t.Errorf("%q due %v, want 2026-12-23", rr["title"], rr["due_date"])
		}
	}
}

// A submission asked for on Thanksgiving goes in the day before, and the
// timeline says it was moved.
func TestACXSubmissionOffThanksgivingReportsMove(t *testing.T) {
	ctx := mediaExample(t, "audiobooks-acx-check")
	ctx["as_of"] = "2026-11-02"
	ctx["submission_date"] = "2026-11-26"
	res := run(t, "audiobooks-acx-check", ctx)
	m := milestoneByKey(t, res, "submit")
	if m["date"] != "2026-11-25" || m["moved_from"] != "2026-11-26" {
		t.Fatalf("submit milestone %v, want 2026-11-25 moved from 2026-11-26", m)
	}
	if res["submit_date"] != "2026-11-25" || !strings.Contains(res["strategy"].(string), "2026-11-25") {
		t.Errorf("submit_date %v, strategy %q: want the moved 2026-11-25", res["submit_date"], res["strategy"])
	}
}

// The strategy's galleys date is the galleys milestone's, and each launch
// window's ideal date is its milestone's.
func TestPublishingProseFollowsMilestones(t *testing.T) {
	ctx := mediaExample(t, "publishing-launch-timeline")
	ctx["pub_date"] = "2027-06-01" // galleys five months out: 2027-01-01, a holiday
	res := run(t, "publishing-launch-timeline", ctx)
	galleys := milestoneByKey(t, res, "galleys-to-trade")
	if galleys["date"] == "2027-01-01" || !strings.Contains(res["strategy"].(string), "galleys to reviewers by "+galleys["date"].(string)) {
		t.Errorf("galleys milestone %v, strategy %q", galleys, res["strategy"])
	}
	for _, w := range res["windows"].([]any) {
		ww := w.(map[string]any)
		if m := milestoneByKey(t, res, ww["key"].(string)); ww["ideal"] != m["date"] {
			t.Errorf("window %v: ideal %v, milestone %v", ww["key"], ww["ideal"], m["date"])
		}
	}
}

// The fulfilment date the strategy promises is the fulfilment milestone's,
// also when the milestone moved off a weekend (2027-06-05 is a Saturday).
func TestComicsFulfilmentOneDate(t *testing.T) {
	ctx := mediaExample(t, "comics-kickstarter")
	ctx["launch_date"] = "2027-01-05"
	res := run(t, "comics-kickstarter", ctx)
	f := milestoneByKey(t, res, "fulfilment")
	if f["date"] != "2027-06-04" || f["moved_from"] != "2027-06-05" {
		t.Fatalf("fulfilment milestone %v, want 2027-06-04 moved from 2027-06-05", f)
	}
	if got := res["schedule"].(map[string]any)["fulfilment"]; got != "2027-06-04" {
		t.Errorf("schedule.fulfilment %v, want the milestone's 2027-06-04", got)
	}
	if s := res["strategy"].(string); strings.Contains(s, "2027-06-05") {
		t.Errorf("strategy names the unmoved date: %q", s)
	}
}

// A studio cut-off that would fall on Washington's Birthday is counted on
// the plan's working-day calendar, so it lands on the Friday before, and
// the advice to protect it is due then, not on the holiday.
func TestExhibitionCutoffAdviceFollowsHolidayMove(t *testing.T) {
	ctx := mediaExample(t, "visual-art-exhibition")
	ctx["opening_date"] = "2027-04-01"
	res := run(t, "visual-art-exhibition", ctx)
	cut := milestoneByKey(t, res, "studio-cutoff")
	if cut["date"] != "2027-02-12" {
		t.Fatalf("studio cut-off %v, want the Friday before the 2027-02-15 holiday", cut)
	}
	for _, r := range res["recommendations"].([]any) {
		rr := r.(map[string]any)
		if rr["title"] == "Protect the studio cut-off" && (rr["due_date"] != cut["date"] || strings.Contains(rr["detail"].(string), "2027-02-15")) {
			t.Errorf("advice %v, cut-off milestone %v", rr, cut["date"])
		}
	}
	if strings.Contains(res["strategy"].(string), "2027-02-15") {
		t.Errorf("strategy names the holiday: %q", res["strategy"])
	}
}
