package workflows

import (
	"fmt"
	"math"
	"strings"
	"time"

	"github.com/creativeops/creativeops/engine"
)

// Audiobook production plan for ACX (Audible, Amazon, Apple), scheduled
// backwards from the on-sale date. Rules used:
//   - Length: about 9,300 words per finished hour (ACX).
//   - Effort: about 6.2 hours of work (narration, editing, proofing,
//     mastering) per finished hour; at 6 productive hours a studio day that
//     is about one finished hour a day.
//   - ACX casting: auditions open about 2 weeks; the narrator submits the
//     First 15 Minutes for approval before recording the rest (3 business
//     days allowed here); the rights holder proof-listens the full book
//     (5 business days) and the producer fixes notes (5 business days).
//   - ACX quality review takes 10–14 business days, longer at peaks: 14
//     business days are planned.
//   - Royalties: 40% for exclusive distribution, 25% for non-exclusive,
//     of Audible's net sales receipts, not of the list price (ACX royalty
//     payment terms: a la carte and member net sales receipts). Most units
//     sell to members on credits and discounts, and ACX does not publish
//     what a unit nets against list, so the plan assumes net receipts of
//     50% of the list price, within a 35–70% range, and gives earnings per
//     sale and break-even across that range. Royalty Share splits the 40%
//     evenly (20% each) and is only available with exclusive distribution. Per-finished-hour (PFH)
//     rates for professional narrators commonly run $150–400 (SAG-AFTRA
//     narrators at the top of that range).
//   - Retail price bands by length (ACX guidance): under 1 h under $7,
//     1–3 h $7–10, 3–5 h $10–20, 5–10 h $15–25, 10–20 h $20–30, over 20 h
//     $25–35.
//   - Re-planning: when casting would have had to open before the plan date
//     (or the release date has passed), the plan is built on the earliest
//     release the pipeline allows, with the requested date beside it. A
//     release in the 24 December–1 January dead week moves to the last
//     working day before it when the schedule allows, else to the first
//     after it. Hand-overs (First 15, chapters, proof notes, submission)
//     fall on working days of the producer's country; ACX review days are
//     US business days.
func init() {
	engine.Register(&engine.Workflow{
		ID:          "audiobooks-production-plan",
		Name:        "Audiobook production plan",
		Vertical:    "audiobooks",
		PastDate:    engine.PastDate{Field: "release_date", Policy: engine.PastReplan},
		Description: "Estimates finished hours from word count, schedules casting, recording, proofing and ACX review backwards from the release date, and compares per-finished-hour cost with royalty share and the sales needed to earn it back, with royalties on Audible's net receipts (an assumed share of list price, given as a range), not on list price. A release already past or too close is re-planned on the earliest feasible release, and one in the 24 December–1 January week moves out of it.",
		Fields: []engine.Field{
			{Name: "word_count", Kind: engine.Integer, Required: true, Min: engine.Bound(1000), Max: engine.Bound(1000000), Description: "Word count of the edition being narrated."},
			{Name: "release_date", Kind: engine.Date, Required: true, Description: "Target on-sale date."},
			{Name: "deal", Kind: engine.String, Enum: []string{"per_finished_hour", "royalty_share"}, Default: "per_finished_hour", Description: "How the narrator or producer is paid."},
			{Name: "rate_pfh_usd", Kind: engine.Number, Money: true, Default: 250, Min: engine.Bound(0), Max: engine.Bound(2000), Description: "Rate per finished hour for a PFH deal."},
			{Name: "distribution", Kind: engine.String, Enum: []string{"exclusive", "non_exclusive"}, Default: "exclusive", Description: "ACX exclusive (40% royalty) or non-exclusive (25%)."},
			{Name: "narrator_days_per_week", Kind: engine.Integer, Default: 4, Min: engine.Bound(1), Max: engine.Bound(6), Description: "Studio days the narrator gives the book each week."},
			{Name: "budget_usd", Kind: engine.Number, Money: true, Min: engine.Bound(0), Max: engine.Bound(1000000), Description: "Production budget in `currency` (0–1,000,000)."},
			engine.RegionField(),
			engine.CurrencyField("USD"),
		},
		Sources: []engine.Source{
			{Title: "ACX Rights Holder FAQ: royalties (40% exclusive, 25% non-exclusive), Royalty Share, quality review time", URL: "https://www.acx.com/help/faq", Checked: "2026-11"},
			{Title: "ACX Royalty Payment Terms, Pay-for-Production, exclusive (royalties on Audible net sales receipts, a la carte and member)", URL: "https://www.acx.com/help/royalty-payment-terms-pay-for-production-exclusive-distribution/2021408503", Checked: "2026-11"},
			{Title: "ACX Audio Submission Requirements: First 15 Minutes, proofing, file delivery", URL: "https://www.acx.com/help/acx-audio-submission-requirements/201456300", Checked: "2026-11"},
		},
		ExampleContext: map[string]any{
			"word_count":             84000,
			"release_date":           "2027-04-06",
			"deal":                   "per_finished_hour",
			"rate_pfh_usd":           275,
			"distribution":           "exclusive",
			"narrator_days_per_week": 4,
			"budget_usd":             3000,
			"as_of":                  "2026-11-20",
		},
		Steps: []engine.Step{
			{Name: "estimate", Run: abProdEstimate},
			{Name: "schedule", Run: abProdSchedule},
			{Name: "money", Run: abProdMoney},
			{Name: "recommend", Run: abProdRecommend},
		},
	})
}

const (
	abProdWordsPerHour   = 9300.0
	abProdWorkPerHour    = 6.2
	abProdStudioHours    = 6.0
	abProdQABizDays      = 14
	abProdProofBizDays   = 5
	abProdFixBizDays     = 5
	abProdFirst15BizDays = 3
	abProdCastingWeeks   = 2
	// Audible's net receipts per unit as a share of list price: an
	// assumption (ACX does not publish it), with the range it is given in.
	abProdNetOfList, abProdNetOfListLow, abProdNetOfListHigh = 0.50, 0.35, 0.70
)

// abProdPriceBand is ACX's retail price guidance by finished length.
// ACX sets list prices by length in US dollars; a plan in another currency
// gets the band converted at the reference rate (recorded in
// money_basis), never the bare numbers relabelled.
func abProdPriceBandIn(in *engine.Input, p *engine.Plan, hours float64) (lo, hi float64) {
	l, h := abProdPriceBand(hours)
	return in.Benchmark(p, engine.Benchmark{Amount: engine.InUSD(l), What: fmt.Sprintf("ACX list price, low end (%g–%g USD band)", l, h), Source: "ACX retail price guidance by length (US)"}),
		in.Benchmark(p, engine.Benchmark{Amount: engine.InUSD(h), What: fmt.Sprintf("ACX list price, high end (%g–%g USD band)", l, h), Source: "ACX retail price guidance by length (US)"})
}

// The range professional narrators commonly charge per finished hour,
// US market, in US dollars.
var (
	abProdProRateLow  = engine.Benchmark{Amount: engine.InUSD(150), What: "professional narrator rate per finished hour, low end", Source: "rates commonly quoted for professional ACX narrators (US; SAG-AFTRA narrators at the top)"}
	abProdProRateHigh = engine.Benchmark{Amount: engine.InUSD(400), What: "professional narrator rate per finished hour, high end", Source: "rates commonly quoted for professional ACX narrators (US; SAG-AFTRA narrators at the top)"}
)

func abProdPriceBand(hours float64) (lo, hi float64) {
	switch {
	case hours < 1:
		return 3, 7
	case hours < 3:
		return 7, 10
	case hours < 5:
		return 10, 20
	case hours < 10:
		return 15, 25
	case hours < 20:
		return 20, 30
	}
	return 25, 35
}

func abProdEstimate(in *engine.Input, p *engine.Plan) error {
	hours := engine.Round(float64(in.Int("word_count"))/abProdWordsPerHour, 1)
	days := int(math.Ceil(hours * abProdWorkPerHour / abProdStudioHours))
	p.Set("finished_hours", hours)
	p.Set("production_days", days)
	p.Set("work_hours", engine.Round(hours*abProdWorkPerHour, 1))
	return nil
}

// abProdDates is a production schedule worked back from a release date.
type abProdDates struct {
	castingOpen, offer, recordStart, first15, recordEnd, proofNotes, qaSubmit, release time.Time
}

func abProdBackwards(release time.Time, weeks int, r engine.Region) abProdDates {
	var d abProdDates
	d.release = release
	d.qaSubmit = (engine.Calendar{Region: r}).PrevWorkday(acxCalendar.AddWorkdays(release, -abProdQABizDays))
	d.recordEnd = (engine.Calendar{Region: r}).AddWorkdays(d.qaSubmit, -(abProdFixBizDays + abProdProofBizDays))
	d.proofNotes = (engine.Calendar{Region: r}).AddWorkdays(d.recordEnd, abProdProofBizDays)
	d.recordStart = engine.AddWeeks(d.recordEnd, -weeks)
	d.first15 = (engine.Calendar{Region: r}).AddWorkdays(d.recordStart, abProdFirst15BizDays)
	d.castingOpen = engine.AddWeeks(d.recordStart, -abProdCastingWeeks-1) // a week to sign the offer
	d.offer = engine.AddWeeks(d.castingOpen, abProdCastingWeeks)
	return d
}

func abProdSchedule(in *engine.Input, p *engine.Plan) error {
	r := in.Region()
	requested := in.Date("release_date")
	days := p.Get("production_days").(int)
	perWeek := in.Int("narrator_days_per_week")
	weeks := int(math.Ceil(float64(days) / float64(perWeek)))
	// The earliest release: cast from today, record, proof, fix and pass
	// ACX review, then the first day whose backward schedule starts on or
	// after today.
	recEnd := engine.AddWeeks(p.AsOf(), abProdCastingWeeks+1+weeks)
	earliest := acxCalendar.AddWorkdays(p.Calendar().AddWorkdays(recEnd, abProdProofBizDays+abProdFixBizDays), abProdQABizDays)
	for abProdBackwards(earliest, weeks, r).castingOpen.Before(p.AsOf()) {
		earliest = engine.AddDays(earliest, 1)
	}
	release := requested
	if release.Before(earliest) {
		release = earliest
		p.Warn("RELEASE_TOO_SOON", "%.1f finished hours need about %s (%s at %s a week) plus casting, proofing and %d business days of ACX review; casting should have opened %s. The earliest realistic release is %s.",
			p.Get("finished_hours").(float64), engine.Plural(days, "studio day", "studio days"), engine.Plural(weeks, "week", "weeks"), engine.Plural(perWeek, "day", "days"),
			abProdQABizDays, engine.FormatDate(abProdBackwards(requested, weeks, r).castingOpen), engine.FormatDate(earliest))
		p.Set("earliest_feasible_release", engine.FormatDate(earliest))
	}
	if engine.InDeadWeek(release) {
		year := release.Year()
		if release.Month() == time.January {
			year--
		}
		better := p.Calendar().PrevWorkday(time.Date(year, time.December, 23, 0, 0, 0, 0, time.UTC))
		if better.Before(earliest) {
			better = p.Calendar().NextWorkday(release)
		}
		p.Warn("RELEASE_IN_DEAD_WEEK", "%s falls in the 24 December–1 January week, when retailers' merchandising, press and your own promotion are dark; release on %s instead.",
			engine.FormatDate(release), engine.FormatDate(better))
		release = better
	}
	if !release.Equal(requested) {
		p.Replanned(requested, release, "The requested release cannot be met or falls in the dead week.")
	}
	p.SetTarget(release)
	d := abProdBackwards(release, weeks, r)
	p.Set("schedule", map[string]string{
		"casting_opens": p.Ref("casting-opens"), "recording_starts": p.Ref("recording-starts"), "recording_ends": p.Ref("recording-ends"),
		"submit_to_acx": p.Ref("submit-to-acx"), "release": p.Ref("on-sale"),
	})
	p.Handover(engine.KindAction, "casting-opens", "Title posted on ACX; auditions open", d.castingOpen)
	p.Handover(engine.KindAction, "offer-signed", "Narrator offer accepted", d.offer)
	p.Work("recording-starts", "Recording starts", d.recordStart)
	p.Deliverable("first-15-approved", "First 15 Minutes approved", d.first15, r)
	p.Deliverable("recording-ends", "All chapters uploaded", d.recordEnd, r)
	p.Deliverable("proof-notes", "Proof-listen notes back to the producer", d.proofNotes, r)
	p.Deliverable("submit-to-acx", "Approved and submitted to ACX quality review", d.qaSubmit, r)
	p.Event("on-sale", "On sale", release, "the release date the plan is built on")
	// Each step waits for the one before; ACX's quality review takes its
	// business days before the title goes on sale.
	order := []string{"casting-opens", "offer-signed", "recording-starts", "first-15-approved", "recording-ends", "proof-notes", "submit-to-acx", "on-sale"}
	for i := 1; i < len(order); i++ {
		p.DependsOn(order[i], order[i-1])
	}
	// The steps dated in business days keep them after any move: the
	// First 15 Minutes take their days after recording starts, proofing
	// after the last upload, fixes before submission.
	p.Precede("recording-starts", "first-15-approved", abProdFirst15BizDays)
	p.Precede("recording-ends", "proof-notes", abProdProofBizDays)
	p.Precede("proof-notes", "submit-to-acx", abProdFixBizDays)
	p.Precede("submit-to-acx", "on-sale", abProdQABizDays)
	return nil
}

func abProdMoney(in *engine.Input, p *engine.Plan) error {
	hours := p.Get("finished_hours").(float64)
	exclusive := in.Str("distribution") == "exclusive"
	royalty := 0.25
	if exclusive {
		royalty = 0.40
	}
	deal := in.Str("deal")
	if deal == "royalty_share" && !exclusive {
		p.Warn("ROYALTY_SHARE_REQUIRES_EXCLUSIVE", "ACX Royalty Share deals require exclusive distribution; switch to exclusive (40%%, split 20%%/20%%) or pay per finished hour.")
		royalty = 0.40
	}
	authorShare := royalty
	if deal == "royalty_share" {
		authorShare = royalty / 2
	}
	lo, hi := abProdPriceBandIn(in, p, hours)
	mid := (lo + hi) / 2
	// Royalties are paid on what Audible receives, not on list price. The
	// break-even counts divide by the exact figures, not the cent-rounded
	// ones, so they are the same in every currency.
	exact, exactLow, exactHigh := mid*abProdNetOfList*authorShare, mid*abProdNetOfListLow*authorShare, mid*abProdNetOfListHigh*authorShare
	perSale := engine.Money(exact)
	perSaleLow, perSaleHigh := engine.Money(exactLow), engine.Money(exactHigh)
	lo, hi = engine.Money(lo), engine.Money(hi)
	money := map[string]any{
		"royalty_pct": royalty * 100, "author_share_pct": authorShare * 100,
		"price_band_usd": []float64{lo, hi}, "author_per_sale_usd": perSale,
		"author_per_sale_range_usd": []float64{perSaleLow, perSaleHigh},
		"net_of_list_pct_assumed":   abProdNetOfList * 100, "net_of_list_pct_range": []float64{abProdNetOfListLow * 100, abProdNetOfListHigh * 100},
	}
	if deal == "per_finished_hour" {
		cost := engine.Money(hours * in.Float("rate_pfh_usd"))
		money["production_cost_usd"] = cost
		money["break_even_sales"] = studioCeil(cost / exact)
		money["break_even_sales_range"] = []int{studioCeil(cost / exactHigh), studioCeil(cost / exactLow)}
		if in.Has("budget_usd") && cost > in.Float("budget_usd") {
			b := in.Float("budget_usd")
			p.Warn("BUDGET_SHORT", "%.1f finished hours at %s PFH cost %s, %s over the %s budget; the budget pays %s PFH, or consider a Royalty Share deal.",
				hours, in.MoneyWhole(in.Float("rate_pfh_usd")), in.Money(cost), in.Money(cost-b), in.Money(b),
				in.Money(b/hours))
			money["affordable_pfh_usd"] = engine.Money(b / hours)
		}
		if r := in.Float("rate_pfh_usd"); r < in.Benchmark(p, abProdProRateLow)*(1-1e-9) {
			p.Warn("RATE_BELOW_PRO_RANGE", "%s PFH is below the %s–%s professional narrators commonly charge; expect fewer and less experienced auditions.", in.MoneyWhole(r), in.BenchmarkText(p, abProdProRateLow), in.BenchmarkText(p, abProdProRateHigh))
		}
	} else {
		money["production_cost_usd"] = 0.0
		money["narrator_per_sale_usd"] = perSale
		money["narrator_per_sale_range_usd"] = []float64{perSaleLow, perSaleHigh}
	}
	p.Set("money", money)
	return nil
}

func abProdRecommend(in *engine.Input, p *engine.Plan) error {
	s := p.Get("schedule").(map[string]string)
	m := p.Get("money").(map[string]any)
	casting, _ := engine.ParseDate(s["casting_opens"])
	p.RecommendBy(engine.High, engine.Later(p.AsOf(), casting), "Post the title and audition script",
		"Post a 2–3 page audition script with the hardest voices and accents, genre, and the rate; keep auditions open two weeks.")
	p.Recommend(engine.High, "Approve the First 15 Minutes carefully",
		"Check pace, character voices, pronunciation list and ACX levels on the first 15 minutes; changes after that cost re-recording.")
	p.Recommend(engine.Medium, "Send a pronunciation guide",
		"Give the narrator names, places and invented words with audio references before recording starts.")
	perSaleRange := m["author_per_sale_range_usd"].([]float64)
	if v, ok := m["break_even_sales"].(int); ok {
		r := m["break_even_sales_range"].([]int)
		p.Recommend(engine.Low, "Plan the launch to earn back production",
			fmt.Sprintf("At about %s a sale to you (%s–%s, since royalties are paid on Audible's net receipts, mostly member credits, not on list price), about %s repay production (%s–%s); line up the launch with the ebook and print promotion.",
				in.Money(m["author_per_sale_usd"].(float64)), in.Money(perSaleRange[0]), in.Money(perSaleRange[1]),
				engine.Plural(v, "sale", "sales"), engine.FormatInt(r[0]), engine.FormatInt(r[1])))
	}
	p.Strategy("Narrate %s words as about %.1f finished hours (%s): cast from %s, record %s to %s, submit to ACX by %s for release on %s; %s deal, about %s a sale to the author (%s–%s) at the %s royalty on Audible's net receipts, assumed %.0f%% of list.",
		engine.FormatInt(in.Int("word_count")), p.Get("finished_hours").(float64), engine.Plural(p.Get("production_days").(int), "studio day", "studio days"), s["casting_opens"], s["recording_starts"], s["recording_ends"],
		s["submit_to_acx"], s["release"], strings.ReplaceAll(in.Str("deal"), "_", " "), in.Money(m["author_per_sale_usd"].(float64)),
		in.Money(perSaleRange[0]), in.Money(perSaleRange[1]), map[bool]string{true: "40%", false: "25%"}[m["royalty_pct"].(float64) == 40], abProdNetOfList*100)
	return nil
}
