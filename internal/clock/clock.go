// Package clock is the one source of "now" for what depends on today's
// date (tracked plans: their reminders, their automatic re-plans, the
// as_of of the runs that make them), so tests can move it.
package clock

import (
	"sync"
	"time"
)

// Clock tells the time.
type Clock interface {
	Now() time.Time
}

// Real is the system clock.
type Real struct{}

// Now returns time.Now().
func (Real) Now() time.Time { return time.Now() }

// Test is a clock that stands still until it is set or advanced; it is
// safe for concurrent use, so a test can move it while servers read it.
type Test struct {
	mu  sync.Mutex
	now time.Time
}

// NewTest returns a test clock set to now.
func NewTest(now time.Time) *Test { return &Test{now: now} }

// Now returns the time the clock was set to.
func (c *Test) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

// Set moves the clock to t.
func (c *Test) Set(t time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = t
}

// Advance moves the clock forward by d.
func (c *Test) Advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(d)
}
