package workflows_test

import (
	"strings"
	"testing"
	"time"

	"github.com/creativeops/creativeops/engine"
)

func TestPublishingLaunchTimelineTuesdayAndWindows(t *testing.T) {
	res := run(t, "publishing-launch-timeline", map[string]any{"title": "B", "pub_date": "2027-09-15", "as_of": "2026-11-20"})
	if !hasWarning(res, "PUB_DATE_NOT_TUESDAY") || res["pub_date"] != "2027-09-21" {
		t.Fatalf("Wednesday 2027-09-15 should move to Tuesday 2027-09-21: %v %v", warningCodes(res), res["pub_date"])
	}
	pub := milestoneDate(t, res, "pub-day")
	galleys := milestoneDate(t, res, "galleys-to-trade")
	if galleys != usCalendar.PrevWorkday(engine.AddMonths(pub, -5)) {
		t.Errorf("galleys %v, want 5 months before %v", galleys, pub)
	}
	if d := engine.DaysBetween(milestoneDate(t, res, "podcast-pitching"), pub); d < 42 || d > 44 {
		t.Errorf("podcasts pitched %d days out, want 6 weeks", d)
	}
	if d := milestoneDate(t, res, "catalog-metadata"); d != usCalendar.PrevWorkday(engine.AddMonths(pub, -9)) {
		t.Errorf("catalog %v, want 9 months out", d)
	}
}

func TestPublishingLaunchTimelineTooSoon(t *testing.T) {
	res := run(t, "publishing-launch-timeline", map[string]any{"title": "B", "pub_date": "2027-02-16", "as_of": "2026-11-20"})
	for _, code := range []string{"BUYER_WINDOW_MISSED", "TRADE_REVIEW_WINDOW_MISSED", "LONG_LEAD_MISSED"} {
		if !hasWarning(res, code) {
			t.Errorf("missing %s in %v", code, warningCodes(res))
		}
	}
	// Buyers need 6 months (182 days): as_of + 182 = 2027-05-21, next Tuesday 2027-05-25.
	if res["earliest_feasible_pub_date"] != "2027-05-25" {
		t.Errorf("earliest pub %v, want 2027-05-25", res["earliest_feasible_pub_date"])
	}
	// The launch is built on that date, not on the one asked for.
	if got := milestoneDate(t, res, "pub-day"); engine.FormatDate(got) != "2027-05-25" {
		t.Errorf("publication milestone %v, want the feasible 2027-05-25", got)
	}
	if tl := res["timeline"].(map[string]any); tl["requested_date"] != "2027-02-16" || tl["feasible_date"] != "2027-05-25" || !hasWarning(res, "REPLANNED") {
		t.Errorf("timeline %v, warnings %v", tl, warningCodes(res))
	}
	for _, m := range res["timeline"].(map[string]any)["milestones"].([]any) {
		if m.(map[string]any)["passed"] == true {
			t.Errorf("re-planned launch has a step in the past: %v", m)
		}
	}
}

func TestPublishingLaunchTimelineIndependentCosts(t *testing.T) {
	res := run(t, "publishing-launch-timeline", map[string]any{
		"title": "B", "pub_date": "2027-06-03", "path": "independent", "formats": []any{"paperback", "ebook", "hardcover", "audiobook"},
		"arc_count": 40, "budget_usd": 500, "as_of": "2026-11-20",
	})
	// Two print formats need ISBNs (2 × $125 = $250, under the $295
	// ten-pack); KDP assigns the ebook an ASIN.
	if c := mediaNum(t, res, "costs", "isbn_usd"); c != 250 {
		t.Errorf("ISBNs %v, want 250", c)
	}
	if c := mediaNum(t, res, "costs", "arc_usd"); c != 40*10.5 {
		t.Errorf("ARCs %v, want 420", c)
	}
	if !hasWarning(res, "BUDGET_SHORT") || mediaNum(t, res, "affordable_arcs") != 23 {
		t.Errorf("$500 − $250 buys 23 ARCs: %v %v", warningCodes(res), res["affordable_arcs"])
	}
	if hasWarning(res, "PUB_DATE_NOT_TUESDAY") {
		t.Error("independent books need not go on sale on a Tuesday")
	}
	if d := engine.DaysBetween(milestoneDate(t, res, "final-ebook-file"), mediaDay("2027-06-03")); d < 3 {
		t.Errorf("final ebook file %d days out, KDP needs 72 hours", d)
	}
}

func TestPublishingQueryPlanBatchesSkipHolidays(t *testing.T) {
	res := run(t, "publishing-query-plan", mediaExample(t, "publishing-query-plan"))
	batches := res["batches"].([]any)
	want := []string{"2026-12-08", "2027-01-12", "2027-02-09", "2027-03-09"}
	if len(batches) != len(want) {
		t.Fatalf("%d batches, want 4", len(batches))
	}
	for i, b := range batches {
		d := b.(map[string]any)["send_date"].(string)
		if d != want[i] || mediaDay(d).Weekday() != time.Tuesday {
			t.Errorf("batch %d on %s, want Tuesday %s (4 weeks apart, none 15 Dec–6 Jan)", i+1, d, want[i])
		}
	}
	if res["querying_complete"] != "2027-05-04" {
		t.Errorf("complete %v, want last batch + 8 weeks", res["querying_complete"])
	}
	if len(warningCodes(res)) != 0 {
		t.Errorf("unexpected warnings %v", warningCodes(res))
	}
}

func TestPublishingQueryPlanPackageChecks(t *testing.T) {
	res := run(t, "publishing-query-plan", map[string]any{
		"genre": "fantasy", "word_count": 150000, "query_words": 420, "agents": 25, "as_of": "2026-11-20",
		"comp_titles": []any{map[string]any{"title": "Old Comp", "year": 2015}, map[string]any{"title": "New Comp", "year": 2024}},
	})
	for _, code := range []string{"WORD_COUNT_OUT_OF_RANGE", "QUERY_TOO_LONG", "COMP_TOO_OLD", "TOO_FEW_COMPS"} {
		if !hasWarning(res, code) {
			t.Errorf("missing %s in %v", code, warningCodes(res))
		}
	}
	batches := res["batches"].([]any)
	if len(batches) != 3 || batches[2].(map[string]any)["queries"] != 5.0 {
		t.Errorf("25 agents in 10s: 10, 10, 5; got %v", batches)
	}
	// Agents pass on a count outside the genre's range, so the plan cuts
	// before it queries: 150,000 words of fantasy is 30,000 over 120,000.
	if s := res["strategy"].(string); !strings.HasPrefix(s, "Cut the manuscript by about 30,000 words to the 90,000–120,000 range (about 30 working days), then query") {
		t.Errorf("strategy queries without cutting: %s", s)
	}
	for _, r := range res["recommendations"].([]any) {
		if rm := r.(map[string]any); rm["title"] == "Finish the query package" && !strings.Contains(rm["detail"].(string), "cut the manuscript") {
			t.Errorf("package recommendation omits the cut: %v", rm["detail"])
		}
	}
}

// A trade book published in the 24 December–1 January dead week is flagged
// with the first Tuesday after it.
func TestPublishingLaunchTimelineDeadWeek(t *testing.T) {
	res := run(t, "publishing-launch-timeline", map[string]any{"title": "B", "pub_date": "2027-12-28", "as_of": "2026-11-20"})
	if !hasWarning(res, "PUB_DATE_IN_DEAD_WEEK") || res["better_pub_date"] != "2028-01-04" {
		t.Errorf("warnings %v, better date %v; want 2028-01-04", warningCodes(res), res["better_pub_date"])
	}
}

// UK trade books are published on Thursdays, US ones on Tuesdays: the
// country input moves publication day.
func TestPublishingLaunchTimelineUKThursday(t *testing.T) {
	res := run(t, "publishing-launch-timeline", map[string]any{"title": "B", "pub_date": "2027-09-14", "country": "UK", "as_of": "2026-11-20"})
	if !hasWarning(res, "PUB_DATE_NOT_THURSDAY") || res["pub_date"] != "2027-09-16" {
		t.Errorf("Tuesday 2027-09-14 in the UK should move to Thursday 2027-09-16: %v %v", warningCodes(res), res["pub_date"])
	}
}

// An independent, ebook-only title: trade reviews are optional for it, so
// missed galley windows are advice and do not move publication; KDP needs
// no ISBN for an ebook (Kindle Direct Publishing, ISBNs) and its final
// file 72 hours before release.
func TestPublishingLaunchTimelineIndependentEbookKeepsItsDate(t *testing.T) {
	res := run(t, "publishing-launch-timeline", map[string]any{
		"title": "B", "pub_date": "2027-01-14", "path": "independent", "formats": []any{"ebook"}, "as_of": "2026-11-20",
	})
	if hasWarning(res, "REPLANNED") || res["pub_date"] != "2027-01-14" {
		t.Fatalf("publication moved to %v (%v); trade-review windows are optional for an independent title", res["pub_date"], warningCodes(res))
	}
	if !hasWarning(res, "TRADE_REVIEW_WINDOW_MISSED") {
		t.Errorf("the missed galley window is not mentioned: %v", warningCodes(res))
	}
	for _, m := range res["timeline"].(map[string]any)["milestones"].([]any) {
		if k := m.(map[string]any)["key"]; k == "galleys-to-trade" || k == "trade-reviews" || k == "long-lead-pitch" {
			t.Errorf("missed optional window %v still scheduled", k)
		}
	}
	if c := mediaNum(t, res, "costs", "isbn_usd"); c != 0 {
		t.Errorf("ISBN cost %v for a KDP ebook, want 0", c)
	}
	if c := mediaNum(t, res, "costs", "fixed_total_usd"); c != 0 {
		t.Errorf("fixed costs %v for an ebook-only title with e-galleys, want 0", c)
	}
	if d := engine.DaysBetween(milestoneDate(t, res, "final-ebook-file"), mediaDay("2027-01-14")); d < 3 {
		t.Errorf("final ebook file %d days out, KDP needs 72 hours", d)
	}
	if s := res["strategy"].(string); strings.Contains(s, "galleys to reviewers by") {
		t.Errorf("strategy still promises trade galleys: %s", s)
	}
	// A production hand-over still re-plans: an ebook due in two days
	// cannot have its final file in 72 hours ahead.
	soon := run(t, "publishing-launch-timeline", map[string]any{
		"title": "B", "pub_date": "2026-11-22", "path": "independent", "formats": []any{"ebook"}, "as_of": "2026-11-20",
	})
	if !hasWarning(soon, "REPLANNED") {
		t.Errorf("a release inside KDP's 72 hours is not re-planned: %v", warningCodes(soon))
	}
}

// An independent paperback past its trade-galley window sends no printed
// ARCs (nothing is costed without the milestone it pays for), and buys its
// ISBN before the proof that prints it.
func TestPublishingLaunchTimelineIndependentPrintCostsHaveMilestones(t *testing.T) {
	res := run(t, "publishing-launch-timeline", map[string]any{
		"title": "B", "pub_date": "2027-02-18", "path": "independent", "formats": []any{"paperback", "ebook"}, "arc_count": 40, "as_of": "2026-11-20",
	})
	if hasWarning(res, "REPLANNED") {
		t.Fatalf("re-planned: %v", warningCodes(res))
	}
	if c := mediaNum(t, res, "costs", "arc_usd"); c != 0 {
		t.Errorf("printed ARCs costed at %v with the galley window skipped", c)
	}
	if c := mediaNum(t, res, "costs", "isbn_usd"); c != 125 {
		t.Errorf("ISBN cost %v, want 125 for the paperback alone", c)
	}
	if isbn, proof := milestoneDate(t, res, "isbns"), milestoneDate(t, res, "print-proof"); isbn.After(proof) {
		t.Errorf("ISBN bought %s, after the proof on %s", engine.FormatDate(isbn), engine.FormatDate(proof))
	}
	// An audiobook moves the date for production: the publicity windows the
	// new date can keep (the 60-day listing) are kept.
	audio := run(t, "publishing-launch-timeline", map[string]any{
		"title": "B", "pub_date": "2026-12-22", "path": "independent", "formats": []any{"ebook", "audiobook"}, "as_of": "2026-11-20",
	})
	if !hasWarning(audio, "REPLANNED") {
		t.Fatalf("an audiobook 32 days out is not re-planned: %v", warningCodes(audio))
	}
	if skipped := audio["skipped_windows"].([]any); len(skipped) != 2 {
		t.Errorf("skipped %v, want only long-lead and trade galleys (the listing fits the re-planned date)", skipped)
	}
	milestoneDate(t, audio, "retail-listing")
}

// usCalendar is the working-day calendar of a plan with no country.
var usCalendar = engine.Calendar{Region: engine.RegionUS}
