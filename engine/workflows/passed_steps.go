package workflows

import (
	"slices"

	"github.com/creativeops/creativeops/engine"
)

// warnPassedSteps flags every milestone already behind the plan date that
// the workflow has not reported in its own terms (keys in skip): a plan
// made mid-way (a room already open, a production under way) says which
// steps are behind it instead of listing past dates silently.
func warnPassedSteps(p *engine.Plan, skip ...string) {
	for _, m := range p.Milestones() {
		if m.Date.Before(p.AsOf()) && !slices.Contains(skip, m.Key) {
			p.Warn("MILESTONE_PASSED", "%s was due %s, %s before the plan date %s.",
				m.Title, engine.FormatDate(m.Date), engine.Plural(engine.DaysBetween(m.Date, p.AsOf()), "day", "days"), engine.FormatDate(p.AsOf()))
		}
	}
}
