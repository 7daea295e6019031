package workflows

import (
	"math"
	"strings"
	"time"

	"github.com/creativeops/creativeops/engine"
)

// Helpers shared by the visual-art, photography, illustration, comics,
// animation, fashion, design and crafts workflows. They are prefixed
// "studio" so they cannot collide with helpers of other verticals in this
// package. Calendar and date helpers these workflows share with the other
// verticals live in the engine package.

// studioRush prices a compressed schedule. Creative trade practice (Graphic
// Artists Guild Handbook: Pricing & Ethical Guidelines; common freelance
// terms) charges a rush fee of 25–100% when a client's deadline is shorter
// than the normal schedule. We charge 25% when the job gets at least 85% of
// the working days it needs, 50% down to two thirds of them (evenings and
// weekends can recover about a third), and call anything shorter infeasible.
func studioRush(needed, available int) (premium float64, feasible bool) {
	switch {
	case available >= needed:
		return 0, true
	case float64(available) >= 0.85*float64(needed):
		return 0.25, true
	case float64(available) >= float64(needed)*2/3:
		return 0.5, true
	}
	return 0, false
}

// studioPriceBands are the steps a retail price rounds up to, in US
// dollars at the reference rate: $1 under $20, $5 under $100, $10 under
// $1,000, $50 under $5,000, then $100. In another currency the step is
// worth about as much and reads as round there (¥2,000 rather than
// ¥1,508), so a price list looks the same in every currency.
var studioPriceBands = []engine.PriceBand{{Below: 20, Step: 1}, {Below: 100, Step: 5}, {Below: 1000, Step: 10}, {Below: 5000, Step: 50}, {Below: math.Inf(1), Step: 100}}

// studioCleanPrice rounds a retail price up to a price point buyers
// expect, so rounding never drops a price below the computed one. The
// result lists it with its unrounded figure under price_points; what the
// plan derives from the price follows the rounded price.
func studioCleanPrice(in *engine.Input, p *engine.Plan, what string, v float64) float64 {
	return in.PricePointIn(p, what, v, studioPriceBands, engine.RoundUp)
}

// studioUSD formats an amount for warning and strategy text: $1,234 or
// $1,234.50. Studio quotes and price lists are mostly whole dollars, so these
// verticals drop ".00" where engine.USD (used by the others) keeps it; the
// two differ only there.
func studioMoney(in *engine.Input, v float64) string { return strings.TrimSuffix(in.Money(v), ".00") }

// studioCeil rounds up to a whole number, ignoring float noise (2.0000001
// is 2).
func studioCeil(v float64) int { return int(math.Ceil(engine.Round(v, 6))) }

// studioLabel turns an enum value into words for messages ("book_cover" →
// "book cover", "3d_cg" → "3D CG").
func studioLabel(s string) string { return studioLabels.Replace(s) }

var studioLabels = strings.NewReplacer("_", " ", "2d", "2D", "3d", "3D", "cg", "CG")

// studioCount formats a whole number with thousands separators.
func studioCount(n int) string { return engine.FormatInt(n) }

// studioStage is one step of a client job, in business days.
type studioStage struct {
	key, title string
	days       int
}

// studioScheduleStages lays the stages end to end from start as milestones.
// A rushed job (fewer business days to end than the stages need) has every
// stage compressed in proportion, keeping at least a day each; the last
// stage always lands on end, so slack goes to the final round.
func studioScheduleStages(p *engine.Plan, start, end time.Time, stages []studioStage) {
	needed := 0
	for _, s := range stages {
		needed += s.days
	}
	scale := 1.0
	if avail := p.Calendar().WorkdaysBetween(start, end); avail < needed {
		scale = float64(avail) / float64(needed)
	}
	d := start
	for i, s := range stages {
		d = p.Calendar().AddWorkdays(d, max(1, int(float64(s.days)*scale)))
		if i == len(stages)-1 || d.After(end) {
			d = end
		}
		p.Milestone(s.key, s.title, d)
		if i > 0 {
			p.DependsOn(s.key, stages[i-1].key)
		}
	}
}
