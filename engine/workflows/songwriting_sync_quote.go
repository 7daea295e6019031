package workflows

import (
	"fmt"
	"strings"

	"github.com/creativeops/creativeops/engine"
)

// Sync license quote for an independent song: a fee per side, what the
// writer actually keeps, and the clearance calendar to the air date.
// Rules used:
//   - A sync needs two licenses, the composition (sync, from the publishers)
//     and the recording (master use, from the master owner). Supervisors
//     quote them "most favoured nations" (MFN): both sides are paid the same.
//   - Fees per side are midpoints of the ranges commonly quoted for
//     independent music in trade guides and supervisor interviews (a starting
//     point, not a market survey):
//     student film $250, independent film $2,500, studio film $25,000,
//     network TV episode $3,000, streaming series $4,000, trailer $25,000,
//     regional ad $10,000, national ad $50,000, video game $5,000, online or
//     branded video $1,000. The baseline grant is worldwide (ads: US).
//   - Usage scales the fee: background ×1, featured/visual vocal ×1.5, main
//     or end title ×2. Territory: US-only ×0.75 of a worldwide grant,
//     worldwide advertising ×2 of US.
//   - A quote is a range of 0.6×–1.5× the midpoint.
//   - Sync agents and libraries commonly commission 20–50% of the fee.
//   - One-stop songs (one party controls master and 100% of the publishing)
//     clear in about 5 business days; otherwise allow 15 business days for
//     labels and co-publishers. Final files are due 10 business days
//     before air for the mix; US PROs pay broadcast performance royalties
//     roughly 6–9 months after air, from the production's cue sheet.
func init() {
	engine.Register(&engine.Workflow{
		ID:          "songwriting-sync-quote",
		Name:        "Sync license quote",
		Vertical:    "songwriting",
		PastDate:    engine.PastDate{Field: "air_date", Policy: engine.PastPostEvent},
		Description: "Quotes a sync fee per side (MFN) for a film, TV, ad, trailer or game placement, computes what the songwriter keeps after shares and commission, checks an offer against the range, and schedules clearance to the air date. Clearance that no longer fits is planned from the earliest date it can clear; a use that has already aired gets a post-air plan (a retroactive license now).",
		Fields: []engine.Field{
			{Name: "media", Kind: engine.String, Required: true, Enum: []string{"student_film", "indie_film", "studio_film", "tv_episode", "streaming_series", "trailer", "advertising_regional", "advertising_national", "video_game", "online_video"}, Description: "Where the song will be used."},
			{Name: "usage", Kind: engine.String, Enum: []string{"background", "featured", "main_title"}, Default: "background", Description: "How prominent the use is."},
			{Name: "territory", Kind: engine.String, Enum: []string{"us", "worldwide"}, Default: "worldwide", Description: "Territory of the license."},
			{Name: "controlled_publishing_pct", Kind: engine.Number, Default: 100, Min: engine.Bound(0), Max: engine.Bound(100), Description: "Share of the composition you control, in percent."},
			{Name: "owns_master", Kind: engine.Boolean, Default: true, Description: "Whether you own the recording (master)."},
			{Name: "agent_commission_pct", Kind: engine.Number, Default: 0, Min: engine.Bound(0), Max: engine.Bound(60), Description: "Sync agent's or library's commission, in percent."},
			{Name: "offer_usd", Kind: engine.Number, Money: true, Min: engine.Bound(0), Max: engine.Bound(100000000), Description: "All-in offer received (both sides), if any."},
			engine.RegionField(),
			{Name: "air_date", Kind: engine.Date, Required: true, Description: "First broadcast, release or campaign date."},
			engine.CurrencyField("USD"),
		},
		ExampleContext: map[string]any{
			"media":                     "streaming_series",
			"usage":                     "featured",
			"territory":                 "worldwide",
			"controlled_publishing_pct": 50,
			"owns_master":               true,
			"agent_commission_pct":      25,
			"offer_usd":                 6000,
			"air_date":                  "2027-02-12",
			"as_of":                     "2026-11-20",
		},
		Sources: []engine.Source{
			{Title: "ASCAP: cue sheets and film and TV performance royalties", URL: "https://www.ascap.com/", Checked: "2026-11"},
			{Title: "BMI: cue sheets for film and television", URL: "https://www.bmi.com/", Checked: "2026-11"},
		},
		Steps: []engine.Step{
			{Name: "quote", Run: songSyncFee},
			{Name: "schedule", Run: songSyncSchedule},
			{Name: "recommend", Run: songSyncRecommend},
		},
	})
}

// songSyncBase is the baseline fee per side (master or composition), in
// US dollars.
var songSyncBase = map[string]float64{
	"student_film": 250, "indie_film": 2500, "studio_film": 25000, "tv_episode": 3000, "streaming_series": 4000,
	"trailer": 25000, "advertising_regional": 10000, "advertising_national": 50000, "video_game": 5000, "online_video": 1000,
}

var songSyncUsage = map[string]float64{"background": 1, "featured": 1.5, "main_title": 2}

func songSyncFee(in *engine.Input, p *engine.Plan) error {
	media := in.Str("media")
	// The baselines are US-market fees in US dollars: a plan in another
	// currency gets them converted at the reference rate (recorded in
	// money_basis), never the bare number relabelled.
	base := engine.Benchmark{Amount: engine.InUSD(songSyncBase[media]), What: "sync fee per side, " + strings.ReplaceAll(media, "_", " "), Source: "midpoints of ranges quoted for independent music in trade guides and supervisor interviews (US market)"}
	perSide := in.Benchmark(p, base) * songSyncUsage[in.Str("usage")]
	isAd := media == "advertising_regional" || media == "advertising_national"
	switch {
	case isAd && in.Str("territory") == "worldwide":
		perSide *= 2
	case !isAd && in.Str("territory") == "us":
		perSide *= 0.75
	}
	perSide = engine.Money(perSide)
	low, high := engine.Money(perSide*0.6), engine.Money(perSide*1.5)
	ctrl := in.Float("controlled_publishing_pct") / 100
	gross := perSide * ctrl
	if in.Bool("owns_master") {
		gross += perSide
	}
	commission := engine.Money(gross * in.Float("agent_commission_pct") / 100)
	p.Set("quote", map[string]any{
		"per_side_usd":       perSide,
		"per_side_range_usd": []float64{low, high},
		"all_in_usd":         engine.Money(2 * perSide),
		"all_in_range_usd":   []float64{engine.Money(2 * low), engine.Money(2 * high)},
	})
	p.Set("your_take", map[string]any{
		"sync_side_usd":   engine.Money(perSide * ctrl),
		"master_side_usd": map[bool]float64{true: perSide, false: 0}[in.Bool("owns_master")],
		"commission_usd":  commission,
		"net_usd":         engine.Money(gross - commission),
	})
	if in.Has("offer_usd") {
		offer := in.Float("offer_usd")
		switch {
		case offer < 2*low:
			p.Warn("OFFER_BELOW_RANGE", "The %s all-in offer (%s a side) is below the %s–%s a-side range for a %s %s use; counter at %s all-in.",
				in.Money(offer), in.Money(offer/2), in.Money(low), in.Money(high), in.Str("usage"), strings.ReplaceAll(media, "_", " "), in.Money(engine.Money(2*perSide)))
			p.Set("counter_offer_usd", engine.Money(2*perSide))
		case offer > 2*high:
			p.Set("offer_assessment", "above range")
		default:
			p.Set("offer_assessment", "within range")
		}
		side := offer / 2
		offerGross := side * ctrl
		if in.Bool("owns_master") {
			offerGross += side
		}
		p.Set("offer_net_usd", engine.Money(offerGross*(1-in.Float("agent_commission_pct")/100)))
	}
	p.Set("one_stop", in.Bool("owns_master") && in.Float("controlled_publishing_pct") == 100)
	return nil
}

// songSyncSchedule clears the use backwards from the air date, a date the
// production owns. When the clearance no longer fits, the plan is built on
// the earliest date it can clear (and says whether that still makes air);
// a use that has already aired gets a post-air plan: a retroactive license
// now, then the cue sheet and royalties.
func songSyncSchedule(in *engine.Input, p *engine.Plan) error {
	air, asOf, r := in.Date("air_date"), p.AsOf(), in.Region()
	p.SetTarget(air)
	clearDays := 15
	if p.Get("one_stop").(bool) {
		clearDays = 5
	}
	p.Set("clearance_business_days", clearDays)
	if air.Before(asOf) {
		p.PostEvent(air, "the use has aired, and without a signed license it is an infringement: license it retroactively now, at the quoted fee or above, and check the cue sheet.")
		p.Deliverable("retroactive-license", "Retroactive sync and master-use licenses signed", asOf, r)
		p.Event("air-date", "First air / release", air, "the broadcaster's air date")
		p.Deliverable("cue-sheet-check", "Confirm the cue sheet lists the use, timing and all writers", p.Calendar().NextWorkday(engine.Later(asOf, engine.AddDays(air, 30))), r)
		if royalties := engine.AddMonths(air, 9); !royalties.Before(asOf) {
			p.Event("performance-royalties", "First PRO payment for the broadcast expected", royalties, "the PRO's distribution schedule")
		}
		p.Set("license_signed_by", engine.FormatDate(asOf))
		p.Set("files_due", "")
		return nil
	}
	filesDue := p.Calendar().AddWorkdays(air, -10)
	signBy := p.Calendar().PrevWorkday(engine.AddDays(filesDue, -1))
	startBy := p.Calendar().AddWorkdays(signBy, -clearDays)
	if startBy.Before(asOf) {
		cleared := p.Calendar().AddWorkdays(asOf, clearDays)
		p.Warn("CLEARANCE_TOO_TIGHT", "Clearance needs about %s%s and files are due %s; starting %s it clears around %s. Ask for a pre-cleared quote now or offer a one-stop alternative.",
			engine.Plural(clearDays, "business day", "business days"), map[bool]string{true: "", false: " (master or co-publishers to clear)"}[p.Get("one_stop").(bool)],
			engine.FormatDate(filesDue), engine.FormatDate(asOf), engine.FormatDate(cleared))
		p.Set("earliest_clearance_date", engine.FormatDate(cleared))
		startBy, signBy = asOf, cleared
		if !filesDue.After(signBy) {
			filesDue = p.Calendar().AddWorkdays(signBy, 1)
			if !filesDue.Before(air) {
				p.Warn("CLEARANCE_AFTER_AIR", "At the earliest the license is signed %s and files delivered %s, not before the %s air date; only a pre-cleared or one-stop track can make this placement.",
					engine.FormatDate(signBy), engine.FormatDate(filesDue), engine.FormatDate(air))
			}
		}
	}
	p.Set("license_signed_by", engine.FormatDate(signBy))
	p.Set("files_due", engine.FormatDate(filesDue))
	p.Handover(engine.KindAction, "quote-sent", "Quote sent to the music supervisor", asOf)
	p.Deliverable("clearance-start", "Clearance requests out to all rights holders", startBy, r)
	p.Deliverable("license-signed", "Sync and master-use licenses signed", signBy, r)
	p.Deliverable("files-delivered", "WAV master, instrumental and stems delivered", filesDue, r)
	p.Event("air-date", "First air / release", air, "the broadcaster's air date")
	p.Deliverable("cue-sheet-check", "Confirm the cue sheet lists the use, timing and all writers", p.Calendar().NextWorkday(engine.AddDays(air, 30)), r)
	p.Event("performance-royalties", "First PRO payment for the broadcast expected", engine.AddMonths(air, 9), "the PRO's distribution schedule")
	p.DependsOn("license-signed", "clearance-start")
	p.DependsOn("files-delivered", "license-signed")
	if filesDue.Before(air) {
		p.DependsOn("air-date", "files-delivered")
	}
	return nil
}

func songSyncRecommend(in *engine.Input, p *engine.Plan) error {
	q := p.Get("quote").(map[string]any)
	take := p.Get("your_take").(map[string]any)
	key, title := "license-signed", "Quote both sides MFN"
	if p.DateOf(key).IsZero() {
		key, title = "retroactive-license", "Quote the retroactive license both sides MFN"
	}
	p.RecommendOn(engine.High, key, title,
		fmt.Sprintf("Quote %s a side (%s all-in) for a %s %s use, %s, and insist the master and sync fees stay equal.",
			in.Money(q["per_side_usd"].(float64)), in.Money(q["all_in_usd"].(float64)), in.Str("usage"), strings.ReplaceAll(in.Str("media"), "_", " "), in.Str("territory")))
	if !p.Get("one_stop").(bool) {
		p.Recommend(engine.High, "Line up the other rights holders",
			"You do not control every side: get written pre-clearance from the label and co-publishers at the same fee before confirming, or the supervisor will move to a one-stop track.")
	}
	p.Recommend(engine.Medium, "Get the cue sheet right",
		"Ask the production for the cue sheet after air and check the use type, duration and every writer's PRO and share: performance royalties are paid from it.")
	p.Recommend(engine.Low, "Keep an instrumental and stems ready",
		"Editors cut around dialogue; having a clean instrumental and stems speeds clearance and wins placements.")
	files := "deliver files 10 business days before"
	if f, _ := p.Get("files_due").(string); f == "" {
		files = "license retroactively: it aired on"
	} else if !in.Date("air_date").After(engine.AddDays(p.GetDate("files_due"), 13)) {
		files = "deliver files by " + f + " for"
	}
	p.Strategy("Quote %s a side (%s all-in, range %s–%s) for the %s %s use; you keep %s after shares and commission. Sign by %s and %s the %s air date.",
		in.Money(q["per_side_usd"].(float64)), in.Money(q["all_in_usd"].(float64)), in.Money(q["all_in_range_usd"].([]float64)[0]), in.Money(q["all_in_range_usd"].([]float64)[1]),
		in.Str("usage"), strings.ReplaceAll(in.Str("media"), "_", " "), in.Money(take["net_usd"].(float64)), p.Get("license_signed_by"), files, engine.FormatDate(in.Date("air_date")))
	return nil
}
