package workflows_test

import (
	"strings"
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

func TestReleaseStrategyTooSoonIsReplanned(t *testing.T) {
	res := run(t, "release-strategy", map[string]any{
		"artist": "A", "genre": "jazz", "release_date": "2026-11-27", "as_of": "2026-11-22",
		"formats": []any{"digital", "vinyl"},
	})
	for _, code := range []string{"PITCH_WINDOW_MISSED", "DISTRIBUTOR_LEAD_TIME", "REPLANNED", "VINYL_LEAD_TIME"} {
		if !hasWarning(res, code) {
			t.Errorf("missing %s in %v", code, warningCodes(res))
		}
	}
	// The plan is built on the first Friday at least 21 days out, and the
	// requested date is kept beside it.
	if res["earliest_feasible_release_date"] != "2026-12-18" || res["release_date"] != "2026-12-18" ||
		res["requested_release_date"] != "2026-11-27" || res["timeline"].(map[string]any)["feasible_date"] != "2026-12-18" {
		t.Errorf("release %v (earliest %v, requested %v), want the plan built on 2026-12-18",
			res["release_date"], res["earliest_feasible_release_date"], res["requested_release_date"])
	}
	asOf := mediaDay("2026-11-22")
	if d := milestoneDate(t, res, "release-day"); d != mediaDay("2026-12-18") {
		t.Errorf("release-day milestone %v, want 2026-12-18", d)
	}
	for _, m := range res["timeline"].(map[string]any)["milestones"].([]any) {
		mm := m.(map[string]any)
		if d, _ := engine.ParseDate(mm["date"].(string)); d.Before(asOf) {
			t.Errorf("milestone %v on %v is before the plan date", mm["key"], mm["date"])
		}
	}
	for _, r := range res["recommendations"].([]any) {
		rm := r.(map[string]any)
		if due, ok := rm["due_date"].(string); ok && due < "2026-11-22" {
			t.Errorf("recommendation %q due %s, before the plan date", rm["title"], due)
		}
	}
	// The vinyl cannot make it: 1 week for artwork, 16 for the plant, 2 to
	// the distributor from 2026-11-22 is 2027-04-04 at the earliest, a Friday
	// on or after it.
	if res["vinyl_release_date"] != "2027-04-09" {
		t.Errorf("vinyl release %v, want 2027-04-09", res["vinyl_release_date"])
	}
}

func TestReleaseStrategyPastDateGetsPostReleasePlan(t *testing.T) {
	res := run(t, "release-strategy", map[string]any{
		"artist": "A", "genre": "rock", "release_date": "2026-10-02", "as_of": "2026-11-20",
	})
	if res["plan_kind"] != "post_release" || !hasWarning(res, "POST_EVENT") {
		t.Fatalf("plan kind %v, warnings %v", res["plan_kind"], warningCodes(res))
	}
	for _, r := range res["recommendations"].([]any) {
		rm := r.(map[string]any)
		if rm["title"] == "Pitch to Spotify editorial" {
			t.Error("recommends an editorial pitch for released music")
		}
		if due, ok := rm["due_date"].(string); ok && due < "2026-11-20" {
			t.Errorf("recommendation %q due %s, before the plan date", rm["title"], due)
		}
	}
	if d := milestoneDate(t, res, "post-release-review"); d != mediaDay("2026-11-20") {
		t.Errorf("four-week review %v, want the plan date (release + 28 days has passed)", d)
	}
}

// The summary used to give release day − 28 as the distributor date while
// the timeline of an EP delivers 28 days before the focus track: one date.
func TestReleaseStrategySummaryDistributorDateMatchesTimeline(t *testing.T) {
	w, _ := engine.LookupWorkflow("release-strategy")
	res := run(t, "release-strategy", clone(w.ExampleContext))
	delivery := milestoneDate(t, res, "distributor-delivery")
	if focus := milestoneDate(t, res, "focus-track-1"); engine.DaysBetween(delivery, focus) < 28 {
		t.Errorf("delivery %v is less than 28 days before the focus track %v", delivery, focus)
	}
	if !strings.Contains(res["strategy"].(string), "deliver to the distributor by "+engine.FormatDate(delivery)) {
		t.Errorf("strategy %q does not state the timeline's delivery date %v", res["strategy"], engine.FormatDate(delivery))
	}
	for _, r := range res["recommendations"].([]any) {
		rm := r.(map[string]any)
		if rm["title"] == "Deliver to your distributor early" && rm["due_date"] != engine.FormatDate(delivery) {
			t.Errorf("delivery recommendation due %v, timeline says %v", rm["due_date"], engine.FormatDate(delivery))
		}
	}
}

// Pressing plants quote 12–16 weeks from approved masters and final
// artwork (the plant prints jackets and labels from it); the plan uses 16
// weeks plus 2 to reach the distributor, and artwork is final a week before
// the masters go out, never after.
func TestReleaseStrategyVinylSixteenWeeksAfterFinalArtwork(t *testing.T) {
	res := run(t, "release-strategy", map[string]any{
		"artist": "A", "genre": "indie", "release_date": "2027-06-04", "formats": []any{"digital", "vinyl"}, "as_of": "2026-11-20",
	})
	masters, artwork := milestoneDate(t, res, "vinyl-masters"), milestoneDate(t, res, "artwork-metadata")
	if !artwork.Before(masters) {
		t.Errorf("artwork final %v is not before vinyl masters %v", artwork, masters)
	}
	stock := milestoneDate(t, res, "vinyl-stock")
	if weeks := engine.DaysBetween(masters, stock) / 7; weeks < 16 {
		t.Errorf("masters %v to stock %v is %d weeks, want 16 (pressing plants quote 12–16 weeks from approved masters and artwork; the safe end is planned)", masters, stock, weeks)
	}
	if engine.DaysBetween(stock, milestoneDate(t, res, "release-day")) != 14 {
		t.Errorf("stock %v is not 2 weeks before release", stock)
	}
	if hasWarning(res, "VINYL_LEAD_TIME") {
		t.Errorf("28 weeks out leaves room for vinyl: %v", warningCodes(res))
	}
}

// Vinyl is pressed before it is marketed: at 300 units it costs $1,000
// set-up (lacquers, plating, test pressings) + $6 a unit = $2,800, taken
// from the budget before the marketing split.
func TestReleaseStrategyBudgetHasPressingLine(t *testing.T) {
	ctx := map[string]any{"artist": "A", "genre": "indie pop", "release_date": "2027-06-04", "formats": []any{"digital", "vinyl"}, "budget_usd": 5000, "as_of": "2026-11-20"}
	res := run(t, "release-strategy", ctx)
	b := res["budget"].(map[string]any)
	if v := b["manufacturing_usd"].(map[string]any)["vinyl"]; v != 2800.0 {
		t.Fatalf("vinyl pressing %v, want 2800", v)
	}
	if b["marketing_usd"] != 2200.0 {
		t.Fatalf("marketing %v, want 5000 − 2800", b["marketing_usd"])
	}
	ctx["formats"] = []any{"digital"}
	if b := run(t, "release-strategy", ctx)["budget"].(map[string]any); b["marketing_usd"] != 5000.0 || len(b["manufacturing_usd"].(map[string]any)) != 0 {
		t.Fatalf("digital only: %v", b)
	}
}

// Genre changes more than wording: the budget split and the lead channel
// (country radio 8 weeks out, dance DJ promo 4 weeks out).
func TestReleaseStrategyGenreChangesPlan(t *testing.T) {
	ctx := map[string]any{"artist": "A", "genre": "country", "release_date": "2027-06-04", "budget_usd": 10000, "as_of": "2026-11-20"}
	country := run(t, "release-strategy", ctx)
	ctx["genre"] = "deep house"
	dance := run(t, "release-strategy", ctx)
	release := mediaDay("2027-06-04")
	if d := engine.DaysBetween(milestoneDate(t, country, "lead-channel"), release); d != 56 {
		t.Errorf("country radio starts %d days out, want 56", d)
	}
	if d := engine.DaysBetween(milestoneDate(t, dance, "lead-channel"), release); d != 28 {
		t.Errorf("DJ promo starts %d days out, want 28", d)
	}
	cs := country["budget"].(map[string]any)["split_usd"].(map[string]any)
	ds := dance["budget"].(map[string]any)["split_usd"].(map[string]any)
	if cs["lead_channel"] != 3000.0 || ds["lead_channel"] != 2500.0 || cs["paid_ads"] == ds["paid_ads"] {
		t.Errorf("country split %v, dance split %v", cs, ds)
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

// Deliverables fall on open days: a release on Friday 2027-01-29 puts the
// distributor delivery 28 days earlier on Friday 2027-01-01, New Year's
// Day, inside the dead week; it moves to the previous open day, Wednesday
// 2026-12-23, and the artwork lock a week before it stays before it.
func TestReleaseStrategyDeliverablesAvoidClosedDays(t *testing.T) {
	res := run(t, "release-strategy", map[string]any{"artist": "A", "genre": "pop", "release_date": "2027-01-29", "as_of": "2026-11-20"})
	if d := milestoneDate(t, res, "distributor-delivery"); d != mediaDay("2026-12-23") {
		t.Errorf("distributor delivery %v, want 2026-12-23", d)
	}
	if a := milestoneDate(t, res, "artwork-metadata"); !a.Before(milestoneDate(t, res, "distributor-delivery")) || engine.Closed(a, engine.RegionUS) {
		t.Errorf("artwork %v", a)
	}
	// A Christmas release is warned about with a better date.
	res = run(t, "release-strategy", map[string]any{"artist": "A", "genre": "pop", "release_date": "2027-12-31", "as_of": "2026-11-20"})
	if !hasWarning(res, "RELEASE_IN_DEAD_WEEK") || res["better_release_date"] != "2028-01-07" {
		t.Errorf("dead-week release: %v, better %v", warningCodes(res), res["better_release_date"])
	}
}

// Vinyl for November and December is planned at 20 weeks at the plant
// (holiday rush) instead of 16.
func TestReleaseStrategyHolidayVinylPlansTheRush(t *testing.T) {
	res := run(t, "release-strategy", map[string]any{"artist": "A", "genre": "indie", "release_date": "2027-11-26", "formats": []any{"digital", "vinyl"}, "as_of": "2026-11-20"})
	masters, stock := milestoneDate(t, res, "vinyl-masters"), milestoneDate(t, res, "vinyl-stock")
	if weeks := engine.DaysBetween(masters, stock) / 7; weeks < 20 {
		t.Errorf("masters %v to stock %v is %d weeks, want 20 for a holiday release", masters, stock, weeks)
	}
}

// Spotify for Artists takes a pitch for each unreleased release at least 7
// days before it, one song at a time: every focus track before an album
// gets its own pitch, after the previous release is out.
func TestReleaseStrategyPitchesEveryFocusTrack(t *testing.T) {
	res := run(t, "release-strategy", map[string]any{
		"artist": "A", "genre": "indie pop", "release_date": "2027-05-07", "release_type": "album", "as_of": "2026-11-20",
	})
	prevRelease := time.Time{}
	for _, i := range []string{"1", "2"} {
		track := milestoneDate(t, res, "focus-track-"+i)
		pitch := milestoneDate(t, res, "focus-track-"+i+"-pitch")
		if d := engine.DaysBetween(pitch, track); d < 7 {
			t.Errorf("focus track %s pitched %d days before it comes out, want at least 7", i, d)
		}
		if !prevRelease.IsZero() && pitch.Before(prevRelease) {
			t.Errorf("focus track %s pitched %s, before the previous release on %s is out", i, engine.FormatDate(pitch), engine.FormatDate(prevRelease))
		}
		prevRelease = track
	}
	if p := milestoneDate(t, res, "editorial-pitch"); p.Before(prevRelease) {
		t.Errorf("album pitched %s, before the last focus track is out on %s", engine.FormatDate(p), engine.FormatDate(prevRelease))
	}
	titles := ""
	for _, r := range res["recommendations"].([]any) {
		titles += r.(map[string]any)["title"].(string) + "; "
	}
	if !strings.Contains(titles, "Pitch focus track 1") || !strings.Contains(titles, "Pitch focus track 2") {
		t.Errorf("no pitch recommendation per focus track: %s", titles)
	}
}

// CDs are costed, so they are manufactured on the timeline: the master
// goes to the manufacturer 4 weeks (the long end of the one-to-four weeks
// quoted) plus 2 weeks to the distributor before release, or the CD
// follows the digital release.
func TestReleaseStrategySchedulesCDManufacturing(t *testing.T) {
	res := run(t, "release-strategy", map[string]any{
		"artist": "A", "genre": "folk", "release_date": "2027-05-07", "formats": []any{"digital", "cd"}, "as_of": "2026-11-20",
	})
	release := milestoneDate(t, res, "release-day")
	if d := engine.DaysBetween(milestoneDate(t, res, "cd-master"), release); d < 42 {
		t.Errorf("CD master %d days before release, want at least 42 (4 weeks to make, 2 to ship)", d)
	}
	if d := engine.DaysBetween(milestoneDate(t, res, "cd-stock"), release); d != 14 {
		t.Errorf("CD stock %d days before release, want 14", d)
	}
	if d := engine.DaysBetween(milestoneDate(t, res, "artwork-metadata"), milestoneDate(t, res, "cd-master")); d < 7 {
		t.Errorf("artwork final %d days before the CD master, want a week", d)
	}
	soon := run(t, "release-strategy", map[string]any{
		"artist": "A", "genre": "folk", "release_date": "2026-12-18", "formats": []any{"digital", "cd"}, "as_of": "2026-11-20",
	})
	if !hasWarning(soon, "CD_LEAD_TIME") || soon["cd_release_date"] != "2027-01-08" {
		t.Errorf("CD release %v (%v); want 2027-01-08, the first Friday 7 weeks out", soon["cd_release_date"], warningCodes(soon))
	}
	if d := milestoneDate(t, soon, "cd-master"); d.Before(mediaDay("2026-11-20")) {
		t.Errorf("CD master %s, before the plan date", engine.FormatDate(d))
	}
}
