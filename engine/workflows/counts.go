package workflows

import (
	"math"
	"strconv"

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
