package workflows

import (
	"math"

	"github.com/creativeops/creativeops/engine"
)

// roundedCount is engine.Plural for a projected, fractional quantity
// (watch hours, downloads): "4,000 watch hours", "1 download".
func roundedCount(v float64, singular, plural string) string {
	return engine.Plural(int(math.Round(v)), singular, plural)
}
