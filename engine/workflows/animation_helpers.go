package workflows

import (
	"time"

	"github.com/creativeops/creativeops/engine"
)

// Helpers of the animation workflows, prefixed "an".

// anOpenDaysBetween counts the open days of region r after a, up to and
// including b (0 when b is not after a), the working-calendar counterpart
// of engine.WorkdaysBetween.
func anOpenDaysBetween(a, b time.Time, r engine.Region) int {
	n := 0
	for d := engine.AddDays(a, 1); !d.After(b); d = engine.AddDays(d, 1) {
		if !(engine.Calendar{Region: r}).Closed(d) {
			n++
		}
	}
	return n
}

// anScheduleStages lays client-job stages end to end from start as
// deliverables on open days of r, each depending on the one before (and
// the first on after, when given). A rushed job (fewer open days to end than
// the stages need) has every stage compressed in proportion, keeping at
// least a day each; the last stage lands on end, so slack goes to the final
// round.
func anScheduleStages(p *engine.Plan, start, end time.Time, stages []studioStage, r engine.Region, after string) {
	needed := 0
	for _, s := range stages {
		needed += s.days
	}
	scale := 1.0
	if avail := anOpenDaysBetween(start, end, r); avail < needed {
		scale = float64(avail) / float64(needed)
	}
	d, prev := start, after
	for i, s := range stages {
		d = p.Calendar().AddWorkdays(d, max(1, int(float64(s.days)*scale)))
		if i == len(stages)-1 || d.After(end) {
			d = end
		}
		p.Deliverable(s.key, s.title, d, r)
		if prev != "" {
			p.DependsOn(s.key, prev)
		}
		prev = s.key
	}
}
