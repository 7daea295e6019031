package workflows

import (
	"strconv"
	"time"

	"github.com/creativeops/creativeops/engine"
)

// countNoun renders a count with its noun in the right number ("1 ticket",
// "3 tickets", "0 tickets"), for the crafts, design, fashion, film, games,
// illustration, live events, music, newsletters and photography workflows.
func countNoun(n int, singular, plural string) string {
	if n == 1 || n == -1 {
		return strconv.Itoa(n) + " " + singular
	}
	return strconv.Itoa(n) + " " + plural
}

// replanOn records that a plan is built on feasible instead of the
// requested date: both dates are reported (requested_date, feasible_date)
// beside a REPLANNED warning that says why.
func replanOn(p *engine.Plan, requested, feasible time.Time, why string) {
	p.Set("requested_date", engine.FormatDate(requested))
	p.Set("feasible_date", engine.FormatDate(feasible))
	p.Warn("REPLANNED", "The plan is built on %s instead of the requested %s (%s).", engine.FormatDate(feasible), engine.FormatDate(requested), why)
}
