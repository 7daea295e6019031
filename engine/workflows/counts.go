package workflows

import (
	"math"
	"slices"
	"strconv"
	"time"

	"github.com/creativeops/creativeops/engine"
)

// roundedCount is engine.Plural for a projected, fractional quantity
// (watch hours, downloads): "4,000 watch hours", "1 download".
func roundedCount(v float64, singular, plural string) string {
	return engine.Plural(int(math.Round(v)), singular, plural)
}

// amountOf renders a fractional quantity as written ("2.5 hours", "1 hour"),
// singular only for exactly one.
func amountOf(v float64, singular, plural string) string {
	if v == 1 {
		return "1 " + singular
	}
	return strconv.FormatFloat(v, 'f', -1, 64) + " " + plural
}

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

// inQ4Rush reports whether d falls in the fourth-quarter advertising rush
// (October to mid-December), when brands spend the year's remaining budget
// and ad inventory is dearest; sponsorships booked then sell at the top of
// their range and need booking early.
func inQ4Rush(d time.Time) bool {
	return d.Month() >= time.October && (d.Month() < time.December || d.Day() <= 15)
}
