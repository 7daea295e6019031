package workflows

import (
	"fmt"
	"math"
	"sort"
	"strings"
	"time"

	"github.com/creativeops/creativeops/engine"
)

// Settlement forecast and on-sale calendar for a stand-up tour of clubs,
// theatres and alt rooms. Rules used:
//   - Comedy deals: a flat guarantee, a door deal (a percentage of net box
//     office, commonly 60–80% to the headliner in alt rooms and independent
//     clubs), or a "versus" deal paying the greater of the two (standard
//     booking practice). Net box office is gross less ticketing and card
//     fees, 5% here (conservative).
//   - Commissions come off the comic's gross fee: agents 10% (the norm set
//     by union-franchised agency agreements), managers 15% (15–20% common).
//   - On-sales: clubs announce 6–8 weeks out (6 used), theatres 3–4 months
//     (12 weeks used), alt rooms about 4 weeks, going on sale on a Friday
//     morning like most ticketed shows. Each show is advanced with the venue
//     10 days out.
//   - Two shows on one date are normal in the same city (early and late),
//     impossible in two cities.
//   - Re-planning: an on-sale that should already have happened goes on
//     sale on the plan date; one that falls on a public holiday or in the
//     24 December–1 January week moves to the Friday before. Shows already
//     played are reported as played, without milestones; when every show
//     has been played the plan is a post-event plan (settle up). Advancing
//     a show is a hand-over, on a working day of the comic's country
//     before the show.
func init() {
	engine.Register(&engine.Workflow{
		ID:           "comedy-club-tour",
		Name:         "Comedy tour settlement and on-sales",
		Vertical:     "comedy",
		Jurisdiction: []engine.Area{engine.AreaTax},
		PastDate:     engine.PastDate{Field: "shows[].date", Policy: engine.PastPostEvent},
		Description:  "Forecasts what each show of a stand-up tour pays under its deal (flat, door or versus) at the expected sell-through, after commissions and show costs, dates each on-sale and advance, and flags double bookings, late on-sales and shows that lose money. An on-sale already due goes on sale on the plan date, one on a holiday moves to the Friday before; shows already played are marked played, and a tour that is over gets a post-event plan (settle up).",
		Fields: []engine.Field{
			{Name: "comic", Kind: engine.String, Required: true, Min: engine.Bound(1), Max: engine.Bound(200), Description: "Comic or show name."},
			{Name: "shows", Kind: engine.ObjectList, Required: true, Min: engine.Bound(1), Max: engine.Bound(40), Description: "The shows.", Items: []engine.Field{
				{Name: "city", Kind: engine.String, Required: true, Min: engine.Bound(1), Max: engine.Bound(100), Description: "City."},
				{Name: "date", Kind: engine.Date, Required: true, Description: "Show date."},
				{Name: "venue_type", Kind: engine.String, Enum: []string{"club", "theater", "alt-room"}, Default: "club", Description: "Kind of room."},
				{Name: "capacity", Kind: engine.Integer, Required: true, Min: engine.Bound(10), Max: engine.Bound(20000), Description: "Sellable seats."},
				{Name: "ticket_price_usd", Kind: engine.Number, Money: true, Required: true, Min: engine.Bound(0), Max: engine.Bound(1000), Description: "Average ticket price in `currency` (0–1,000)."},
				{Name: "deal", Kind: engine.String, Enum: []string{"flat", "door", "versus"}, Default: "versus", Description: "Flat guarantee, door percentage, or the greater of the two."},
				{Name: "guarantee_usd", Kind: engine.Number, Money: true, Min: engine.Bound(0), Max: engine.Bound(1000000), RequiredWhen: &engine.When{Field: "deal", Values: []string{"flat", "versus"}}, Description: "Guaranteed fee in `currency`: what a flat deal pays, and the floor of a versus deal."},
				{Name: "door_pct", Kind: engine.Number, Min: engine.Bound(0), Max: engine.Bound(100), RequiredWhen: &engine.When{Field: "deal", Values: []string{"door", "versus"}}, Description: "Comic's share of net box office, in percent: the split of a door deal and the percentage of a versus deal. On a flat deal it is optional, and the door share it is compared with is at the club standard of 70 %."},
				{Name: "costs_usd", Kind: engine.Number, Money: true, Default: 0, Min: engine.Bound(0), Max: engine.Bound(500000), Description: "Travel, hotel and opener costs for this show, in `currency` (0–500,000)."},
			}},
			{Name: "sell_through_pct", Kind: engine.Number, Default: 65, Min: engine.Bound(0), Max: engine.Bound(100), Description: "Expected share of seats sold, in percent."},
			{Name: "agent_pct", Kind: engine.Number, Default: 10, Min: engine.Bound(0), Max: engine.Bound(20), Description: "Agent commission, in percent."},
			{Name: "manager_pct", Kind: engine.Number, Default: 15, Min: engine.Bound(0), Max: engine.Bound(25), Description: "Manager commission, in percent."},
			engine.RegionField(),
			engine.CurrencyField("USD"),
		},
		Sources: []engine.Source{
			{Title: "SAG-AFTRA Agency Regulations: franchised agents' 10% commission", URL: "https://www.sagaftra.org/membership-benefits/agents-managers", Checked: "2026-11"},
			{Title: "OPM: US federal holidays (on-sale and advance dates)", URL: "https://www.opm.gov/policy-data-oversight/pay-leave/federal-holidays/", Checked: "2026-11"},
		},
		ExampleContext: map[string]any{
			"comic": "Dana Okafor",
			"shows": []any{
				map[string]any{"city": "Chicago, IL", "date": "2027-02-19", "venue_type": "club", "capacity": 280, "ticket_price_usd": 30, "deal": "versus", "guarantee_usd": 2500, "door_pct": 70, "costs_usd": 650},
				map[string]any{"city": "Chicago, IL", "date": "2027-02-19", "venue_type": "club", "capacity": 280, "ticket_price_usd": 30, "deal": "door", "door_pct": 70, "costs_usd": 0},
				map[string]any{"city": "Milwaukee, WI", "date": "2027-02-20", "venue_type": "alt-room", "capacity": 120, "ticket_price_usd": 20, "deal": "door", "door_pct": 80, "costs_usd": 300},
				map[string]any{"city": "Minneapolis, MN", "date": "2027-03-06", "venue_type": "theater", "capacity": 900, "ticket_price_usd": 38, "deal": "flat", "guarantee_usd": 9000, "costs_usd": 1200},
			},
			"sell_through_pct": 65,
			"as_of":            "2026-11-20",
		},
		Steps: []engine.Step{
			{Name: "check-routing", Run: comedyTourRouting},
			{Name: "settlements", Run: comedyTourSettlements},
			{Name: "recommend", Run: comedyTourRecommend},
		},
	})
}

const comedyTourTicketFees = 0.05

// comedyTourStandardDoorPct is the door share a flat fee is compared with
// when the deal names none: the middle of the 60–80 % headliners take.
const comedyTourStandardDoorPct = 70

var comedyTourOnSaleWeeks = map[string]int{"club": 6, "theater": 12, "alt-room": 4}

func comedyTourShows(in *engine.Input) []*engine.Input {
	shows := in.List("shows")
	sort.SliceStable(shows, func(i, j int) bool { return shows[i].Date("date").Before(shows[j].Date("date")) })
	return shows
}

func comedyTourRouting(in *engine.Input, p *engine.Plan) error {
	shows := comedyTourShows(in)
	target := shows[len(shows)-1].Date("date")
	for _, s := range shows {
		if !s.Date("date").Before(p.AsOf()) {
			target = s.Date("date")
			break
		}
	}
	p.SetTarget(target)
	for i := 1; i < len(shows); i++ {
		a, b := shows[i-1], shows[i]
		if a.Date("date").Equal(b.Date("date")) && a.Str("city") != b.Str("city") {
			p.Warn("DOUBLE_BOOKED", "%s is booked in both %s and %s; two shows a night only work in one city.", engine.FormatDate(a.Date("date")), a.Str("city"), b.Str("city"))
		}
	}
	return nil
}

// comedyTourOnSale is a show's on-sale Friday: the weeks out its room
// needs, moved to an earlier Friday while that one is a public holiday or
// in the dead week.
func comedyTourOnSale(date time.Time, venue string, r engine.Region) time.Time {
	d := engine.OnOrBefore(engine.AddWeeks(date, -comedyTourOnSaleWeeks[venue]), time.Friday)
	for {
		if _, holiday := engine.Holiday(d, r); !holiday && !engine.InDeadWeek(d) {
			return d
		}
		d = engine.AddWeeks(d, -1)
	}
}

func comedyTourSettlements(in *engine.Input, p *engine.Plan) error {
	asOf, r := p.AsOf(), in.Region()
	sell := in.Float("sell_through_pct") / 100
	commission := (in.Float("agent_pct") + in.Float("manager_pct")) / 100
	var rows []map[string]any
	var played []string
	var totalPay, totalComm, totalCosts float64
	for i, s := range comedyTourShows(in) {
		date := s.Date("date")
		gross := float64(s.Int("capacity")) * sell * s.Float("ticket_price_usd")
		// The door is split on takings net of the VAT or GST ticket prices
		// include (UK 20 %, AU 10 %; France 5.5 % and Germany 7 % on
		// admission to live shows), and of ticketing fees.
		// A flat deal names no split: its door share, the yardstick a
		// flat fee is weighed against, is taken at the club standard.
		doorPct := s.Float("door_pct")
		if !s.Has("door_pct") {
			doorPct = comedyTourStandardDoorPct
		}
		door := in.NetOfTicketTax(p, gross) * (1 - comedyTourTicketFees) * doorPct / 100
		pay := door
		switch s.Str("deal") {
		case "flat":
			pay = s.Float("guarantee_usd")
		case "versus":
			pay = math.Max(s.Float("guarantee_usd"), door)
		}
		comm := pay * commission
		net := pay - comm - s.Float("costs_usd")
		label := fmt.Sprintf("%s %s", s.Str("city"), engine.FormatDate(date))
		row := map[string]any{
			"show": label, "deal": s.Str("deal"), "gross_box_office_usd": engine.Money(gross), "door_share_usd": engine.Money(door),
			"pay_usd": engine.Money(pay), "commissions_usd": engine.Money(comm), "costs_usd": engine.Money(s.Float("costs_usd")), "net_usd": engine.Money(net),
		}
		totalPay += pay
		totalComm += comm
		totalCosts += s.Float("costs_usd")
		rows = append(rows, row)
		if date.Before(asOf) {
			row["status"] = "played"
			played = append(played, label)
			continue
		}
		row["status"] = "upcoming"
		onSale := comedyTourOnSale(date, s.Str("venue_type"), r)
		if planned := engine.OnOrBefore(engine.AddWeeks(date, -comedyTourOnSaleWeeks[s.Str("venue_type")]), time.Friday); !planned.Equal(onSale) && !onSale.Before(asOf) {
			p.Warn("ON_SALE_MOVED", "The %s on-sale would fall on %s (%s), when nobody is buying; it goes on sale on Friday %s instead.",
				label, engine.FormatDate(planned), p.Calendar().ClosedReason(planned), engine.FormatDate(onSale))
		}
		if onSale.Before(asOf) {
			p.Warn("ON_SALE_LATE", "The %s show should have gone on sale %s (%d weeks out for a %s); it goes on sale now, with %s to sell.",
				label, engine.FormatDate(onSale), comedyTourOnSaleWeeks[s.Str("venue_type")], s.Str("venue_type"), engine.Plural(engine.DaysBetween(asOf, date), "day", "days"))
			onSale = asOf
		}
		n := i + 1
		row["on_sale"] = p.Ref(fmt.Sprintf("on-sale-%d", n))
		handoverBefore(p, engine.KindOnSale, fmt.Sprintf("on-sale-%d", n), "On-sale: "+label, onSale, date, "the show comes before the next working day, so tickets go on sale now")
		p.Event(fmt.Sprintf("show-%d", n), "Show: "+label, date, "the show date booked")
		p.DependsOn(fmt.Sprintf("show-%d", n), fmt.Sprintf("on-sale-%d", n))
		advance := p.Calendar().PrevWorkday(engine.AddDays(date, -10))
		if advance.Before(asOf) {
			advance = p.Calendar().NextWorkday(asOf)
		}
		if advance.After(date) {
			p.RecommendBy(engine.High, asOf, "Advance "+label+" today",
				"Call the venue today to confirm set times, tech, hospitality, comps and the settlement contact; there is no working day left before the show.")
		} else {
			p.Deliverable(fmt.Sprintf("advance-%d", n), "Advance with the venue: "+label, advance, r)
			p.DependsOn(fmt.Sprintf("show-%d", n), fmt.Sprintf("advance-%d", n))
		}
		if s.Str("deal") == "flat" && door > pay {
			p.Warn("FLAT_DEAL_BELOW_DOOR", "The %s flat fee of %s is below the %s door share at %.0f%% sold; ask for a versus deal (%s vs %.0f%% of net).",
				label, in.Money(pay), in.Money(door), sell*100, in.Money(pay), doorPct)
		}
		if net < 0 {
			p.Warn("SHOW_LOSES_MONEY", "The %s show pays %s, %s after commissions, against %s of costs: a loss of %s at %.0f%% sold.",
				label, in.Money(pay), in.Money(pay-comm), in.Money(s.Float("costs_usd")), in.Money(-net), sell*100)
		}
	}
	if len(played) > 0 {
		p.Warn("SHOW_DATE_PASSED", "Already played before the plan date %s: %s; they are counted in the totals as forecast, so replace them with the signed settlements.",
			engine.FormatDate(asOf), strings.Join(played, "; "))
	}
	if len(played) == len(rows) {
		last := comedyTourShows(in)[len(rows)-1].Date("date")
		p.PostEvent(last, "settle every show, pay commissions and compare the settlements with this forecast.")
		p.Deliverable("settled", "Every settlement reconciled and commissions paid", p.Calendar().AddWorkdays(p.Calendar().NextWorkday(asOf), 5), r)
	}
	// A theatre date late in the tour may go on sale before a club date.
	for _, m := range p.Milestones() {
		if strings.HasPrefix(m.Key, "on-sale-") {
			p.Milestone("assets-ready", "Press assets with every venue (a week before the first on-sale)", engine.Later(asOf, engine.AddWeeks(m.Date, -1)))
			break
		}
	}
	p.Set("shows", rows)
	p.Set("totals", map[string]any{
		"pay_usd": engine.Money(totalPay), "commissions_usd": engine.Money(totalComm), "costs_usd": engine.Money(totalCosts),
		"net_usd": engine.Money(totalPay - totalComm - totalCosts),
	})
	return nil
}

func comedyTourRecommend(in *engine.Input, p *engine.Plan) error {
	shows := comedyTourShows(in)
	totals := p.Get("totals").(map[string]any)
	firstOnSale := "none left"
	for _, m := range p.Milestones() {
		if strings.HasPrefix(m.Key, "on-sale-") {
			firstOnSale = p.Ref(m.Key)
			break
		}
	}
	if !p.DateOf("assets-ready").IsZero() {
		p.RecommendOn(engine.High, "assets-ready", "Have assets ready before the first on-sale",
			"Headshot, 30-second clip and a one-line bio to every venue a week before its on-sale; venues sell what they can post.")
	} else {
		p.RecommendBy(engine.High, p.AsOf(), "Collect every settlement sheet",
			"Get the signed settlement, ticket count and any merch split from each venue; compare them with this forecast before paying commissions.")
	}
	p.Recommend(engine.Medium, "Ask for versus deals", "A versus deal keeps the guarantee as a floor and pays the door when the show sells; ask for it wherever a flat fee is offered.")
	p.Recommend(engine.Medium, "Settle every night", "Count the door with the venue after the show and sign the settlement sheet; disputes weeks later are lost.")
	p.Recommend(engine.Low, "Post clips in each market", "Short clips targeted to each city in the two weeks before the show move more tickets than a tour-wide post.")
	p.Strategy("%s: %s from %s to %s pay %s at %.0f%% sold; after %s of commissions and %s of costs the tour nets %s; first on-sale %s.",
		in.Str("comic"), engine.Plural(len(shows), "show", "shows"), engine.FormatDate(shows[0].Date("date")), engine.FormatDate(shows[len(shows)-1].Date("date")),
		in.Money(totals["pay_usd"].(float64)), in.Float("sell_through_pct"), in.Money(totals["commissions_usd"].(float64)), in.Money(totals["costs_usd"].(float64)),
		in.Money(totals["net_usd"].(float64)), firstOnSale)
	return nil
}
