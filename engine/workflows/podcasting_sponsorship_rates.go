package workflows

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/creativeops/creativeops/engine"
)

// Podcast sponsorship rate card and campaign calendar. Rules used:
//   - Podcast ads are priced per thousand downloads (CPM), counted over the
//     episode's first 30 days. Commonly cited host-read benchmarks
//     (AdvertiseCast, AdResults Media): pre-roll about $18, mid-roll about
//     $25, post-roll about $10. Pre-produced or programmatic spots commonly
//     sell at around 60% of host-read rates.
//   - Multi-month buys of 3 months or more commonly get 10% off.
//   - Ad networks and sales reps commonly keep 30–50% of what they sell.
//   - Most marketplaces and direct sponsors look for at least 1,000
//     downloads an episode; networks often want 5,000.
//   - Brands book 2–4 weeks ahead: the insertion order is signed two weeks
//     before the first air date, talking points arrive a week before, and
//     the delivery report follows 30 days after the last episode.
func init() {
	engine.Register(&engine.Workflow{
		ID:           "podcasting-sponsorship-rates",
		Name:         "Sponsorship rate card",
		Vertical:     "podcasting",
		Jurisdiction: []engine.Area{engine.AreaAdvertising},
		PastDate:     engine.PastDate{Field: "campaign_start", Policy: engine.PastReplan},
		Description:  "Builds a CPM rate card per ad slot from 30-day downloads, projects monthly ad revenue at a sell-through rate after rep commission, prices a multi-month sponsor package and schedules the campaign from insertion order to delivery report. A campaign whose insertion-order date has passed is re-planned to the first start on the same weekday that leaves two weeks.",
		Fields: []engine.Field{
			{Name: "downloads_per_episode", Kind: engine.Integer, Required: true, Min: engine.Bound(1), Max: engine.Bound(100000000), Description: "Average downloads per episode in its first 30 days."},
			{Name: "episodes_per_month", Kind: engine.Integer, Default: 4, Min: engine.Bound(1), Max: engine.Bound(31), Description: "Episodes released per month."},
			{Name: "ad_slots", Kind: engine.StringList, Enum: []string{"pre_roll", "mid_roll", "post_roll"}, Default: []string{"pre_roll", "mid_roll"}, Min: engine.Bound(1), Description: "Ad positions sold in each episode."},
			{Name: "host_read", Kind: engine.Boolean, Default: true, Description: "Host-read ads (false: pre-produced spots)."},
			{Name: "sell_through_pct", Kind: engine.Number, Default: 50, Min: engine.Bound(0), Max: engine.Bound(100), Description: "Share of the inventory expected to sell, in percent."},
			{Name: "rep_commission_pct", Kind: engine.Number, Default: 0, Min: engine.Bound(0), Max: engine.Bound(70), Description: "Ad network or sales rep commission, in percent."},
			{Name: "campaign_start", Kind: engine.Date, Required: true, Description: "First air date of the sponsor campaign being planned."},
			engine.RegionField(),
			{Name: "campaign_months", Kind: engine.Integer, Default: 3, Min: engine.Bound(1), Max: engine.Bound(12), Description: "Length of the campaign in months."},
			engine.CurrencyField("USD"),
		},
		ExampleContext: map[string]any{
			"downloads_per_episode": 6500,
			"episodes_per_month":    4,
			"ad_slots":              []any{"pre_roll", "mid_roll"},
			"host_read":             true,
			"sell_through_pct":      60,
			"rep_commission_pct":    0,
			"campaign_start":        "2027-01-05",
			"campaign_months":       3,
			"as_of":                 "2026-11-20",
		},
		Sources: []engine.Source{
			{Title: "AdvertiseCast: podcast advertising rates (CPM benchmarks per slot)", URL: "https://www.advertisecast.com/podcast-advertising-rates", Checked: "2026-11"},
			{Title: "IAB Tech Lab: podcast measurement guidelines (downloads counted)", URL: "https://iabtechlab.com/standards/podcast-measurement-guidelines/", Checked: "2026-11"},
		},
		Steps: []engine.Step{
			{Name: "rate-card", Run: podSponsorRates},
			{Name: "schedule", Run: podSponsorSchedule},
			{Name: "recommend", Run: podSponsorRecommend},
		},
	})
}

// podSponsorCPM are US-market CPMs per slot in US dollars (AdvertiseCast
// benchmarks); a plan in another currency converts them at the
// reference rate.
var podSponsorCPM = map[string]engine.Benchmark{
	"pre_roll":  podCPM(18, "pre-roll"),
	"mid_roll":  podCPM(25, "mid-roll"),
	"post_roll": podCPM(10, "post-roll"),
}

func podCPM(v float64, slot string) engine.Benchmark {
	return engine.Benchmark{Amount: engine.InUSD(v), What: "podcast " + slot + " CPM", Source: "https://www.advertisecast.com/podcast-advertising-rates"}
}

const (
	podSponsorProducedFactor = 0.6
	podSponsorMultiDiscount  = 0.10
	podSponsorMinDownloads   = 1000
	podSponsorNetworkMin     = 5000
	podSponsorIOLeadDays     = 14
	// podSponsorPitchWorkdays is the two weeks a brand needs from the rate
	// card to a signed insertion order, in working days.
	podSponsorPitchWorkdays = 10
)

func podSponsorRates(in *engine.Input, p *engine.Plan) error {
	dl := float64(in.Int("downloads_per_episode"))
	factor := 1.0
	if !in.Bool("host_read") {
		factor = podSponsorProducedFactor
	}
	card := map[string]any{}
	var perEpisode float64
	for _, slot := range []string{"pre_roll", "mid_roll", "post_roll"} {
		if !slices.Contains(in.Strings("ad_slots"), slot) {
			continue
		}
		cpm := in.Benchmark(p, podSponsorCPM[slot]) * factor
		// Prices are computed exactly and rounded once, to the currency's
		// minor unit, where they are shown: a per-episode price of a few
		// downloads rounded to the cent and then multiplied by episodes and
		// months would compound the rounding.
		price := dl / 1000 * cpm
		card[slot] = map[string]any{"cpm_usd": in.RoundMinor(cpm), "per_episode_usd": in.RoundMinor(price)}
		perEpisode += price
	}
	eps := float64(in.Int("episodes_per_month"))
	inventory := perEpisode * eps
	gross := inventory * in.Float("sell_through_pct") / 100
	net := gross * (1 - in.Float("rep_commission_pct")/100)
	months := in.Int("campaign_months")
	pkg := perEpisode * eps * float64(months)
	discount := 0.0
	if months >= 3 {
		discount = podSponsorMultiDiscount
	}
	p.Set("rate_card", card)
	p.Set("per_episode_all_slots_usd", in.RoundMinor(perEpisode))
	p.Set("monthly", map[string]any{"inventory_usd": in.RoundMinor(inventory), "expected_gross_usd": in.RoundMinor(gross), "expected_net_usd": in.RoundMinor(net)})
	p.Set("sponsor_package", map[string]any{
		"months": months, "episodes": int(eps) * months, "list_usd": in.RoundMinor(pkg),
		"discount_pct": discount * 100, "price_usd": in.RoundMinor(pkg * (1 - discount)),
	})
	if dl < podSponsorMinDownloads {
		p.Warn("BELOW_AD_MARKET_THRESHOLD", "%s an episode is below the 1,000 most sponsors and marketplaces look for; an all-slot episode earns %s. Lean on affiliate deals, listener support or a host-read deal with a niche brand priced per episode.", roundedCount(dl, "download", "downloads"), in.Money(perEpisode))
	}
	return nil
}

func podSponsorSchedule(in *engine.Input, p *engine.Plan) error {
	requested, r := in.Date("campaign_start"), in.Region()
	// The insertion order is signed two weeks before the first air date; a
	// campaign whose insertion order date has passed moves to the first
	// start on the same weekday that leaves the brand that time.
	// The pitch goes out two weeks (ten working days) before the IO is
	// signed: a re-plan keeps both spans whole rather than squeezing them.
	cal := p.Calendar()
	ioFor := func(start time.Time) time.Time { return cal.PrevWorkday(engine.AddDays(start, -podSponsorIOLeadDays)) }
	start := requested
	for cal.AddWorkdays(ioFor(start), -podSponsorPitchWorkdays).Before(p.AsOf()) {
		start = engine.AddWeeks(start, 1)
		if start.Before(p.AsOf()) {
			start = engine.OnOrAfter(p.AsOf(), requested.Weekday())
		}
	}
	if !start.Equal(requested) {
		why := fmt.Sprintf("A campaign starting %s needs the insertion order by %s and the pitch two weeks before that; brands book 2–4 weeks ahead, so the earliest realistic start on a %s is %s.",
			engine.FormatDate(requested), engine.FormatDate(ioFor(requested)), requested.Weekday(), engine.FormatDate(start))
		p.Warn("IO_LEAD_TIME", "%s", why)
		p.Replanned(requested, start, why)
		p.Set("earliest_campaign_start", engine.FormatDate(start))
	}
	p.SetTarget(start)
	io := ioFor(start)
	end := engine.AddDays(engine.AddMonths(start, in.Int("campaign_months")), -1)
	p.Handover(engine.KindAction, "pitch", "Media kit and rate card sent to prospects", cal.AddWorkdays(io, -podSponsorPitchWorkdays))
	p.Deliverable("io-signed", "Insertion order signed", io, r)
	p.Deliverable("talking-points", "Talking points, promo code and landing page received", engine.Later(io, engine.AddDays(start, -7)), r)
	p.Event("campaign-start", "First sponsored episode airs", start, "the campaign's first air date")
	if in.Int("campaign_months") > 1 {
		p.Handover(engine.KindDeliverable, "first-month-report", "First-month downloads and promo-code redemptions shared", engine.AddMonths(start, 1))
	}
	p.Event("campaign-end", "Last sponsored episode airs", end, "the campaign's last air date")
	p.Deliverable("delivery-report", "Delivery report (30-day downloads per episode) sent", p.Calendar().NextWorkday(engine.AddDays(end, 30)), r)
	p.Precede("pitch", "io-signed", podSponsorPitchWorkdays)
	p.DependsOn("talking-points", "io-signed")
	p.DependsOn("campaign-start", "io-signed", "talking-points")
	p.DependsOn("delivery-report", "campaign-end")
	p.Set("campaign", map[string]string{"pitch_by": p.Ref("pitch"), "io_by": p.Ref("io-signed"), "start": p.Ref("campaign-start"), "end": p.Ref("campaign-end")})
	return nil
}

func podSponsorRecommend(in *engine.Input, p *engine.Plan) error {
	pkg := p.Get("sponsor_package").(map[string]any)
	monthly := p.Get("monthly").(map[string]any)
	c := p.Get("campaign").(map[string]string)
	p.RecommendOn(engine.High, "pitch", "Send the rate card",
		fmt.Sprintf("Offer the %d-month package at %s (%.0f%% multi-month discount) alongside per-episode slot prices, with 30-day download figures and audience demographics.",
			pkg["months"].(int), in.Money(pkg["price_usd"].(float64)), pkg["discount_pct"].(float64)))
	if d := in.Int("downloads_per_episode"); d >= podSponsorMinDownloads && d < podSponsorNetworkMin {
		p.Recommend(engine.Medium, "Sell direct before joining a network",
			fmt.Sprintf("At %s an episode most networks (often 5,000+) will not take the show yet; sell direct to brands your listeners already use.", engine.Plural(d, "download", "downloads")))
	}
	if !in.Bool("host_read") {
		p.Recommend(engine.Medium, "Offer host-read spots", "Host-read ads command higher CPMs than pre-produced spots (about 1.7× on this card) and convert better.")
	}
	if start, _ := engine.ParseDate(c["start"]); inQ4Rush(start) {
		p.Recommend(engine.Medium, "Sell Q4 early and at full rate", "Fourth-quarter inventory sells out first as brands spend their remaining budgets before the holidays; offer no discount on Q4 episodes and confirm holiday-season slots by September.")
	}
	p.Recommend(engine.Medium, "Say it is an ad", "Introduce every read as sponsored (\"this episode is brought to you by\") and label it in the show notes. "+disclosureRule(in, p))
	p.Recommend(engine.Low, "Track with a promo code", "Give every sponsor a unique code and URL so renewals rest on results, not only downloads.")
	slots := strings.ReplaceAll(strings.Join(in.Strings("ad_slots"), ", "), "_", "-")
	p.Strategy("At %s an episode, sell %s at %s an episode in all; %.0f%% sell-through of %s a month brings %s gross, %s net. Pitch by %s and sign the insertion order by %s for a %s–%s campaign at %s.",
		engine.Plural(in.Int("downloads_per_episode"), "download", "downloads"), slots, in.Money(p.Get("per_episode_all_slots_usd").(float64)), in.Float("sell_through_pct"),
		engine.Plural(in.Int("episodes_per_month"), "episode", "episodes"), in.Money(monthly["expected_gross_usd"].(float64)), in.Money(monthly["expected_net_usd"].(float64)),
		c["pitch_by"], c["io_by"], c["start"], c["end"], in.Money(pkg["price_usd"].(float64)))
	return nil
}
