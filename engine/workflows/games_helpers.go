package workflows

import (
	"fmt"
	"math"
	"time"

	"github.com/creativeops/creativeops/engine"
)

// Helpers shared by the games, tabletop, video, social-media, newsletters,
// comedy, theater and live-events workflows. Names are specific so they do
// not clash with other verticals' files in this package. Calendar, money
// text and passed-milestone helpers these workflows share with the other
// verticals live in the engine package.

// Sponsorship add-ons, as creator rate cards and talent agencies quote them:
// paid usage (whitelisting, ads from the creator's content) adds 20–30% of
// the fee per month of use, and category exclusivity 10–25% per month. The
// low ends are used, with caps so a long term does not quadruple a fee.
const (
	usagePerMonthPct       = 20.0
	usageCapPct            = 100.0
	exclusivityPerMonthPct = 10.0
	exclusivityCapPct      = 50.0
)

// sponsorUplift is the percentage added to a sponsorship fee for the given
// days of paid usage rights and of category exclusivity, each counted in
// started 30-day months.
func sponsorUplift(usageDays, exclusivityDays int) (usagePct, exclusivityPct float64) {
	months := func(days int) float64 { return math.Ceil(float64(days) / 30) }
	usagePct = math.Min(months(usageDays)*usagePerMonthPct, usageCapPct)
	exclusivityPct = math.Min(months(exclusivityDays)*exclusivityPerMonthPct, exclusivityCapPct)
	return usagePct, exclusivityPct
}

// steamEvent is one storewide Steam event; End is its last day.
type steamEvent struct {
	Name       string
	Start, End time.Time
}

// steamSeasonalSales approximates Valve's four storewide sales of a year
// from their 2023–2025 dates (Valve publishes the exact calendar each year
// on partner.steamgames.com; check it before committing): Spring on the
// second Thursday of March for a week, Summer on the last Thursday of June
// for two weeks, Autumn on the Wednesday before US Thanksgiving for a week,
// Winter on the third Thursday of December for two weeks.
func steamSeasonalSales(year int) []steamEvent {
	week := func(name string, start time.Time, days int) steamEvent {
		return steamEvent{Name: name, Start: start, End: engine.AddDays(start, days-1)}
	}
	thanksgiving := engine.NthWeekday(year, time.November, time.Thursday, 4)
	return []steamEvent{
		week("Steam Spring Sale", engine.NthWeekday(year, time.March, time.Thursday, 2), 8),
		week("Steam Summer Sale", engine.NthWeekday(year, time.June, time.Thursday, 0), 15),
		week("Steam Autumn Sale", engine.AddDays(thanksgiving, -1), 8),
		week("Steam Winter Sale", engine.NthWeekday(year, time.December, time.Thursday, 3), 15),
	}
}

// steamNextFests approximates the three Steam Next Fest editions of a year
// from their 2024–2026 dates: Monday to the following Monday, starting the
// fourth Monday of February, the second Monday of June and the second Monday
// of October.
func steamNextFests(year int) []steamEvent {
	fest := func(month time.Month, n int) steamEvent {
		start := engine.NthWeekday(year, month, time.Monday, n)
		return steamEvent{Name: fmt.Sprintf("Steam Next Fest %s %d", month, year), Start: start, End: engine.AddDays(start, 7)}
	}
	return []steamEvent{fest(time.February, 4), fest(time.June, 2), fest(time.October, 2)}
}

// steamSaleOn returns the seasonal sale running on d, if any.
func steamSaleOn(d time.Time) (steamEvent, bool) {
	for _, s := range steamSeasonalSales(d.Year()) {
		if !d.Before(s.Start) && !d.After(s.End) {
			return s, true
		}
	}
	// The Winter Sale runs into January.
	for _, s := range steamSeasonalSales(d.Year() - 1) {
		if !d.Before(s.Start) && !d.After(s.End) {
			return s, true
		}
	}
	return steamEvent{}, false
}
