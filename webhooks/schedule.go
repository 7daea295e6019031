package webhooks

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"strings"
	"time"
)

// Schedule holds the delay before each attempt: Schedule[i] is how long to
// wait, after attempt i failed (or after the event was created, for i = 0),
// before making attempt i+1. Its length is the total number of attempts.
type Schedule []time.Duration

// DefaultSchedule is Svix's: immediately, then 5s, 5m, 30m, 2h, 5h, 10h and
// 10h, eight attempts over about 28 hours.
var DefaultSchedule = Schedule{
	0,
	5 * time.Second,
	5 * time.Minute,
	30 * time.Minute,
	2 * time.Hour,
	5 * time.Hour,
	10 * time.Hour,
	10 * time.Hour,
}

// JitterFraction is the ± spread applied to every delay, enough to break up
// the thundering herd of retries after an endpoint outage without making the
// schedule unpredictable for customers.
const JitterFraction = 0.10

// Next returns the delay before the next attempt, given how many attempts
// have already been made, and ok=false once the schedule is exhausted.
// jitter returns a value in [0, 1) (nil means math/rand/v2); it is a
// parameter so that tests and simulations can be deterministic.
func (s Schedule) Next(attemptsMade int, jitter func() float64) (delay time.Duration, ok bool) {
	if attemptsMade < 0 {
		attemptsMade = 0
	}
	if attemptsMade >= len(s) {
		return 0, false
	}
	if jitter == nil {
		jitter = rand.Float64
	}
	j := min(max(jitter(), 0), 1)
	factor := 1 + JitterFraction*(2*j-1)
	// Whole microseconds, as every timestamp the API shows: a delivery's
	// next_retry_at is a microsecond timestamp plus this.
	return time.Duration(float64(s[attemptsMade]) * factor).Truncate(time.Microsecond), true
}

// String is the inverse of ParseSchedule, for logs and config dumps.
func (s Schedule) String() string {
	parts := make([]string, len(s))
	for i, d := range s {
		parts[i] = d.String()
	}
	return strings.Join(parts, ",")
}

// ParseSchedule reads a comma-separated list of Go durations, e.g.
// "0s,1s,2s", so that deployments and the service's tests can shorten the
// schedule without code changes.
func ParseSchedule(s string) (Schedule, error) {
	if strings.TrimSpace(s) == "" {
		return nil, errors.New("webhooks: empty retry schedule")
	}
	var out Schedule
	for i, p := range strings.Split(s, ",") {
		p = strings.TrimSpace(p)
		d, err := time.ParseDuration(p)
		if err != nil {
			return nil, fmt.Errorf("webhooks: retry schedule entry %d: %w", i+1, err)
		}
		if d < 0 {
			return nil, fmt.Errorf("webhooks: retry schedule entry %d is negative: %s", i+1, p)
		}
		out = append(out, d)
	}
	return out, nil
}
