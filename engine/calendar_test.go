package engine_test

import (
	"testing"
	"time"

	"github.com/creativeops/creativeops/engine"
)

// date parses a YYYY-MM-DD test date.
func date(t *testing.T, s string) time.Time {
	t.Helper()
	d, err := engine.ParseDate(s)
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// weekdays is a calendar with the US holidays on none of the test dates
// (2026-11-16 to 2027-01-04 holds Thanksgiving and the dead week: the
// tests below avoid them or say so).
var weekdays = engine.Calendar{Region: engine.RegionUS}

func TestAddWorkdays(t *testing.T) {
	// 2026-11-20 is a Friday.
	tests := []struct {
		name  string
		start string
		n     int
		want  string
	}{
		{"zero on a weekday is the day itself", "2026-11-18", 0, "2026-11-18"},
		{"zero on a weekend is not moved", "2026-11-21", 0, "2026-11-21"},
		{"start day is not counted", "2026-11-17", 1, "2026-11-18"},
		{"Friday plus one is Monday", "2026-11-20", 1, "2026-11-23"},
		{"Saturday plus one is Monday", "2026-11-21", 1, "2026-11-23"},
		{"Sunday plus one is Monday", "2026-11-22", 1, "2026-11-23"},
		{"Monday plus five over Thanksgiving is next Tuesday", "2026-11-23", 5, "2026-12-01"},
		{"Thursday plus ten is two weeks on, and Thanksgiving", "2026-11-19", 10, "2026-12-04"},
		{"Monday plus five is next Monday", "2026-11-02", 5, "2026-11-09"},
		{"Monday minus one is Friday", "2026-11-23", -1, "2026-11-20"},
		{"Saturday minus one is Friday", "2026-11-21", -1, "2026-11-20"},
		{"Sunday minus one is Friday", "2026-11-22", -1, "2026-11-20"},
		{"Sunday minus two is Thursday", "2026-11-22", -2, "2026-11-19"},
		{"Friday minus five is last Friday", "2026-11-20", -5, "2026-11-13"},
		{"across the dead week", "2026-12-22", 2, "2027-01-04"},
		{"back across the dead week", "2027-01-04", -2, "2026-12-22"},
		{"over Thanksgiving", "2026-11-25", 1, "2026-11-27"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := weekdays.AddWorkdays(date(t, tt.start), tt.n)
			if want := date(t, tt.want); !got.Equal(want) {
				t.Errorf("AddWorkdays(%s, %d) = %s, want %s", tt.start, tt.n, engine.FormatDate(got), tt.want)
			}
		})
	}
}

func TestAddWorkdaysLandsOnWeekdays(t *testing.T) {
	start := date(t, "2026-11-16") // a Monday
	for i := 0; i < 7; i++ {
		d := engine.AddDays(start, i)
		for _, n := range []int{-11, -3, -1, 1, 2, 7, 23} {
			switch got := weekdays.AddWorkdays(d, n); got.Weekday() {
			case time.Saturday, time.Sunday:
				t.Errorf("AddWorkdays(%s, %d) = %s, a %s", engine.FormatDate(d), n, engine.FormatDate(got), got.Weekday())
			}
		}
	}
}

func TestWorkdaysBetween(t *testing.T) {
	tests := []struct {
		name string
		a, b string
		want int
	}{
		{"same day", "2026-11-18", "2026-11-18", 0},
		{"next weekday", "2026-11-18", "2026-11-19", 1},
		{"Friday to Saturday", "2026-11-20", "2026-11-21", 0},
		{"Friday to Sunday", "2026-11-20", "2026-11-22", 0},
		{"Friday to Monday", "2026-11-20", "2026-11-23", 1},
		{"Saturday to Sunday", "2026-11-21", "2026-11-22", 0},
		{"Saturday to Monday", "2026-11-21", "2026-11-23", 1},
		{"Monday to Friday", "2026-11-16", "2026-11-20", 4},
		{"two weeks with Thanksgiving", "2026-11-16", "2026-11-30", 9},
		{"b before a is 0, not negative", "2026-11-30", "2026-11-16", 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := weekdays.WorkdaysBetween(date(t, tt.a), date(t, tt.b)); got != tt.want {
				t.Errorf("WorkdaysBetween(%s, %s) = %d, want %d", tt.a, tt.b, got, tt.want)
			}
		})
	}
}

// WorkdaysBetween undoes AddWorkdays, from any start day of the week.
func TestWorkdaysBetweenInvertsAddWorkdays(t *testing.T) {
	start := date(t, "2026-11-16")
	for i := 0; i < 7; i++ {
		a := engine.AddDays(start, i)
		for n := 0; n <= 30; n++ {
			if got := weekdays.WorkdaysBetween(a, weekdays.AddWorkdays(a, n)); got != n {
				t.Fatalf("WorkdaysBetween(%s, AddWorkdays(%s, %d)) = %d", engine.FormatDate(a), engine.FormatDate(a), n, got)
			}
		}
	}
}

func TestLaterEarlier(t *testing.T) {
	tests := []struct {
		a, b           string
		later, earlier string
	}{
		{"2026-11-20", "2026-12-01", "2026-12-01", "2026-11-20"},
		{"2026-12-01", "2026-11-20", "2026-12-01", "2026-11-20"},
		{"2026-11-20", "2026-11-20", "2026-11-20", "2026-11-20"},
		{"2026-12-31", "2027-01-01", "2027-01-01", "2026-12-31"},
	}
	for _, tt := range tests {
		a, b := date(t, tt.a), date(t, tt.b)
		if got := engine.Later(a, b); !got.Equal(date(t, tt.later)) {
			t.Errorf("Later(%s, %s) = %s, want %s", tt.a, tt.b, engine.FormatDate(got), tt.later)
		}
		if got := engine.Earlier(a, b); !got.Equal(date(t, tt.earlier)) {
			t.Errorf("Earlier(%s, %s) = %s, want %s", tt.a, tt.b, engine.FormatDate(got), tt.earlier)
		}
	}
}

func TestNthWeekday(t *testing.T) {
	tests := []struct {
		name string
		year int
		m    time.Month
		wd   time.Weekday
		n    int
		want string
	}{
		{"US Thanksgiving, 4th Thursday of November", 2026, time.November, time.Thursday, 4, "2026-11-26"},
		{"month starting on the weekday", 2026, time.October, time.Thursday, 1, "2026-10-01"},
		{"2nd Monday when the 1st is a Monday", 2026, time.June, time.Monday, 2, "2026-06-08"},
		{"1st Friday when the 1st is a Sunday", 2027, time.August, time.Friday, 1, "2027-08-06"},
		{"0 is the last one", 2026, time.June, time.Thursday, 0, "2026-06-25"},
		{"last one on the last day of the month", 2026, time.May, time.Sunday, 0, "2026-05-31"},
		{"last one in December (no month 13)", 2026, time.December, time.Thursday, 0, "2026-12-31"},
		{"4th Monday of February", 2027, time.February, time.Monday, 4, "2027-02-22"},
		{"a 5th that does not exist runs into the next month", 2027, time.February, time.Monday, 5, "2027-03-01"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := engine.NthWeekday(tt.year, tt.m, tt.wd, tt.n)
			if want := date(t, tt.want); !got.Equal(want) {
				t.Errorf("NthWeekday(%d, %s, %s, %d) = %s, want %s", tt.year, tt.m, tt.wd, tt.n, engine.FormatDate(got), tt.want)
			}
			if got.Weekday() != tt.wd {
				t.Errorf("NthWeekday(%d, %s, %s, %d) falls on a %s", tt.year, tt.m, tt.wd, tt.n, got.Weekday())
			}
		})
	}
}

func TestUSD(t *testing.T) {
	tests := []struct {
		v    float64
		want string
	}{
		{0, "$0.00"},
		{5, "$5.00"},
		{12.3, "$12.30"},
		{999.99, "$999.99"},
		{1000, "$1,000.00"},
		{1234.5, "$1,234.50"},
		{19.999, "$20.00"},
		{100000, "$100,000.00"},
		{1234567.891, "$1,234,567.89"},
		{-42.1, "-$42.10"},
		{-1234.5, "-$1,234.50"},
	}
	for _, tt := range tests {
		if got := engine.USD(tt.v); got != tt.want {
			t.Errorf("USD(%v) = %q, want %q", tt.v, got, tt.want)
		}
	}
}
