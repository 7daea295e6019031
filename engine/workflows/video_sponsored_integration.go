package workflows

import (
	"fmt"
	"time"

	"github.com/creativeops/creativeops/engine"
)

// Rate and production schedule for a sponsored YouTube video. Rules used:
//   - Sponsors price YouTube integrations on expected views: a flat fee of
//     $20–50 per 1,000 views a video gets in its first 30 days, for a 60–90
//     second integration (commonly quoted by creator agencies and sponsorship
//     marketplaces); $25 is the planning rate.
//   - A short mention is priced at about half an integration, a dedicated
//     video at 2–3× (2.5× used).
//   - Finance and tech audiences command higher CPMs, gaming and broad
//     entertainment lower (relative multipliers, commonly reported).
//   - Usage rights and exclusivity are priced on top (sponsorUplift).
//   - A sponsored upload needs about three weeks: contract, script approval,
//     filming, a draft cut the brand reviews (2–3 business days a round, two
//     rounds standard), final approval.
//   - Paid promotion must be disclosed: YouTube's "includes paid promotion"
//     setting, and a clear verbal and on-screen disclosure in the video (FTC
//     Endorsement Guides, 16 CFR Part 255). Invoices are commonly net 30.
func init() {
	engine.Register(&engine.Workflow{
		ID:           "video-sponsored-integration",
		Name:         "Sponsored video rate and schedule",
		Vertical:     "video",
		Jurisdiction: []engine.Area{engine.AreaAdvertising},
		PastDate:     engine.PastDate{Field: "publish_date", Policy: engine.PastReplan},
		Description:  "Prices a YouTube sponsorship from expected 30-day views, niche, format, usage rights and exclusivity, compares a brand's offer to the market range, and schedules contract, script, draft and approval backwards from the publish date. A publish date too close or already past is re-planned to the earliest date that leaves three weeks.",
		Fields: []engine.Field{
			{Name: "avg_views_30d", Kind: engine.Integer, Required: true, Min: engine.Bound(100), Max: engine.Bound(1000000000), Description: "Median views of recent videos after 30 days (take the last 10, drop outliers)."},
			{Name: "niche", Kind: engine.String, Enum: []string{"finance", "tech", "education", "lifestyle", "entertainment", "gaming"}, Default: "lifestyle", Description: "Channel niche, as advertisers see it."},
			{Name: "format", Kind: engine.String, Enum: []string{"mention", "integration", "dedicated"}, Default: "integration", Description: "Short mention (≤30 s), integration (60–90 s) or dedicated video."},
			{Name: "publish_date", Kind: engine.Date, Required: true, Description: "Day the sponsored video goes live."},
			{Name: "usage_rights_days", Kind: engine.Integer, Default: 0, Min: engine.Bound(0), Max: engine.Bound(730), Description: "Days the brand may run the content in its own ads."},
			{Name: "exclusivity_days", Kind: engine.Integer, Default: 0, Min: engine.Bound(0), Max: engine.Bound(365), Description: "Days you may not work with the brand's competitors."},
			engine.RegionField(),
			{Name: "offer_usd", Kind: engine.Number, Money: true, Min: engine.Bound(0), Max: engine.Bound(100000000), Description: "The brand's offer, if any, to compare."},
			engine.CurrencyField("USD"),
		},
		ExampleContext: map[string]any{
			"avg_views_30d":     48000,
			"niche":             "tech",
			"format":            "integration",
			"publish_date":      "2027-01-14",
			"usage_rights_days": 30,
			"exclusivity_days":  30,
			"offer_usd":         1200,
			"as_of":             "2026-11-20",
		},
		Sources: []engine.Source{
			{Title: "YouTube Help: paid product placements, sponsorships and endorsements", URL: "https://support.google.com/youtube/answer/154235", Checked: "2026-11"},
			{Title: "FTC: Disclosures 101 for social media influencers", URL: "https://www.ftc.gov/business-guidance/resources/disclosures-101-social-media-influencers", Checked: "2026-11"},
		},
		Steps: []engine.Step{
			{Name: "price", Run: videoSponsorPrice},
			{Name: "schedule", Run: videoSponsorSchedule},
			{Name: "recommend", Run: videoSponsorRecommend},
		},
	})
}

// The CPMs are US-market figures in US dollars; a plan in another
// currency converts them at the reference rate and says so.
var (
	videoSponsorCPMLow  = videoCPM(20, "low end")
	videoSponsorCPM     = videoCPM(25, "planning rate")
	videoSponsorCPMHigh = videoCPM(50, "high end")
)

func videoCPM(v float64, what string) engine.Benchmark {
	return engine.Benchmark{Amount: engine.InUSD(v), What: "YouTube integration CPM, " + what, Source: "creator agency and sponsorship marketplace rate cards (US market)"}
}

const (
	videoSponsorLeadDays = 21
	videoSponsorNetDays  = 30
)

var (
	videoSponsorFormat = map[string]float64{"mention": 0.5, "integration": 1, "dedicated": 2.5}
	videoSponsorNiche  = map[string]float64{"finance": 1.5, "tech": 1.3, "education": 1.1, "lifestyle": 1, "entertainment": 0.9, "gaming": 0.8}
)

func videoSponsorPrice(in *engine.Input, p *engine.Plan) error {
	views := float64(in.Int("avg_views_30d"))
	mult := videoSponsorFormat[in.Str("format")] * videoSponsorNiche[in.Str("niche")]
	usage, excl := sponsorUplift(in.Int("usage_rights_days"), in.Int("exclusivity_days"))
	addOns := 1 + (usage+excl)/100
	// Quotes are rounded to price points of the plan's currency
	// (engine.QuoteBands).
	cpm := in.Benchmark(p, videoSponsorCPM)
	fee := func(b engine.Benchmark) float64 {
		return in.Quote(p, b.What, views/1000*in.Benchmark(p, b)*mult*addOns)
	}
	quote, low, high := fee(videoSponsorCPM), fee(videoSponsorCPMLow), fee(videoSponsorCPMHigh)
	p.Set("rate", map[string]any{
		"quote_usd": quote, "market_low_usd": low, "market_high_usd": high,
		"base_usd":              engine.Money(views / 1000 * cpm * mult),
		"effective_cpm_usd":     engine.Money(cpm * mult * addOns), // before the quote is rounded
		"usage_rights_pct":      usage,
		"exclusivity_pct":       excl,
		"format_niche_multiple": engine.Round(mult, 2),
	})
	if in.Has("offer_usd") {
		offer := in.Float("offer_usd")
		// A channel this small rounds to a $0 quote: there is no ratio.
		if quote > 0 {
			p.Set("offer_vs_quote_pct", engine.Round(offer/quote*100, 1))
		}
		if offer < low {
			p.Warn("OFFER_BELOW_MARKET", "The %s offer is below the market range of %s–%s for a %s %s with %s; counter at %s.",
				in.Money(offer), in.Money(low), in.Money(high), in.Str("niche"), in.Str("format"), roundedCount(views, "expected view", "expected views"), in.Money(quote))
		}
	}
	if d := in.Int("exclusivity_days"); d > 90 {
		p.Warn("EXCLUSIVITY_LONG", "%s of exclusivity blocks the category's other sponsors for a season; the %.0f%% uplift is capped, so ask for a per-month fee beyond 90 days.", engine.Plural(d, "day", "days"), excl)
	}
	return nil
}

// videoSponsorSchedule plans the integration on the requested publish date
// when contract, script and two draft rounds still fit before it, and
// otherwise on the earliest date that leaves them their three weeks.
func videoSponsorSchedule(in *engine.Input, p *engine.Plan) error {
	requested, asOf, r := in.Date("publish_date"), p.AsOf(), in.Region()
	// The contract comes three weeks before publishing and at least the
	// working days the steps need (videoSponsorSteps) before it.
	contractFor := func(publish time.Time) time.Time {
		return engine.Earlier(p.Calendar().PrevWorkday(engine.AddDays(publish, -videoSponsorLeadDays)), p.Calendar().AddWorkdays(publish, -videoSponsorWorkdays()))
	}
	publish := requested
	if contractFor(publish).Before(asOf) {
		publish = engine.Later(publish, engine.AddDays(asOf, videoSponsorLeadDays))
		for contractFor(publish).Before(asOf) {
			publish = engine.AddDays(publish, 1)
		}
		lead := engine.DaysBetween(asOf, requested)
		why := fmt.Sprintf("Only %s to publish; contract, script approval and two draft rounds need about 21.", engine.Plural(lead, "day", "days"))
		if lead < 0 {
			why = fmt.Sprintf("The publish date %s is %s before the plan date.", engine.FormatDate(requested), engine.Plural(-lead, "day", "days"))
			p.Warn("PUBLISH_DATE_PASSED", "%s", why)
		} else {
			p.Warn("SCHEDULE_TIGHT", "%s Earliest comfortable publish date: %s.", why, engine.FormatDate(publish))
		}
		p.Replanned(requested, publish, why)
		p.Set("earliest_feasible_publish_date", engine.FormatDate(publish))
	}
	p.SetTarget(publish)
	p.Set("publish_date", engine.FormatDate(publish))
	p.Set("days_until_publish", engine.DaysBetween(asOf, publish))
	// Filming is dated on the calendar like the hand-overs around it, so a
	// draft moved off a closed day never comes before the filming.
	for _, s := range videoSponsorSteps {
		p.Deliverable(s.key, s.title, engine.Later(asOf, engine.AddDays(publish, -s.daysBefore)), r)
	}
	p.Event("publish", "Sponsored video published, paid promotion disclosed", publish, "the publish date agreed with the sponsor")
	for i := 1; i < len(videoSponsorSteps); i++ {
		p.Precede(videoSponsorSteps[i-1].key, videoSponsorSteps[i].key, videoSponsorGap(i))
	}
	p.Precede("final-approval", "publish", videoSponsorGap(len(videoSponsorSteps)))
	p.Deliverable("report", "7-day performance report to the brand", p.Calendar().NextWorkday(engine.AddDays(publish, 7)), r)
	p.Handover(engine.KindPayment, "payment-due", "Payment due (net 30 from publish)", engine.AddDays(publish, videoSponsorNetDays))
	return nil
}

func videoSponsorRecommend(in *engine.Input, p *engine.Plan) error {
	publish := p.GetDate("publish_date")
	rate := p.Get("rate").(map[string]any)
	quote := rate["quote_usd"].(float64)
	p.RecommendOn(engine.High, "contract", "Quote on views, in writing",
		fmt.Sprintf("Quote %s (%s–%s market range) for one %s, listing usage rights (%s) and exclusivity (%s) as separate lines so they can be negotiated without cutting the base fee.",
			in.Money(quote), in.Money(rate["market_low_usd"].(float64)), in.Money(rate["market_high_usd"].(float64)), in.Str("format"),
			engine.Plural(in.Int("usage_rights_days"), "day", "days"), engine.Plural(in.Int("exclusivity_days"), "day", "days")))
	if inQ4Rush(publish) {
		p.Recommend(engine.High, "Quote at the top of the range for Q4", fmt.Sprintf("A %s video lands in the fourth-quarter ad rush, when brands spend their remaining budgets and YouTube ad rates peak: quote toward %s rather than the midpoint, and hold the date in writing.",
			publish.Format("January"), in.Money(rate["market_high_usd"].(float64))))
	}
	p.Recommend(engine.High, "Disclose the sponsorship", "Tick YouTube's paid promotion box and say it out loud at the start of the segment; a description-only disclosure is not clear enough. "+disclosureRule(in, p))
	p.RecommendOn(engine.Medium, "report", "Send a performance report", "Views, average view duration over the segment, link clicks and code redemptions at 7 days win the renewal.")
	p.Recommend(engine.Low, "Invoice on publish", fmt.Sprintf("Invoice the day the video goes live; net-30 terms make payment due %s. Ask for 50%% upfront from new brands.", p.Ref("payment-due")))
	p.Strategy("Quote %s for a YouTube %s %s (%s–%s market range from base CPMs of %s to %s on %s), contract signed by %s for the %s publish date.",
		in.Money(quote), in.Str("niche"), in.Str("format"), in.Money(rate["market_low_usd"].(float64)), in.Money(rate["market_high_usd"].(float64)),
		in.BenchmarkText(p, videoSponsorCPMLow), in.BenchmarkText(p, videoSponsorCPMHigh), engine.Plural(in.Int("avg_views_30d"), "expected view", "expected views"), p.Ref("contract"), p.Ref("publish"))
	return nil
}

// videoSponsorSteps are the steps before publishing, each dated its days
// before the publish date.
var videoSponsorSteps = []struct {
	key, title string
	daysBefore int
}{
	{"contract", "Contract signed: deliverables, usage, exclusivity, payment terms", 21},
	{"script", "Script or talking points sent to the brand", 14},
	{"script-approved", "Script approved", 11},
	{"filming", "Integration filmed", 9},
	{"draft", "Draft cut sent to the brand", 7},
	{"final-approval", "Final approval from the brand", 3},
}

// videoSponsorGap is the working days step i needs after step i-1 (i ==
// len(videoSponsorSteps): publishing after the final approval): the
// working days in the calendar days the schedule gives it (5 in 7), at
// least one, so a move or a re-plan keeps the time writing, review and
// editing take, and sending, approving and signing never fall on one day.
func videoSponsorGap(i int) int {
	before := 0
	if i < len(videoSponsorSteps) {
		before = videoSponsorSteps[i].daysBefore
	}
	return max(1, (videoSponsorSteps[i-1].daysBefore-before)*5/7)
}

// videoSponsorWorkdays is the working days from contract to publish.
func videoSponsorWorkdays() int {
	n := 0
	for i := 1; i <= len(videoSponsorSteps); i++ {
		n += videoSponsorGap(i)
	}
	return n
}
