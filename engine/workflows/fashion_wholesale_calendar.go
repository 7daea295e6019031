package workflows

import (
	"fmt"
	"time"

	"github.com/creativeops/creativeops/engine"
)

// Wholesale calendar for a fashion collection, scheduled backwards from
// the first in-store delivery.
// Rules used:
//   - Market-week calendar (engine.FashionMarketWeeks): wholesale sells in
//     market weeks (the Paris, New York, London and Milan showroom seasons:
//     January–March for Fall/Winter, June and September for Spring/Summer,
//     November–December for Pre-Fall) and orders close 4–6 weeks after
//     market opens; buyers place them 4–6 months before delivery. The plan
//     opens market in a market week of the season that sells the delivery
//     (engine.MarketSeasonFor), as late as keeps a 6-week selling window,
//     and names the market for that season.
//   - Chinese New Year (engine.FactoryNewYear) stops sampling as well as
//     bulk: proto rounds and salesman samples of overseas production start
//     earlier by the closed days they span.
//   - Bulk production after the purchase order: overseas 10–14 weeks
//     including fabric (we plan 12), domestic 6–8 weeks (7); freight and
//     customs: ocean 4–6 weeks (6), domestic trucking 1 week; then a week to
//     receive and inspect. Orders close a week before the factory PO so they
//     can be consolidated.
//   - Development: design 4 weeks; a tech pack (specs, graded measurements,
//     bill of materials, construction) takes a technical designer about a
//     day per style, so 5 styles a week per technical designer; each
//     proto/fit round 4 weeks overseas, 3 domestic; salesman samples (SMS)
//     5 weeks overseas, 3 domestic, in the showroom a week before market;
//     line sheets ready 2 weeks before market.
//   - Retail purchase orders carry a ship window: start-ship date and a
//     cancel date commonly 30 days later; goods shipped after it can be
//     refused.
func init() {
	engine.Register(&engine.Workflow{
		ID:       "fashion-wholesale-calendar",
		Name:     "Wholesale collection calendar",
		Vertical: "fashion",
		PastDate: engine.PastDate{Field: "delivery_date", Policy: engine.PastReplan},
		Sources: []engine.Source{
			{Title: "Fédération de la Haute Couture et de la Mode: Paris fashion week and showroom calendar", URL: "https://fhcm.paris/en/calendar", Checked: "2026-11"},
			{Title: "CFDA: New York fashion calendar", URL: "https://cfda.com/fashion-calendar", Checked: "2026-11"},
			engine.FactoryNewYear.Source,
		},
		Description: "Builds a collection's wholesale calendar backwards from the first delivery: design, tech packs, proto rounds, salesman samples, line sheet, market, order close, factory PO, ex-factory and ship window, and warns when the selling window is compressed or the delivery cannot be met. A delivery that cannot be developed, sold and produced in time, or one already past, is re-planned on the earliest feasible delivery, and the season is named for it.",
		Fields: []engine.Field{
			{Name: "delivery_date", Kind: engine.Date, Required: true, Description: "Start-ship date of the first delivery to stores."},
			{Name: "production", Kind: engine.String, Enum: []string{"overseas", "domestic"}, Default: "overseas", Description: "Where bulk production happens."},
			{Name: "styles", Kind: engine.Integer, Required: true, Min: engine.Bound(1), Max: engine.Bound(300), Description: "Styles in the collection."},
			{Name: "sample_rounds", Kind: engine.Integer, Default: 2, Min: engine.Bound(1), Max: engine.Bound(4), Description: "Proto/fit sample rounds before salesman samples."},
			{Name: "ship_window_days", Kind: engine.Integer, Default: 30, Min: engine.Bound(14), Max: engine.Bound(60), Description: "Days from start-ship to cancel date on retailers' orders."},
			{Name: "design_start", Kind: engine.Date, Description: "When design work can start; defaults to the plan date."},
			{Name: "technical_designers", Kind: engine.Integer, Default: 1, Min: engine.Bound(1), Max: engine.Bound(20), Description: "Technical designers writing tech packs (about 5 styles a week each)."},
			engine.RegionField(),
		},
		ExampleContext: map[string]any{
			"delivery_date":    "2028-02-01",
			"production":       "overseas",
			"styles":           24,
			"sample_rounds":    2,
			"ship_window_days": 30,
			"as_of":            "2026-11-20",
		},
		Steps: []engine.Step{
			{Name: "production-window", Run: fsCalProduction},
			{Name: "development", Run: fsCalDevelopment},
			{Name: "milestones", Run: fsCalMilestones},
			{Name: "recommend", Run: fsCalRecommend},
		},
	})
}

type fsCalLead struct{ bulk, freight, round, sms int } // weeks

var fsCalLeads = map[string]fsCalLead{"overseas": {12, 6, 4, 5}, "domestic": {7, 1, 3, 3}}

type fsCalendar struct {
	design, techPacks, protos, sms, smsDone, lineSheet, market, orderClose, po, exFactory, inDC, delivery time.Time
}

// fsCalBuild lays out the calendar for a delivery and a market date.
func fsCalBuild(in *engine.Input, p *engine.Plan, delivery, market time.Time) fsCalendar {
	l := fsCalLeads[in.Str("production")]
	c := fsCalendar{delivery: delivery, market: market}
	c.inDC = engine.AddDays(delivery, -7)
	c.exFactory = p.Calendar().PrevWorkday(engine.AddWeeks(c.inDC, -l.freight))
	c.po = p.Calendar().PrevWorkday(engine.AddWeeks(c.exFactory, -l.bulk))
	if in.Str("production") == "overseas" {
		// Asian factories close around Chinese New Year: goods cannot leave
		// during the closure, and closed days inside the production window
		// add to it.
		for engine.FactoryClosed(c.exFactory) {
			c.exFactory = p.Calendar().PrevWorkday(engine.AddDays(c.exFactory, -1))
		}
		c.po = p.Calendar().PrevWorkday(engine.AddWeeks(c.exFactory, -l.bulk))
		for closed := 0; ; {
			n := fsCalFactoryClosedDays(c.po, c.exFactory)
			if n == closed {
				break
			}
			closed = n
			c.po = p.Calendar().PrevWorkday(engine.AddDays(engine.AddWeeks(c.exFactory, -l.bulk), -closed))
		}
	}
	c.orderClose = p.Calendar().PrevWorkday(engine.AddDays(c.po, -7))
	if market.IsZero() {
		// The showroom opens in a market week of the season that sells
		// this delivery, as late as keeps the selling window: never in a
		// month when no buyer is shopping for it.
		ideal := engine.OnOrBefore(engine.AddWeeks(c.orderClose, -fsCalSellingWeeks), time.Monday)
		season := engine.MarketSeasonFor(delivery)
		var ok bool
		if market, ok = season.LatestMarketDay(ideal); !ok {
			if market, ok = season.FirstMarketDay(ideal); !ok {
				market = ideal
			}
		}
		c.market = market
	}
	// Buyers write orders in the weeks after market: a market earlier than
	// production needs closes orders earlier, and the PO can wait.
	c.orderClose = engine.Earlier(c.orderClose, engine.AddWeeks(market, fsCalSellingWeeks))
	c.lineSheet = p.Calendar().PrevWorkday(engine.AddDays(market, -14))
	c.smsDone = engine.AddDays(market, -7)
	c.sms = engine.AddWeeks(c.smsDone, -l.sms)
	c.protos = engine.AddWeeks(c.sms, -l.round*in.Int("sample_rounds"))
	if in.Str("production") == "overseas" {
		// Salesman samples and proto rounds are made by the same factories,
		// which stop for Chinese New Year: sampling days inside the closure
		// do not count.
		c.sms = engine.OnOrBefore(engine.FactoryStart(c.smsDone, 7*l.sms), time.Monday)
		c.protos = engine.OnOrBefore(engine.FactoryStart(c.sms, 7*l.round*in.Int("sample_rounds")), time.Monday)
	}
	c.techPacks = engine.AddWeeks(c.protos, -fsCalTechPackWeeks(in))
	c.design = engine.AddWeeks(c.techPacks, -4)
	return c
}

// fsCalFactoryClosedDays counts the Chinese New Year factory-closure days
// from a to b.
func fsCalFactoryClosedDays(a, b time.Time) int {
	n := 0
	for d := a; !d.After(b); d = engine.AddDays(d, 1) {
		if engine.FactoryClosed(d) {
			n++
		}
	}
	return n
}

// fsCalSellingWeeks is the selling window from market opening to order
// close: market weeks close orders 4–6 weeks after they open.
const fsCalSellingWeeks = 6

// fsCalTechPackStylesPerWeek is what one technical designer writes.
const fsCalTechPackStylesPerWeek = 5

func fsCalTechPackWeeks(in *engine.Input) int {
	return max(1, studioCeil(float64(in.Int("styles"))/float64(fsCalTechPackStylesPerWeek*max(1, in.Int("technical_designers")))))
}

// fsCalSeason names the season a delivery belongs to, by the month of its
// first delivery to stores: Spring deliveries January–March, Summer
// April–May, Fall June–September (Fall 1 from June), Holiday October–
// November, Resort December.
func fsCalSeason(d time.Time) string {
	var season string
	switch m := d.Month(); {
	case m <= time.March:
		season = "Spring"
	case m <= time.May:
		season = "Summer"
	case m <= time.September:
		season = "Fall"
	case m <= time.November:
		season = "Holiday"
	default:
		season = "Resort"
	}
	year := d.Year()
	if season == "Resort" {
		year++ // Resort delivered in December is named for the year it sells in.
	}
	return fmt.Sprintf("%s %d", season, year)
}

// fsCalDevWeeks is design start to market.
func fsCalDevWeeks(in *engine.Input) int {
	l := fsCalLeads[in.Str("production")]
	return 4 + fsCalTechPackWeeks(in) + l.round*in.Int("sample_rounds") + l.sms + 1
}

func fsCalProduction(in *engine.Input, p *engine.Plan) error {
	delivery := in.Date("delivery_date")
	if delivery.Before(p.AsOf()) {
		p.Warn("DELIVERY_DATE_PASSED", "The delivery date %s is before the plan date %s; the calendar is re-planned on the earliest feasible delivery.", engine.FormatDate(delivery), engine.FormatDate(p.AsOf()))
	}
	p.Set("requested_season", fsCalSeason(delivery))
	return nil
}

func fsCalDevelopment(in *engine.Input, p *engine.Plan) error {
	delivery := in.Date("delivery_date")
	start := p.AsOf()
	if in.Has("design_start") && in.Date("design_start").After(start) {
		start = in.Date("design_start")
	}
	c := fsCalBuild(in, p, delivery, time.Time{})
	if c.design.Before(start) {
		ready := engine.OnOrAfter(engine.AddWeeks(start, fsCalDevWeeks(in)), time.Monday)
		// marketFor is the first market day of the delivery's season once
		// samples are ready, if its markets are not over by then.
		marketFor := func(delivery time.Time) (time.Time, bool) {
			return engine.MarketSeasonFor(delivery).FirstMarketDay(ready)
		}
		market, ok := marketFor(delivery)
		if sellWeeks := engine.DaysBetween(market, c.orderClose) / 7; ok && sellWeeks >= 4 {
			c = fsCalBuild(in, p, delivery, market)
			p.Warn("SELL_IN_COMPRESSED", "Starting design on %s puts the collection in the showroom on %s; orders for %s production must close on %s, so buyers get %s instead of the usual 6.",
				engine.FormatDate(start), engine.FormatDate(market), in.Str("production"), engine.FormatDate(c.orderClose), engine.Plural(sellWeeks, "selling week", "selling weeks"))
		} else {
			// Re-plan: the earliest delivery (on the 1st of a month, when
			// stores take deliveries) whose season's market comes after
			// the samples and keeps a full selling window.
			earliest := time.Date(ready.Year(), ready.Month()+1, 1, 0, 0, 0, 0, time.UTC)
			// Every delivery month has a season with markets each year,
			// so a year of months always finds one.
			market = ready
			for range 24 {
				if m, ok := marketFor(earliest); ok && engine.DaysBetween(m, fsCalBuild(in, p, earliest, m).orderClose) >= 7*fsCalSellingWeeks {
					market = m
					break
				}
				earliest = earliest.AddDate(0, 1, 0)
			}
			why := "the collection cannot be developed, sold and produced in time"
			if delivery.Before(p.AsOf()) {
				why = "the requested delivery date has already passed"
			}
			p.Warn("DELIVERY_INFEASIBLE", "Samples cannot be in the showroom before %s, but orders for a %s delivery must close by %s to make %s production, and its %s markets do not leave a %d-week selling window after that; the plan is built on the earliest delivery that does, %s.",
				engine.FormatDate(ready), engine.FormatDate(delivery), engine.FormatDate(c.orderClose), in.Str("production"), engine.MarketSeasonFor(delivery).Name, fsCalSellingWeeks, engine.FormatDate(earliest))
			p.Set("earliest_feasible_delivery_date", engine.FormatDate(earliest))
			replanOn(p, delivery, earliest, why)
			c = fsCalBuild(in, p, earliest, market)
		}
		c.design = start
	} else if sellWeeks := engine.DaysBetween(c.market, c.orderClose) / 7; sellWeeks < fsCalSellingWeeks {
		p.Warn("SELL_IN_COMPRESSED", "The %s markets open on %s at the earliest; orders for %s production must close on %s, so buyers get %s instead of the usual 6.",
			engine.MarketSeasonFor(c.delivery).Name, engine.FormatDate(c.market), in.Str("production"), engine.FormatDate(c.orderClose), engine.Plural(sellWeeks, "selling week", "selling weeks"))
	}
	p.Set("season", fsCalSeason(c.delivery))
	// Named for the season that sells the delivery, so the collection and
	// its market always agree.
	p.Set("market_season", engine.MarketSeasonFor(c.delivery).Name+" market")
	p.Set("calendar", map[string]any{
		"design_start":  engine.FormatDate(c.design),
		"tech_packs":    engine.FormatDate(c.techPacks),
		"protos":        engine.FormatDate(c.protos),
		"sms":           engine.FormatDate(c.sms),
		"line_sheet":    engine.FormatDate(c.lineSheet),
		"market":        engine.FormatDate(c.market),
		"order_close":   engine.FormatDate(c.orderClose),
		"factory_po":    engine.FormatDate(c.po),
		"ex_factory":    engine.FormatDate(c.exFactory),
		"in_warehouse":  engine.FormatDate(c.inDC),
		"start_ship":    engine.FormatDate(c.delivery),
		"cancel":        engine.FormatDate(engine.AddDays(c.delivery, in.Int("ship_window_days"))),
		"selling_weeks": engine.DaysBetween(c.market, c.orderClose) / 7,
	})
	return nil
}

func fsCalMilestones(in *engine.Input, p *engine.Plan) error {
	cal := p.Get("calendar").(map[string]any)
	ms := []struct{ key, field, title string }{
		{"design-start", "design_start", "Design and fabric sourcing start"},
		{"tech-packs", "tech_packs", fmt.Sprintf("Tech packs written (%s, about %d a week per technical designer)", engine.Plural(in.Int("styles"), "style", "styles"), fsCalTechPackStylesPerWeek)},
		{"protos", "protos", fmt.Sprintf("Tech packs to the factory; %d proto/fit rounds begin", in.Int("sample_rounds"))},
		{"sms", "sms", "Salesman samples ordered"},
		{"line-sheet", "line_sheet", "Line sheet and wholesale prices ready"},
		{"market", "market", "Market / showroom appointments open"},
		{"order-close", "order_close", "Wholesale orders close"},
		{"factory-po", "factory_po", "Bulk PO and fabric committed"},
		{"ex-factory", "ex_factory", "Goods leave the factory"},
		{"in-warehouse", "in_warehouse", "Goods received and inspected"},
		{"start-ship", "start_ship", "Start-ship: first delivery to stores"},
		{"cancel", "cancel", "Cancel date: orders not shipped may be refused"},
	}
	// Hand-overs (tech packs, line sheet, the PO) fall on open days of the
	// brand's country and stay after the step before them.
	deliverables := map[string]bool{"tech-packs": true, "line-sheet": true, "factory-po": true}
	// The market, the order deadline the brand announced to buyers and the
	// delivery window are fixed dates of the season, not hand-overs the
	// calendar may move.
	fixed := map[string]string{
		"market": "the market week's showroom day", "order-close": "the order deadline given to buyers",
		"start-ship": "the delivery window the plan is built on", "cancel": "the cancel date on the orders",
	}
	var prev time.Time
	for i, m := range ms {
		d, _ := engine.ParseDate(cal[m.field].(string))
		switch {
		case deliverables[m.key]:
			d = deliver(p, m.key, m.title, d, in.Region(), prev)
		case m.key == "design-start":
			p.Work(m.key, m.title, d)
		case fixed[m.key] != "":
			p.Event(m.key, m.title, d, fixed[m.key])
		default:
			p.Milestone(m.key, m.title, d)
		}
		cal[m.field] = p.Ref(m.key)
		if i > 0 {
			p.DependsOn(m.key, ms[i-1].key)
		}
		prev = d
	}
	if in.Str("production") == "overseas" {
		protos, market := p.DateOf("protos"), p.DateOf("market")
		if n := fsCalFactoryClosedDays(protos, engine.AddDays(market, -7)); n > 0 {
			p.Warn("SAMPLING_FACTORY_CLOSURE", "Proto rounds and salesman samples (%s to %s) span %s of the Chinese New Year factory closure; tech packs go to the factory that much earlier so samples are still in the showroom a week before market.",
				engine.FormatDate(protos), engine.FormatDate(engine.AddDays(market, -7)), engine.Plural(n, "day", "days"))
			p.Set("sampling_factory_closed_days", n)
		}
		po, exf := p.DateOf("factory-po"), p.DateOf("ex-factory")
		if n := fsCalFactoryClosedDays(po, exf); n > 0 {
			p.Warn("FACTORY_CLOSURE", "The production window %s–%s spans %s of the Chinese New Year factory closure; the PO is placed that much earlier so goods still leave on %s.",
				engine.FormatDate(po), engine.FormatDate(exf), engine.Plural(n, "day", "days"), engine.FormatDate(exf))
			p.Set("factory_closed_days", n)
		}
	}
	p.SetTarget(p.DateOf("start-ship"))
	p.Handover(engine.KindAction, "book-appointments", "Market appointments booked with buyers (six weeks out)", engine.Later(p.AsOf(), engine.AddWeeks(p.DateOf("market"), -6)))
	p.Handover(engine.KindAction, "reserve-capacity", "Factory capacity and fabric minimums confirmed (a month before the PO)", engine.Later(p.AsOf(), engine.AddWeeks(p.DateOf("factory-po"), -4)))
	p.DependsOn("market", "book-appointments")
	p.DependsOn("factory-po", "reserve-capacity")
	return nil
}

func fsCalRecommend(in *engine.Input, p *engine.Plan) error {
	cal := p.Get("calendar").(map[string]any)
	p.RecommendOn(engine.High, "book-appointments", "Book market appointments",
		"Email buyers with the lookbook and line sheet six weeks before market and book showroom or trade-show appointments.")
	p.RecommendOn(engine.High, "reserve-capacity", "Reserve factory capacity",
		fmt.Sprintf("Confirm the %s factory slot and fabric minimums a month before the PO; late POs push ex-factory past the cancel date.", in.Str("production")))
	p.Recommend(engine.Medium, "Put the ship window on the line sheet", fmt.Sprintf("State delivery %s–%s and order minimums on the line sheet so orders match what production can ship.", cal["start_ship"], cal["cancel"]))
	p.Recommend(engine.Low, "Cut styles that don't sell in", "Drop styles that miss the factory minimum after order close rather than producing them below MOQ.")
	p.Strategy("Deliver the %s collection (%s) from %s: samples in the showroom for the %s on %s, orders close %s (%s), bulk PO %s and ex-factory %s, cancel date %s.",
		p.Get("season"), engine.Plural(in.Int("styles"), "style", "styles"), cal["start_ship"], p.Get("market_season"), cal["market"], cal["order_close"],
		engine.Plural(cal["selling_weeks"].(int), "selling week", "selling weeks"), cal["factory_po"], cal["ex_factory"], cal["cancel"])
	return nil
}
