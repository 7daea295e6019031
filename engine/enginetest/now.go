package enginetest

import (
	"time"

	"github.com/creativeops/creativeops/engine"
)

// RuleNowOnClosedDay: the plan date is a closed day of the plan's calendar
// (a Sunday, a public holiday) and a "now" step — a recommendation due on
// as_of, or a hand-over dated on it that is not labelled deliberate — is
// dated on it. What is to be done now with or for someone else is done on
// the first working day on or after as_of. One's own work (kind work) may
// start on a Sunday and events are fixed, so neither is a now step here.
const RuleNowOnClosedDay = "now step on a closed plan date"

// NowSteps runs ctx with as_of and reports every now step left on a
// closed as_of. A plan date that is a working day has nothing to report.
func NowSteps(w *engine.Workflow, ctx map[string]any, asOf time.Time) ([]Problem, error) {
	ctx = Clone(ctx)
	ctx[engine.AsOfField] = engine.FormatDate(asOf)
	res, err := Run(w, ctx, asOf)
	if err != nil {
		return nil, err
	}
	return nowProblems(res), nil
}

func nowProblems(res map[string]any) []Problem {
	var ps []Problem
	asOfStr := str(res["as_of"])
	asOf, err := engine.ParseDate(asOfStr)
	if err != nil {
		return []Problem{{Rule: RuleShape, Detail: "as_of " + asOfStr}}
	}
	tl, _ := res["timeline"].(map[string]any)
	cal := engine.Calendar{Region: engine.Region(str(tl["region"]))}
	if cal.Region == "" {
		cal.Region = engine.RegionUS
	}
	for _, k := range listOf(tl["closures"]) {
		if c, ok := engine.ClosureByKey(str(k)); ok {
			cal.Closures = append(cal.Closures, c)
		}
	}
	why := cal.ClosedReason(asOf)
	if why == "" {
		return nil
	}
	for _, x := range listOf(res["recommendations"]) {
		r, _ := x.(map[string]any)
		if str(r["due_date"]) == asOfStr {
			ps = append(ps, Problem{Rule: RuleNowOnClosedDay, Detail: "recommendation " + str(r["title"]) + " due on " + asOfStr + " (" + why + ")"})
		}
	}
	for _, x := range listOf(tl["milestones"]) {
		m, _ := x.(map[string]any)
		if str(m["date"]) != asOfStr || !engine.StepKind(str(m["kind"])).Handover() || str(m["deliberate"]) != "" {
			continue
		}
		ps = append(ps, Problem{Rule: RuleNowOnClosedDay, Detail: str(m["kind"]) + " milestone " + str(m["title"]) + " on " + asOfStr + " (" + why + ")"})
	}
	return ps
}
