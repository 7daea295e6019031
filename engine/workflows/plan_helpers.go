package workflows

import (
	"strings"
	"time"

	"github.com/creativeops/creativeops/engine"
)

// Helpers of the crafts, design, fashion, film, games, illustration, live
// events, music, newsletters and photography workflows.

// replanOn records that a plan is built on feasible instead of the
// requested date (engine.Plan.Replanned); why is a clause ("the distributor
// needs 21 days"), turned into the warning's first sentence.
func replanOn(p *engine.Plan, requested, feasible time.Time, why string) {
	why = strings.TrimSpace(why)
	if why != "" {
		why = strings.ToUpper(why[:1]) + why[1:] + "."
	}
	p.Replanned(requested, feasible, why)
}
