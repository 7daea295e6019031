package enginetest

import (
	"fmt"
	"time"

	"github.com/creativeops/creativeops/engine"
)

// RuleReplanSqueezed: a plan re-planned on a date of its own choosing
// (timeline.feasible_date) leaves a declared precedence short, so the
// work between two steps gets fewer working days than the workflow says
// it needs (a PRECEDENCE_SHORT warning). A re-plan exists to give the
// work its time: the feasible date must leave every gap whole.
const RuleReplanSqueezed = "re-plan squeezes a precedence below its working days"

// ReplanDays are how far after as_of ReplanProblems puts the event date:
// close enough that most workflows re-plan.
var ReplanDays = []int{3, 10, 20, 45}

// ReplanProblems runs the example context of a workflow whose past-date
// policy is re-planning with its event date a few days after asOf, so
// that it re-plans, and reports every invariant the re-planned plans
// break, RuleReplanSqueezed included. Workflows with another policy have
// nothing to report.
func ReplanProblems(w *engine.Workflow, asOf time.Time) []Problem {
	if w.PastDate.Policy != engine.PastReplan || isYearField(w, w.PastDate.Field) {
		return nil
	}
	var ps []Problem
	for _, days := range ReplanDays {
		ctx := Example(w, asOf)
		if !setEventDate(w, ctx, w.PastDate, engine.AddDays(asOf, days)) {
			return nil
		}
		res, err := Run(w, ctx, asOf)
		if err != nil {
			ps = append(ps, Problem{Rule: RuleRunFailed, Detail: fmt.Sprintf("event +%dd: %v", days, err)})
			continue
		}
		for _, p := range Violations(w, ctx, res) {
			p.Detail = fmt.Sprintf("event +%dd: %s", days, p.Detail)
			ps = append(ps, p)
		}
		tl, _ := res["timeline"].(map[string]any)
		if _, replanned := tl["feasible_date"]; !replanned {
			continue
		}
		for _, x := range listOf(res["warnings"]) {
			if m, _ := x.(map[string]any); str(m["code"]) == "PRECEDENCE_SHORT" {
				ps = append(ps, Problem{Rule: RuleReplanSqueezed, Detail: fmt.Sprintf("event +%dd: %s", days, str(m["message"]))})
			}
		}
	}
	return ps
}
