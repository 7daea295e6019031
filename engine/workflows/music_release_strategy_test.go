package workflows_test

import (
	"testing"
	"time"

	"github.com/creativeops/creativeops/engine"
)

func TestReleaseStrategyWednesdayMovesToFriday(t *testing.T) {
	res := run(t, "release-strategy", map[string]any{
		"artist": "A", "genre": "house", "releaseDate": "2027-03-03", "as_of": "2026-11-20",
	})
	if !hasWarning(res, "RELEASE_NOT_FRIDAY") {
		t.Fatalf("no RELEASE_NOT_FRIDAY warning: %v", warningCodes(res))
	}
	if res["release_date"] != "2027-03-05" {
		t.Fatalf("proposed release %v, want the Friday 2027-03-05", res["release_date"])
	}
	release := milestoneDate(t, res, "release-day")
	if release.Weekday() != time.Friday {
		t.Fatalf("release day %v is not a Friday", release)
	}
	pitch := milestoneDate(t, res, "pitch-deadline")
	if engine.DaysBetween(pitch, release) < 7 {
		t.Fatalf("pitch deadline %v is less than 7 days before %v", pitch, release)
	}
	delivery := milestoneDate(t, res, "distributor-delivery")
	if d := engine.DaysBetween(delivery, release); d < 21 || d > 31 {
		t.Fatalf("distributor delivery %d days out, want 21–28 (+weekend)", d)
	}
	if len(warningCodes(res)) != 1 {
		t.Fatalf("unexpected warnings: %v", warningCodes(res))
	}
}

func TestReleaseStrategyTooSoon(t *testing.T) {
	res := run(t, "release-strategy", map[string]any{
		"artist": "A", "genre": "jazz", "release_date": "2026-11-27", "as_of": "2026-11-22",
		"formats": []any{"digital", "vinyl"},
	})
	for _, code := range []string{"PITCH_WINDOW_MISSED", "DISTRIBUTOR_LEAD_TIME", "VINYL_LEAD_TIME", "MILESTONE_PASSED"} {
		if !hasWarning(res, code) {
			t.Errorf("missing %s in %v", code, warningCodes(res))
		}
	}
	if res["earliest_feasible_release_date"] != "2026-12-18" {
		t.Errorf("earliest feasible %v, want 2026-12-18 (first Friday ≥ 21 days out)", res["earliest_feasible_release_date"])
	}
	for _, r := range res["recommendations"].([]any) {
		if r.(map[string]any)["title"] == "Pitch to Spotify editorial" {
			t.Error("recommends an editorial pitch that can no longer be made")
		}
	}
}

func TestReleaseStrategyAlbumFocusTracksAndBudget(t *testing.T) {
	res := run(t, "release-strategy", map[string]any{
		"artist": "A", "genre": "rock", "release_date": "2027-06-04", "release_type": "album", "budget_usd": 10000, "as_of": "2026-11-20",
	})
	release := milestoneDate(t, res, "release-day")
	f1, f2 := milestoneDate(t, res, "focus-track-1"), milestoneDate(t, res, "focus-track-2")
	if !(f1.Before(f2) && f2.Before(release)) || f1.Weekday() != time.Friday || f2.Weekday() != time.Friday {
		t.Fatalf("focus tracks %v %v not Fridays before %v", f1, f2, release)
	}
	if !milestoneDate(t, res, "distributor-delivery").Before(f1) {
		t.Fatal("distributor delivery must precede the first focus track")
	}
	split := res["budget"].(map[string]any)["split_usd"].(map[string]any)
	var sum float64
	for _, v := range split {
		sum += v.(float64)
	}
	if sum != 10000 {
		t.Fatalf("budget split sums to %v, want 10000", sum)
	}
}
