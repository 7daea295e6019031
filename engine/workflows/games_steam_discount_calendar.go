package workflows

import (
	"fmt"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/creativeops/creativeops/engine"
)

// Discount calendar for a game's first months on Steam. Rules used
// (Steamworks, "Discount Rule Changes, March 28, 2022" and Discounting):
//   - Discounts run from 10% to 90% off; a custom discount lasts 1 day to
//     two weeks (a week is planned).
//   - 28 days must pass between the end of one discount and the start of
//     the next, the launch discount included. The storewide seasonal sales
//     are exempt from that cooldown, but a game cannot join one within 28
//     days of its release or of its launch discount ending. The "28 days
//     between" is counted as 28 clear days.
//   - Seasonal sale dates: Valve's published ones where known, estimated
//     for other years (engine.SteamSeasonalSales).
//   - Launch discounts are commonly 10–20% for the first week; publishers
//     then deepen by about 10 points per seasonal sale, keep their own
//     discounts no deeper than the last sale, and leave 28 clear days before
//     a seasonal sale so its price is news (standard publisher practice).
//   - Discounts are set up in Steamworks ahead of time; two weeks is planned.
func init() {
	engine.Register(&engine.Workflow{
		ID:                 "games-steam-discount-calendar",
		Name:               "Steam discount calendar",
		Vertical:           "games",
		CountryIndependent: "Steam's seasonal sales and discount cooldowns are global, on Valve's calendar, whatever the developer's country.",
		PastDate:           engine.PastDate{Field: "launch_date", Policy: engine.PastPostEvent},
		Sources: []engine.Source{
			{Title: "Steamworks: discounting rules (28-day cooldown, March 2022 changes)", URL: "https://partner.steamgames.com/doc/marketing/discounts", Checked: "2026-11"},
			engine.SteamSeasonalSales.Source,
		},
		Description: "Schedules a game's launch discount, Steam seasonal sales and its own weeklong discounts under Steam's 28-day cooldown rules, with a deepening discount ladder and sale prices, and flags seasonal sales the release date or launch discount locks out. For a game already launched it is a post-launch plan: discounts behind the plan date are history.",
		Fields: []engine.Field{
			{Name: "launch_date", Kind: engine.Date, Required: true, Description: "Release day on Steam."},
			{Name: "price_usd", Kind: engine.Number, Money: true, Required: true, Min: engine.Bound(0.99), Max: engine.Bound(200), Description: "Base price in `currency`."},
			{Name: "launch_discount_pct", Kind: engine.Integer, Default: 10, Min: engine.Bound(0), Max: engine.Bound(90), Description: "Launch-week discount in percent (0 for none)."},
			{Name: "max_discount_pct", Kind: engine.Integer, Default: 50, Min: engine.Bound(10), Max: engine.Bound(90), Description: "Deepest discount to allow within the horizon, in percent."},
			{Name: "months", Kind: engine.Integer, Default: 12, Min: engine.Bound(3), Max: engine.Bound(24), Description: "How many months after launch to plan."},
			{Name: "fill_gaps", Kind: engine.Boolean, Default: true, Description: "Add one weeklong discount of your own between seasonal sales where the cooldown allows."},
			engine.CurrencyField("USD"),
		},
		ExampleContext: map[string]any{
			"launch_date":         "2027-07-13",
			"price_usd":           19.99,
			"launch_discount_pct": 10,
			"max_discount_pct":    50,
			"months":              12,
			"as_of":               "2026-11-20",
		},
		Steps: []engine.Step{
			{Name: "check-inputs", Run: gamesDiscountCheck},
			{Name: "schedule", Run: gamesDiscountSchedule},
			{Name: "recommend", Run: gamesDiscountRecommend},
		},
	})
}

const (
	gamesDiscountCooldownDays = 28
	gamesDiscountWeekDays     = 7
	gamesDiscountSetupDays    = 14
	gamesDiscountStepPct      = 10
	gamesDiscountMinPct       = 10
)

// gamesDiscountName names a discount in a sentence: Steam's sales by their
// own names, the game's own discounts in lower case.
func gamesDiscountName(d map[string]any) string {
	if d["kind"] == "seasonal" {
		return d["name"].(string)
	}
	return strings.ToLower(d["name"].(string))
}

type gamesDiscount struct {
	Kind, Name string
	Start, End time.Time
	Pct        int
}

func gamesDiscountCheck(in *engine.Input, p *engine.Plan) error {
	launch := in.Date("launch_date")
	p.SetTarget(launch)
	ld, maxPct := in.Int("launch_discount_pct"), in.Int("max_discount_pct")
	if ld > 0 && ld < gamesDiscountMinPct {
		p.Warn("DISCOUNT_BELOW_STEAM_MINIMUM", "Steam discounts start at 10%%; the %d%% launch discount is planned as 10%%.", ld)
		ld = gamesDiscountMinPct
	}
	if ld > maxPct {
		p.Warn("MAX_BELOW_LAUNCH_DISCOUNT", "The deepest allowed discount (%d%%) is below the launch discount (%d%%); the ladder starts at %d%% and stays there.", maxPct, ld, ld)
		maxPct = ld
	}
	if ld > 25 {
		p.Warn("LAUNCH_DISCOUNT_DEEP", "A %d%% launch discount is deep: 10–20%% is usual, and later sales must go deeper than launch to move wishlisters.", ld)
	}
	if sale, ok := steamSaleOn(launch); ok {
		p.Warn("LAUNCH_IN_SEASONAL_SALE", "%s falls in the %s (%s to %s): a new release is buried under the sale and cannot join it; launch after %s.",
			engine.FormatDate(launch), sale.Name, engine.FormatDate(sale.Start), engine.FormatDate(sale.End), engine.FormatDate(sale.End))
	}
	p.Set("launch_discount_pct", ld)
	p.Set("max_discount_pct", maxPct)
	return nil
}

// gamesDiscountClears is the first day a discount may start after one
// ending on end: 28 clear days in between.
func gamesDiscountClears(end time.Time) time.Time {
	return engine.AddDays(end, gamesDiscountCooldownDays+1)
}

func gamesDiscountSchedule(in *engine.Input, p *engine.Plan) error {
	launch := in.Date("launch_date")
	horizon := engine.AddMonths(launch, in.Int("months"))
	ld, maxPct := p.Get("launch_discount_pct").(int), p.Get("max_discount_pct").(int)
	price := in.Float("price_usd")

	var sales []steamEvent
	for y := launch.Year(); y <= horizon.Year(); y++ {
		for _, s := range steamSeasonalSales(y) {
			if s.Start.After(launch) && s.Start.Before(horizon) {
				sales = append(sales, s)
			}
		}
	}
	sort.Slice(sales, func(i, j int) bool { return sales[i].Start.Before(sales[j].Start) })

	var plan []gamesDiscount
	skipped := []map[string]any{}
	deepest := 0
	// Seasonal sales open 28 days after release and after the launch
	// discount; other discounts wait 28 days after any discount.
	seasonalFrom := engine.AddDays(launch, gamesDiscountCooldownDays)
	lastEnd := engine.AddDays(launch, -gamesDiscountCooldownDays-1)
	if ld > 0 {
		end := engine.AddDays(launch, gamesDiscountWeekDays-1)
		plan = append(plan, gamesDiscount{"launch", "Launch discount", launch, end, ld})
		deepest, lastEnd = ld, end
		seasonalFrom = engine.Later(seasonalFrom, gamesDiscountClears(end))
	}
	for i, s := range sales {
		if s.Start.Before(seasonalFrom) {
			afterRelease := s.Start.Before(engine.AddDays(launch, gamesDiscountCooldownDays))
			reason := fmt.Sprintf("within 28 days of the launch discount ending %s", engine.FormatDate(lastEnd))
			if afterRelease {
				reason = fmt.Sprintf("within 28 days of release on %s", engine.FormatDate(launch))
			}
			skipped = append(skipped, map[string]any{"sale": s.Name, "start": engine.FormatDate(s.Start), "reason": reason})
			if i > 0 {
				continue
			}
			latest := engine.AddDays(s.Start, -gamesDiscountCooldownDays)
			if ld > 0 {
				latest = engine.AddDays(s.Start, -(gamesDiscountCooldownDays + gamesDiscountWeekDays))
			}
			p.Set("latest_launch_for_first_sale", p.Label("latest launch that can join the first seasonal sale", latest))
			if afterRelease {
				p.Warn("SALE_TOO_SOON_AFTER_RELEASE", "The %s starts %s, %s, so the game cannot join it; launching by %s would.",
					s.Name, engine.FormatDate(s.Start), reason, engine.FormatDate(latest))
			} else {
				p.Warn("SALE_BLOCKED_BY_LAUNCH_DISCOUNT", "The %s starts %s, %s, so the game cannot join it; launch by %s, or launch without a discount.",
					s.Name, engine.FormatDate(s.Start), reason, engine.FormatDate(latest))
			}
			continue
		}
		if in.Bool("fill_gaps") {
			start := engine.OnOrAfter(gamesDiscountClears(lastEnd), time.Monday)
			end := engine.AddDays(start, gamesDiscountWeekDays-1)
			if !s.Start.Before(gamesDiscountClears(end)) {
				pct := max(deepest, gamesDiscountMinPct)
				plan = append(plan, gamesDiscount{"own", "Weeklong discount", start, end, pct})
				deepest = pct
			}
		}
		deepest = min(maxPct, max(deepest+gamesDiscountStepPct, gamesDiscountMinPct))
		plan = append(plan, gamesDiscount{"seasonal", s.Name, s.Start, s.End, deepest})
		lastEnd = s.End
	}

	list := make([]map[string]any, len(plan))
	for i, d := range plan {
		list[i] = map[string]any{
			"kind": d.Kind, "name": d.Name, "start": engine.FormatDate(d.Start), "end": engine.FormatDate(d.End),
			"discount_pct": d.Pct, "sale_price_usd": engine.Money(price * float64(100-d.Pct) / 100),
			"set_up_by": engine.FormatDate(p.Calendar().PrevWorkday(engine.AddDays(d.Start, -gamesDiscountSetupDays))),
		}
		key := fmt.Sprintf("discount-%d", i+1)
		if d.Kind == "launch" {
			key = "launch-discount-end"
			p.Event(key, fmt.Sprintf("Launch discount (%d%%) ends", d.Pct), d.End, "Steam runs discounts on its own clock")
			continue
		}
		p.Event(key, fmt.Sprintf("%s at %d%% off begins", d.Name, d.Pct), d.Start, "Steam runs discounts on its own clock")
		if d.Pct > 50 && d.Start.Before(engine.AddMonths(launch, 6)) {
			p.Warn("EARLY_DEEP_DISCOUNT", "%s at %d%% off starts %s, within six months of launch; discounts past 50%% that early undercut launch buyers.", d.Name, d.Pct, engine.FormatDate(d.Start))
		}
	}
	// The first discount that has not started yet is the one to set up.
	if next := slices.IndexFunc(list, func(d map[string]any) bool { return d["start"].(string) >= engine.FormatDate(p.AsOf()) }); next >= 0 {
		setup := p.Calendar().PrevWorkday(engine.AddDays(plan[next].Start, -gamesDiscountSetupDays))
		key := fmt.Sprintf("set-up-discount-%d", next+1)
		p.Milestone(key, fmt.Sprintf("%s scheduled in Steamworks", plan[next].Name), engine.Later(p.AsOf(), setup))
		list[next]["set_up_by"] = p.Ref(key)
		if plan[next].Kind != "launch" {
			p.DependsOn(fmt.Sprintf("discount-%d", next+1), key)
		}
	}
	p.SetSchedule("discounts", "each discount's run and the day to set it up in Steamworks", list)
	p.SetSchedule("skipped_sales", "Steam seasonal sales Steam's 28-day rules close to the game", skipped)
	p.Event("launch", "Launch", launch, "the launch date the plan is built on")
	p.Event("horizon-end", "End of the planned period", horizon, "the end of the planned period")
	seasonal := 0
	for _, d := range plan {
		if d.Kind == "seasonal" {
			seasonal++
		}
	}
	p.Set("seasonal_sales_joined", seasonal)
	p.Set("deepest_discount_pct", deepest)
	if launch.Before(p.AsOf()) {
		// Launched already: the calendar from launch is history up to the
		// plan date; the discounts still ahead are what to set up.
		p.PostEvent(launch, "discounts already behind the plan date are history; set up the ones still ahead.")
		notePassed(p, "launch")
	}
	return nil
}

func gamesDiscountRecommend(in *engine.Input, p *engine.Plan) error {
	list := p.Get("discounts").([]map[string]any)
	skipped := p.Get("skipped_sales").([]map[string]any)
	// The first discount that has not started yet.
	next := slices.IndexFunc(list, func(d map[string]any) bool { return d["start"].(string) >= engine.FormatDate(p.AsOf()) })
	if next >= 0 {
		first := list[next]
		p.RecommendOn(engine.High, fmt.Sprintf("set-up-discount-%d", next+1), fmt.Sprintf("Set up the %s in Steamworks", gamesDiscountName(first)),
			fmt.Sprintf("%s at %d%% (%s) starts %s; schedule it in Steamworks at least two weeks ahead.", first["name"], first["discount_pct"], in.Money(first["sale_price_usd"].(float64)), first["start"]))
	}
	if len(skipped) > 0 {
		p.Recommend(engine.Medium, "Choose your seasonal sales deliberately",
			fmt.Sprintf("%s closed to the game (first: %s, %s); use the weeks after launch for updates and visibility rounds instead.", engine.Plural(len(skipped), "seasonal sale is", "seasonal sales are"), skipped[0]["sale"], skipped[0]["reason"]))
	}
	p.Recommend(engine.Medium, "Deepen slowly", "Step discounts up about 10 points per major sale and never go deeper outside a seasonal sale than inside one; each new low resets what wishlisters wait for.")
	p.Recommend(engine.Low, "Pair discounts with updates", "A content update or a new trailer released in a discount week lifts the sale's visibility in followers' feeds.")
	p.Strategy("Over %s from launch on %s: %s planned, %s joined and %d closed by Steam's 28-day rules, deepening to %d%% off (%s at the lowest).",
		engine.Plural(in.Int("months"), "month", "months"), engine.FormatDate(in.Date("launch_date")), engine.Plural(len(list), "discount", "discounts"), engine.Plural(p.Get("seasonal_sales_joined").(int), "seasonal sale", "seasonal sales"), len(skipped), p.Get("deepest_discount_pct"),
		in.Money(engine.Money(in.Float("price_usd")*float64(100-p.Get("deepest_discount_pct").(int))/100)))
	return nil
}
