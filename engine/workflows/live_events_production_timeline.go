package workflows

import (
	"fmt"
	"math"
	"time"

	"github.com/creativeops/creativeops/engine"
)

// Production timeline and staffing for a live event, scheduled backwards
// from the event date. Rules used:
//   - Lead times by event type (standard promoter and producer practice):
//     club shows book the room 3 months ahead, confirm talent 12 weeks and
//     go on sale 8 weeks out; theatre shows 6 months, 20 weeks and 16 weeks;
//     outdoor festivals secure the site 12 months ahead, headliners 9 months
//     and open early-bird sales 6 months out.
//   - Special-event permits for outdoor events are filed 60–120 days ahead
//     in most US cities; 90 days is planned. Venues and cities want the
//     certificate of insurance 30 days out. Shows are advanced 14 days out,
//     festivals 30 days out, and a festival site build starts 5 days before.
//   - Staffing: NFPA 101 (Life Safety Code, 12.7.6) requires at least one
//     trained crowd manager in an assembly occupancy and one per 250
//     occupants beyond that. Security is
//     commonly planned at 1 per 100 attendees, 1 per 75 with alcohol.
//     First aid at 2 first aiders per 1,000 (UK Purple Guide low-risk
//     baseline). Outdoor sites without plumbing plan about 1 portable
//     toilet per 100 attendees for a 4-hour event, scaled by duration, plus
//     20% with alcohol (portable sanitation planning charts, conservative).
func init() {
	engine.Register(&engine.Workflow{
		ID:           "live-events-production-timeline",
		Name:         "Event production timeline and staffing",
		Vertical:     "live-events",
		Jurisdiction: []engine.Area{engine.AreaSafety},
		PastDate:     engine.PastDate{Field: "event_date", Policy: engine.PastPostEvent},
		Sources: []engine.Source{
			{Title: "NFPA 101 Life Safety Code (crowd managers, 12.7.6)", URL: "https://www.nfpa.org/codes-and-standards/nfpa-101-standard-development/101", Checked: "2026-11"},
			{Title: "The Purple Guide to health, safety and welfare at music and other events", URL: "https://www.thepurpleguide.co.uk/", Checked: "2026-11"},
		},
		Description: "Schedules venue, talent, permits, insurance, on-sale, advance and build backwards from the event date for a club show, theatre show or outdoor festival, sizes crowd managers, security, first aid and toilets for the attendance, and proposes the earliest feasible date when a lead time is already missed. An event closer than its hard minimum is re-planned on the earliest feasible date; missed lead times are due now; an event already held gets a post-event plan.",
		Fields: []engine.Field{
			{Name: "event_name", Kind: engine.String, Required: true, Min: engine.Bound(1), Max: engine.Bound(200), Description: "Name of the event."},
			{Name: "event_date", Kind: engine.Date, Required: true, Description: "Event day (first day for a multi-day event)."},
			{Name: "event_type", Kind: engine.String, Enum: []string{"club-show", "theater-show", "outdoor-festival"}, Default: "club-show", Description: "Kind of event."},
			{Name: "attendance", Kind: engine.Integer, Required: true, Min: engine.Bound(10), Max: engine.Bound(200000), Description: "Expected peak attendance."},
			{Name: "alcohol", Kind: engine.Boolean, Default: false, Description: "Whether alcohol is served."},
			{Name: "duration_hours", Kind: engine.Number, Default: 4, Min: engine.Bound(1), Max: engine.Bound(24), Description: "Hours the audience is on site per day."},
			{Name: "venue_booked", Kind: engine.Boolean, Default: false, Description: "Whether the venue or site is already confirmed."},
			engine.RegionField(),
		},
		ExampleContext: map[string]any{
			"event_name":     "Riverside Sound Day",
			"event_date":     "2027-08-21",
			"event_type":     "outdoor-festival",
			"attendance":     4500,
			"alcohol":        true,
			"duration_hours": 9,
			"venue_booked":   false,
			"as_of":          "2026-11-20",
		},
		Steps: []engine.Step{
			{Name: "schedule", Run: liveTimelineSchedule},
			{Name: "check-feasibility", Run: liveTimelineFeasibility},
			{Name: "staffing", Run: liveTimelineStaffing},
			{Name: "recommend", Run: liveTimelineRecommend},
		},
	})
}

type liveLeadTimes struct {
	venueMonths, talentWeeks, onSaleWeeks, advanceDays int
	permit                                             bool
}

var liveLeads = map[string]liveLeadTimes{
	"club-show":        {3, 12, 8, 14, false},
	"theater-show":     {6, 20, 16, 14, false},
	"outdoor-festival": {12, 39, 26, 30, true},
}

const (
	livePermitDays    = 90
	liveInsuranceDays = 30
	liveBuildDays     = 5
)

// liveTimelineMinimum is the hard floor between the plan date and the event:
// the permit and insurance lead times, and at least half the usual selling
// window.
func liveTimelineMinimum(l liveLeadTimes) int {
	minimum := max(liveInsuranceDays, l.onSaleWeeks*7/2)
	if l.permit {
		minimum = max(minimum, livePermitDays)
	}
	return minimum
}

// liveTimelineSchedule decides the date the plan is built on, then lays the
// milestones back from it. An event already past gets a post-event plan
// (the settlement is what still matters); one closer than the hard minimum
// is re-planned on the earliest feasible date, on the same weekday. Soft
// lead times already missed (venue, talent, announcement) are compressed to
// the plan date: they are due now, with a warning saying when they were due.
func liveTimelineSchedule(in *engine.Input, p *engine.Plan) error {
	asOf, requested := p.AsOf(), in.Date("event_date")
	l := liveLeads[in.Str("event_type")]
	event := requested
	minimum := liveTimelineMinimum(l)
	p.Set("minimum_lead_days", minimum)
	if requested.Before(asOf) {
		p.SetTarget(event)
		p.PostEvent(event, "the venue, permits, announcement and on-sale are behind it; settle artists, staff and suppliers and debrief for the next edition.")
		p.Set("plan_kind", "post_event")
		p.Set("event_date", engine.FormatDate(event))
		p.Event("event", "Event day (held)", event, "the event date")
		p.Handover(engine.KindPayment, "settlement", "Final settlement and supplier invoices", engine.Later(asOf, engine.AddDays(event, 7)))
		return nil
	}
	p.Set("plan_kind", "pre_event")
	if days := engine.DaysBetween(asOf, requested); days < minimum {
		event = engine.OnOrAfter(engine.AddDays(asOf, minimum), requested.Weekday())
		p.Set("earliest_feasible_event_date", engine.FormatDate(event))
		p.Warn("EVENT_TOO_SOON", "%s is under the %d-day minimum for a %s (permits, insurance and half the usual selling window); the plan is built on the earliest %s, %s.",
			engine.Plural(days, "day", "days"), minimum, in.Str("event_type"), requested.Weekday(), engine.FormatDate(event))
		replanOn(p, requested, event, "permits, insurance and the selling window need more time")
	}
	p.SetTarget(event)
	p.Set("event_date", engine.FormatDate(event))
	days := engine.DaysBetween(asOf, event)
	if in.Str("event_type") == "outdoor-festival" {
		// The outdoor season runs May to September in the northern
		// hemisphere and November to March in the southern (an Australian
		// December festival is midsummer); outside it, weather, daylight
		// and site hire work against the event.
		south := engine.SouthernHemisphere(in.Region())
		m := event.Month()
		if south {
			m = (m+5)%12 + 1 // read the southern month as its northern twin
		}
		if m < time.May || m > time.September {
			peak, season := time.June, "May–September"
			if south {
				peak, season = time.December, "November–March"
			}
			next := time.Date(event.Year(), peak, 1, 0, 0, 0, 0, time.UTC)
			if !next.After(event) {
				next = next.AddDate(1, 0, 0)
			}
			next = engine.OnOrAfter(next, event.Weekday())
			p.Warn("OUTSIDE_FESTIVAL_SEASON", "%s is outside %s's %s outdoor season (%s there): weather, daylight and site access raise costs and cut attendance. A %s in %s, e.g. %s, is the usual choice.",
				engine.FormatDate(event), in.Region().Name(), season, engine.Season(event, in.Region()), event.Weekday(), peak, engine.FormatDate(next))
			p.Set("in_season_event_date", p.Label("a date in the outdoor season", next))
		}
	}
	due := func(key, title string, d time.Time) {
		if d.Before(asOf) {
			switch key {
			case "on-sale", "announce":
				p.Warn("SELLING_WINDOW_SHORT", "%s was due %s; it is due now, and the event has %s to sell instead of the usual %d.",
					title, engine.FormatDate(d), engine.Plural(days, "day", "days"), engine.DaysBetween(d, event))
			case "venue":
				// The same weekend a year on keeps the season and the weekday.
				next := engine.AddWeeks(event, 52)
				p.Warn("VENUE_LEAD_TIME", "The venue should have been contracted by %s (%d months out); contract it now, or hold the same weekend next year, %s.",
					engine.FormatDate(d), l.venueMonths, engine.FormatDate(next))
				p.Set("next_year_event_date", p.Label("the same weekend next year", next))
			case "permit":
				p.Warn("PERMIT_LEAD_TIME", "The special-event permit should have been filed by %s (90 days out); file it now: cities can refuse late applications.", engine.FormatDate(d))
			default:
				p.Warn("MILESTONE_PASSED", "%s was due %s, before the plan date; it is due now.", title, engine.FormatDate(d))
			}
			d = p.Calendar().NextWorkday(asOf)
		}
		switch key {
		case "permit", "insurance":
			// Paperwork handed to the city and the venue: an open day.
			deliver(p, key, title, d, in.Region())
		default:
			p.Milestone(key, title, d)
		}
	}
	if !in.Bool("venue_booked") {
		due("venue", "Venue or site contracted", p.Calendar().PrevWorkday(engine.AddMonths(event, -l.venueMonths)))
	}
	due("talent", "Talent confirmed (offers accepted)", p.Calendar().PrevWorkday(engine.AddWeeks(event, -l.talentWeeks)))
	announce := engine.OnOrBefore(engine.AddWeeks(event, -l.onSaleWeeks-1), time.Tuesday)
	onSale := engine.OnOrBefore(engine.AddWeeks(event, -l.onSaleWeeks), time.Friday)
	if onSale.Before(asOf) {
		// Compressed: announce now (see due), on sale three days later.
		onSale = engine.AddDays(p.Calendar().NextWorkday(asOf), 3)
	}
	due("announce", "Announcement", announce)
	due("on-sale", "Tickets on sale (Friday 10am)", onSale)
	if l.permit {
		due("permit", "Special-event permit application filed", p.Calendar().PrevWorkday(engine.AddDays(event, -livePermitDays)))
		p.Work("site-build", "Site build begins", engine.AddDays(event, -liveBuildDays))
	}
	due("insurance", "Certificate of insurance to venue and city", p.Calendar().PrevWorkday(engine.AddDays(event, -liveInsuranceDays)))
	due("advance", "Production advance with artists and suppliers", p.Calendar().PrevWorkday(engine.AddDays(event, -l.advanceDays)))
	p.Event("event", "Event day", event, "the event date")
	p.Handover(engine.KindPayment, "settlement", "Final settlement and supplier invoices", engine.AddDays(event, 7))
	p.DependsOn("talent", "venue")
	p.DependsOn("announce", "talent")
	p.DependsOn("on-sale", "announce")
	p.DependsOn("site-build", "permit")
	p.DependsOn("event", "on-sale", "insurance", "advance", "site-build")
	p.DependsOn("settlement", "event")
	return nil
}

// liveTimelineFeasibility is kept as a step so progress reporting keeps its
// shape; the decisions are made when the schedule is laid out.
func liveTimelineFeasibility(in *engine.Input, p *engine.Plan) error { return nil }

func liveTimelineStaffing(in *engine.Input, p *engine.Plan) error {
	n := float64(in.Int("attendance"))
	alcohol := in.Bool("alcohol")
	securityRatio := 100.0
	if alcohol {
		securityRatio = 75
	}
	staff := map[string]any{
		"security":     int(math.Ceil(n / securityRatio)),
		"first_aiders": int(math.Max(2, math.Ceil(n/1000*2))),
	}
	staff["crowd_managers"] = int(math.Max(1, math.Ceil(n/250)))
	if in.Str("event_type") == "outdoor-festival" {
		toilets := n / 100 * math.Max(1, in.Float("duration_hours")/4)
		if alcohol {
			toilets *= 1.2
		}
		staff["portable_toilets"] = int(math.Ceil(toilets))
		staff["accessible_toilets"] = int(math.Max(1, math.Ceil(math.Ceil(toilets)*0.05)))
	}
	p.Set("staffing", staff)
	return nil
}

func liveTimelineRecommend(in *engine.Input, p *engine.Plan) error {
	ms := p.Milestones()
	staff := p.Get("staffing").(map[string]any)
	if p.Get("plan_kind") == "post_event" {
		p.RecommendOn(engine.High, "settlement", "Settle within a week", "Collect supplier invoices and settle artists and staff within seven days while the numbers are fresh.")
		p.RecommendBy(engine.Medium, p.AsOf(), "Debrief for the next edition", fmt.Sprintf("Compare actual attendance with the %d planned and staffing (%v security, %v first aiders) with incidents; book next year's date while the venue remembers you.",
			in.Int("attendance"), staff["security"], staff["first_aiders"]))
		p.Strategy("%s (%s) was held on %s: settle by %s and debrief for the next edition.", in.Str("event_name"), in.Str("event_type"), engine.FormatDate(in.Date("event_date")), p.Ref("settlement"))
		return nil
	}
	p.RecommendOn(engine.High, ms[0].Key, "Lock the first dependency",
		fmt.Sprintf("%s (%s) gates every later date: the announcement needs it, and the on-sale needs the announcement.", ms[0].Title, p.Ref(ms[0].Key)))
	p.Recommend(engine.High, "Staff to the numbers", fmt.Sprintf("Plan %v security staff and %v first aiders for %d people; write them into the event management plan the permit and insurer will ask for.",
		staff["security"], staff["first_aiders"], in.Int("attendance")))
	if rule, ok := in.Rule(p, engine.AreaSafety); ok && in.Region() == engine.RegionUS {
		p.Recommend(engine.Medium, "Train crowd managers", fmt.Sprintf("NFPA 101 requires trained crowd managers at 1 per 250 occupants: %v for this event, briefed on exits and the evacuation plan.", staff["crowd_managers"]))
	} else if ok {
		p.Recommend(engine.Medium, "Staff to the safety regime", fmt.Sprintf("%s. Staffing follows the event's risk assessment there; the US benchmark of 1 trained crowd manager per 250 occupants (%v here) is a floor to start from, not the rule.", rule.Rule, staff["crowd_managers"]))
	} else {
		p.Recommend(engine.Medium, "Staff to the local safety regime", fmt.Sprintf("No venue safety code for %s is in the rule table: ask the licensing authority; the US benchmark of 1 trained crowd manager per 250 occupants (%v here) is a floor to start from.", in.Region().Name(), staff["crowd_managers"]))
	}
	if t, ok := staff["portable_toilets"]; ok {
		p.Recommend(engine.Medium, "Book sanitation early", fmt.Sprintf("Order %v portable toilets, %v of them accessible, with servicing during the day; suppliers sell out for summer weekends.", t, staff["accessible_toilets"]))
	}
	p.Recommend(engine.Low, "Settle within a week", "Collect supplier invoices and settle artists and staff within seven days while the numbers are fresh.")
	p.Strategy("%s (%s, %d people) on %s: first deadline %s (%s), on sale %s weeks out, %v security and %v first aiders planned.",
		in.Str("event_name"), in.Str("event_type"), in.Int("attendance"), p.Get("event_date"), p.Ref(ms[0].Key), ms[0].Title,
		fmt.Sprint(liveLeads[in.Str("event_type")].onSaleWeeks), staff["security"], staff["first_aiders"])
	return nil
}
