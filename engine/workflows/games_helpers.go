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

// steamSaleOn returns the seasonal sale running on d, if any
// (engine.SteamSeasonalSales: Valve's published dates, estimated for other
// years).
func steamSaleOn(d time.Time) (steamEvent, bool) {
	s, ok := engine.SteamSeasonalSales.On(d)
	return steamEvent{Name: s.Name, Start: s.Start, End: s.End}, ok
}

// steamSeasonalSales lists the seasonal sales that start in year.
func steamSeasonalSales(year int) []steamEvent {
	var out []steamEvent
	for _, s := range engine.SteamSeasonalSales.Spans(year) {
		out = append(out, steamEvent{Name: s.Name, Start: s.Start, End: s.End})
	}
	return out
}

// steamLaunchDay returns the first sensible launch day on or after d: a
// Tuesday (a launch-day bug is patched on working days, long before the
// weekend), open in r (no public holiday, not the dead week) and outside
// every Steam seasonal sale, when the front page belongs to discounts. Every
// launch date the games workflows propose comes from here, so none lands in
// a sale the same plan warns about.
func steamLaunchDay(d time.Time, r engine.Region) time.Time {
	d = engine.OnOrAfter(d, time.Tuesday)
	for {
		if sale, ok := engine.SteamSeasonalSales.On(d); ok {
			d = engine.OnOrAfter(engine.AddDays(sale.End, 1), time.Tuesday)
			continue
		}
		if (engine.Calendar{Region: r}).Closed(d) {
			d = engine.OnOrAfter(engine.AddDays(d, 1), time.Tuesday)
			continue
		}
		return d
	}
}
