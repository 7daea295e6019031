package engine

import (
	"math"
	"time"
)

// Calendar arithmetic on dates (midnight UTC). Plans are scheduled backwards
// from a target date, so most helpers answer "the last X on or before".

// AddDays moves a date by n days (negative goes back).
func AddDays(d time.Time, n int) time.Time { return d.AddDate(0, 0, n) }

// AddWeeks moves a date by n weeks.
func AddWeeks(d time.Time, n int) time.Time { return d.AddDate(0, 0, 7*n) }

// AddMonths moves a date by n calendar months.
func AddMonths(d time.Time, n int) time.Time { return d.AddDate(0, n, 0) }

// DaysBetween counts whole days from a to b (negative when b is earlier).
func DaysBetween(a, b time.Time) int { return int(math.Round(b.Sub(a).Hours() / 24)) }

// OnOrBefore returns the latest date on or before d that falls on wd.
func OnOrBefore(d time.Time, wd time.Weekday) time.Time {
	return AddDays(d, -((int(d.Weekday()) - int(wd) + 7) % 7))
}

// OnOrAfter returns the earliest date on or after d that falls on wd.
func OnOrAfter(d time.Time, wd time.Weekday) time.Time {
	return AddDays(d, (int(wd)-int(d.Weekday())+7)%7)
}

// Later returns the later of two dates. Its main use is Later(p.AsOf(), d):
// a step that should already have happened is due on the plan date rather
// than in the past.
func Later(a, b time.Time) time.Time {
	if a.After(b) {
		return a
	}
	return b
}

// Earlier returns the earlier of two dates, for capping a date at a deadline.
func Earlier(a, b time.Time) time.Time {
	if a.Before(b) {
		return a
	}
	return b
}

// Calendar is the working-day calendar a plan is scheduled on: weekends,
// the national public holidays of its country (Region), the 24 December–1
// January dead week, and the shutdown closures the plan declares (a factory
// plan declares FactoryNewYear). Every date a workflow computes by a number
// of working days, and every hand-over it dates, goes through it: there is
// no weekday-only arithmetic in the engine for a workflow to use.
type Calendar struct {
	Region   Region
	Closures []Closure
}

// Closed reports whether nobody can be expected to hand work over on d: a
// weekend, a public holiday of the region, the dead week or a declared
// closure.
func (c Calendar) Closed(d time.Time) bool { return c.ClosedReason(d) != "" }

// ClosedReason names why d is closed ("a Sunday", "Christmas Day", "Chinese
// New Year factory closure"), or "" when it is a working day.
func (c Calendar) ClosedReason(d time.Time) string {
	r := c.Region
	if r == "" {
		r = RegionUS
	}
	if why := ClosedReason(d, r); why != "" {
		return why
	}
	for _, cl := range c.Closures {
		if s, ok := cl.On(d); ok {
			return s.Name
		}
	}
	return ""
}

// NextWorkday returns d when it is a working day, else the first working
// day after it.
func (c Calendar) NextWorkday(d time.Time) time.Time {
	for c.Closed(d) {
		d = AddDays(d, 1)
	}
	return d
}

// PrevWorkday returns d when it is a working day, else the last working day
// before it: a hand-over due on a closed day is due the working day before.
func (c Calendar) PrevWorkday(d time.Time) time.Time {
	for c.Closed(d) {
		d = AddDays(d, -1)
	}
	return d
}

// AddWorkdays moves d by n working days (negative goes back), because
// reviews, approvals, lab turnarounds, production runs and painting are
// quoted in working days. The start day is not counted, and the result is
// always a working day when n != 0; n == 0 returns d unchanged.
func (c Calendar) AddWorkdays(d time.Time, n int) time.Time {
	step := 1
	if n < 0 {
		step, n = -1, -n
	}
	for n > 0 {
		d = AddDays(d, step)
		if !c.Closed(d) {
			n--
		}
	}
	return d
}

// WorkdaysBetween counts the working days after a, up to and including b,
// so that WorkdaysBetween(a, AddWorkdays(a, n)) == n for n >= 0: "how many
// working days are left until the deadline". It is 0, never negative, when
// b is not after a.
func (c Calendar) WorkdaysBetween(a, b time.Time) int {
	n := 0
	for d := AddDays(a, 1); !d.After(b); d = AddDays(d, 1) {
		if !c.Closed(d) {
			n++
		}
	}
	return n
}

// AddWorkWeeks moves d by n weeks of work: 5n working days, so a
// "12-week production run" does not run through a holiday or a closure.
func (c Calendar) AddWorkWeeks(d time.Time, n int) time.Time { return c.AddWorkdays(d, 5*n) }

// NthWeekday returns the n-th wd of a month (n >= 1), or the last one when n
// is 0, because festival, sale and trade calendars are set as "the second
// Monday of June" or "the last Thursday of June". n above the number of such
// weekdays in the month runs into the next month.
func NthWeekday(year int, m time.Month, wd time.Weekday, n int) time.Time {
	if n <= 0 {
		last := time.Date(year, m+1, 0, 0, 0, 0, 0, time.UTC)
		return OnOrBefore(last, wd)
	}
	first := time.Date(year, m, 1, 0, 0, 0, 0, time.UTC)
	return AddWeeks(OnOrAfter(first, wd), n-1)
}

// USD renders an amount for warning, strategy and recommendation text as
// "$1,234.50" ("-$12.00" when negative), rounded to the cent: FormatMoney in
// US dollars.
func USD(v float64) string { return FormatMoney(v, "USD") }

// Money rounds an amount to cents.
func Money(v float64) float64 { return math.Round(v*100) / 100 }

// Round rounds to n decimals.
func Round(v float64, n int) float64 {
	p := math.Pow(10, float64(n))
	return math.Round(v*p) / p
}
