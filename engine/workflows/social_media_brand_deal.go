package workflows

import (
	"fmt"
	"math"
	"time"

	"github.com/creativeops/creativeops/engine"
)

// Brand-deal quote for a multi-platform social campaign. Rules used:
//   - Per-post baselines per 1,000 followers, as widely cited from
//     Influencer Marketing Hub's rate rules of thumb: Instagram $10,
//     YouTube $20, TikTok $5 (the low end of the $5–25 quoted), X $2.
//   - Brands pay for reach that engages: the baseline is scaled by the
//     creator's engagement rate against a typical rate for the platform
//     (Instagram 2%, TikTok 4%, YouTube 3%, X 0.5%; commonly reported
//     benchmarks), between 0.5× and 2×.
//   - Paid usage (whitelisting) and exclusivity are priced on top
//     (sponsorUplift); managers and agents commission 10–20% of the fee.
//   - Deliverables need a brief and contract two weeks out, a draft to the
//     brand a week out and approval by three business days out; insights are
//     reported 7 days after posting; invoices are net 30.
//   - Posts must carry a clear disclosure (#ad, the platform's paid
//     partnership label) under the FTC Endorsement Guides (16 CFR Part 255).
func init() {
	engine.Register(&engine.Workflow{
		ID:           "social-media-brand-deal",
		Name:         "Brand deal quote and schedule",
		Vertical:     "social-media",
		Jurisdiction: []engine.Area{engine.AreaAdvertising},
		PastDate:     engine.PastDate{Field: "go_live_date", Policy: engine.PastReplan},
		Description:  "Quotes a multi-platform brand deal from followers, engagement and deliverables per platform plus usage rights, exclusivity and commission, checks a brand's offer against it, and schedules brief, draft, approval, go-live, reporting and payment. A go-live date too close or already past is re-planned to the earliest date that leaves two weeks for brief, draft and approval.",
		Fields: []engine.Field{
			{Name: "deliverables", Kind: engine.ObjectList, Required: true, Min: engine.Bound(1), Max: engine.Bound(10), Description: "Posts per platform.", Items: []engine.Field{
				{Name: "platform", Kind: engine.String, Required: true, Enum: []string{"instagram", "tiktok", "youtube", "x"}, Description: "Platform."},
				{Name: "followers", Kind: engine.Integer, Required: true, Min: engine.Bound(100), Max: engine.Bound(1000000000), Description: "Followers on that platform."},
				{Name: "engagement_rate_pct", Kind: engine.Number, Required: true, Min: engine.Bound(0), Max: engine.Bound(100), Description: "Average engagement rate on that platform, in percent."},
				{Name: "posts", Kind: engine.Integer, Default: 1, Min: engine.Bound(1), Max: engine.Bound(30), Description: "Posts to deliver on that platform."},
			}},
			{Name: "go_live_date", Kind: engine.Date, Required: true, Description: "Day the first post goes live."},
			{Name: "usage_rights_days", Kind: engine.Integer, Default: 0, Min: engine.Bound(0), Max: engine.Bound(730), Description: "Days the brand may run the content as ads."},
			{Name: "exclusivity_days", Kind: engine.Integer, Default: 0, Min: engine.Bound(0), Max: engine.Bound(365), Description: "Days you may not work with the brand's competitors."},
			{Name: "commission_pct", Kind: engine.Number, Default: 0, Min: engine.Bound(0), Max: engine.Bound(30), Description: "Manager or agent commission on the fee, in percent."},
			engine.RegionField(),
			{Name: "offer_usd", Kind: engine.Number, Money: true, Min: engine.Bound(0), Max: engine.Bound(100000000), Description: "The brand's offer, if any, to compare."},
			engine.CurrencyField("USD"),
		},
		ExampleContext: map[string]any{
			"deliverables": []any{
				map[string]any{"platform": "instagram", "followers": 85000, "engagement_rate_pct": 3.1, "posts": 2},
				map[string]any{"platform": "tiktok", "followers": 140000, "engagement_rate_pct": 5.2, "posts": 1},
			},
			"go_live_date":      "2026-12-10",
			"usage_rights_days": 60,
			"exclusivity_days":  30,
			"commission_pct":    15,
			"offer_usd":         2500,
			"as_of":             "2026-11-20",
		},
		Sources: []engine.Source{
			{Title: "FTC: Disclosures 101 for social media influencers", URL: "https://www.ftc.gov/business-guidance/resources/disclosures-101-social-media-influencers", Checked: "2026-11"},
			{Title: "16 CFR Part 255, Guides Concerning the Use of Endorsements and Testimonials in Advertising", URL: "https://www.ecfr.gov/current/title-16/chapter-I/subchapter-B/part-255", Checked: "2026-11"},
		},
		Steps: []engine.Step{
			{Name: "price", Run: socialDealPrice},
			{Name: "schedule", Run: socialDealSchedule},
			{Name: "recommend", Run: socialDealRecommend},
		},
	})
}

// socialDealRate is a platform's US-market rate per 1,000 followers per
// post, in US dollars (converted into the plan's currency at the
// reference rate), and its typical engagement.
type socialDealRate struct {
	perThousand  engine.Benchmark
	benchmarkPct float64
}

func socialRate(platform string, usd, engagement float64) socialDealRate {
	return socialDealRate{engine.Benchmark{Amount: engine.InUSD(usd), What: platform + " rate per 1,000 followers per post", Source: "influencer marketing agencies' published rate guides (US market)"}, engagement}
}

var socialDealRates = map[string]socialDealRate{
	"instagram": socialRate("Instagram", 10, 2),
	"tiktok":    socialRate("TikTok", 5, 4),
	"youtube":   socialRate("YouTube", 20, 3),
	"x":         socialRate("X", 2, 0.5),
}

const (
	socialDealLeadDays = 14
	socialDealNetDays  = 30
	// Working days each step needs after the one before: a week to make
	// the content after signing, two for the brand to review the draft,
	// three between approval and the post (scheduling, captions, links).
	socialDealMakeWorkdays     = 5
	socialDealReviewWorkdays   = 2
	socialDealApprovalWorkdays = 3
)

func socialDealPrice(in *engine.Input, p *engine.Plan) error {
	var base float64
	var lines []map[string]any
	for _, d := range in.List("deliverables") {
		r := socialDealRates[d.Str("platform")]
		eng := d.Float("engagement_rate_pct")
		mult := math.Min(2, math.Max(0.5, eng/r.benchmarkPct))
		fee := float64(d.Int("followers")) / 1000 * in.Benchmark(p, r.perThousand) * mult * float64(d.Int("posts"))
		base += fee
		lines = append(lines, map[string]any{
			"platform": d.Str("platform"), "posts": d.Int("posts"), "engagement_multiple": engine.Round(mult, 2), "fee_usd": engine.Money(fee),
		})
		if eng < r.benchmarkPct/2 {
			p.Warn("LOW_ENGAGEMENT", "%s engagement of %.1f%% is under half the ~%.1f%% typical for the platform; brands check it, and the quote is halved for it.",
				d.Str("platform"), eng, r.benchmarkPct)
		}
	}
	usage, excl := sponsorUplift(in.Int("usage_rights_days"), in.Int("exclusivity_days"))
	total := in.Quote(p, "quote", base*(1+(usage+excl)/100))
	commission := engine.Money(total * in.Float("commission_pct") / 100)
	p.Set("quote", map[string]any{
		"lines": lines, "base_usd": engine.Money(base),
		"usage_rights_pct": usage, "exclusivity_pct": excl,
		"total_usd": total, "commission_usd": commission, "creator_net_usd": engine.Money(total - commission),
	})
	if in.Has("offer_usd") {
		offer := in.Float("offer_usd")
		// A counter within 20% is normal negotiation; beyond, the offer is
		// for a smaller package than the one asked.
		if offer < 0.8*total {
			p.Warn("OFFER_BELOW_RATE", "The %s offer is %.0f%% of the %s quote (%s after %.0f%% commission); counter, or cut deliverables or usage rights to fit the budget.",
				in.Money(offer), offer/total*100, in.Money(total), in.Money(offer*(1-in.Float("commission_pct")/100)), in.Float("commission_pct"))
		}
	}
	if d := in.Int("exclusivity_days"); d > 90 {
		p.Warn("EXCLUSIVITY_LONG", "%s of exclusivity shuts the category's other brands out for a season; the uplift is capped at %.0f%%, so price each month beyond 90 days separately.", engine.Plural(d, "day", "days"), exclusivityCapPct)
	}
	return nil
}

// socialDealSchedule plans the deal on the requested go-live date when the
// brief, draft and approval still fit before it, and otherwise on the
// earliest go-live that leaves them their time.
func socialDealSchedule(in *engine.Input, p *engine.Plan) error {
	requested, asOf, r := in.Date("go_live_date"), p.AsOf(), in.Region()
	// The chain is dated backwards on open days, each step at least a day
	// before the next, so a closed week (the dead week) never puts brand
	// approval ahead of the draft it approves.
	chain := func(live time.Time) (contract, draft, approval time.Time) {
		approval = p.Calendar().AddWorkdays(live, -socialDealApprovalWorkdays)
		draft = engine.Earlier(p.Calendar().PrevWorkday(engine.AddDays(live, -7)), p.Calendar().AddWorkdays(approval, -socialDealReviewWorkdays))
		contract = engine.Earlier(p.Calendar().PrevWorkday(engine.AddDays(live, -socialDealLeadDays)), p.Calendar().AddWorkdays(draft, -socialDealMakeWorkdays))
		return
	}
	contractFor := func(live time.Time) time.Time { c, _, _ := chain(live); return c }
	live := requested
	if contractFor(live).Before(asOf) {
		live = engine.Later(live, engine.AddDays(asOf, socialDealLeadDays))
		for contractFor(live).Before(asOf) {
			live = engine.AddDays(live, 1)
		}
		lead := engine.DaysBetween(asOf, requested)
		why := fmt.Sprintf("Only %s to go live; brief, draft and brand approval need about 14.", engine.Plural(lead, "day", "days"))
		if lead < 0 {
			why = fmt.Sprintf("The go-live date %s is %s before the plan date.", engine.FormatDate(requested), engine.Plural(-lead, "day", "days"))
			p.Warn("GO_LIVE_PASSED", "%s", why)
		} else {
			p.Warn("DRAFT_WINDOW_TIGHT", "%s Earliest comfortable go-live: %s.", why, engine.FormatDate(live))
		}
		p.Replanned(requested, live, why)
		p.Set("earliest_feasible_go_live_date", engine.FormatDate(live))
	}
	p.SetTarget(live)
	p.Set("go_live_date", engine.FormatDate(live))
	contract, draft, approval := chain(live)
	p.Deliverable("contract", "Brief and contract signed", contract, r)
	p.Deliverable("draft", "Draft content sent to the brand", draft, r)
	p.Deliverable("approval", "Brand approval", approval, r)
	p.Set("approval_date", p.Ref("approval"))
	p.Event("go-live", "First post live with disclosure", live, "the publish date agreed with the brand")
	p.Deliverable("insights", "Insights report (7 days)", p.Calendar().NextWorkday(engine.AddDays(live, 7)), r)
	p.Handover(engine.KindPayment, "payment-due", "Payment due (net 30)", engine.AddDays(live, socialDealNetDays))
	// The working days each step needs, the same the chain is dated with,
	// so no move or re-plan squeezes making, review or scheduling.
	p.Precede("contract", "draft", socialDealMakeWorkdays)
	p.Precede("draft", "approval", socialDealReviewWorkdays)
	p.Precede("approval", "go-live", socialDealApprovalWorkdays)
	p.DependsOn("insights", "go-live")
	if d := in.Int("usage_rights_days"); d > 0 {
		p.Event("usage-ends", "Brand's paid usage rights end", engine.AddDays(live, d), "the contract's usage term")
	}
	if d := in.Int("exclusivity_days"); d > 0 {
		p.Event("exclusivity-ends", "Category exclusivity ends", engine.AddDays(live, d), "the contract's exclusivity term")
	}
	return nil
}

func socialDealRecommend(in *engine.Input, p *engine.Plan) error {
	live := p.GetDate("go_live_date")
	q := p.Get("quote").(map[string]any)
	p.RecommendOn(engine.High, "contract", "Send the quote with line items",
		fmt.Sprintf("Quote %s: posts %s, usage rights +%.0f%%, exclusivity +%.0f%%; itemised add-ons can be traded away without touching the base fee.",
			in.Money(q["total_usd"].(float64)), in.Money(q["base_usd"].(float64)), q["usage_rights_pct"], q["exclusivity_pct"]))
	if inQ4Rush(live) {
		p.Recommend(engine.High, "Price for the Q4 rush", fmt.Sprintf("Posts going live in %s meet the fourth-quarter rush, when brands spend their remaining budgets and feeds are crowded with ads: hold the quote rather than discount, and lock the posting date in the contract.", live.Format("January")))
	}
	p.Recommend(engine.High, "Disclose every post", "Use the platform's paid-partnership label and a clear ad label at the start of the caption; the creator is held responsible too. "+disclosureRule(in, p))
	p.RecommendOn(engine.Medium, "insights", "Report results", "Send reach, saves, shares, link clicks and story taps at 7 days; renewals are won on the report.")
	if in.Int("usage_rights_days") > 0 {
		p.Recommend(engine.Low, "Get usage rights end dates in the contract", "Paid usage should stop on the contract date or be renewed at the monthly rate; ask for the ad account's spend and placements.")
	}
	p.Strategy("Quote %s for the package (%s base, +%.0f%% usage rights, +%.0f%% exclusivity), %s to you after commission, first post live %s with approval by %s.",
		in.Money(q["total_usd"].(float64)), in.Money(q["base_usd"].(float64)), q["usage_rights_pct"], q["exclusivity_pct"],
		in.Money(q["creator_net_usd"].(float64)), p.Ref("go-live"), p.Get("approval_date"))
	return nil
}
