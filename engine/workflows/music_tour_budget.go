package workflows

import (
	"fmt"
	"math"
	"sort"
	"time"

	"github.com/creativeops/creativeops/engine"
)

// Tour routing and budget for a club or theatre run. Rules used:
//   - Booking agents take 10% of gross guarantees (the standard agency
//     commission); managers commonly take 15–20% of gross.
//   - Routing assumes 55 mph door to door including fuel and food stops.
//     A band driving itself keeps show-day drives to 8 hours (≈440 miles) so
//     it makes load-in; a bus driver may drive at most 10 hours after 8 hours
//     off (FMCSA, 49 CFR 395.5, passenger-carrying vehicles), ≈550 miles.
//   - Vehicle costs are conservative commonly quoted figures: 15-passenger van
//     $110/day at 13 mpg, Sprinter $200/day at 18 mpg, sleeper bus with driver
//     $1,200/day at 6 mpg; fuel at $3.75/gal. A bus party sleeps on the bus,
//     so only the driver needs a (day) room.
//   - Rooms are booked two to a room.
//   - Club and theatre tours are booked 3–6 months ahead, announced with the
//     on-sale 6–8 weeks before the first show, and each show is advanced with
//     the venue two weeks out.
func init() {
	engine.Register(&engine.Workflow{
		ID:       "music-tour-budget",
		Name:     "Tour routing and budget",
		Vertical: "music",
		PastDate: engine.PastDate{Field: "shows[].date", Policy: engine.PastPostEvent},
		Sources: []engine.Source{
			{Title: "FMCSA hours of service, passenger-carrying vehicles (49 CFR 395.5)", URL: "https://www.ecfr.gov/current/title-49/subtitle-B/chapter-III/subchapter-B/part-395/section-395.5", Checked: "2026-11"},
			{Title: "IRS standard mileage rates", URL: "https://www.irs.gov/tax-professionals/standard-mileage-rates", Checked: "2026-11"},
		},
		Description: "Checks a run of shows for drives the vehicle cannot make, and budgets the tour (commissions, vehicle, fuel, rooms, per diems) against the guarantees, with the break-even guarantee and the booking, announce and advance dates. Steps whose lead time has passed are due now; a tour already started or over gets a post-event plan.",
		Fields: []engine.Field{
			engine.RegionField(),
			{Name: "artist", Kind: engine.String, Required: true, Min: engine.Bound(1), Max: engine.Bound(200), Description: "Artist or band name."},
			{Name: "shows", Kind: engine.ObjectList, Required: true, Min: engine.Bound(2), Max: engine.Bound(60), Description: "The shows, in routing order.", Items: []engine.Field{
				{Name: "city", Kind: engine.String, Required: true, Min: engine.Bound(1), Max: engine.Bound(100), Description: "City of the venue."},
				{Name: "date", Kind: engine.Date, Required: true, Description: "Show date."},
				{Name: "guarantee_usd", Kind: engine.Number, Money: true, Required: true, Min: engine.Bound(0), Max: engine.Bound(10000000), Description: "Guaranteed fee in `currency` (0–10,000,000)."},
				{Name: "miles_from_previous", Kind: engine.Number, Required: true, Min: engine.Bound(0), Max: engine.Bound(5000), Description: "Road miles from the previous show (from home for the first)."},
			}},
			{Name: "miles_home", Kind: engine.Number, Default: 0, Min: engine.Bound(0), Max: engine.Bound(5000), Description: "Road miles from the last show back home."},
			{Name: "travel_party", Kind: engine.Integer, Default: 4, Min: engine.Bound(1), Max: engine.Bound(30), Description: "People on the road: band and crew."},
			{Name: "vehicle", Kind: engine.String, Enum: []string{"van", "sprinter", "bus"}, Default: "van", Description: "How the party travels."},
			{Name: "per_diem_usd", Kind: engine.Number, Money: true, Default: 35, Min: engine.Bound(0), Max: engine.Bound(200), Description: "Per diem per person per day."},
			{Name: "hotel_room_usd", Kind: engine.Number, Money: true, Default: 130, Min: engine.Bound(0), Max: engine.Bound(1000), Description: "Average hotel room rate per night."},
			{Name: "manager_commission_pct", Kind: engine.Number, Default: 15, Min: engine.Bound(0), Max: engine.Bound(25), Description: "Manager's commission on gross guarantees, in percent (0 without a manager)."},
			engine.CurrencyField("USD"),
		},
		ExampleContext: map[string]any{
			"artist": "Nova Reyes",
			"shows": []any{
				map[string]any{"city": "Portland, OR", "date": "2027-04-08", "guarantee_usd": 1500, "miles_from_previous": 0},
				map[string]any{"city": "Seattle, WA", "date": "2027-04-09", "guarantee_usd": 2000, "miles_from_previous": 175},
				map[string]any{"city": "San Francisco, CA", "date": "2027-04-11", "guarantee_usd": 2500, "miles_from_previous": 810},
				map[string]any{"city": "Los Angeles, CA", "date": "2027-04-12", "guarantee_usd": 3000, "miles_from_previous": 380},
				map[string]any{"city": "San Diego, CA", "date": "2027-04-13", "guarantee_usd": 1200, "miles_from_previous": 120},
				map[string]any{"city": "Phoenix, AZ", "date": "2027-04-15", "guarantee_usd": 1500, "miles_from_previous": 355},
			},
			"miles_home":   1335,
			"travel_party": 4,
			"vehicle":      "van",
			"as_of":        "2026-11-20",
		},
		Steps: []engine.Step{
			{Name: "route", Run: musicTourRoute},
			{Name: "budget", Run: musicTourBudget},
			{Name: "schedule", Run: musicTourSchedule},
			{Name: "recommend", Run: musicTourRecommend},
		},
	})
}

type musicTourVehicle struct {
	dayRateUSD, mpg, maxDriveHours float64
}

var musicTourVehicles = map[string]musicTourVehicle{
	"van":      {dayRateUSD: 110, mpg: 13, maxDriveHours: 8},
	"sprinter": {dayRateUSD: 200, mpg: 18, maxDriveHours: 8},
	"bus":      {dayRateUSD: 1200, mpg: 6, maxDriveHours: 10},
}

const (
	musicTourMPH            = 55.0
	musicTourFuelUSD        = 3.75
	musicTourAgentPct       = 10.0
	musicTourBookingLead    = 90 // days: the short end of 3–6 months
	musicTourAnnounceLead   = 42 // days: 6 weeks
	musicTourAdvanceLead    = 14
	musicTourComfortBooking = 120
)

type musicTourShow struct {
	city      string
	date      time.Time
	guarantee float64
	miles     float64
}

func musicTourShows(in *engine.Input) []musicTourShow {
	var shows []musicTourShow
	for _, s := range in.List("shows") {
		shows = append(shows, musicTourShow{s.Str("city"), s.Date("date"), s.Float("guarantee_usd"), s.Float("miles_from_previous")})
	}
	return shows
}

func musicTourRoute(in *engine.Input, p *engine.Plan) error {
	shows := musicTourShows(in)
	if !sort.SliceIsSorted(shows, func(i, j int) bool { return shows[i].date.Before(shows[j].date) }) {
		p.Warn("SHOWS_OUT_OF_ORDER", "The shows are not listed in date order; miles_from_previous must follow the routing, so check each leg's mileage against the real order.")
		sort.SliceStable(shows, func(i, j int) bool { return shows[i].date.Before(shows[j].date) })
	}
	v := musicTourVehicles[in.Str("vehicle")]
	dayMiles := v.maxDriveHours * musicTourMPH
	var legs []map[string]any
	var miles float64
	for i, s := range shows {
		gap := 1 // the first leg is driven on show day
		if i > 0 {
			gap = engine.DaysBetween(shows[i-1].date, s.date)
		}
		if i > 0 && gap == 0 {
			p.Warn("DOUBLE_BOOKED", "%s and %s are both on %s.", shows[i-1].city, s.city, engine.FormatDate(s.date))
		}
		hours := engine.Round(s.miles/musicTourMPH, 1)
		drivable := gap > 0 && s.miles <= dayMiles*float64(gap)
		if gap > 0 && !drivable {
			p.Warn("DRIVE_TOO_LONG", "%s: %.0f miles (%.1f hours at %.0f mph) in %s exceeds the %.0f-hour daily drive of a %s (%.0f miles a day); add %s off before it or reroute.",
				s.city, s.miles, hours, musicTourMPH, engine.Plural(gap, "day", "days"), v.maxDriveHours, in.Str("vehicle"), dayMiles, engine.Plural(int(math.Ceil(s.miles/dayMiles))-gap, "day", "days"))
		}
		miles += s.miles
		legs = append(legs, map[string]any{
			"city": s.city, "date": engine.FormatDate(s.date), "miles": s.miles,
			"drive_hours": hours, "days_to_drive": gap, "drivable": drivable,
		})
	}
	home := in.Float("miles_home")
	returnDays := int(math.Ceil(home / dayMiles))
	miles += home
	days := engine.DaysBetween(shows[0].date, shows[len(shows)-1].date) + 1 + returnDays
	p.Set("legs", legs)
	p.Set("tour", map[string]any{
		"first_show": engine.FormatDate(shows[0].date), "last_show": engine.FormatDate(shows[len(shows)-1].date),
		"shows": len(shows), "days_on_road": days, "return_days": returnDays,
		"total_miles": miles, "drive_hours": engine.Round(miles/musicTourMPH, 1),
	})
	return nil
}

func musicTourBudget(in *engine.Input, p *engine.Plan) error {
	shows := musicTourShows(in)
	tour := p.Get("tour").(map[string]any)
	days := tour["days_on_road"].(int)
	miles := tour["total_miles"].(float64)
	party := in.Int("travel_party")
	v := musicTourVehicles[in.Str("vehicle")]

	var gross float64
	for _, s := range shows {
		gross += s.guarantee
	}
	rooms := (party + 1) / 2
	if in.Str("vehicle") == "bus" {
		rooms = 1 // the driver's day room; the party sleeps on the bus
	}
	nights := days - 1 // the last night is at home
	// Vehicle hire and fuel are US figures in US dollars: converted into
	// the plan's currency, and said to be US prices outside the US.
	dayRate := in.Benchmark(p, engine.Benchmark{Amount: engine.InUSD(v.dayRateUSD), What: in.Str("vehicle") + " hire per day", Source: "US tour-vehicle rental rates"})
	fuel := in.Benchmark(p, engine.Benchmark{Amount: engine.InUSD(musicTourFuelUSD), What: "fuel per US gallon", Source: "https://www.eia.gov/petroleum/gasdiesel/"})
	if in.Region() != engine.RegionUS {
		p.Warn("US_PRICES", "Vehicle hire (%s a day) and fuel (%s a US gallon, %s a litre) are US prices converted at the reference rate; fuel and hire in %s usually cost more: replace them with local quotes.",
			in.Money(dayRate), in.Money(fuel), in.Money(fuel/3.785411784), in.Region().Name())
	}
	costs := map[string]float64{
		"vehicle_usd":   engine.Money(dayRate * float64(days)),
		"fuel_usd":      engine.Money(miles / v.mpg * fuel),
		"hotels_usd":    engine.Money(float64(rooms*nights) * in.Float("hotel_room_usd")),
		"per_diems_usd": engine.Money(float64(party*days) * in.Float("per_diem_usd")),
	}
	var total float64
	for _, c := range costs {
		total += c
	}
	commissionPct := musicTourAgentPct + in.Float("manager_commission_pct")
	agent := engine.Money(gross * musicTourAgentPct / 100)
	manager := engine.Money(gross * in.Float("manager_commission_pct") / 100)
	net := engine.Money(gross - agent - manager - total)
	// The guarantee every show must average so that, after commissions, the
	// tour pays for itself.
	breakEven := engine.Money(total / (1 - commissionPct/100) / float64(len(shows)))
	p.Set("budget", map[string]any{
		"gross_guarantees_usd":   engine.Money(gross),
		"agent_commission_usd":   agent,
		"manager_commission_usd": manager,
		"costs_usd":              costs,
		"total_costs_usd":        engine.Money(total),
		"net_usd":                net,
		"rooms_per_night":        rooms,
		"hotel_nights":           nights,
	})
	p.Set("break_even_avg_guarantee_usd", breakEven)
	if net < 0 {
		p.Warn("TOUR_LOSS", "Guarantees of %s less %.0f%% commissions (%s) do not cover %s of road costs: the tour loses %s. Shows must average %s (now %s) to break even.",
			in.Money(gross), commissionPct, in.Money(agent+manager), in.Money(total), in.Money(-net), in.Money(breakEven), in.Money(gross/float64(len(shows))))
	}
	return nil
}

func musicTourSchedule(in *engine.Input, p *engine.Plan) error {
	shows := musicTourShows(in)
	sort.SliceStable(shows, func(i, j int) bool { return shows[i].date.Before(shows[j].date) })
	first, last := shows[0].date, shows[len(shows)-1].date
	p.SetTarget(first)
	lead := engine.DaysBetween(p.AsOf(), first)
	switch {
	case last.Before(p.AsOf()):
		p.SetTarget(last)
		p.PostEvent(last, "the tour is over: reconcile every settlement against this budget.")
	case lead < 0:
		p.PostEvent(first, "the tour is under way: the plan covers the shows still to play and the settlement review.")
	case lead < musicTourBookingLead:
		earliest := engine.AddDays(p.AsOf(), musicTourComfortBooking)
		p.Warn("BOOKING_LEAD_TIME", "The first show is %s away; club and theatre tours are booked 3–6 months ahead and announced 6 weeks out. Confirm holds now and expect some to be gone: the earliest comfortable start is %s.", engine.Plural(lead, "day", "days"), engine.FormatDate(earliest))
		p.Set("earliest_feasible_start", p.Label("earliest comfortable first show", earliest))
	}
	if lead >= 0 && lead < musicTourAnnounceLead {
		p.Warn("ANNOUNCE_WINDOW_MISSED", "Only %s to the first show: a 6-week on-sale is no longer possible, so ticket sales will be thin.", engine.Plural(lead, "day", "days"))
	}
	announce := engine.OnOrBefore(engine.AddDays(first, -musicTourAnnounceLead), time.Tuesday)
	book := p.Calendar().PrevWorkday(engine.AddDays(first, -musicTourComfortBooking))
	var advance []map[string]any
	for _, s := range shows {
		advance = append(advance, map[string]any{"city": s.city, "advance_by": engine.FormatDate(p.Calendar().PrevWorkday(engine.AddDays(s.date, -musicTourAdvanceLead)))})
	}
	// Steps whose lead time is already missed are due now (clamping to the
	// plan date keeps their order); a tour already under way lists only
	// what is left.
	asOf := p.AsOf()
	announce = engine.Later(asOf, announce)
	book = engine.Later(asOf, book)
	p.SetSchedule("advance_deadlines", "the day each show is advanced with its venue", advance)
	if lead >= 0 {
		p.Handover(engine.KindAction, "holds-confirmed", "All holds confirmed and contracts signed", book)
		p.Handover(engine.KindAnnounce, "announce", "Tour announced, tickets on sale (Tuesday, 6 weeks out)", announce)
		p.Set("announce_date", p.Ref("announce"))
		p.Handover(engine.KindAction, "advance-first-show", "First show advanced with the venue", engine.Later(asOf, p.Calendar().PrevWorkday(engine.AddDays(first, -musicTourAdvanceLead))))
	}
	p.Event("first-show", "First show: "+shows[0].city, first, "the first show")
	p.DependsOn("announce", "holds-confirmed")
	p.DependsOn("advance-first-show", "announce")
	p.DependsOn("first-show", "advance-first-show")
	p.Event("last-show", "Last show: "+shows[len(shows)-1].city, last, "the last show")
	p.Work("settlement-review", "Tour settlements reconciled against the budget", engine.Later(asOf, engine.AddDays(last, 7)))
	return nil
}

func musicTourRecommend(in *engine.Input, p *engine.Plan) error {
	tour := p.Get("tour").(map[string]any)
	budget := p.Get("budget").(map[string]any)
	// A tour already under way or over has no holds to confirm and no
	// on-sale to announce.
	preTour := !p.DateOf("announce").IsZero()
	if preTour {
		p.RecommendOn(engine.High, "holds-confirmed", "Confirm every hold in writing",
			"Turn holds into signed offers with guarantee, deal points (vs. percentage of the door), hospitality and merch split before announcing.")
		p.RecommendOn(engine.High, "announce", "Announce with the on-sale",
			"Announce and put tickets on sale together about 6 weeks out, on a Tuesday, and push every date from one tour link.")
	}
	if net := budget["net_usd"].(float64); net < 0 {
		p.Recommend(engine.High, "Close the gap before booking more dates",
			fmt.Sprintf("Ask for guarantees averaging %s, cut the travel party, or add a weekend show to cover the %s shortfall.", in.Money(p.Get("break_even_avg_guarantee_usd").(float64)), in.Money(-net)))
	}
	for _, l := range p.Get("legs").([]map[string]any) {
		if !l["drivable"].(bool) {
			p.Recommend(engine.High, "Reroute the long drives",
				"Some legs cannot be driven safely between shows (see legs); add a day off or swap the order of nearby cities.")
			break
		}
	}
	if preTour {
		p.Recommend(engine.Medium, "Advance every show two weeks out",
			"Confirm load-in, set times, backline, parking, guest list and settlement terms with each venue 14 days before the show (see advance_deadlines).")
	}
	p.Recommend(engine.Low, "Carry merch to offset costs",
		"Merch often decides whether a club tour breaks even; agree each venue's merch cut when advancing.")
	next := "The tour has started: settle each show against this budget."
	if preTour {
		next = fmt.Sprintf("Confirm holds by %s and announce on %s.", p.Ref("holds-confirmed"), p.Ref("announce"))
	}
	p.Strategy("Route %s's %s from %s to %s: %s on the road, %s miles (%.1f hours driving). Guarantees of %s less commissions and %s of costs leave %s; break-even is %s a show. %s",
		in.Str("artist"), engine.Plural(tour["shows"].(int), "show", "shows"), tour["first_show"], tour["last_show"], engine.Plural(tour["days_on_road"].(int), "day", "days"), studioCount(int(math.Round(tour["total_miles"].(float64)))), tour["drive_hours"].(float64),
		in.Money(budget["gross_guarantees_usd"].(float64)), in.Money(budget["total_costs_usd"].(float64)), in.Money(budget["net_usd"].(float64)), in.Money(p.Get("break_even_avg_guarantee_usd").(float64)),
		next)
	return nil
}
