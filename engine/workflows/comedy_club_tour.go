package workflows

import (
	"fmt"
	"math"
	"sort"
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
func init() {
	engine.Register(&engine.Workflow{
		ID:          "comedy-club-tour",
		Name:        "Comedy tour settlement and on-sales",
		Vertical:    "comedy",
		Description: "Forecasts what each show of a stand-up tour pays under its deal (flat, door or versus) at the expected sell-through, after commissions and show costs, dates each on-sale and advance, and flags double bookings, late on-sales and shows that lose money.",
		Fields: []engine.Field{
			{Name: "comic", Kind: engine.String, Required: true, Min: engine.Bound(1), Max: engine.Bound(200), Description: "Comic or show name."},
			{Name: "shows", Kind: engine.ObjectList, Required: true, Min: engine.Bound(1), Max: engine.Bound(40), Description: "The shows.", Items: []engine.Field{
				{Name: "city", Kind: engine.String, Required: true, Min: engine.Bound(1), Max: engine.Bound(100), Description: "City."},
				{Name: "date", Kind: engine.Date, Required: true, Description: "Show date."},
				{Name: "venue_type", Kind: engine.String, Enum: []string{"club", "theater", "alt-room"}, Default: "club", Description: "Kind of room."},
				{Name: "capacity", Kind: engine.Integer, Required: true, Min: engine.Bound(10), Max: engine.Bound(20000), Description: "Sellable seats."},
				{Name: "ticket_price_usd", Kind: engine.Number, Required: true, Min: engine.Bound(0), Description: "Average ticket price."},
				{Name: "deal", Kind: engine.String, Enum: []string{"flat", "door", "versus"}, Default: "versus", Description: "Flat guarantee, door percentage, or the greater of the two."},
				{Name: "guarantee_usd", Kind: engine.Number, Default: 0, Min: engine.Bound(0), Description: "Guaranteed fee."},
				{Name: "door_pct", Kind: engine.Number, Default: 70, Min: engine.Bound(0), Max: engine.Bound(100), Description: "Comic's share of net box office, in percent."},
				{Name: "costs_usd", Kind: engine.Number, Default: 0, Min: engine.Bound(0), Description: "Travel, hotel and opener costs for this show."},
			}},
			{Name: "sell_through_pct", Kind: engine.Number, Default: 65, Min: engine.Bound(0), Max: engine.Bound(100), Description: "Expected share of seats sold, in percent."},
			{Name: "agent_pct", Kind: engine.Number, Default: 10, Min: engine.Bound(0), Max: engine.Bound(20), Description: "Agent commission, in percent."},
			{Name: "manager_pct", Kind: engine.Number, Default: 15, Min: engine.Bound(0), Max: engine.Bound(25), Description: "Manager commission, in percent."},
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

var comedyTourOnSaleWeeks = map[string]int{"club": 6, "theater": 12, "alt-room": 4}

func comedyTourShows(in *engine.Input) []*engine.Input {
	shows := in.List("shows")
	sort.SliceStable(shows, func(i, j int) bool { return shows[i].Date("date").Before(shows[j].Date("date")) })
	return shows
}

func comedyTourRouting(in *engine.Input, p *engine.Plan) error {
	shows := comedyTourShows(in)
	p.SetTarget(shows[0].Date("date"))
	for i := 1; i < len(shows); i++ {
		a, b := shows[i-1], shows[i]
		if a.Date("date").Equal(b.Date("date")) && a.Str("city") != b.Str("city") {
			p.Warn("DOUBLE_BOOKED", "%s is booked in both %s and %s; two shows a night only work in one city.", engine.FormatDate(a.Date("date")), a.Str("city"), b.Str("city"))
		}
	}
	return nil
}

func comedyTourSettlements(in *engine.Input, p *engine.Plan) error {
	asOf := p.AsOf()
	sell := in.Float("sell_through_pct") / 100
	commission := (in.Float("agent_pct") + in.Float("manager_pct")) / 100
	var rows []map[string]any
	var totalPay, totalComm, totalCosts float64
	for i, s := range comedyTourShows(in) {
		date := s.Date("date")
		gross := float64(s.Int("capacity")) * sell * s.Float("ticket_price_usd")
		door := gross * (1 - comedyTourTicketFees) * s.Float("door_pct") / 100
		pay := door
		switch s.Str("deal") {
		case "flat":
			pay = s.Float("guarantee_usd")
		case "versus":
			pay = math.Max(s.Float("guarantee_usd"), door)
		}
		comm := pay * commission
		net := pay - comm - s.Float("costs_usd")
		onSale := engine.OnOrBefore(engine.AddWeeks(date, -comedyTourOnSaleWeeks[s.Str("venue_type")]), time.Friday)
		label := fmt.Sprintf("%s %s", s.Str("city"), engine.FormatDate(date))
		rows = append(rows, map[string]any{
			"show": label, "deal": s.Str("deal"), "gross_box_office_usd": engine.Money(gross), "door_share_usd": engine.Money(door),
			"pay_usd": engine.Money(pay), "commissions_usd": engine.Money(comm), "costs_usd": engine.Money(s.Float("costs_usd")), "net_usd": engine.Money(net),
			"on_sale": engine.FormatDate(onSale),
		})
		totalPay += pay
		totalComm += comm
		totalCosts += s.Float("costs_usd")
		p.Milestone(fmt.Sprintf("on-sale-%d", i+1), "On-sale: "+label, onSale)
		p.Milestone(fmt.Sprintf("advance-%d", i+1), "Advance with the venue: "+label, engine.PrevWorkday(engine.AddDays(date, -10)))
		p.Milestone(fmt.Sprintf("show-%d", i+1), "Show: "+label, date)
		switch {
		case date.Before(asOf):
			p.Warn("SHOW_DATE_PASSED", "The %s show is before the plan date.", label)
		case onSale.Before(asOf):
			p.Warn("ON_SALE_LATE", "The %s show should have gone on sale %s (%d weeks out for a %s); it has %d days to sell.",
				label, engine.FormatDate(onSale), comedyTourOnSaleWeeks[s.Str("venue_type")], s.Str("venue_type"), engine.DaysBetween(asOf, date))
		}
		if s.Str("deal") == "flat" && door > pay {
			p.Warn("FLAT_DEAL_BELOW_DOOR", "The %s flat fee of %s is below the %s door share at %.0f%% sold; ask for a versus deal (%s vs %.0f%% of net).",
				label, engine.USD(pay), engine.USD(door), sell*100, engine.USD(pay), s.Float("door_pct"))
		}
		if net < 0 {
			p.Warn("SHOW_LOSES_MONEY", "The %s show pays %s, %s after commissions, against %s of costs: a loss of %s at %.0f%% sold.",
				label, engine.USD(pay), engine.USD(pay-comm), engine.USD(s.Float("costs_usd")), engine.USD(-net), sell*100)
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
	rows := p.Get("shows").([]map[string]any)
	// A theatre date late in the tour may go on sale before a club date.
	first, _ := engine.ParseDate(rows[0]["on_sale"].(string))
	for _, r := range rows[1:] {
		if d, _ := engine.ParseDate(r["on_sale"].(string)); d.Before(first) {
			first = d
		}
	}
	p.RecommendBy(engine.High, engine.Later(p.AsOf(), engine.AddWeeks(first, -1)), "Have assets ready before the first on-sale",
		"Headshot, 30-second clip and a one-line bio to every venue a week before its on-sale; venues sell what they can post.")
	p.Recommend(engine.Medium, "Ask for versus deals", "A versus deal keeps the guarantee as a floor and pays the door when the show sells; ask for it wherever a flat fee is offered.")
	p.Recommend(engine.Medium, "Settle every night", "Count the door with the venue after the show and sign the settlement sheet; disputes weeks later are lost.")
	p.Recommend(engine.Low, "Post clips in each market", "Short clips targeted to each city in the two weeks before the show move more tickets than a tour-wide post.")
	p.Strategy("%s: %d shows from %s to %s pay %s at %.0f%% sold; after %s of commissions and %s of costs the tour nets %s; first on-sale %s.",
		in.Str("comic"), len(shows), engine.FormatDate(shows[0].Date("date")), engine.FormatDate(shows[len(shows)-1].Date("date")),
		engine.USD(totals["pay_usd"].(float64)), in.Float("sell_through_pct"), engine.USD(totals["commissions_usd"].(float64)), engine.USD(totals["costs_usd"].(float64)),
		engine.USD(totals["net_usd"].(float64)), engine.FormatDate(first))
	return nil
}
