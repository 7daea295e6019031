package workflows

import (
	"math"
	"strconv"
)

// groupedInt renders a whole number with thousands separators ("12,500"),
// the way counts read in plan text.
func groupedInt(n int64) string {
	sign := ""
	if n < 0 {
		sign, n = "-", -n
	}
	s := strconv.FormatInt(n, 10)
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return sign + s
}

// nounCount renders a count with its noun in the right number: "1 episode",
// "3 episodes", "12,000 downloads".
func nounCount(n int, singular, plural string) string {
	if n == 1 || n == -1 {
		return groupedInt(int64(n)) + " " + singular
	}
	return groupedInt(int64(n)) + " " + plural
}

// roundedCount is nounCount for a projected, fractional quantity.
func roundedCount(v float64, singular, plural string) string {
	return nounCount(int(math.Round(v)), singular, plural)
}
