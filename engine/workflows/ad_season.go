package workflows

import "time"

// inQ4Rush reports whether d falls in the fourth-quarter advertising rush
// (October to mid-December), when brands spend the year's remaining budget
// and ad inventory is dearest; sponsorships booked then sell at the top of
// their range and need booking early.
func inQ4Rush(d time.Time) bool {
	return d.Month() >= time.October && (d.Month() < time.December || d.Day() <= 15)
}
