package workflows_test

import (
	"math"
	"strings"
	"testing"

	"github.com/creativeops/creativeops/engine"
)

func TestAudiobooksProductionPlanHoursCostAndSchedule(t *testing.T) {
	res := run(t, "audiobooks-production-plan", mediaExample(t, "audiobooks-production-plan"))
	// 84,000 words / 9,300 = 9.0 finished hours; × 6.2 h of work / 6 h a day → 10 days.
	if h := mediaNum(t, res, "finished_hours"); h != 9 {
		t.Fatalf("finished hours %v, want 9.0", h)
	}
	if d := mediaNum(t, res, "production_days"); d != 10 {
		t.Errorf("production days %v, want 10", d)
	}
	if c := mediaNum(t, res, "money", "production_cost_usd"); c != 9*275 {
		t.Errorf("PFH cost %v, want 2475", c)
	}
	// 5–10 h band $15–25: ACX pays 40% exclusive on Audible's net receipts,
	// assumed 50% (35–70%) of the $20 midpoint: $4 a sale ($2.80–$5.60),
	// not the $8 that 40% of list would give.
	if s := mediaNum(t, res, "money", "author_per_sale_usd"); s != 4 {
		t.Errorf("per sale %v, want 4 (40%% of net receipts, not of list)", s)
	}
	if r := mediaAt(t, res, "money", "author_per_sale_range_usd").([]any); r[0] != 2.8 || r[1] != 5.6 {
		t.Errorf("per-sale range %v, want [2.8 5.6]", r)
	}
	if n := mediaNum(t, res, "money", "break_even_sales"); n != math.Ceil(2475.0/4) {
		t.Errorf("break-even sales %v, want 619", n)
	}
	if r := mediaAt(t, res, "money", "break_even_sales_range").([]any); r[0] != math.Ceil(2475/5.6) || r[1] != math.Ceil(2475/2.8) {
		t.Errorf("break-even range %v, want [442 884]", r)
	}
	// ACX review: submitted 14 business days before release.
	if n := tvBizDays(engine.FormatDate(milestoneDate(t, res, "submit-to-acx")), "2027-04-06"); n != 14 {
		t.Errorf("submitted %d business days before release, want 14", n)
	}
	// 10 studio days at 4 a week = 3 weeks of recording.
	if d := engine.DaysBetween(milestoneDate(t, res, "recording-starts"), milestoneDate(t, res, "recording-ends")); d != 21 {
		t.Errorf("recording spans %d days, want 21", d)
	}
}

func TestAudiobooksProductionPlanWarnings(t *testing.T) {
	res := run(t, "audiobooks-production-plan", map[string]any{
		"word_count": 120000, "release_date": "2027-01-05", "deal": "royalty_share", "distribution": "non_exclusive", "as_of": "2026-11-20",
	})
	for _, code := range []string{"RELEASE_TOO_SOON", "ROYALTY_SHARE_REQUIRES_EXCLUSIVE"} {
		if !hasWarning(res, code) {
			t.Errorf("missing %s in %v", code, warningCodes(res))
		}
	}
	if s := mediaNum(t, res, "money", "author_share_pct"); s != 20 {
		t.Errorf("royalty share splits 40%% evenly: author %v%%, want 20", s)
	}
	earliest := mediaDate(t, res, "earliest_feasible_release")
	if !earliest.After(mediaDay("2027-01-05")) {
		t.Errorf("earliest release %v should be after the requested one", earliest)
	}
	cheap := run(t, "audiobooks-production-plan", map[string]any{"word_count": 93000, "release_date": "2027-06-01", "rate_pfh_usd": 100, "budget_usd": 500, "as_of": "2026-11-20"})
	for _, code := range []string{"RATE_BELOW_PRO_RANGE", "BUDGET_SHORT"} {
		if !hasWarning(cheap, code) {
			t.Errorf("missing %s in %v", code, warningCodes(cheap))
		}
	}
	if a := mediaNum(t, cheap, "money", "affordable_pfh_usd"); a != 50 {
		t.Errorf("$500 over 10 finished hours pays $50 PFH, got %v", a)
	}
}

func TestAudiobooksACXCheckFixesAndDates(t *testing.T) {
	res := run(t, "audiobooks-acx-check", mediaExample(t, "audiobooks-acx-check"))
	if mediaNum(t, res, "failing_files") != 2 || mediaNum(t, res, "passing_files") != 3 {
		t.Fatalf("failing %v passing %v", res["failing_files"], res["passing_files"])
	}
	ch2 := res["files"].([]any)[2].(map[string]any)
	// -24.6 dB RMS needs +4.6 dB to reach -20; that lifts the -6.5 dB peak to
	// -1.9 (limit 1.1 dB) and the -63 dB floor to -58.4 (reduce 1.6 dB).
	if ch2["gain_db"] != 4.6 || len(ch2["fixes"].([]any)) != 3 {
		t.Errorf("chapter two fixes %v", ch2)
	}
	for _, code := range []string{"RMS_OUT_OF_RANGE", "PEAK_TOO_HIGH", "FILE_TOO_LONG"} {
		if !hasWarning(res, code) {
			t.Errorf("missing %s in %v", code, warningCodes(res))
		}
	}
	// 14 ACX business days after Friday 2026-12-04: ACX is a US service
	// closed 24 December–1 January, so the 14th is Monday 2027-01-04.
	if d := res["review_complete_estimate"]; d != "2027-01-04" {
		t.Errorf("review ends %v, want 2027-01-04 (14 US business days, dead week skipped)", d)
	}
}

func TestAudiobooksACXCheckPackageAndFixTime(t *testing.T) {
	files := []any{}
	for i := 0; i < 12; i++ {
		files = append(files, map[string]any{"name": "ch", "rms_db": -26.0, "peak_db": -9.0, "noise_floor_db": -70.0, "duration_minutes": 30.0, "channels": []string{"mono", "stereo"}[i%2]})
	}
	res := run(t, "audiobooks-acx-check", map[string]any{
		"files": files, "retail_sample_minutes": 7, "has_closing_credits": false, "submission_date": "2026-11-23", "as_of": "2026-11-20",
	})
	for _, code := range []string{"MIXED_CHANNELS", "CREDITS_MISSING", "RETAIL_SAMPLE_LENGTH", "FIX_TIME_SHORT", "RMS_OUT_OF_RANGE"} {
		if !hasWarning(res, code) {
			t.Errorf("missing %s in %v", code, warningCodes(res))
		}
	}
	// 12 failing files: 3 days of remastering + 2 for the final listen, in
	// US business days from Friday 2026-11-20: Thanksgiving (26 November) is
	// skipped, so the earliest submission is Monday 2026-11-30, and the plan
	// is built on it.
	if res["earliest_submission_date"] != "2026-11-30" || !hasWarning(res, "REPLANNED") {
		t.Errorf("earliest submission %v (want 2026-11-30), warnings %v", res["earliest_submission_date"], warningCodes(res))
	}
	if d := engine.FormatDate(milestoneDate(t, res, "submit")); d != "2026-11-30" {
		t.Errorf("submission milestone %s, want the re-planned 2026-11-30", d)
	}
	tl := res["timeline"].(map[string]any)
	if tl["requested_date"] != "2026-11-23" || tl["feasible_date"] != "2026-11-30" {
		t.Errorf("timeline %v", tl)
	}
}

// A release too close is re-planned: every milestone is built on the
// earliest feasible release, none lies before the plan date, and the
// requested date is kept beside it.
func TestAudiobooksProductionPlanReplansOnTheFeasibleRelease(t *testing.T) {
	res := run(t, "audiobooks-production-plan", map[string]any{"word_count": 120000, "release_date": "2027-01-05", "as_of": "2026-11-20"})
	earliest := res["earliest_feasible_release"].(string)
	tl := res["timeline"].(map[string]any)
	if tl["requested_date"] != "2027-01-05" || tl["feasible_date"] != earliest || !hasWarning(res, "REPLANNED") {
		t.Fatalf("timeline %v, earliest %v", tl, earliest)
	}
	if d := engine.FormatDate(milestoneDate(t, res, "on-sale")); d != earliest {
		t.Errorf("on-sale milestone %s, want the feasible %s", d, earliest)
	}
	if d := milestoneDate(t, res, "casting-opens"); d.Before(mediaDay("2026-11-20")) {
		t.Errorf("casting opens %s, before the plan date", engine.FormatDate(d))
	}
	if s := res["strategy"].(string); !strings.Contains(s, "release on "+earliest) {
		t.Errorf("strategy does not plan on the feasible release: %s", s)
	}
}

// A release in the dead week moves to the last working day before it when
// the schedule allows.
func TestAudiobooksProductionPlanAvoidsTheDeadWeek(t *testing.T) {
	res := run(t, "audiobooks-production-plan", map[string]any{"word_count": 30000, "release_date": "2027-12-28", "as_of": "2026-11-20"})
	if !hasWarning(res, "RELEASE_IN_DEAD_WEEK") || engine.FormatDate(milestoneDate(t, res, "on-sale")) != "2027-12-23" {
		t.Errorf("warnings %v, on-sale %s; want 2027-12-23", warningCodes(res), engine.FormatDate(milestoneDate(t, res, "on-sale")))
	}
}

// The ACX limiter arithmetic: ACX Audio Submission Requirements allow peaks
// of at most -3 dB, and MP3 encoding raises peaks a few tenths of a dB, so
// the mastering chain (Audacity manual, ACX Check) sets the limiter ceiling
// at -3.5 dB. The limiting a file needs is measured to that ceiling: the
// workflow used to measure it to -3 dB while naming a -3.5 dB ceiling,
// leaving every limited file half a dB hot.
func TestAudiobooksACXLimiterReachesTheMinus3Point5dBCeiling(t *testing.T) {
	res := run(t, "audiobooks-acx-check", mediaExample(t, "audiobooks-acx-check"))
	ch2 := res["files"].([]any)[2].(map[string]any)
	// The limiter ceiling is -3.5 dB (ACX Audio Submission Requirements:
	// peaks at most -3 dB; MP3 encoding adds a few tenths, so the mastering
	// chain limits to -3.5 dB): chapter two's -6.5 dB peak lifted 4.6 dB to
	// -1.9 dB needs 1.6 dB of limiting, not the 1.1 dB that only reaches -3.
	if got := ch2["fixes"].([]any)[1]; got != "limit peaks by 1.6 dB (ceiling -3.5 dB for MP3 headroom)" {
		t.Errorf("chapter two limiter fix %q, want 1.6 dB to the -3.5 dB ceiling (ACX: peaks ≤ -3 dB; limiter at -3.5 dB)", got)
	}
	// Chapter three: RMS in range, -1.8 dB peak: 1.7 dB to -3.5 dB.
	ch3 := res["files"].([]any)[3].(map[string]any)
	if got := ch3["fixes"].([]any)[0]; got != "limit peaks by 1.7 dB (ceiling -3.5 dB for MP3 headroom)" {
		t.Errorf("chapter three limiter fix %q, want 1.7 dB", got)
	}
}

// Missing credits and a 30-second retail sample are ACX rejection reasons
// (ACX Audio Submission Requirements), so a book whose files all measure
// right is still not ready: the verdict names the package fixes and the
// schedule leaves a business day for them.
func TestAudiobooksACXCheckPackageProblemsAreFixesBeforeSubmitting(t *testing.T) {
	files := []any{map[string]any{"name": "01 Chapter One", "rms_db": -20.0, "peak_db": -4.0, "noise_floor_db": -65.0, "duration_minutes": 40.0}}
	res := run(t, "audiobooks-acx-check", map[string]any{
		"files": files, "has_opening_credits": false, "has_closing_credits": false, "retail_sample_minutes": 0.5,
		"submission_date": "2026-12-04", "as_of": "2026-11-20",
	})
	if mediaNum(t, res, "failing_files") != 0 {
		t.Fatalf("the chapter file measures right: %v", res["files"])
	}
	s := res["strategy"].(string)
	if strings.Contains(s, "nothing to fix") || !strings.Contains(s, "record the opening and closing credits") || !strings.Contains(s, "retail sample") {
		t.Errorf("strategy ignores the rejection reasons: %s", s)
	}
	if res["ready_to_submit"] != false {
		t.Errorf("ready_to_submit %v with credits and sample missing", res["ready_to_submit"])
	}
	fixes := milestoneDate(t, res, "package-fixes")
	if n := tvBizDays(engine.FormatDate(fixes), engine.FormatDate(milestoneDate(t, res, "submit"))); n != 2 {
		t.Errorf("package fixed %d business days before submission, want 2 (a final listen between)", n)
	}
	// The same files with the package complete: nothing left to fix.
	ok := run(t, "audiobooks-acx-check", map[string]any{"files": files, "retail_sample_minutes": 3, "submission_date": "2026-12-04", "as_of": "2026-11-20"})
	if s := ok["strategy"].(string); !strings.Contains(s, "nothing to fix") || ok["ready_to_submit"] != true {
		t.Errorf("a complete package: %s (ready %v)", s, ok["ready_to_submit"])
	}
}
