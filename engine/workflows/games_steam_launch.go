package workflows

import (
	"fmt"
	"math"
	"time"

	"github.com/creativeops/creativeops/engine"
)

// Steam launch planning for an indie PC game, scheduled backwards from
// launch day. Rules used:
//   - Steam Direct: a $100 app fee per game, recouped once the game earns
//     $1,000 adjusted gross; at least 30 days must pass between paying it and
//     releasing (Steamworks documentation, Steam Direct).
//   - The store page must be public as "Coming Soon" for at least two weeks
//     before release, and Valve reviews both the store page and the build
//     (quoted 3–5 business days each; a calendar week is planned)
//     (Steamworks, release process).
//   - Standard indie practice is a Coming Soon page 6–12 months before launch
//     to gather wishlists; about 7,000 wishlists at launch is the commonly
//     cited mark for the "Popular Upcoming" list (howtomarketagame.com).
//   - Steam Next Fest runs in February, June and October; a game may take
//     part once, before release, and needs a demo live 2–4 weeks before the
//     festival. Registration closes 5–7 weeks ahead; 8 weeks is planned.
//   - 10–20% of launch wishlists convert to first-week sales (commonly cited
//     range), and Steam keeps 30% of revenue below $10M. Valve's share and
//     the $1,000 that recoups the app fee are counted on adjusted gross, not
//     on list price: after the VAT and regional-pricing drag (15%) and the
//     refunds (8%) games-steam-break-even deducts.
//   - Launches go out Monday–Thursday (10am PT is usual) so the team can
//     patch on working days, and outside the storewide seasonal sales.
func init() {
	engine.Register(&engine.Workflow{
		ID:       "games-steam-launch",
		Name:     "Steam launch plan",
		Vertical: "games",
		PastDate: engine.PastDate{Field: "launch_date", Policy: engine.PastPostEvent},
		Sources: []engine.Source{
			{Title: "Steamworks: Steam Direct app fee (recouped at $1,000 adjusted gross revenue)", URL: "https://partner.steamgames.com/doc/gettingstarted/appfee", Checked: "2026-11"},
			{Title: "Steamworks: Steam Next Fest", URL: "https://partner.steamgames.com/doc/marketing/upcoming_events/nextfest", Checked: "2026-11"},
			{Title: "Steamworks: release process and Coming Soon page", URL: "https://partner.steamgames.com/doc/store/releasing", Checked: "2026-11"},
			engine.SteamSeasonalSales.Source,
		},
		Description: "Plans a Steam launch backwards from launch day: Steam Direct fee and Coming Soon page rules, the Next Fest edition to enter with demo and registration dates, wishlist targets and a first-week revenue range, with warnings when Steam's minimums or the wishlist runway cannot be met. A launch Steam cannot allow yet is re-planned on the earliest Tuesday it can that is outside Steam's seasonal sales, the dead week and public holidays; a launch date already past gets a post-launch plan; a launch in the 24 December–1 January dead week is warned with a better date.",
		Fields: []engine.Field{
			{Name: "game_title", Kind: engine.String, Required: true, Min: engine.Bound(1), Max: engine.Bound(200), Description: "Title of the game."},
			{Name: "launch_date", Kind: engine.Date, Required: true, Description: "Planned Steam release day."},
			{Name: "price_usd", Kind: engine.Number, Money: true, Default: 19.99, Min: engine.Bound(0), Max: engine.Bound(200), Description: "Base price in `currency` (0 for free to play)."},
			{Name: "store_page_live", Kind: engine.Boolean, Default: false, Description: "Whether the Coming Soon store page is already public."},
			{Name: "app_fee_paid_on", Kind: engine.Date, Description: "Date the $100 Steam Direct fee was paid; omit if not paid yet."},
			{Name: "has_demo", Kind: engine.Boolean, Default: true, Description: "Whether a playable demo will be released before launch (required for Next Fest)."},
			{Name: "wishlists", Kind: engine.Integer, Default: 0, Min: engine.Bound(0), Max: engine.Bound(100000000), Description: "Steam wishlists so far (0–100,000,000)."},
			engine.RegionField(),
			engine.CurrencyField("USD"),
		},
		ExampleContext: map[string]any{
			"game_title":      "Lanternfall",
			"launch_date":     "2027-07-13",
			"price_usd":       19.99,
			"store_page_live": false,
			"has_demo":        true,
			"wishlists":       1200,
			"as_of":           "2026-11-20",
		},
		Steps: []engine.Step{
			{Name: "check-dates", Run: gamesSteamLaunchCheckDates},
			{Name: "next-fest", Run: gamesSteamLaunchNextFest},
			{Name: "schedule", Run: gamesSteamLaunchSchedule},
			{Name: "forecast", Run: gamesSteamLaunchForecast},
			{Name: "recommend", Run: gamesSteamLaunchRecommend},
		},
	})
}

const (
	gamesSteamAppFeeUSD          = 100.0
	gamesSteamFeeWaitDays        = 30
	gamesSteamComingSoonMinDays  = 14
	gamesSteamReviewDays         = 7
	gamesSteamRunwayMinMonths    = 6
	gamesSteamRunwayIdealMonths  = 12
	gamesNextFestRegisterWeeks   = 8
	gamesNextFestDemoWeeks       = 3
	gamesWishlistBenchmark       = 7000
	gamesFirstWeekConversionLow  = 0.10
	gamesFirstWeekConversionHigh = 0.20
	gamesSteamCut                = 0.30
	// gamesLaunchRefundRate is games-steam-break-even's default refund
	// rate: 5–10% is common for indies.
	gamesLaunchRefundRate = 0.08
)

func gamesSteamLaunchCheckDates(in *engine.Input, p *engine.Plan) error {
	launch, asOf := in.Date("launch_date"), p.AsOf()
	p.SetTarget(launch)
	p.Set("launch_date", engine.FormatDate(launch))
	days := engine.DaysBetween(asOf, launch)
	if days < 0 {
		// Already launched: a post-launch plan (week-one review, first
		// discount, the wishlist conversion) instead of a launch schedule.
		p.PostEvent(launch, "review the launch numbers, answer reviews and plan the first discount with games-steam-discount-calendar.")
		p.Set("plan_kind", "post_launch")
		p.Set("days_until_launch", days)
		p.Set("store_page_live_date", engine.FormatDate(launch))
		p.Set("earliest_allowed_launch_date", engine.FormatDate(launch))
		return nil
	}
	p.Set("plan_kind", "pre_launch")

	// Steam's hard floor: 30 days after the app fee, and two public weeks
	// after a store page that still has to pass review.
	feeClears := engine.AddDays(asOf, gamesSteamFeeWaitDays)
	if in.Has("app_fee_paid_on") {
		feeClears = engine.AddDays(in.Date("app_fee_paid_on"), gamesSteamFeeWaitDays)
	}
	live := in.Bool("store_page_live")
	pageClears := asOf
	pageLive := asOf
	if !live {
		pageLive = engine.Later(engine.AddMonths(launch, -gamesSteamRunwayIdealMonths), engine.AddDays(asOf, gamesSteamReviewDays))
		pageClears = engine.AddDays(engine.AddDays(asOf, gamesSteamReviewDays), gamesSteamComingSoonMinDays)
	}
	p.Set("store_page_live_date", engine.FormatDate(pageLive))
	earliest := engine.Later(feeClears, pageClears)
	p.Set("earliest_allowed_launch_date", p.Label("earliest release Steam allows", earliest))
	if launch.Before(earliest) {
		alt := steamLaunchDay(earliest, in.Region())
		p.Warn("LAUNCH_TOO_SOON", "Steam needs 30 days after the app fee and two weeks of a public Coming Soon page (after a week of review if it is not up yet), so %s is the earliest allowed release; %s is too soon. Earliest Tuesday launch outside Steam's seasonal sales and holidays: %s.",
			engine.FormatDate(earliest), engine.FormatDate(launch), engine.FormatDate(alt))
		p.Set("earliest_feasible_launch_date", engine.FormatDate(alt))
		replanOn(p, launch, alt, "Steam allows release only 30 days after the app fee and two public weeks of the store page")
		launch = alt
		p.SetTarget(launch)
		p.Set("launch_date", engine.FormatDate(launch))
		days = engine.DaysBetween(asOf, launch)
		if !live {
			pageLive = engine.Later(engine.AddMonths(launch, -gamesSteamRunwayIdealMonths), engine.AddDays(asOf, gamesSteamReviewDays))
			p.Set("store_page_live_date", engine.FormatDate(pageLive))
		}
	}
	p.Set("days_until_launch", days)

	runway := engine.DaysBetween(pageLive, launch)
	if !live {
		p.Set("coming_soon_days", runway)
		if pageLive.After(engine.AddMonths(launch, -gamesSteamRunwayMinMonths)) {
			rec := steamLaunchDay(engine.AddMonths(pageLive, gamesSteamRunwayMinMonths), in.Region())
			p.Warn("SHORT_WISHLIST_RUNWAY", "The Coming Soon page can be public %s at the earliest, only %s before launch; indie games gather wishlists for 6–12 months. A launch on %s gives six months.",
				engine.FormatDate(pageLive), engine.Plural(runway, "day", "days"), engine.FormatDate(rec))
			p.Set("recommended_launch_date", p.Label("launch with six months of wishlists", rec))
		}
	}
	better := steamLaunchDay(launch, in.Region())
	if engine.InDeadWeek(launch) {
		p.Warn("LAUNCH_IN_DEAD_WEEK", "%s falls in the 24 December–1 January dead week, inside Steam's Winter Sale: press and creators are off and the front page belongs to discounts. A better launch is Tuesday %s.",
			engine.FormatDate(launch), engine.FormatDate(better))
		p.Set("better_launch_date", p.Label("launch clear of the dead week", better))
	}
	switch launch.Weekday() {
	case time.Friday, time.Saturday, time.Sunday:
		p.Warn("LAUNCH_DAY_RISKY", "%s is a %s: a launch-day bug would wait for the weekend. Launch Monday–Thursday, e.g. Tuesday %s.",
			engine.FormatDate(launch), launch.Weekday(), engine.FormatDate(steamLaunchDay(engine.OnOrBefore(launch, time.Tuesday), in.Region())))
	}
	if sale, ok := steamSaleOn(launch); ok {
		p.Warn("LAUNCH_IN_SEASONAL_SALE", "%s falls in the %s (%s to %s), when the front page is given to discounts and a new release is buried; launch after %s, e.g. Tuesday %s.",
			engine.FormatDate(launch), sale.Name, engine.FormatDate(sale.Start), engine.FormatDate(sale.End), engine.FormatDate(sale.End), engine.FormatDate(better))
		p.Set("better_launch_date", engine.FormatDate(better))
	}
	return nil
}

func gamesSteamLaunchNextFest(in *engine.Input, p *engine.Plan) error {
	if p.Get("plan_kind") == "post_launch" {
		return nil
	}
	if !in.Bool("has_demo") {
		p.Warn("NO_DEMO", "Steam Next Fest requires a playable demo; without one the game cannot take part in any edition before %s.", p.Get("launch_date"))
		return nil
	}
	launch, asOf := p.GetDate("launch_date"), p.AsOf()
	pageLive := p.GetDate("store_page_live_date")
	register := func(f steamEvent) time.Time {
		return p.Calendar().PrevWorkday(engine.AddWeeks(f.Start, -gamesNextFestRegisterWeeks))
	}
	// Registration needs a public store page; the game must still be
	// unreleased when the festival ends.
	open := func(f steamEvent) bool { r := register(f); return !r.Before(asOf) && !r.Before(pageLive) }
	var chosen, first *steamEvent
	for y := asOf.Year(); y <= max(launch.Year(), asOf.Year())+1; y++ {
		for _, f := range steamNextFests(y) {
			if !open(f) {
				continue
			}
			if first == nil {
				first = &f
			}
			if f.End.Before(launch) {
				chosen = &f
			}
		}
	}
	if chosen == nil {
		alt := steamLaunchDay(engine.AddDays(first.End, 7), in.Region())
		p.Warn("NEXT_FEST_UNAVAILABLE", "No Steam Next Fest that is still open for registration (8 weeks ahead) ends before launch on %s. The next one is %s (%s to %s): launch on %s to take part.",
			p.Get("launch_date"), first.Name, engine.FormatDate(first.Start), engine.FormatDate(first.End), engine.FormatDate(alt))
		p.Set("next_fest_launch_date", p.Label("launch that leaves room for a Next Fest", alt))
		return nil
	}
	f := *chosen
	demo := engine.AddWeeks(f.Start, -gamesNextFestDemoWeeks)
	p.Set("next_fest", map[string]any{
		"edition":               f.Name,
		"start":                 p.Ref("next-fest"),
		"end":                   p.Label(f.Name+" ends", f.End),
		"registration_deadline": p.Ref("next-fest-registration"),
		"demo_live_by":          p.Ref("demo-live"),
		"days_before_launch":    engine.DaysBetween(f.End, launch),
	})
	p.Handover(engine.KindAction, "next-fest-registration", "Register for "+f.Name, register(f))
	p.Handover(engine.KindOnSale, "demo-live", "Demo public on Steam", demo)
	p.Event("next-fest", f.Name+" begins", f.Start, "Valve's Next Fest dates")
	return nil
}

func gamesSteamLaunchSchedule(in *engine.Input, p *engine.Plan) error {
	launch, asOf := p.GetDate("launch_date"), p.AsOf()
	if p.Get("plan_kind") == "post_launch" {
		p.Event("launch", "Launch on Steam (10am PT)", launch, "the launch date the plan is built on")
		p.Work("launch-review", "Launch review: sales, refunds, reviews, wishlist conversion", asOf)
		return nil
	}
	pageLive := p.GetDate("store_page_live_date")
	if !in.Bool("store_page_live") {
		submit := p.Calendar().PrevWorkday(engine.AddDays(pageLive, -gamesSteamReviewDays))
		if !submit.Before(asOf) {
			p.Handover(engine.KindDeliverable, "store-page-review", "Store page submitted to Valve for review", submit)
		}
		p.Handover(engine.KindAnnounce, "store-page-live", "Coming Soon page public", pageLive)
		p.Set("store_page_live_date", p.Ref("store-page-live"))
	}
	if !in.Has("app_fee_paid_on") {
		due := engine.AddDays(launch, -gamesSteamFeeWaitDays)
		if !in.Bool("store_page_live") {
			due = engine.AddDays(pageLive, -2*gamesSteamReviewDays)
		}
		p.Handover(engine.KindPayment, "app-fee", "Steam Direct fee paid ("+in.MoneyIn(gamesSteamAppFeeUSD, "USD")+")", engine.Later(p.AsOf(), due))
	}
	build := deliver(p, "build-review", "Release build submitted for Valve's review", engine.Later(asOf, p.Calendar().PrevWorkday(engine.AddDays(launch, -14))), in.Region())
	deliver(p, "press-keys", "Review keys sent to press and creators under embargo", engine.Later(asOf, p.Calendar().PrevWorkday(engine.AddDays(launch, -13))), in.Region(), build)
	p.DependsOn("press-keys", "build-review")
	p.Work("press-list", "Press and creator list built (six weeks out)", engine.Later(asOf, engine.AddWeeks(launch, -6)))
	p.Event("launch", "Launch on Steam (10am PT)", launch, "the launch date the plan is built on")
	p.DependsOn("store-page-live", "store-page-review")
	p.DependsOn("launch", "store-page-live", "build-review", "press-keys", "app-fee")
	p.Work("week-one-review", "First-week review: sales, refunds, reviews, wishlist conversion", engine.AddDays(launch, 7))
	return nil
}

func gamesSteamLaunchForecast(in *engine.Input, p *engine.Plan) error {
	w := in.Int("wishlists")
	days := p.Get("days_until_launch").(int)
	weeks := max(1, int(math.Ceil(float64(days)/7)))
	need := max(0, gamesWishlistBenchmark-w)
	perWeek := int(math.Ceil(float64(need) / float64(weeks)))
	p.Set("wishlist_plan", map[string]any{
		"current":           w,
		"benchmark":         gamesWishlistBenchmark,
		"needed":            need,
		"weeks_left":        weeks,
		"needed_per_week":   perWeek,
		"benchmark_reached": need == 0,
	})
	if need > 0 && days >= 0 && days < 56 {
		p.Warn("WISHLISTS_BELOW_BENCHMARK", "%s with %s to launch is short of the ~%d that reach Popular Upcoming; it needs %d a week. Consider moving launch after a Next Fest.",
			engine.Plural(w, "wishlist", "wishlists"), engine.Plural(days, "day", "days"), gamesWishlistBenchmark, perWeek)
	}
	price := in.Float("price_usd")
	if price == 0 {
		return nil
	}
	lowUnits := int(math.Round(float64(w) * gamesFirstWeekConversionLow))
	highUnits := int(math.Round(float64(w) * gamesFirstWeekConversionHigh))
	// Valve's share and the app-fee recoup are on adjusted gross: list
	// price less VAT and regional pricing, less refunds.
	adjusted := func(units int) float64 {
		return engine.Money(float64(units) * price * (1 - gamesTaxRegionalDrag) * (1 - gamesLaunchRefundRate))
	}
	net := func(units int) float64 { return engine.Money(adjusted(units) * (1 - gamesSteamCut)) }
	p.Set("first_week_forecast", map[string]any{
		"basis":         "current wishlists",
		"units_low":     lowUnits,
		"units_high":    highUnits,
		"gross_low_usd": engine.Money(float64(lowUnits) * price), "gross_high_usd": engine.Money(float64(highUnits) * price),
		"adjusted_gross_low_usd": adjusted(lowUnits), "adjusted_gross_high_usd": adjusted(highUnits),
		"net_low_usd": net(lowUnits), "net_high_usd": net(highUnits),
	})
	if adjusted(highUnits) < in.Benchmark(p, gamesAppFeeRecoup)*(1-1e-9) {
		p.Warn("APP_FEE_NOT_RECOUPED", "At %s the first week's adjusted gross (after VAT, regional pricing and refunds) is at most %s, below the %s that recoups the %s Steam Direct fee.",
			engine.Plural(w, "wishlist", "wishlists"), in.Money(adjusted(highUnits)), in.BenchmarkText(p, gamesAppFeeRecoup), in.MoneyIn(gamesSteamAppFeeUSD, "USD"))
	}
	return nil
}

func gamesSteamLaunchRecommend(in *engine.Input, p *engine.Plan) error {
	launch, asOf := p.GetDate("launch_date"), p.AsOf()
	title := in.Str("game_title")
	wp := p.Get("wishlist_plan").(map[string]any)
	if p.Get("plan_kind") == "post_launch" {
		p.RecommendBy(engine.High, asOf, "Review the launch",
			"Compare sales with the wishlist count (10–20% convert in the first week), read refund reasons and answer negative reviews with patches.")
		p.RecommendBy(engine.Medium, asOf, "Plan the first discount",
			"Steam's 28-day rules decide which seasonal sales the game can join; lay them out with games-steam-discount-calendar.")
		p.Strategy("%s launched on Steam on %s: review the launch against its %s and plan the first discounts.",
			title, engine.FormatDate(launch), engine.Plural(in.Int("wishlists"), "wishlist", "wishlists"))
		return nil
	}
	if !in.Bool("store_page_live") {
		key := "store-page-review"
		if p.DateOf(key).IsZero() {
			key = "store-page-live"
		}
		p.RecommendOn(engine.High, key, "Get the Coming Soon page up",
			fmt.Sprintf("Capsule art, a trailer and five screenshots sell the wishlist; the page can be public on %s and every week it is live gathers wishlists for launch.", p.Get("store_page_live_date")))
	}
	festLine := "no Next Fest"
	if nf, ok := p.Get("next_fest").(map[string]any); ok {
		festLine = fmt.Sprintf("enter %s (demo live by %s)", nf["edition"], nf["demo_live_by"])
		p.RecommendOn(engine.High, "next-fest-registration", "Register for "+nf["edition"].(string),
			fmt.Sprintf("Each game gets one Next Fest; this is the last edition before launch that is still open. Have the demo live by %s and stream it during the festival.", nf["demo_live_by"]))
	} else if alt, ok := p.Get("next_fest_launch_date").(string); ok {
		festLine = "move launch to " + alt + " for a Next Fest"
	}
	p.RecommendOn(engine.Medium, "press-list", "Line up press and creators",
		"Build a list of 100+ creators who play similar games and send keys under embargo two weeks before launch.")
	if wp["needed"].(int) > 0 {
		p.Recommend(engine.Medium, "Close the wishlist gap",
			fmt.Sprintf("%d more wishlists reach %d by launch: about %d a week from festivals, creator coverage and store-page updates.", wp["needed"], gamesWishlistBenchmark, wp["needed_per_week"]))
	}
	p.Recommend(engine.Low, "Plan a launch discount", "A 10–20% launch discount for the first week is common and counts as the game's first discount for Steam's cooldown; see games-steam-discount-calendar.")
	p.Strategy("Launch %s on Steam on %s (%s from %s): Coming Soon page from %s, %s, %s needed per week to reach %s; Steam allows release from %s at the earliest.",
		title, engine.FormatDate(launch), engine.Plural(p.Get("days_until_launch").(int), "day", "days"), engine.FormatDate(asOf), p.Get("store_page_live_date"), festLine,
		engine.Plural(wp["needed_per_week"].(int), "wishlist", "wishlists"), engine.FormatInt(gamesWishlistBenchmark), p.Get("earliest_allowed_launch_date"))
	return nil
}
