package workflows

import (
	"fmt"
	"math"
	"time"

	"github.com/creativeops/creativeops/engine"
)

// Promoter's budget and settlement forecast for a ticketed concert. Rules
// used (standard concert-promotion deal structure):
//   - The artist is offered a guarantee "versus" a back-end percentage:
//     once net box office covers show expenses, the guarantee and the
//     promoter's profit (15% of expenses plus guarantee), the artist takes
//     their split (85% is the common headline figure) of the overage.
//   - Net box office is gross less ticket taxes (entered, as they vary by
//     city and state) and card and ticketing fees absorbed by the promoter,
//     3% here (conservative).
//   - Promoters aim to break even at 60–70% of capacity; a break-even above
//     70% is flagged.
//   - Club and theatre shows go on sale 6–10 weeks out (8 used, Friday
//     10am as most on-sales); the ticket count is checked halfway, and the
//     show is advanced two weeks out. Settlement is done on the night.
func init() {
	engine.Register(&engine.Workflow{
		ID:           "live-events-show-settlement",
		Name:         "Concert budget and settlement",
		Vertical:     "live-events",
		Jurisdiction: []engine.Area{engine.AreaTax},
		PastDate:     engine.PastDate{Field: "event_date", Policy: engine.PastPostEvent},
		Sources: []engine.Source{
			{Title: "Concert deal structure: guarantee versus percentage (standard promoter practice)", URL: "https://www.pollstar.com/", Checked: "2026-11"},
		},
		Description: "Forecasts a concert's settlement (money in `currency`, US dollars by default) under a guarantee-versus-percentage deal: net box office after taxes and fees, split point, artist and promoter payout at the expected sell-through, break-even and split-point ticket counts, with on-sale, pace check and advance dates. A missed on-sale moves to the next Friday; a show already played gets a post-show plan.",
		Fields: []engine.Field{
			engine.RegionField(),
			{Name: "event_date", Kind: engine.Date, Required: true, Description: "Show date."},
			{Name: "capacity", Kind: engine.Integer, Required: true, Min: engine.Bound(10), Max: engine.Bound(100000), Description: "Sellable tickets."},
			{Name: "ticket_price", Kind: engine.Number, Money: true, Required: true, Min: engine.Bound(1), Max: engine.Bound(100000), Description: "Average face value per ticket, in `currency` (1–100,000; this plans a ticketed show)."},
			{Name: "sell_through_pct", Kind: engine.Number, Default: 75, Min: engine.Bound(0), Max: engine.Bound(100), Description: "Expected share of tickets sold, in percent."},
			{Name: "guarantee", Kind: engine.Number, Money: true, Required: true, Min: engine.Bound(0), Max: engine.Bound(100000000), Description: "Artist guarantee, in `currency` (0–100,000,000)."},
			{Name: "artist_split_pct", Kind: engine.Number, Required: true, Min: engine.Bound(0), Max: engine.Bound(100), Description: "Artist's share of the overage past the split point, in percent (85 is the common headline figure): the percentage of the versus deal, so required."},
			{Name: "expenses", Kind: engine.Number, Money: true, Required: true, Min: engine.Bound(0), Max: engine.Bound(100000000), Description: "Show expenses in `currency`: venue, production, marketing, staffing, insurance (0–100,000,000)."},
			{Name: "ticket_tax_pct", Kind: engine.Number, Default: 0, Min: engine.Bound(0), Max: engine.Bound(30), Description: "Local ticket or amusement taxes included in the price, in percent, besides the country's VAT or GST (which the plan takes from `country`)."},
			engine.CurrencyField("USD"),
		},
		ExampleContext: map[string]any{
			"event_date":       "2027-03-12",
			"capacity":         1200,
			"ticket_price":     35,
			"sell_through_pct": 75,
			"guarantee":        12000,
			"artist_split_pct": 85,
			"expenses":         14500,
			"ticket_tax_pct":   5,
			"as_of":            "2026-11-20",
		},
		Steps: []engine.Step{
			{Name: "settle", Run: liveSettlementForecast},
			{Name: "schedule", Run: liveSettlementSchedule},
			{Name: "recommend", Run: liveSettlementRecommend},
		},
	})
}

const (
	liveCardFees        = 0.03
	livePromoterProfit  = 0.15
	liveHighBreakEven   = 70.0
	liveOnSaleWeeks     = 8
	liveAdvanceDays     = 14
	liveSettlementTitle = "Show and settlement on the night"
)

// liveMoney renders an amount in the show's currency.
func liveMoney(in *engine.Input, v float64) string { return engine.FormatMoney(v, in.Currency("USD")) }

// liveNetPerTicket is what one ticket leaves after taxes and fees: the
// country's consumption tax where ticket prices include it (UK VAT 20 %,
// AU GST 10 %: the jurisdiction table), then the local ticket taxes
// entered, then card and ticketing fees.
func liveNetPerTicket(in *engine.Input, p *engine.Plan) float64 {
	return in.NetOfTicketTax(p, in.Float("ticket_price")) / (1 + in.Float("ticket_tax_pct")/100) * (1 - liveCardFees)
}

func liveSettlementForecast(in *engine.Input, p *engine.Plan) error {
	capacity := in.Int("capacity")
	sold := int(math.Round(float64(capacity) * in.Float("sell_through_pct") / 100))
	perTicket := liveNetPerTicket(in, p)
	gross := float64(sold) * in.Float("ticket_price")
	net := float64(sold) * perTicket
	expenses, guarantee := in.Float("expenses"), in.Float("guarantee")
	profit := (expenses + guarantee) * livePromoterProfit
	split := expenses + guarantee + profit
	overage := math.Max(0, net-split)
	artist := guarantee + overage*in.Float("artist_split_pct")/100
	promoter := net - expenses - artist

	// At a sell-out: what the back end is worth to each side, so the
	// artist's split is weighed even when the expected count stays under
	// the split point.
	soldOut := float64(capacity) * perTicket
	soldOutArtist := guarantee + math.Max(0, soldOut-split)*in.Float("artist_split_pct")/100
	p.Set("at_sell_out", map[string]any{
		"tickets": capacity, "net_box_office": engine.Money(soldOut),
		"artist_payout": engine.Money(soldOutArtist), "promoter_result": engine.Money(soldOut - expenses - soldOutArtist),
	})

	breakEven := int(math.Ceil((expenses + guarantee) / perTicket))
	splitTickets := int(math.Ceil(split / perTicket))
	beOcc := float64(breakEven) / float64(capacity) * 100
	p.Set("currency", in.Currency("USD"))
	p.Set("settlement", map[string]any{
		"tickets_sold": sold, "gross": engine.Money(gross), "net_box_office": engine.Money(net),
		"split_point": engine.Money(split), "overage": engine.Money(overage),
		"artist_payout": engine.Money(artist), "promoter_result": engine.Money(promoter),
	})
	p.Set("break_even", map[string]any{
		"tickets": breakEven, "capacity_pct": engine.Round(beOcc, 1),
		"split_point_tickets": splitTickets, "net_per_ticket": engine.Money(perTicket),
	})
	switch {
	case breakEven > capacity:
		p.Warn("BREAK_EVEN_ABOVE_CAPACITY", "Expenses and guarantee (%s) need %s at %s net each, more than the %d capacity; renegotiate the guarantee, raise prices or cut expenses.",
			liveMoney(in, expenses+guarantee), engine.Plural(breakEven, "ticket", "tickets"), liveMoney(in, perTicket), capacity)
	case beOcc > liveHighBreakEven:
		p.Warn("BREAK_EVEN_HIGH", "Break-even is %s, %.0f%% of capacity; promoters aim for 60–70%%.", engine.Plural(breakEven, "ticket", "tickets"), beOcc)
	}
	if promoter < 0 {
		p.Warn("PROJECTED_LOSS", "At %s sold the promoter loses %s after paying the %s guarantee and %s of expenses.",
			engine.Plural(sold, "ticket", "tickets"), liveMoney(in, -promoter), liveMoney(in, guarantee), liveMoney(in, expenses))
	}
	return nil
}

// liveSettlementSchedule lays out on-sale, pace check and advance. A show
// already past gets a post-show plan (reconcile the settlement); an on-sale
// date already missed moves to the next Friday before the show, and the
// later steps follow it, so nothing is due before the plan date.
func liveSettlementSchedule(in *engine.Input, p *engine.Plan) error {
	event, asOf := in.Date("event_date"), p.AsOf()
	p.SetTarget(event)
	if event.Before(asOf) {
		p.PostEvent(event, "the on-sale and the pace check are behind it; reconcile the settlement against this forecast.")
		p.Set("plan_kind", "post_event")
		p.Event("show", liveSettlementTitle, event, "the show date")
		return nil
	}
	p.Set("plan_kind", "pre_event")
	onSale := engine.OnOrBefore(engine.AddWeeks(event, -liveOnSaleWeeks), time.Friday)
	if onSale.Before(asOf) {
		late := onSale
		onSale = engine.Earlier(engine.OnOrAfter(asOf, time.Friday), event)
		p.Warn("ON_SALE_LATE", "The on-sale should have been %s (8 weeks out); going on sale %s, the show has %s to sell instead of %d.",
			engine.FormatDate(late), engine.FormatDate(onSale), engine.Plural(engine.DaysBetween(onSale, event), "day", "days"), engine.DaysBetween(late, event))
	}
	pace := engine.AddDays(onSale, engine.DaysBetween(onSale, event)/2)
	advance := engine.Later(asOf, p.Calendar().PrevWorkday(engine.AddDays(event, -liveAdvanceDays)))
	nowWhy := "the show comes before the next working day"
	handoverBefore(p, engine.KindAnnounce, "announce", "Show announced, with a pre-sale code for the artist's list", engine.Later(p.AsOf(), engine.AddWeeks(onSale, -2)), event, nowWhy)
	handoverBefore(p, engine.KindOnSale, "on-sale", "Tickets on sale (Friday 10am)", onSale, event, nowWhy)
	p.DependsOn("on-sale", "announce")
	p.Work("pace-check", "Pace check: half the selling window gone", pace)
	handoverBefore(p, engine.KindAction, "advance", "Show advanced with the artist's team", engine.Later(advance, pace), event, nowWhy)
	p.Event("show", liveSettlementTitle, event, "the show date")
	p.DependsOn("show", "on-sale", "advance")
	p.Set("on_sale_date", p.Ref("on-sale"))
	return nil
}

func liveSettlementRecommend(in *engine.Input, p *engine.Plan) error {
	s := p.Get("settlement").(map[string]any)
	be := p.Get("break_even").(map[string]any)
	if p.Get("plan_kind") == "post_event" {
		p.RecommendBy(engine.High, p.AsOf(), "Reconcile the settlement", fmt.Sprintf("Check the night's settlement sheet against this forecast (%s, %s net box office) and file the variance for the next offer.",
			engine.Plural(s["tickets_sold"].(int), "ticket", "tickets"), liveMoney(in, s["net_box_office"].(float64))))
		p.Strategy("The show on %s has been played: reconcile its settlement against the forecast of %s, artist %s and promoter %s.",
			engine.FormatDate(in.Date("event_date")), engine.Plural(s["tickets_sold"].(int), "ticket", "tickets"), liveMoney(in, s["artist_payout"].(float64)), liveMoney(in, s["promoter_result"].(float64)))
		return nil
	}
	p.RecommendOn(engine.High, "announce", "Announce with the on-sale",
		"Announce two weeks before on-sale with a pre-sale code for the artist's list; the first week of sales sets the pace.")
	p.Recommend(engine.High, "Watch the break-even count", fmt.Sprintf("%s cover expenses and guarantee; by the pace check about half of them should be sold.", engine.Plural(be["tickets"].(int), "ticket", "tickets")))
	p.Recommend(engine.Medium, "Agree the expense sheet before the show", "Attach the capped expense list to the offer so the settlement on the night has no surprises.")
	p.Recommend(engine.Low, "Keep ticket counts honest", "Report comps and kills on the settlement sheet; the artist's team checks the count against the manifest.")
	p.Strategy("At %s (%s net box office) the artist takes %s and the promoter %s; break-even is %s (%.1f%% of capacity) and the split point %s; on sale %s.",
		engine.Plural(s["tickets_sold"].(int), "ticket", "tickets"), liveMoney(in, s["net_box_office"].(float64)), liveMoney(in, s["artist_payout"].(float64)), liveMoney(in, s["promoter_result"].(float64)),
		engine.Plural(be["tickets"].(int), "ticket", "tickets"), be["capacity_pct"].(float64), engine.Plural(be["split_point_tickets"].(int), "ticket", "tickets"), p.Ref("on-sale"))
	return nil
}
