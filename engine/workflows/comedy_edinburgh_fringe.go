package workflows

import (
	"fmt"
	"math"
	"time"

	"github.com/creativeops/creativeops/engine"
)

// Edinburgh Festival Fringe plan for a stand-up hour: the year's deadlines
// and the run's box-office break-even. Rules used (Edinburgh Festival Fringe
// Society guidance and recent festival calendars; exact dates are published
// each year, so check them):
//   - The Fringe opens on the first Friday of August and runs 25 days to the
//     Monday three weeks later (2024: 2–26 August; 2025: 1–25 August).
//   - The big venues (Assembly, Gilded Balloon, Pleasance, Underbelly and
//     others) take applications over the winter and programme by the end of
//     January; accommodation is booked by then too, before prices climb.
//   - Registration for the printed programme closes in early April (the
//     first Thursday of April is used); later registrations are listed
//     online only.
//   - The programme launches in June: press releases and reviewer invites
//     go out by mid-June, print (flyers, posters) is ordered by 1 July.
//   - A new hour is run in at least 10 previews between May and July.
//   - Box office: UK ticket prices include 20% VAT at VAT-registered
//     venues, and box-office and card commissions take about 10% more
//     (conservative); the performer then gets their split (60/40 in the
//     performer's favour is common) of the net. Most Fringe shows run at a
//     loss, and few average more than half full.
//   - Money is in pounds sterling by default, as the Fringe sells tickets
//     and charges fees in GBP (`currency` changes it for a performer who
//     budgets in another currency; amounts are then in that currency).
//   - A festival year that has already ended is re-planned on the next
//     Fringe whose printed-programme registration is still open. Press
//     releases and print orders are hand-overs, kept off UK bank holidays
//     and weekends.
func init() {
	engine.Register(&engine.Workflow{
		ID:                 "comedy-edinburgh-fringe",
		Name:               "Edinburgh Fringe run plan",
		Vertical:           "comedy",
		CountryIndependent: "The Fringe is in Edinburgh: its dates, the UK's VAT and Scotland's venue licensing apply to every performer, wherever they come from.",
		PastDate:           engine.PastDate{Field: "year", Policy: engine.PastReplan},
		Description:        "Dates an Edinburgh Fringe year (venue applications, accommodation, programme registration, previews, press, print, the run) and computes the run's box-office income, break-even occupancy and tickets per night, with warnings when deadlines have passed or the run cannot break even. Money is in GBP unless `currency` says otherwise. A festival year already over is re-planned on the next Fringe whose registration is open; past the printed-programme deadline the year is kept, with an online-only listing.",
		Fields: []engine.Field{
			{Name: "show_title", Kind: engine.String, Required: true, Min: engine.Bound(1), Max: engine.Bound(200), Description: "Title of the show."},
			{Name: "year", Kind: engine.Integer, Min: engine.Bound(2026), Max: engine.Bound(2035), Description: "Festival year; defaults to the next Fringe whose programme registration is still open."},
			{Name: "run_nights", Kind: engine.Integer, Default: 24, Min: engine.Bound(1), Max: engine.Bound(25), Description: "Performances (a full run is 24–25)."},
			{Name: "seats", Kind: engine.Integer, Required: true, Min: engine.Bound(10), Max: engine.Bound(1000), Description: "Seats in the room."},
			{Name: "ticket_price", Kind: engine.Number, Money: true, Required: true, Min: engine.Bound(0), Max: engine.Bound(130), Description: "Average ticket price paid, VAT included (after concessions and previews), in `currency` (0–100)."},
			{Name: "performer_split_pct", Kind: engine.Number, Default: 60, Min: engine.Bound(0), Max: engine.Bound(100), Description: "Performer's share of net box office, in percent."},
			{Name: "costs", Kind: engine.Number, Money: true, Required: true, Min: engine.Bound(0), Max: engine.Bound(630000), Description: "Costs of the run in `currency`: registration, venue fees, accommodation, travel, PR, print (0–500,000)."},
			{Name: "occupancy_pct", Kind: engine.Number, Default: 35, Min: engine.Bound(0), Max: engine.Bound(100), Description: "Expected average share of seats sold, in percent."},
			engine.CurrencyField("GBP"),
		},
		Sources: []engine.Source{
			{Title: "Edinburgh Festival Fringe Society: taking part, registration deadlines and festival dates", URL: "https://www.edfringe.com/take-part", Checked: "2026-11"},
			{Title: "GOV.UK: VAT rates (20% standard rate on admission tickets)", URL: "https://www.gov.uk/guidance/rates-of-vat-on-different-goods-and-services", Checked: "2026-11"},
			{Title: "GOV.UK: UK bank holidays", URL: "https://www.gov.uk/bank-holidays", Checked: "2026-11"},
		},
		ExampleContext: map[string]any{
			"show_title":          "Small Talk, Big Room",
			"year":                2027,
			"run_nights":          24,
			"seats":               60,
			"ticket_price":        15,
			"performer_split_pct": 60,
			"costs":               9500,
			"occupancy_pct":       40,
			"as_of":               "2026-11-20",
		},
		Steps: []engine.Step{
			{Name: "check-deadlines", Run: comedyFringeDeadlines},
			{Name: "schedule", Run: comedyFringeSchedule},
			{Name: "box-office", Run: comedyFringeBoxOffice},
			{Name: "recommend", Run: comedyFringeRecommend},
		},
	})
}

const (
	comedyFringeVAT        = 0.20
	comedyFringeCommission = 0.10
	comedyFringeHighOcc    = 50.0
)

// comedyFringeCalendar is the festival office's: its deadlines fall on
// working days in Edinburgh.
var comedyFringeCalendar = engine.Calendar{Region: engine.RegionGB}

// comedyFringeDates are one festival year's key dates.
type comedyFringeDates struct {
	venueApps, registration, pressRelease, print, opening, closing time.Time
}

func comedyFringeYear(y int) comedyFringeDates {
	open := engine.NthWeekday(y, time.August, time.Friday, 1)
	return comedyFringeDates{
		venueApps:    comedyFringeCalendar.PrevWorkday(time.Date(y, time.January, 31, 0, 0, 0, 0, time.UTC)),
		registration: engine.NthWeekday(y, time.April, time.Thursday, 1),
		pressRelease: comedyFringeCalendar.PrevWorkday(time.Date(y, time.June, 15, 0, 0, 0, 0, time.UTC)),
		print:        comedyFringeCalendar.PrevWorkday(time.Date(y, time.July, 1, 0, 0, 0, 0, time.UTC)),
		opening:      open,
		closing:      engine.AddDays(open, 24),
	}
}

// comedyFringeNextYear is the first festival year from y whose
// printed-programme registration is on or after asOf.
func comedyFringeNextYear(y int, asOf time.Time) int {
	for comedyFringeYear(y).registration.Before(asOf) {
		y++
	}
	return y
}

func comedyFringeDeadlines(in *engine.Input, p *engine.Plan) error {
	asOf := p.AsOf()
	year := comedyFringeNextYear(asOf.Year(), asOf)
	var skip []string
	if in.Has("year") {
		year = in.Int("year")
		if d := comedyFringeYear(year); d.closing.Before(asOf) {
			next := comedyFringeNextYear(year+1, asOf)
			p.Warn("FESTIVAL_PASSED", "The %d Fringe ended %s; the plan is for %d.", year, engine.FormatDate(d.closing), next)
			p.Replanned(d.opening, comedyFringeYear(next).opening, fmt.Sprintf("The %d Fringe has already ended.", year))
			year = next
		}
	}
	d := comedyFringeYear(year)
	p.Set("festival_year", year)
	p.Set("festival", map[string]any{"opens": engine.FormatDate(d.opening), "closes": engine.FormatDate(d.closing)})
	p.SetTarget(d.opening)
	switch {
	case d.registration.Before(asOf):
		p.Warn("REGISTRATION_DEADLINE_PASSED", "Registration for the %d printed programme closed %s (%s ago): register now for an online-only listing, or plan for %d, whose venue applications close %s.",
			year, engine.FormatDate(d.registration), engine.Plural(engine.DaysBetween(d.registration, asOf), "day", "days"), year+1, engine.FormatDate(comedyFringeYear(year+1).venueApps))
		p.Set("next_feasible_year", year+1)
		skip = append(skip, "registration", "venue-applications")
	case d.venueApps.Before(asOf):
		p.Warn("VENUE_DEADLINE_PASSED", "The big venues programmed %d by %s; look to smaller venues and the free fringes (PBH Free Fringe, Laughing Horse) before registering by %s.",
			year, engine.FormatDate(d.venueApps), engine.FormatDate(d.registration))
		skip = append(skip, "venue-applications")
	}
	p.Set("skip_passed", skip)
	return nil
}

func comedyFringeSchedule(in *engine.Input, p *engine.Plan) error {
	d := comedyFringeYear(p.Get("festival_year").(int))
	uk := engine.RegionUK
	p.Event("venue-applications", "Venue applications in; accommodation booked", d.venueApps, "the venues' programming deadline")
	p.Event("registration", "Fringe Society registration for the printed programme", d.registration, "the Fringe Society's programme deadline")
	p.Work("previews-start", "Work-in-progress previews begin (10+ by July)", time.Date(d.opening.Year(), time.May, 1, 0, 0, 0, 0, time.UTC))
	p.Deliverable("press-release", "Press release and reviewer invitations out", d.pressRelease, uk)
	p.Deliverable("print", "Flyers and posters ordered", d.print, uk)
	p.Work("arrive", "Arrive in Edinburgh: venue tech and flyering", engine.AddDays(d.opening, -3))
	p.Event("opening", "First performance", d.opening, "the Fringe's opening")
	p.Event("closing", "Last night of the Fringe", d.closing, "the Fringe's last night")
	p.DependsOn("registration", "venue-applications")
	p.DependsOn("arrive", "print", "press-release", "previews-start")
	p.DependsOn("opening", "arrive")
	p.DependsOn("closing", "opening")
	p.WarnPassedMilestones(p.Get("skip_passed").([]string)...)
	return nil
}

func comedyFringeBoxOffice(in *engine.Input, p *engine.Plan) error {
	cur := in.Currency("GBP")
	money := func(v float64) string { return engine.FormatMoney(v, cur) }
	seats, nights := in.Int("seats"), in.Int("run_nights")
	price, split := in.Float("ticket_price"), in.Float("performer_split_pct")/100
	costs, occ := in.Float("costs"), in.Float("occupancy_pct")
	netTicket := price / (1 + comedyFringeVAT) * (1 - comedyFringeCommission)
	perTicket := netTicket * split
	capacity := seats * nights
	income := float64(capacity) * occ / 100 * perTicket
	box := map[string]any{
		"currency":             cur,
		"capacity":             capacity,
		"net_per_ticket":       engine.Money(netTicket),
		"performer_per_ticket": engine.Money(perTicket),
		"projected_tickets":    int(math.Round(float64(capacity) * occ / 100)),
		"projected_income":     engine.Money(income),
		"projected_result":     engine.Money(income - costs),
	}
	p.Set("currency", cur)
	p.Set("box_office", box)
	if perTicket <= 0 {
		p.Warn("NO_BOX_OFFICE_INCOME", "With a %s ticket and a %.0f%% split the performer earns nothing per ticket; the %s of costs are a straight loss.", money(price), split*100, money(costs))
		return nil
	}
	tickets := int(math.Ceil(costs / perTicket))
	beOcc := engine.Round(float64(tickets)/float64(capacity)*100, 1)
	perNight := int(math.Ceil(float64(tickets) / float64(nights)))
	box["break_even_tickets"], box["break_even_occupancy_pct"], box["break_even_per_night"] = tickets, beOcc, perNight
	switch {
	case beOcc > 100:
		p.Warn("BREAK_EVEN_ABOVE_CAPACITY", "Breaking even needs %s, more than the %s of the run (%.0f%%); cut costs, or find a bigger room or a better split.",
			engine.Plural(tickets, "ticket", "tickets"), engine.Plural(capacity, "seat", "seats"), beOcc)
	case beOcc > comedyFringeHighOcc:
		p.Warn("BREAK_EVEN_HIGH", "Breaking even needs %.0f%% of seats (%s a night); few Fringe shows average more than half full.", beOcc, engine.Plural(perNight, "ticket", "tickets"))
	}
	if income < costs {
		p.Warn("PROJECTED_LOSS", "At %.0f%% full the run earns %s against %s of costs, a loss of %s.", occ, money(income), money(costs), money(costs-income))
	}
	return nil
}

func comedyFringeRecommend(in *engine.Input, p *engine.Plan) error {
	cur := in.Currency("GBP")
	d := comedyFringeYear(p.Get("festival_year").(int))
	box := p.Get("box_office").(map[string]any)
	p.RecommendBy(engine.High, engine.Later(p.AsOf(), d.venueApps), "Apply to venues and book a bed",
		"Apply to two or three venues with a show blurb, a video of a preview set and your preferred slot; book accommodation the same week.")
	p.RecommendBy(engine.High, engine.Later(p.AsOf(), d.registration), "Register for the printed programme",
		"The printed programme and the Fringe app are how most tickets are found; a 40-word blurb and a strong image matter more than the title.")
	p.RecommendBy(engine.Medium, engine.Later(p.AsOf(), d.pressRelease), "Invite reviewers in the first week", "Reviews from the first weekend sell the rest of the run; invite for early dates, not previews.")
	breakEven := "never breaks even"
	if occ, ok := box["break_even_occupancy_pct"].(float64); ok {
		if occ > 100 {
			breakEven = fmt.Sprintf("cannot break even even when full (it needs %s)", engine.Plural(box["break_even_tickets"].(int), "ticket", "tickets"))
		} else {
			breakEven = fmt.Sprintf("breaks even at %v%% full (%s a night)", occ, engine.Plural(box["break_even_per_night"].(int), "ticket", "tickets"))
		}
		p.Recommend(engine.Low, "Count the run, not the night", fmt.Sprintf("Each ticket is worth %s to you after VAT, commissions and the split; fill the quiet first week with two-for-ones rather than comps.", engine.FormatMoney(box["performer_per_ticket"].(float64), cur)))
	}
	p.Strategy("%s at the %d Fringe (%s to %s): venues by %s, programme registration by %s; %s × %s %s, and at %.0f%% full the run returns %s.",
		in.Str("show_title"), p.Get("festival_year"), engine.FormatDate(d.opening), engine.FormatDate(d.closing), engine.FormatDate(d.venueApps), engine.FormatDate(d.registration),
		engine.Plural(in.Int("run_nights"), "night", "nights"), engine.Plural(in.Int("seats"), "seat", "seats"), breakEven, in.Float("occupancy_pct"), engine.FormatMoney(box["projected_result"].(float64), cur))
	return nil
}
