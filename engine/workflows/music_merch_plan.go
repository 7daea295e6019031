package workflows

import (
	"fmt"
	"math"
	"strings"
	"time"

	"github.com/creativeops/creativeops/engine"
)

// Tour merch order: how many of each item to order, what each unit earns
// after the venue's cut and card fees, and when each must be ordered to
// arrive before the first show. Rules used:
//   - Sales are projected from a per-head spend (commonly $2–6 at club level;
//     $4 by default) split across the items by their share of sales.
//   - Venues take a merch cut, commonly 20% of soft goods (apparel, posters,
//     accessories) and about half that on hard goods (vinyl, CDs).
//   - Card processing at the country's in-person rate (card_rates.go:
//     Square US 2.6% + $0.15, UK 1.75%, ...).
//   - Screen printers quote 2–3 weeks after art approval and commonly have a
//     24-piece minimum, priced by the dozen; posters and CDs take 2–3 weeks;
//     vinyl pressing takes 12–16 weeks from approved masters (16 planned,
//     as in release-strategy). Each lead time adds a week of
//     shipping, and stock should land a week before the first show.
//   - Sizes and reprints: order 10% over the projection on apparel.
func init() {
	engine.Register(&engine.Workflow{
		ID:       "music-merch-plan",
		Name:     "Tour merch order",
		Vertical: "music",
		PastDate: engine.PastDate{Field: "tour_start", Policy: engine.PastPostEvent},
		Sources: []engine.Source{
			{Title: "Merch cut and per-head planning figures (standard touring practice; check each venue's deal)", URL: "https://www.musicgateway.com/", Checked: "2026-11"},
		},
		Description: "Sizes a tour merch order from attendance and per-head spend, computes each item's margin after venue cut and card fees, the break-even price, the cash needed and the order-by date of each item. An order whose deadline has passed is placed now and its stock dated when it lands; a tour already under way gets a post-event plan.",
		Fields: []engine.Field{
			engine.RegionField(),
			{Name: "tour_start", Kind: engine.Date, Required: true, Description: "Date of the first show; stock must arrive before it."},
			{Name: "shows", Kind: engine.Integer, Required: true, Min: engine.Bound(1), Max: engine.Bound(200), Description: "Number of shows the order must cover."},
			{Name: "avg_attendance", Kind: engine.Integer, Required: true, Min: engine.Bound(1), Max: engine.Bound(100000), Description: "Expected paid attendance per show."},
			{Name: "per_head_usd", Kind: engine.Number, Money: true, Default: 4, Min: engine.Bound(0.5), Max: engine.Bound(50), Description: "Expected merch spend per attendee."},
			{Name: "venue_cut_pct", Kind: engine.Number, Default: 20, Min: engine.Bound(0), Max: engine.Bound(40), Description: "Venue's cut of soft-goods sales, in percent; hard goods are charged half."},
			{Name: "items", Kind: engine.ObjectList, Required: true, Min: engine.Bound(1), Max: engine.Bound(20), Description: "Items on the merch table.", Items: []engine.Field{
				{Name: "name", Kind: engine.String, Required: true, Min: engine.Bound(1), Max: engine.Bound(100), Description: "Item name."},
				{Name: "kind", Kind: engine.String, Required: true, Enum: []string{"apparel", "poster", "accessory", "cd", "vinyl"}, Description: "Product type; sets the lead time and the venue cut."},
				{Name: "unit_cost_usd", Kind: engine.Number, Money: true, Required: true, Min: engine.Bound(0), Max: engine.Bound(10000), Description: "Landed cost per unit (0–10,000)."},
				{Name: "price_usd", Kind: engine.Number, Money: true, Required: true, Min: engine.Bound(1), Max: engine.Bound(10000), Description: "Price at the table (1–10,000)."},
				{Name: "share_pct", Kind: engine.Number, Required: true, Min: engine.Bound(0), Max: engine.Bound(100), Description: "Expected share of merch sales, in percent."},
			}},
			{Name: "cash_budget_usd", Kind: engine.Number, Money: true, Min: engine.Bound(0), Max: engine.Bound(10000000), Description: "Cash available to pay for the order up front (0–10,000,000)."},
			engine.CurrencyField("USD"),
		},
		ExampleContext: map[string]any{
			"tour_start":     "2027-04-08",
			"shows":          18,
			"avg_attendance": 250,
			"per_head_usd":   5,
			"items": []any{
				map[string]any{"name": "Tour T-shirt", "kind": "apparel", "unit_cost_usd": 9.5, "price_usd": 30, "share_pct": 55},
				map[string]any{"name": "EP on vinyl", "kind": "vinyl", "unit_cost_usd": 11, "price_usd": 30, "share_pct": 30},
				map[string]any{"name": "Tote bag", "kind": "accessory", "unit_cost_usd": 6, "price_usd": 20, "share_pct": 15},
			},
			"cash_budget_usd": 8500,
			"as_of":           "2026-11-20",
		},
		Check: musicMerchCheck,
		Steps: []engine.Step{
			{Name: "size-order", Run: musicMerchSizeOrder},
			{Name: "schedule", Run: musicMerchSchedule},
			{Name: "recommend", Run: musicMerchRecommend},
		},
	})
}

const (
	musicMerchCardPct    = 2.6
	cardFixed            = 0.15
	musicMerchApparelMin = 24
)

// Production weeks before shipping; a week of shipping and a week of margin
// before the first show are added on top.
// Vinyl takes the plant turnaround release-strategy plans with (16 weeks,
// the safe end of what plants quote), not the 8–10 weeks of older quotes.
var musicMerchLeadWeeks = map[string]int{"apparel": 3, "poster": 3, "accessory": 4, "cd": 3, "vinyl": releaseVinylPlantWeeks}

func musicMerchVenueCut(in *engine.Input, kind string) float64 {
	cut := in.Float("venue_cut_pct")
	if kind == "cd" || kind == "vinyl" {
		return cut / 2
	}
	return cut
}

// musicMerchCheck rejects an order with nothing to split the sales over.
func musicMerchCheck(in *engine.Input, _ time.Time) []engine.Violation {
	for _, it := range in.List("items") {
		if it.Float("share_pct") > 0 {
			return nil
		}
	}
	return []engine.Violation{{Field: "context.items", Description: "at least one item needs a share_pct above 0: the shares split the projected sales between items"}}
}

func musicMerchSizeOrder(in *engine.Input, p *engine.Plan) error {
	heads := float64(in.Int("shows") * in.Int("avg_attendance"))
	projected := heads * in.Float("per_head_usd")
	var shareSum float64
	for _, it := range in.List("items") {
		shareSum += it.Float("share_pct")
	}
	if shareSum == 0 {
		return fmt.Errorf("items: share_pct sums to 0")
	}
	if math.Abs(shareSum-100) > 0.5 {
		p.Warn("SHARES_NOT_100", "Item shares add up to %.1f%%, not 100%%; they were scaled to 100%%.", shareSum)
	}
	var lines []map[string]any
	var cash, revenue, net float64
	cardPct, cardFixed, _ := cardRateFor(in, p)
	for _, it := range in.List("items") {
		price, cost, kind := it.Float("price_usd"), it.Float("unit_cost_usd"), it.Str("kind")
		cut := musicMerchVenueCut(in, kind)
		keep := 1 - cut/100 - cardPct/100
		margin := engine.Money(price*keep - cardFixed - cost)
		breakEven := engine.Money((cost + cardFixed) / keep)
		var units int
		if price > 0 {
			units = int(math.Ceil(projected * it.Float("share_pct") / shareSum / price))
		}
		if kind == "apparel" {
			units = int(math.Ceil(float64(units)*1.1/12)) * 12
			units = max(units, musicMerchApparelMin)
		}
		if margin <= 0 {
			p.Warn("PRICE_BELOW_COST", "%s at %s keeps %s after a %.0f%% venue cut and card fees, below its %s cost: charge at least %s.",
				it.Str("name"), in.Money(price), in.Money(price*keep-cardFixed), cut, in.Money(cost), in.Money(breakEven))
		} else if margin < 0.3*price {
			p.Warn("THIN_MARGIN", "%s keeps only %s a unit (%.0f%% of its price) after the venue cut and card fees.", it.Str("name"), in.Money(margin), 100*margin/price)
		}
		lines = append(lines, map[string]any{
			"name": it.Str("name"), "kind": kind, "units": units,
			"order_cost_usd": engine.Money(float64(units) * cost), "net_per_unit_usd": margin,
			"break_even_price_usd": breakEven, "venue_cut_pct": cut,
		})
		cash += float64(units) * cost
		revenue += float64(units) * price
		net += float64(units) * margin
	}
	p.Set("order", lines)
	p.Set("projection", map[string]any{
		"attendance":           int(heads),
		"projected_sales_usd":  engine.Money(projected),
		"order_cost_usd":       engine.Money(cash),
		"sell_out_revenue_usd": engine.Money(revenue),
		"sell_out_net_usd":     engine.Money(net),
	})
	if in.Has("cash_budget_usd") && cash > in.Float("cash_budget_usd") {
		b := in.Float("cash_budget_usd")
		p.Warn("MERCH_BUDGET_SHORT", "The order costs %s but only %s is available: scale every quantity to %.0f%% or drop the lowest-margin item.",
			in.Money(cash), in.Money(b), math.Floor(100*b/cash))
		p.Set("budget_scale_pct", math.Floor(100*b/cash))
	}
	return nil
}

func musicMerchSchedule(in *engine.Input, p *engine.Plan) error {
	start := in.Date("tour_start")
	p.SetTarget(start)
	under := start.Before(p.AsOf())
	if under {
		p.PostEvent(start, "the tour is under way, so art and stock for the first show are history: count stock after every show and reorder what sells; reorders placed now land as dated.")
	}
	arrive := p.Calendar().PrevWorkday(engine.AddDays(start, -7))
	earliestOrder := map[string]time.Time{}
	for _, it := range in.List("items") {
		kind := it.Str("kind")
		// Production, then a week of shipping, then the arrival margin.
		order := p.Calendar().PrevWorkday(engine.AddWeeks(arrive, -musicMerchLeadWeeks[kind]-1))
		if d, ok := earliestOrder[kind]; !ok || order.Before(d) {
			earliestOrder[kind] = order
		}
	}
	// Art is approved a week before the first order; an order whose
	// deadline has passed (or falls before the art can be approved) is placed
	// now and its stock arrives when it lands, not on the planned day.
	asOf := p.AsOf()
	var first time.Time
	for _, order := range earliestOrder {
		if first.IsZero() || order.Before(first) {
			first = order
		}
	}
	art := engine.Later(asOf, p.Calendar().PrevWorkday(engine.AddDays(first, -7)))
	deadlines := map[string]string{}
	if under {
		// Mid-tour, stock is reordered from today for the shows ahead.
		for _, kind := range []string{"vinyl", "accessory", "apparel", "poster", "cd"} {
			if _, ok := earliestOrder[kind]; !ok {
				continue
			}
			lands := engine.AddWeeks(asOf, musicMerchLeadWeeks[kind]+1)
			p.Milestone("reorder-"+kind, "Reorder "+kind+" for the shows still ahead", asOf)
			p.Handover(engine.KindArrival, "arrives-"+kind, "Reordered "+kind+" stock arrives", lands)
			deadlines[kind] = p.Ref("reorder-" + kind)
			p.Set("earliest_arrival_"+kind, p.Ref("arrives-"+kind))
		}
		p.Set("order_deadlines", deadlines)
		p.Event("tour-start", "First show: merch table open", start, "the first show")
		p.Work("inventory-count", "Inventory count and reorder decision", engine.Later(asOf, engine.AddDays(start, 7)))
		return nil
	}
	p.Handover(engine.KindAction, "art-approved", "Merch art and mockups approved", art)
	for _, kind := range []string{"vinyl", "accessory", "apparel", "poster", "cd"} {
		planned, ok := earliestOrder[kind]
		if !ok {
			continue
		}
		order := engine.Later(art, planned)
		deadlines[kind] = p.Ref("order-" + kind)
		p.Milestone("order-"+kind, "Order "+kind+" (production + shipping)", order)
		if order.After(planned) {
			lands := engine.AddWeeks(order, musicMerchLeadWeeks[kind]+1)
			p.Warn("ORDER_DEADLINE_PASSED", "The %s order was due %s for %s of production and a week of shipping; ordered on %s it lands around %s%s.",
				kind, engine.FormatDate(planned), engine.Plural(musicMerchLeadWeeks[kind], "week", "weeks"), engine.FormatDate(order), engine.FormatDate(lands), musicMerchLateNote(lands, start))
			p.Set("earliest_arrival_"+kind, p.Ref("arrives-"+kind))
			p.Handover(engine.KindArrival, "arrives-"+kind, "Late "+kind+" stock arrives", lands)
		}
	}
	p.Set("order_deadlines", deadlines)
	handoverBefore(p, engine.KindDeliverable, "stock-arrives", "Stock delivered, counted and packed", engine.Later(asOf, arrive), start, "the first show comes before the next working day")
	p.Event("tour-start", "First show: merch table open", start, "the first show")
	p.Work("inventory-count", "First inventory count and reorder decision", engine.Later(asOf, engine.AddDays(start, 7)))
	// Art before every order, each order before its stock arrives.
	for _, m := range p.Milestones() {
		if strings.HasPrefix(m.Key, "order-") {
			p.DependsOn(m.Key, "art-approved")
			p.DependsOn("arrives-"+strings.TrimPrefix(m.Key, "order-"), m.Key)
		}
	}
	chain(p, "tour-start", "inventory-count")
	return nil
}

// musicMerchArrival says when an order lands.
func musicMerchArrival(p *engine.Plan, kind string) string {
	if lands, ok := p.Get("earliest_arrival_" + kind).(string); ok {
		return "it lands around " + lands
	}
	return "it lands a week before the first show"
}

func musicMerchLateNote(lands, start time.Time) string {
	if lands.After(start) {
		return fmt.Sprintf(", %s after the first show: sell it as a pre-order or ship it to a later venue", engine.Plural(engine.DaysBetween(start, lands), "day", "days"))
	}
	return ", still before the first show"
}

func musicMerchRecommend(in *engine.Input, p *engine.Plan) error {
	proj := p.Get("projection").(map[string]any)
	deadlines := p.Get("order_deadlines").(map[string]string)
	var kinds []string
	for _, k := range []string{"vinyl", "accessory", "apparel", "poster", "cd"} {
		if d, ok := deadlines[k]; ok {
			kinds = append(kinds, k+" by "+d)
			key, title := "order-"+k, "Place the "+k+" order"
			if p.DateOf(key).IsZero() {
				key, title = "reorder-"+k, "Reorder "+k+" for the rest of the tour"
			}
			p.RecommendOn(engine.High, key, title,
				fmt.Sprintf("%s of production plus a week of shipping: order the %s by %s; %s.", engine.Plural(musicMerchLeadWeeks[k], "week", "weeks"), k, d, musicMerchArrival(p, k)))
		}
	}
	var best map[string]any
	for _, l := range p.Get("order").([]map[string]any) {
		if best == nil || l["net_per_unit_usd"].(float64) > best["net_per_unit_usd"].(float64) {
			best = l
		}
	}
	p.Recommend(engine.Medium, "Lead the table with "+best["name"].(string),
		fmt.Sprintf("It keeps %s a unit after the venue cut and card fees, the best margin on the table; display it first and bundle slower items with it.", in.Money(best["net_per_unit_usd"].(float64))))
	p.Recommend(engine.Medium, "Agree the merch cut when advancing",
		fmt.Sprintf("The plan assumes a %.0f%% cut on soft goods and half that on vinyl and CDs; venues that sell merch themselves often charge more, so confirm before the show.", in.Float("venue_cut_pct")))
	p.Recommend(engine.Low, "Count stock after every show",
		"Track units sold per size and per night; reorder apparel when any size is below two shows' worth.")
	p.Strategy("Project %s of merch from %s at %s a head; order %s of stock (%s) for a sell-out net of %s after venue cuts and card fees.",
		in.Money(proj["projected_sales_usd"].(float64)), engine.Plural(proj["attendance"].(int), "attendee", "attendees"), in.Money(in.Float("per_head_usd")), in.Money(proj["order_cost_usd"].(float64)), strings.Join(kinds, ", "), in.Money(proj["sell_out_net_usd"].(float64)))
	return nil
}
