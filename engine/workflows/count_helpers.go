package workflows

import "strconv"

// countNoun renders a count with its noun in the right number ("1 ticket",
// "3 tickets", "0 tickets"), for the crafts, design, fashion, film, games,
// illustration, live events, music, newsletters and photography workflows.
func countNoun(n int, singular, plural string) string {
	if n == 1 || n == -1 {
		return strconv.Itoa(n) + " " + singular
	}
	return strconv.Itoa(n) + " " + plural
}
