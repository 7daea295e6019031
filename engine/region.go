package engine

import (
	"sync"
	"time"
)

// A working calendar: public holidays per region, the industry's dead week
// between Christmas and New Year, and the Chinese New Year closure of
// factories in Asia. Deliverables (see Plan.Deliverable) are only ever due on
// open days; launches check InDeadWeek to avoid the week nobody is at work.

// Region selects the public-holiday calendar a plan is scheduled on.
type Region string

const (
	// RegionUS is the United States: federal holidays, with the observed
	// weekday when the date falls on a weekend (5 U.S.C. 6103).
	RegionUS Region = "US"
	// RegionUK is the United Kingdom, on the bank holidays of England and
	// Wales (Banking and Financial Dealings Act 1971 and royal
	// proclamations), substitute days included.
	RegionUK Region = "UK"
)

// RegionFieldName is the context key of RegionField.
const RegionFieldName = "country"

// Regions lists the supported regions, in the order of RegionField's enum.
func Regions() []Region { return []Region{RegionUS, RegionUK} }

// RegionField is the optional `country` input a workflow adds to its Fields
// when it schedules deliverables: it picks the public holidays deliverables
// must avoid.
func RegionField() Field {
	return Field{
		Name: RegionFieldName, Kind: String, Enum: []string{string(RegionUS), string(RegionUK)}, Default: string(RegionUS),
		Description: "Country whose public holidays deliverables avoid: `US` (federal holidays) or `UK` (England and Wales bank holidays). " +
			"Weekends and the 24 December–1 January dead week are closed everywhere.",
	}
}

// Region returns the plan's region from the `country` input, RegionUS when
// the workflow has no such input.
func (in *Input) Region() Region {
	switch r := Region(in.Str(RegionFieldName)); r {
	case RegionUS, RegionUK:
		return r
	}
	return RegionUS
}

func date(y int, m time.Month, d int) time.Time { return time.Date(y, m, d, 0, 0, 0, 0, time.UTC) }

// Easter returns Easter Sunday of a Gregorian year (the anonymous Gregorian
// algorithm, "Meeus/Jones/Butcher").
func Easter(year int) time.Time {
	a := year % 19
	b, c := year/100, year%100
	d, e := b/4, b%4
	f := (b + 8) / 25
	g := (b - f + 1) / 3
	h := (19*a + b - d - g + 15) % 30
	i, k := c/4, c%4
	l := (32 + 2*e + 2*i - h - k) % 7
	m := (a + 11*h + 22*l) / 451
	month := (h + l - 7*m + 114) / 31
	day := (h+l-7*m+114)%31 + 1
	return date(year, time.Month(month), day)
}

type holiday struct {
	date time.Time
	name string
}

// observedUS moves a fixed-date US federal holiday off the weekend: a
// Saturday holiday is observed on the Friday before, a Sunday one on the
// Monday after.
func observedUS(d time.Time) time.Time {
	switch d.Weekday() {
	case time.Saturday:
		return AddDays(d, -1)
	case time.Sunday:
		return AddDays(d, 1)
	}
	return d
}

// usHolidays lists the federal holidays observed in a calendar year. New
// Year's Day of the next year is included when it is observed on 31
// December (it fell on a Saturday).
func usHolidays(year int) []holiday {
	hs := []holiday{
		{observedUS(date(year, time.January, 1)), "New Year's Day"},
		{NthWeekday(year, time.January, time.Monday, 3), "Birthday of Martin Luther King, Jr."},
		{NthWeekday(year, time.February, time.Monday, 3), "Washington's Birthday"},
		{NthWeekday(year, time.May, time.Monday, 0), "Memorial Day"},
		{observedUS(date(year, time.July, 4)), "Independence Day"},
		{NthWeekday(year, time.September, time.Monday, 1), "Labor Day"},
		{NthWeekday(year, time.October, time.Monday, 2), "Columbus Day"},
		{observedUS(date(year, time.November, 11)), "Veterans Day"},
		{NthWeekday(year, time.November, time.Thursday, 4), "Thanksgiving Day"},
		{observedUS(date(year, time.December, 25)), "Christmas Day"},
	}
	if year >= 2021 { // Juneteenth National Independence Day Act, 17 June 2021
		hs = append(hs, holiday{observedUS(date(year, time.June, 19)), "Juneteenth National Independence Day"})
	}
	if next := date(year+1, time.January, 1); next.Weekday() == time.Saturday {
		hs = append(hs, holiday{AddDays(next, -1), "New Year's Day"})
	}
	return hs
}

// ukOneOff are bank holidays of England and Wales set by proclamation for a
// single year; moved holidays are handled in ukHolidays.
var ukOneOff = map[int][]holiday{
	2012: {{date(2012, time.June, 5), "Queen's Diamond Jubilee"}},
	2022: {{date(2022, time.June, 3), "Platinum Jubilee bank holiday"}, {date(2022, time.September, 19), "State Funeral of Queen Elizabeth II"}},
	2023: {{date(2023, time.May, 8), "Coronation of King Charles III"}},
}

// nextWeekday returns d, or the first Monday after it when d is a weekend.
func nextWeekday(d time.Time) time.Time { return NextWorkday(d) }

// ukHolidays lists the bank holidays of England and Wales in a year.
func ukHolidays(year int) []holiday {
	easter := Easter(year)
	earlyMay := NthWeekday(year, time.May, time.Monday, 1)
	if year == 2020 { // moved to Friday 8 May for the 75th anniversary of VE Day
		earlyMay = date(2020, time.May, 8)
	}
	spring := NthWeekday(year, time.May, time.Monday, 0)
	switch year {
	case 2012: // moved to Monday 4 June for the Diamond Jubilee
		spring = date(2012, time.June, 4)
	case 2022: // moved to Thursday 2 June for the Platinum Jubilee
		spring = date(2022, time.June, 2)
	}
	hs := []holiday{
		{nextWeekday(date(year, time.January, 1)), "New Year's Day"},
		{AddDays(easter, -2), "Good Friday"},
		{AddDays(easter, 1), "Easter Monday"},
		{earlyMay, "Early May bank holiday"},
		{spring, "Spring bank holiday"},
		{NthWeekday(year, time.August, time.Monday, 0), "Summer bank holiday"},
	}
	// Christmas Day and Boxing Day: when either falls on a weekend the
	// substitute is the next weekday not already a holiday.
	christmas, boxing := date(year, time.December, 25), date(year, time.December, 26)
	switch christmas.Weekday() {
	case time.Friday: // Boxing Day on Saturday -> Monday 28
		hs = append(hs, holiday{christmas, "Christmas Day"}, holiday{date(year, time.December, 28), "Boxing Day (substitute day)"})
	case time.Saturday: // both on the weekend -> Monday 27 and Tuesday 28
		hs = append(hs, holiday{date(year, time.December, 27), "Christmas Day (substitute day)"}, holiday{date(year, time.December, 28), "Boxing Day (substitute day)"})
	case time.Sunday: // Boxing Day Monday 26, Christmas substitute Tuesday 27
		hs = append(hs, holiday{boxing, "Boxing Day"}, holiday{date(year, time.December, 27), "Christmas Day (substitute day)"})
	default:
		hs = append(hs, holiday{christmas, "Christmas Day"}, holiday{boxing, "Boxing Day"})
	}
	return append(hs, ukOneOff[year]...)
}

// Holiday reports whether d is a public holiday in r (as observed: a US
// holiday on a Saturday is the Friday before, a UK bank holiday on a weekend
// has a substitute weekday) and names it.
func Holiday(d time.Time, r Region) (name string, ok bool) {
	if r != RegionUK {
		r = RegionUS
	}
	name, ok = holidaysOf(r, d.Year())[d.YearDay()]
	return name, ok
}

type regionYear struct {
	r    Region
	year int
}

// holidayCache holds each region's holidays of a year by day of the year:
// plans ask for thousands of days, so a year is computed once.
var holidayCache sync.Map // regionYear -> map[int]string

func holidaysOf(r Region, year int) map[int]string {
	key := regionYear{r, year}
	if m, ok := holidayCache.Load(key); ok {
		return m.(map[int]string)
	}
	hs := usHolidays(year)
	if r == RegionUK {
		hs = ukHolidays(year)
	}
	m := make(map[int]string, len(hs))
	for _, h := range hs {
		if h.date.Year() == year {
			m[h.date.YearDay()] = h.name
		}
	}
	holidayCache.Store(key, m)
	return m
}

// InDeadWeek reports whether d falls in the industry's dead week, 24
// December to 1 January inclusive: offices, labs, distributors and press are
// closed or unreachable, and launches get lost.
func InDeadWeek(d time.Time) bool {
	return (d.Month() == time.December && d.Day() >= 24) || (d.Month() == time.January && d.Day() == 1)
}

// Closed reports whether nobody can be expected to hand work over on d in r:
// a weekend, a public holiday or the dead week.
func Closed(d time.Time, r Region) bool {
	if d.Weekday() == time.Saturday || d.Weekday() == time.Sunday || InDeadWeek(d) {
		return true
	}
	_, ok := Holiday(d, r)
	return ok
}

// ClosedReason names why d is closed in r ("Saturday", "Thanksgiving Day",
// "the 24 December–1 January dead week"), or "" when it is open.
func ClosedReason(d time.Time, r Region) string {
	if name, ok := Holiday(d, r); ok {
		return name
	}
	if InDeadWeek(d) {
		return "the 24 December–1 January dead week"
	}
	if d.Weekday() == time.Saturday || d.Weekday() == time.Sunday {
		return "a " + d.Weekday().String()
	}
	return ""
}

// NextOpen returns d when it is open in r, else the first open day after it.
func NextOpen(d time.Time, r Region) time.Time {
	for Closed(d, r) {
		d = AddDays(d, 1)
	}
	return d
}

// PrevOpen returns d when it is open in r, else the last open day before it.
func PrevOpen(d time.Time, r Region) time.Time {
	for Closed(d, r) {
		d = AddDays(d, -1)
	}
	return d
}

// AddOpenDays moves d by n open days in r (negative goes back), like
// AddWorkdays but also skipping public holidays and the dead week. The start
// day is not counted; n == 0 returns d unchanged.
func AddOpenDays(d time.Time, n int, r Region) time.Time {
	step := 1
	if n < 0 {
		step, n = -1, -n
	}
	for n > 0 {
		d = AddDays(d, step)
		if !Closed(d, r) {
			n--
		}
	}
	return d
}

// chineseNewYear is the first day of the lunar new year (the Spring
// Festival) as published by the Hong Kong Observatory, 2010–2040.
var chineseNewYear = map[int][2]int{
	2010: {2, 14}, 2011: {2, 3}, 2012: {1, 23}, 2013: {2, 10}, 2014: {1, 31},
	2015: {2, 19}, 2016: {2, 8}, 2017: {1, 28}, 2018: {2, 16}, 2019: {2, 5},
	2020: {1, 25}, 2021: {2, 12}, 2022: {2, 1}, 2023: {1, 22}, 2024: {2, 10},
	2025: {1, 29}, 2026: {2, 17}, 2027: {2, 6}, 2028: {1, 26}, 2029: {2, 13},
	2030: {2, 3}, 2031: {1, 23}, 2032: {2, 11}, 2033: {1, 31}, 2034: {2, 19},
	2035: {2, 8}, 2036: {1, 28}, 2037: {2, 15}, 2038: {2, 4}, 2039: {1, 24},
	2040: {2, 12},
}

// ChineseNewYearRange is the span of years ChineseNewYear knows.
const (
	ChineseNewYearFirst = 2010
	ChineseNewYearLast  = 2040
)

// ChineseNewYear returns the first day of the lunar new year in year
// (2010–2040). Outside the table it returns 10 February of that year, the
// midpoint of the festival's 21 January–20 February range, so closures are
// still planned around roughly the right weeks.
func ChineseNewYear(year int) time.Time {
	if md, ok := chineseNewYear[year]; ok {
		return date(year, time.Month(md[0]), md[1])
	}
	return date(year, time.February, 10)
}

// Factory closure around Chinese New Year: the official holiday is about a
// week, but factories in China and much of East and South-East Asia stop
// taking work about a week before (workers travel home) and run at reduced
// capacity for two weeks after, until migrant workers return.
const (
	FactoryClosureDaysBefore = 7
	FactoryClosureDaysAfter  = 14
)

// FactoryClosed reports whether d falls in the Chinese New Year factory
// closure: from 7 days before the new year to 14 days after it, inclusive.
func FactoryClosed(d time.Time) bool {
	d = date(d.Year(), d.Month(), d.Day())
	// A closure never crosses into another Gregorian year's festival: the
	// new year falls between 21 January and 20 February.
	cny := ChineseNewYear(d.Year())
	return !d.Before(AddDays(cny, -FactoryClosureDaysBefore)) && !d.After(AddDays(cny, FactoryClosureDaysAfter))
}

// FactoryReopens returns the first day after the Chinese New Year closure
// that contains d, or d itself when factories are working.
func FactoryReopens(d time.Time) time.Time {
	if !FactoryClosed(d) {
		return d
	}
	return AddDays(ChineseNewYear(d.Year()), FactoryClosureDaysAfter+1)
}
