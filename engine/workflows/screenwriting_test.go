package workflows_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/creativeops/creativeops/engine"
)

func TestScreenwritingDraftScheduleBackwards(t *testing.T) {
	res := run(t, "screenwriting-draft-schedule", mediaExample(t, "screenwriting-draft-schedule"))
	// One-hour pilot: 58 pages at 3 a day, 4 days a week = 20 days = 5 weeks;
	// outline 2, two passes of (1 notes + 2 rewrite), polish 1: 14 weeks.
	if w := mediaNum(t, res, "weeks", "total"); w != 14 {
		t.Fatalf("total weeks %v, want 14", w)
	}
	target := mediaDay("2027-05-01")
	if d := engine.DaysBetween(milestoneDate(t, res, "outline-start"), target); d != 14*7 {
		t.Errorf("outline starts %d days before the target, want 98", d)
	}
	// A week of polish: the pass is due Saturday 24 April, handed over on
	// the Friday before.
	if d := engine.DaysBetween(milestoneDate(t, res, "rewrite-2-done"), target); d != 8 {
		t.Errorf("last rewrite ends %d days out, want a week of polish from the Friday", d)
	}
	if total := mediaNum(t, res, "registration_fees", "total_usd"); total != 20+45 {
		t.Errorf("fees %v, want $20 WGAW + $45 single-author copyright", total)
	}
	member := mediaExample(t, "screenwriting-draft-schedule")
	member["wga_member"], member["writers"] = true, 2
	if total := mediaNum(t, run(t, "screenwriting-draft-schedule", member), "registration_fees", "total_usd"); total != 10+65 {
		t.Errorf("member with co-writer: fees %v, want $10 + $65", total)
	}
}

func TestScreenwritingDraftSchedulePace(t *testing.T) {
	// Feature due in 12 weeks with 2 passes: outline 4 + rewrites 8 + polish 1
	// leaves nothing for the draft.
	none := run(t, "screenwriting-draft-schedule", map[string]any{"target_date": "2027-02-12", "as_of": "2026-11-20"})
	if !hasWarning(none, "SCHEDULE_INFEASIBLE") {
		t.Errorf("want SCHEDULE_INFEASIBLE: %v", warningCodes(none))
	}
	// With no rewrites: 12 weeks − 4 outline − 1 polish = 7 weeks for 110
	// pages at 5 days a week = 3.1 pages a day, above the planned 2.
	tight := run(t, "screenwriting-draft-schedule", map[string]any{"target_date": "2027-02-12", "rewrite_passes": 0, "pages_per_day": 2, "as_of": "2026-11-20"})
	if !hasWarning(tight, "PACE_INCREASE_NEEDED") || mediaNum(t, tight, "required_pages_per_day") != 3.1 {
		t.Errorf("warnings %v, required %v", warningCodes(tight), tight["required_pages_per_day"])
	}
	// Two weeks left for the draft: 110 / 10 days = 11 pages a day, so the
	// plan moves to the date the writer's own pace makes, and its advice
	// is that pace, read from the settled dates, not the 11 refused.
	crunch := run(t, "screenwriting-draft-schedule", map[string]any{"target_date": "2027-01-08", "rewrite_passes": 0, "as_of": "2026-11-20"})
	if !hasWarning(crunch, "PACE_UNREALISTIC") || crunch["required_pages_per_day"] != nil {
		t.Errorf("warnings %v, required %v", warningCodes(crunch), crunch["required_pages_per_day"])
	}
	for _, r := range crunch["recommendations"].([]any) {
		if d := r.(map[string]any)["detail"].(string); strings.Contains(d, "11.0 pages a day") {
			t.Errorf("re-planned schedule still asks for the refused pace: %s", d)
		}
	}
	// 11 pages a day is not a plan: it is built on the earliest date at the
	// writer's own pace instead, with the request beside it.
	earliest, ok := crunch["earliest_feasible_target"].(string)
	if !ok {
		t.Fatal("no earliest feasible target proposed")
	}
	if got := engine.FormatDate(milestoneDate(t, crunch, "target")); got != earliest || !hasWarning(crunch, "REPLANNED") {
		t.Errorf("script goes out %s, want the feasible %s; warnings %v", got, earliest, warningCodes(crunch))
	}
}

func TestScreenwritingContestPlanFeesAndPages(t *testing.T) {
	res := run(t, "screenwriting-contest-plan", mediaExample(t, "screenwriting-contest-plan"))
	if total := mediaNum(t, res, "fees", "total_usd"); total != 50+55+40 {
		t.Errorf("fees %v, want 145", total)
	}
	if saved := mediaNum(t, res, "fees", "saved_vs_late_usd"); saved != (90-50)+(85-55) {
		t.Errorf("saved %v, want 70", saved)
	}
	if !hasWarning(res, "PAGE_LIMIT_EXCEEDED") || !hasWarning(res, "NOT_REGISTERED") {
		t.Errorf("warnings %v", warningCodes(res))
	}
	if len(res["entries"].([]any)) != 3 {
		t.Errorf("the 112-page draft cannot enter the 110-page-cap contest: %v", res["entries"])
	}
	ctx := mediaExample(t, "screenwriting-contest-plan")
	ctx["page_count"], ctx["budget_usd"], ctx["registered"] = 128, 80, true
	long := run(t, "screenwriting-contest-plan", ctx)
	for _, code := range []string{"PAGE_COUNT_OUT_OF_RANGE", "PAGE_LIMIT_EXCEEDED", "OVER_BUDGET"} {
		if !hasWarning(long, code) {
			t.Errorf("missing %s in %v", code, warningCodes(long))
		}
	}
	if hasWarning(long, "NOT_REGISTERED") {
		t.Error("registered script still warned")
	}
}

// Guild and registration advice follows the writer's country: a UK writer
// is told copyright is automatic and to keep dated evidence, and pointed
// to the Writers' Guild of Great Britain, not the WGAW and the US
// Copyright Office; Japan, France, Germany, Canada and Australia get their
// own; a country the table does not cover is warned about instead of
// getting US advice; US writers keep the WGAW Registry and the Copyright
// Office.
func TestScreenwritingRegistrationByCountry(t *testing.T) {
	for _, id := range []string{"screenwriting-draft-schedule", "screenwriting-contest-plan"} {
		w, _ := engine.LookupWorkflow(id)
		for country, want := range map[string]string{
			"US": "WGA", "GB": "Writers' Guild of Great Britain", "JP": "Agency for Cultural Affairs", "FR": "SACD",
			"DE": "VG Wort", "CA": "Writers Guild of Canada", "AU": "Australian Writers' Guild", "BR": "",
		} {
			ctx := clone(w.ExampleContext)
			ctx["country"] = country
			res := run(t, id, ctx)
			text := resultText(res)
			j, _ := res["jurisdiction"].(map[string]any)
			reg, _ := j["script_registration"].(map[string]any)
			switch {
			case want == "":
				if !hasWarning(res, "JURISDICTION_UNKNOWN") || strings.Contains(text, "WGAW") || strings.Contains(text, "Copyright Office") {
					t.Errorf("%s %s: uncovered country not warned, or given US advice", id, country)
				}
			case reg == nil || !strings.Contains(fmt.Sprint(reg), want) || !strings.Contains(text, want):
				t.Errorf("%s %s: registration advice %v does not name %q", id, country, reg, want)
			case country != "US" && (strings.Contains(text, "WGAW") || strings.Contains(text, "Copyright Office")):
				t.Errorf("%s %s: US registration advice for a non-US writer", id, country)
			}
		}
	}
}

// resultText is the prose of a result: strategy, recommendations, warnings
// and milestone titles.
func resultText(res map[string]any) string {
	var b strings.Builder
	b.WriteString(fmt.Sprint(res["strategy"]))
	for _, k := range []string{"recommendations", "warnings"} {
		for _, x := range res[k].([]any) {
			b.WriteString(" " + fmt.Sprint(x))
		}
	}
	for _, x := range res["timeline"].(map[string]any)["milestones"].([]any) {
		b.WriteString(" " + fmt.Sprint(x.(map[string]any)["title"]))
	}
	return b.String()
}
