package engine

import (
	"fmt"
	"time"
)

// Industry closures: the spans of a year when part of an industry stops
// taking work or stops paying attention, kept here as data so that every
// workflow plans around the same dates and every date can be traced to its
// source. Public holidays are per country (region.go); these are the same
// everywhere the industry works.

// ClosureKind says what a closure does to a plan.
type ClosureKind string

const (
	// ClosureShutdown: nobody hands work over (offices, labs, factories).
	ClosureShutdown ClosureKind = "shutdown"
	// ClosureSale: a storefront gives its front page to discounts, so a
	// launch is buried.
	ClosureSale ClosureKind = "sale"
	// ClosureMarket: the weeks buyers place orders; selling happens in them.
	ClosureMarket ClosureKind = "market"
)

// Span is one occurrence of a closure, Start to End inclusive.
type Span struct {
	Name       string
	Start, End time.Time
}

// Contains reports whether d falls in the span.
func (s Span) Contains(d time.Time) bool { return !d.Before(s.Start) && !d.After(s.End) }

// Closure is a recurring industry closure with the source its dates come
// from. KnownFrom–KnownTo are the years whose dates are published and held
// here; other years follow Estimate.
type Closure struct {
	Key                string
	Name               string
	Kind               ClosureKind
	Affects            string
	Source             Source
	KnownFrom, KnownTo int
	// Estimate is how dates are set outside the known years ("" when the
	// dates are fixed every year).
	Estimate string
	spans    func(year int) []Span
}

// Spans returns the occurrences that start in year.
func (c Closure) Spans(year int) []Span { return c.spans(year) }

// On returns the occurrence containing d. An occurrence can start in the
// year before d (the Winter Sale runs into January).
func (c Closure) On(d time.Time) (Span, bool) {
	d = date(d.Year(), d.Month(), d.Day())
	for y := d.Year() - 1; y <= d.Year(); y++ {
		for _, s := range c.spans(y) {
			if s.Contains(d) {
				return s, true
			}
		}
	}
	return Span{}, false
}

// Closures lists every industry closure the planners know, for the
// documentation and GET /v1/engine/calendars.
func Closures() []Closure {
	return []Closure{DeadWeek, FactoryNewYear, SteamSeasonalSales, FashionMarketWeeks}
}

// ClosureByKey returns the closure with key ("factory-new-year"), for
// reading a plan's declared closures back from its timeline.
func ClosureByKey(key string) (Closure, bool) {
	for _, c := range Closures() {
		if c.Key == key {
			return c, true
		}
	}
	return Closure{}, false
}

// DeadWeek is the week between Christmas and New Year: offices, labs,
// distributors and press are closed or unreachable, and launches get lost.
var DeadWeek = Closure{
	Key: "dead-week", Name: "the 24 December–1 January dead week", Kind: ClosureShutdown,
	Affects:   "every vertical: offices, labs, distributors, press",
	Source:    Source{Title: "Christmas and holiday season (the business shutdown between Christmas and New Year)", URL: "https://en.wikipedia.org/wiki/Christmas_and_holiday_season", Checked: "2026-11"},
	KnownFrom: 1, KnownTo: 9999,
	spans: func(year int) []Span {
		return []Span{{Name: "the 24 December–1 January dead week", Start: date(year, time.December, 24), End: date(year+1, time.January, 1)}}
	},
}

// InDeadWeek reports whether d falls in DeadWeek, 24 December to 1 January
// inclusive.
func InDeadWeek(d time.Time) bool {
	_, ok := DeadWeek.On(d)
	return ok
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

// FactoryNewYear is the Chinese New Year closure of factories in China and
// much of East and South-East Asia. It stops bulk production and sampling
// alike: a proto or fit round sent in it waits for the line to reopen.
var FactoryNewYear = Closure{
	Key: "factory-new-year", Name: "the Chinese New Year factory closure", Kind: ClosureShutdown,
	Affects:   "manufacturing in China and East/South-East Asia: bulk production, proto, fit and pre-production samples",
	Source:    Source{Title: "Hong Kong Observatory: Gregorian–lunar calendar conversion (Chinese New Year dates)", URL: "https://www.hko.gov.hk/en/gts/time/conversion.htm", Checked: "2026-11"},
	KnownFrom: ChineseNewYearFirst, KnownTo: ChineseNewYearLast,
	Estimate: "10 February (the middle of the festival's 21 January–20 February range); the closure runs from 7 days before the new year to 14 days after it",
	spans: func(year int) []Span {
		cny := ChineseNewYear(year)
		return []Span{{Name: fmt.Sprintf("the Chinese New Year %d factory closure", year), Start: AddDays(cny, -FactoryClosureDaysBefore), End: AddDays(cny, FactoryClosureDaysAfter)}}
	},
}

// FactoryClosed reports whether d falls in the Chinese New Year factory
// closure: from 7 days before the new year to 14 days after it, inclusive.
func FactoryClosed(d time.Time) bool {
	_, ok := FactoryNewYear.On(d)
	return ok
}

// FactoryReopens returns the first day after the Chinese New Year closure
// that contains d, or d itself when factories are working.
func FactoryReopens(d time.Time) time.Time {
	s, ok := FactoryNewYear.On(d)
	if !ok {
		return d
	}
	return AddDays(s.End, 1)
}

// FactoryStart returns when work taking days of an Asian factory's time
// (a proto round, salesman samples) must be handed over to be back on end:
// days before end, plus the closure's days in between, which do not count.
func FactoryStart(end time.Time, days int) time.Time {
	d := end
	for days > 0 {
		if !FactoryClosed(d) {
			days--
		}
		d = AddDays(d, -1)
	}
	return d
}

// steamSales are Valve's published storewide sales (Steamworks "upcoming
// events"), by year.
var steamSales = map[int][]Span{
	2024: {
		{"Steam Spring Sale", date(2024, time.March, 14), date(2024, time.March, 21)},
		{"Steam Summer Sale", date(2024, time.June, 27), date(2024, time.July, 11)},
		{"Steam Autumn Sale", date(2024, time.November, 27), date(2024, time.December, 4)},
		{"Steam Winter Sale", date(2024, time.December, 19), date(2025, time.January, 2)},
	},
	2025: {
		{"Steam Spring Sale", date(2025, time.March, 13), date(2025, time.March, 20)},
		{"Steam Summer Sale", date(2025, time.June, 26), date(2025, time.July, 10)},
		{"Steam Autumn Sale", date(2025, time.September, 29), date(2025, time.October, 6)},
		{"Steam Winter Sale", date(2025, time.December, 18), date(2026, time.January, 5)},
	},
	2026: {
		{"Steam Spring Sale", date(2026, time.March, 19), date(2026, time.March, 26)},
	},
}

// SteamSeasonalSales are Valve's four storewide sales.
var SteamSeasonalSales = Closure{
	Key: "steam-seasonal-sales", Name: "Steam's seasonal sales", Kind: ClosureSale,
	Affects:   "games on Steam: launches are buried under discounts",
	Source:    Source{Title: "Steamworks: upcoming Steam sales and events", URL: "https://partner.steamgames.com/doc/marketing/upcoming_events", Checked: "2026-11"},
	KnownFrom: 2024, KnownTo: 2025,
	Estimate: "Spring from the second Thursday of March for 8 days; Summer from the last Thursday of June for 15 days; Autumn from the Wednesday before US Thanksgiving for 8 days; " +
		"Winter from the third Thursday of December for 15 days and at least to 2 January",
	spans: func(year int) []Span {
		span := func(name string, start time.Time, days int) Span {
			return Span{Name: name, Start: start, End: AddDays(start, days-1)}
		}
		winter := span("Steam Winter Sale", NthWeekday(year, time.December, time.Thursday, 3), 15)
		winter.End = Later(winter.End, date(year+1, time.January, 2))
		sales := []Span{
			span("Steam Spring Sale", NthWeekday(year, time.March, time.Thursday, 2), 8),
			span("Steam Summer Sale", NthWeekday(year, time.June, time.Thursday, 0), 15),
			span("Steam Autumn Sale", AddDays(NthWeekday(year, time.November, time.Thursday, 4), -1), 8),
			winter,
		}
		// A sale Valve has published replaces its estimate; a year is
		// often published one sale at a time.
		for _, known := range steamSales[year] {
			for i := range sales {
				if sales[i].Name == known.Name {
					sales[i] = known
				}
			}
		}
		return sales
	},
}

// FashionMarketWeeks are the wholesale market seasons of fashion: the
// Paris, New York, London and Milan showroom weeks and the trade shows
// around them, where buyers place orders. A span is named for the season
// it sells; MarketSeasonFor says which deliveries that is.
var FashionMarketWeeks = Closure{
	Key: "fashion-market-weeks", Name: "fashion wholesale market weeks", Kind: ClosureMarket,
	Affects:   "fashion wholesale: samples must be in the showroom, orders are written",
	Source:    Source{Title: "Fédération de la Haute Couture et de la Mode: Paris fashion week and showroom calendar", URL: "https://fhcm.paris/en/calendar", Checked: "2026-11"},
	KnownFrom: 1, KnownTo: 9999,
	spans: func(year int) []Span {
		return []Span{
			{Name: fmt.Sprintf("Fall/Winter %d market", year), Start: date(year, time.January, 5), End: date(year, time.March, 31)},
			{Name: fmt.Sprintf("Spring/Summer %d market", year+1), Start: date(year, time.June, 1), End: date(year, time.June, 30)},
			{Name: fmt.Sprintf("Spring/Summer %d market", year+1), Start: date(year, time.September, 1), End: date(year, time.October, 15)},
			{Name: fmt.Sprintf("Pre-Fall %d market", year+1), Start: date(year, time.November, 2), End: date(year, time.December, 18)},
		}
	},
}

// MarketSeason is the wholesale season a delivery is sold in, and the
// market weeks that sell it.
type MarketSeason struct {
	Name    string // "Spring/Summer 2028"
	Markets []Span
}

// MarketSeasonFor returns the season a first delivery to stores is sold
// in: Spring/Summer deliveries (December to May) at the June and September
// markets of the year before, Pre-Fall deliveries (June and July) at the
// November–December markets before them, Fall/Winter deliveries (August to
// November) at the January–March markets of their year. With overseas lead
// times (about six months from market to delivery, longer across Chinese
// New Year) each delivery then meets its market.
func MarketSeasonFor(delivery time.Time) MarketSeason {
	y := delivery.Year()
	season := func(name string, marketYear int) MarketSeason {
		ms := MarketSeason{Name: name}
		for _, s := range FashionMarketWeeks.Spans(marketYear) {
			if s.Name == name+" market" {
				ms.Markets = append(ms.Markets, s)
			}
		}
		return ms
	}
	switch m := delivery.Month(); {
	case m == time.December:
		return season(fmt.Sprintf("Spring/Summer %d", y+1), y)
	case m <= time.May:
		return season(fmt.Sprintf("Spring/Summer %d", y), y-1)
	case m <= time.July:
		return season(fmt.Sprintf("Pre-Fall %d", y), y-1)
	default:
		return season(fmt.Sprintf("Fall/Winter %d", y), y)
	}
}

// LatestMarketDay returns the last Monday of the season's market weeks on
// or before d; ok is false when the markets open after d.
func (ms MarketSeason) LatestMarketDay(d time.Time) (time.Time, bool) {
	var best time.Time
	for _, s := range ms.Markets {
		last := OnOrBefore(Earlier(d, s.End), time.Monday)
		if !last.Before(s.Start) && last.After(best) {
			best = last
		}
	}
	return best, !best.IsZero()
}

// FirstMarketDay returns the first Monday of the season's market weeks on
// or after d; ok is false when its markets are over by then.
func (ms MarketSeason) FirstMarketDay(d time.Time) (time.Time, bool) {
	for _, s := range ms.Markets {
		first := OnOrAfter(Later(d, s.Start), time.Monday)
		if !first.After(s.End) {
			return first, true
		}
	}
	return time.Time{}, false
}
