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

// PrevWorkday returns d, or the Friday before it when d falls on a weekend:
// industry deadlines land on business days.
func PrevWorkday(d time.Time) time.Time {
	switch d.Weekday() {
	case time.Saturday:
		return AddDays(d, -1)
	case time.Sunday:
		return AddDays(d, -2)
	}
	return d
}

// NextWorkday returns d, or the Monday after it when d falls on a weekend.
func NextWorkday(d time.Time) time.Time {
	switch d.Weekday() {
	case time.Saturday:
		return AddDays(d, 2)
	case time.Sunday:
		return AddDays(d, 1)
	}
	return d
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

// isWorkday reports whether d is Monday to Friday. Public holidays are not
// known, so they count as working days.
func isWorkday(d time.Time) bool {
	return d.Weekday() != time.Saturday && d.Weekday() != time.Sunday
}

// AddWorkdays moves d by n business days (Monday–Friday; negative goes
// back), because reviews, approvals, lab turnarounds and union paperwork are
// quoted in business days. The start day is not counted, and the result is
// always a weekday when n != 0: one business day after a Friday, Saturday or
// Sunday is the Monday, one before a Saturday, Sunday or Monday is the
// Friday. n == 0 returns d unchanged, even on a weekend.
func AddWorkdays(d time.Time, n int) time.Time {
	step := 1
	if n < 0 {
		step, n = -1, -n
	}
	for n > 0 {
		d = AddDays(d, step)
		if isWorkday(d) {
			n--
		}
	}
	return d
}

// WorkdaysBetween counts the business days after a, up to and including b,
// so that WorkdaysBetween(a, AddWorkdays(a, n)) == n for n >= 0: it answers
// "how many working days are left until the deadline". It is 0, never
// negative, when b is not after a: a deadline already passed leaves no time.
func WorkdaysBetween(a, b time.Time) int {
	n := 0
	for d := AddDays(a, 1); !d.After(b); d = AddDays(d, 1) {
		if isWorkday(d) {
			n++
		}
	}
	return n
}

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
