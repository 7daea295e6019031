package engine

import (
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/rickar/cal/v2"
	"github.com/rickar/cal/v2/ar"
	"github.com/rickar/cal/v2/at"
	"github.com/rickar/cal/v2/au"
	"github.com/rickar/cal/v2/be"
	"github.com/rickar/cal/v2/bg"
	"github.com/rickar/cal/v2/br"
	"github.com/rickar/cal/v2/ca"
	"github.com/rickar/cal/v2/ch"
	"github.com/rickar/cal/v2/cz"
	"github.com/rickar/cal/v2/de"
	"github.com/rickar/cal/v2/dk"
	"github.com/rickar/cal/v2/es"
	"github.com/rickar/cal/v2/fr"
	"github.com/rickar/cal/v2/gb"
	"github.com/rickar/cal/v2/gr"
	"github.com/rickar/cal/v2/hr"
	"github.com/rickar/cal/v2/ie"
	"github.com/rickar/cal/v2/it"
	"github.com/rickar/cal/v2/jp"
	"github.com/rickar/cal/v2/lt"
	"github.com/rickar/cal/v2/lv"
	"github.com/rickar/cal/v2/mw"
	"github.com/rickar/cal/v2/nc"
	"github.com/rickar/cal/v2/nl"
	"github.com/rickar/cal/v2/no"
	"github.com/rickar/cal/v2/nz"
	"github.com/rickar/cal/v2/pl"
	"github.com/rickar/cal/v2/ro"
	"github.com/rickar/cal/v2/ru"
	"github.com/rickar/cal/v2/se"
	"github.com/rickar/cal/v2/si"
	"github.com/rickar/cal/v2/sk"
	"github.com/rickar/cal/v2/ua"
	"github.com/rickar/cal/v2/us"
	"github.com/rickar/cal/v2/za"
	"golang.org/x/text/language"
	"golang.org/x/text/language/display"
)

// A working calendar: public holidays per country, the industry's dead week
// between Christmas and New Year, and the Chinese New Year closure of
// factories in Asia. Deliverables (see Plan.Deliverable) are only ever due on
// open days; launches check InDeadWeek to avoid the week nobody is at work.
// Holidays come from github.com/rickar/cal/v2; industry closures are data in
// closures.go.

// Region selects the public-holiday calendar a plan is scheduled on: an ISO
// 3166-1 alpha-2 country code.
type Region string

const (
	// RegionUS is the United States: federal holidays, with the observed
	// weekday when the date falls on a weekend (5 U.S.C. 6103).
	RegionUS Region = "US"
	// RegionGB is the United Kingdom, on the bank holidays of England and
	// Wales, substitute days included.
	RegionGB Region = "GB"
	// RegionUK is the name callers used before every ISO code was accepted;
	// `UK` is an alias of GB in the `country` input.
	RegionUK = RegionGB
)

// RegionFieldName is the context key of RegionField.
const RegionFieldName = "country"

// countryHolidays are the national public holidays of every country
// github.com/rickar/cal/v2 covers. Regional holidays are left out: a plan
// knows the country, not the state, and a national deadline must hold
// everywhere in it.
var countryHolidays = map[Region][]*cal.Holiday{
	"AR": ar.Holidays, "AT": at.Holidays, "AU": auNational, "BE": be.Holidays,
	"BG": bg.Holidays, "BR": br.Holidays, "CA": ca.Holidays, "CH": ch.Holidays,
	"CZ": cz.Holidays, "DE": de.Holidays, "DK": dk.Holidays, "ES": es.Holidays,
	"FR": fr.Holidays, "GB": append(slices.Clone(gb.Holidays), gbStateFuneral), "GR": gr.Holidays,
	"HR": hr.Holidays, "IE": ie.Holidays, "IT": it.Holidays, "JP": jp.Holidays,
	"LT": lt.Holidays, "LV": lv.Holidays, "MW": mw.Holidays, "NC": nc.Holidays,
	"NL": nl.Holidays, "NO": no.Holidays, "NZ": nz.Holidays, "PL": pl.Holidays,
	"RO": ro.Holidays, "RU": ru.Holidays, "SE": se.Holidays, "SI": si.Holidays,
	"SK": sk.Holidays, "UA": ua.Holidays, "US": us.Holidays, "ZA": za.Holidays,
}

// auNational are Australia's national public holidays (Fair Work Act 2009,
// s 115): the library lists holidays per state only, and these are the ones
// every state observes on the same day. The King's Birthday is left out
// because Queensland and Western Australia keep it on other dates.
var auNational = []*cal.Holiday{au.NewYear, au.AustraliaDay, au.GoodFriday, au.EasterMonday, au.AnzacDay, au.ChristmasDay, au.BoxingDay}

// gbStateFuneral is the one-off bank holiday of 19 September 2022 (royal
// proclamation), which the library does not list.
var gbStateFuneral = &cal.Holiday{
	Name: "State Funeral of Queen Elizabeth II", Type: cal.ObservanceBank,
	Month: time.September, Day: 19, StartYear: 2022, EndYear: 2022, Func: cal.CalcDayOfMonth,
}

// regionAliases are codes people use that ISO 3166-1 does not.
var regionAliases = map[string]Region{"UK": RegionGB}

// Regions lists the supported countries by code.
func Regions() []Region {
	out := make([]Region, 0, len(countryHolidays))
	for r := range countryHolidays {
		out = append(out, r)
	}
	slices.Sort(out)
	return out
}

// ParseRegion reads a country code case-insensitively, `UK` as GB. ok is
// false for a code whose holidays are not known.
func ParseRegion(s string) (r Region, ok bool) {
	code := strings.ToUpper(strings.TrimSpace(s))
	if alias, isAlias := regionAliases[code]; isAlias {
		return alias, true
	}
	if _, known := countryHolidays[Region(code)]; known {
		return Region(code), true
	}
	return "", false
}

// Name is the country's English name ("Germany").
func (r Region) Name() string {
	reg, err := language.ParseRegion(string(r))
	if err != nil {
		return string(r)
	}
	return display.English.Regions().Name(reg)
}

// RegionField is the optional `country` input a workflow adds to its Fields
// when it schedules deliverables: it picks the public holidays deliverables
// must avoid.
func RegionField() Field {
	codes := make([]string, 0, len(countryHolidays))
	for _, r := range Regions() {
		codes = append(codes, string(r))
	}
	return Field{
		Name: RegionFieldName, Kind: String, Enum: codes, Aliases: map[string]string{"UK": string(RegionGB)}, Default: string(RegionUS),
		Description: "ISO 3166-1 alpha-2 country whose national public holidays deliverables avoid (case-insensitive; `UK` is read as `GB`): " +
			"`US` federal holidays, `GB` England and Wales bank holidays, and every country GET /v1/engine/calendars lists. " +
			"Weekends and the industry closures (the 24 December–1 January dead week) are closed everywhere.",
	}
}

// Region returns the plan's region from the `country` input, RegionUS when
// the workflow has no such input.
func (in *Input) Region() Region {
	if r, ok := ParseRegion(in.Str(RegionFieldName)); ok {
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

// Holiday reports whether d is a public holiday in r as observed (a US
// holiday on a Saturday is the Friday before, a GB bank holiday on a
// weekend has a substitute weekday) and names it. An unknown region reads
// as RegionUS.
func Holiday(d time.Time, r Region) (name string, ok bool) {
	if _, known := countryHolidays[r]; !known {
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
	m := map[int]string{}
	// A holiday of the year before or after can be observed in this one
	// (New Year's Day 2028, a Saturday, is observed in the US on Friday 31
	// December 2027).
	for y := year - 1; y <= year+1; y++ {
		for _, h := range countryHolidays[r] {
			actual, observed := h.Calc(y)
			if observed.IsZero() || observed.Year() != year {
				continue
			}
			name := h.Name
			if !sameDay(actual, observed) {
				name += substituteLabel(r)
			}
			day := observed.YearDay()
			if _, taken := m[day]; !taken {
				m[day] = name
			}
		}
	}
	holidayCache.Store(key, m)
	return m
}

// substituteLabel is how a country names the weekday that stands in for a
// holiday falling on a weekend.
func substituteLabel(r Region) string {
	if r == RegionGB {
		return " (substitute day)"
	}
	return " (observed)"
}

// sameDay compares calendar dates whatever their locations: the library
// returns dates in cal.DefaultLoc.
func sameDay(a, b time.Time) bool {
	return a.Year() == b.Year() && a.YearDay() == b.YearDay()
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
		return DeadWeek.Name
	}
	if d.Weekday() == time.Saturday || d.Weekday() == time.Sunday {
		return "a " + d.Weekday().String()
	}
	return ""
}
