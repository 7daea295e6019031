package workflows

import (
	"fmt"
	"math"
	"strings"

	"github.com/creativeops/creativeops/engine"
)

// Split sheet and registration plan for a co-written song. Rules used:
//   - Writer splits must total exactly 100% and be signed before release;
//     PROs and The MLC reject or hold conflicting claims.
//   - US performance royalties are paid half as the writer's share and half
//     as the publisher's share (ASCAP, BMI); each writer's ownership share is
//     split the same way.
//   - Register the work with each writer's PRO and with The MLC (US digital
//     mechanicals; self-administered writers can join directly) before
//     release, so the first uses are matched: two weeks out.
//   - US copyright (17 U.S.C. §412): statutory damages and attorney's fees
//     are only available for infringement after registration, or within
//     three months of first publication. eCO fees: $45 Single Application
//     (one author who is the claimant, one work, not made for hire), $65
//     Standard Application; a sound recording is a separate $65 claim unless
//     filed together by the same claimant.
func init() {
	engine.Register(&engine.Workflow{
		ID:          "songwriting-split-registration",
		Name:        "Split sheet and registrations",
		Vertical:    "songwriting",
		Description: "Checks a co-write's split sheet, computes each writer's share of writer and publisher royalties, and schedules PRO, MLC and copyright registrations around the release, with the §412 three-month copyright deadline and filing fees.",
		Fields: []engine.Field{
			{Name: "song_title", Kind: engine.String, Required: true, Min: engine.Bound(1), Max: engine.Bound(200), Description: "Title of the song."},
			{Name: "writers", Kind: engine.ObjectList, Required: true, Min: engine.Bound(1), Max: engine.Bound(12), Description: "Everyone who wrote words or music.", Items: []engine.Field{
				{Name: "name", Kind: engine.String, Required: true, Min: engine.Bound(1), Max: engine.Bound(200), Description: "Writer's legal name."},
				{Name: "share_pct", Kind: engine.Number, Required: true, Min: engine.Bound(0), Max: engine.Bound(100), Description: "Ownership share of the composition, in percent."},
				{Name: "pro", Kind: engine.String, Enum: []string{"ASCAP", "BMI", "SESAC", "GMR", "SOCAN", "PRS", "other", "none"}, Default: "none", Description: "Performing rights organisation the writer belongs to."},
				{Name: "publisher", Kind: engine.String, Max: engine.Bound(200), Description: "Publisher or administrator collecting the writer's publisher share, if any."},
			}},
			{Name: "release_date", Kind: engine.Date, Required: true, Description: "Date the recording is first released (first publication)."},
			{Name: "work_for_hire", Kind: engine.Boolean, Default: false, Description: "Whether the song was written as a work made for hire."},
			{Name: "register_sound_recording", Kind: engine.Boolean, Default: true, Description: "Whether the writers also own the master and will register the sound recording."},
		},
		ExampleContext: map[string]any{
			"song_title": "Glass Harbor",
			"writers": []any{
				map[string]any{"name": "Nova Reyes", "share_pct": 50, "pro": "BMI", "publisher": "Reyes Songs"},
				map[string]any{"name": "Theo Park", "share_pct": 30, "pro": "ASCAP"},
				map[string]any{"name": "Ines Duarte", "share_pct": 20, "pro": "none"},
			},
			"release_date": "2027-03-05",
			"as_of":        "2026-11-20",
		},
		Steps: []engine.Step{
			{Name: "check-splits", Run: songSplitsCheck},
			{Name: "schedule", Run: songSplitsSchedule},
			{Name: "recommend", Run: songSplitsRecommend},
		},
	})
}

func songSplitsCheck(in *engine.Input, p *engine.Plan) error {
	var total float64
	var shares []map[string]any
	var unaffiliated, selfPublished []string
	for _, w := range in.List("writers") {
		s := w.Float("share_pct")
		total += s
		shares = append(shares, map[string]any{
			"name":                   w.Str("name"),
			"share_pct":              s,
			"pro":                    w.Str("pro"),
			"writer_share_pct":       engine.Round(s/2, 2),
			"publisher_share_pct":    engine.Round(s/2, 2),
			"per_1000_usd_writer":    engine.Money(1000 * s / 100 / 2),
			"per_1000_usd_publisher": engine.Money(1000 * s / 100 / 2),
		})
		if w.Str("pro") == "none" {
			unaffiliated = append(unaffiliated, w.Str("name"))
		}
		if w.Str("publisher") == "" {
			selfPublished = append(selfPublished, w.Str("name"))
		}
	}
	p.Set("royalty_shares", shares)
	p.Set("splits_total_pct", engine.Round(total, 2))
	if math.Abs(total-100) > 0.01 {
		p.Warn("SPLITS_NOT_100", "The splits add up to %.2f%%, %.2f points %s 100%%; PROs and The MLC hold royalties on works whose claims do not total 100%%.",
			total, math.Abs(total-100), map[bool]string{true: "over", false: "short of"}[total > 100])
	}
	if len(unaffiliated) > 0 {
		p.Warn("WRITER_NOT_AFFILIATED", "%s %s no PRO: their share of performance royalties cannot be collected until they join one (ASCAP and BMI membership for writers is free).",
			strings.Join(unaffiliated, ", "), map[bool]string{true: "has", false: "have"}[len(unaffiliated) == 1])
	}
	p.Set("self_published_writers", selfPublished)

	single := len(in.List("writers")) == 1 && !in.Bool("work_for_hire")
	fees := map[string]float64{"musical_work_usd": 65}
	if single {
		fees["musical_work_usd"] = 45
	}
	if in.Bool("register_sound_recording") {
		fees["sound_recording_usd"] = 65
	}
	var sum float64
	for _, f := range fees {
		sum += f
	}
	fees["total_usd"] = sum
	p.Set("copyright_fees", fees)
	return nil
}

func songSplitsSchedule(in *engine.Input, p *engine.Plan) error {
	release := in.Date("release_date")
	p.SetTarget(release)
	deadline412 := engine.AddMonths(release, 3)
	register := engine.PrevWorkday(engine.AddDays(release, -14))
	p.Set("copyright_deadline", engine.FormatDate(deadline412))
	p.Set("registration_deadline", engine.FormatDate(register))
	days := engine.DaysBetween(p.AsOf(), release)
	switch {
	case p.AsOf().After(deadline412):
		p.Warn("COPYRIGHT_412_WINDOW_CLOSED", "The song was released %s; the three-month window of 17 U.S.C. §412 closed %s. Register now: statutory damages and fees will only cover infringements that start after registration.",
			engine.FormatDate(release), engine.FormatDate(deadline412))
	case days < 0:
		p.Warn("COPYRIGHT_412_WINDOW_CLOSING", "Released %d days ago: register the copyright by %s (%d days left) to keep statutory damages for infringements before registration.",
			-days, engine.FormatDate(deadline412), engine.DaysBetween(p.AsOf(), deadline412))
	case days < 14:
		p.Warn("REGISTRATION_AFTER_RELEASE", "Only %d days to release: PRO and MLC registrations take time to process, so early plays and streams may go unmatched and be paid late. Register today.", days)
	}
	signBy := engine.Later(p.AsOf(), engine.PrevWorkday(engine.AddDays(release, -42)))
	p.Milestone("split-sheet-signed", "Split sheet signed by every writer", signBy)
	p.Milestone("iswc-isrc-metadata", "Writers, splits and IPI numbers in the distributor metadata", engine.PrevWorkday(engine.AddDays(release, -28)))
	p.Milestone("pro-mlc-registration", "Work registered with each writer's PRO and The MLC", register)
	p.Milestone("copyright-filed", "Copyright application filed (eCO)", register)
	p.Milestone("release", "Release (first publication)", release)
	p.Milestone("copyright-412-deadline", "Last day to register within three months of publication (§412)", deadline412)
	p.Milestone("first-statement-check", "Check the first PRO and MLC statements list the work", engine.AddMonths(release, 6))
	return nil
}

func songSplitsRecommend(in *engine.Input, p *engine.Plan) error {
	register, _ := engine.ParseDate(p.Get("registration_deadline").(string))
	due := engine.Later(p.AsOf(), register)
	fees := p.Get("copyright_fees").(map[string]float64)
	p.RecommendBy(engine.High, due, "Register with every PRO and The MLC",
		"Each writer (or their publisher) registers the work with the same title, writers, IPI numbers and splits; mismatched registrations are the main cause of held royalties.")
	p.RecommendBy(engine.High, due, "File the copyright before release",
		fmt.Sprintf("File on eCO ($%.0f in fees) before release, and in any case by %s to keep statutory damages under §412.", fees["total_usd"], p.Get("copyright_deadline")))
	if sp := p.Get("self_published_writers").([]string); len(sp) > 0 {
		p.Recommend(engine.Medium, "Collect the publisher share",
			fmt.Sprintf("%s %s no publisher or administrator: join The MLC as a self-administered member for US digital mechanicals, and register a publishing entity (or sign with an admin) so the publisher share of performance income and foreign income are collected.",
				strings.Join(sp, ", "), map[bool]string{true: "has", false: "have"}[len(sp) == 1]))
	}
	p.Recommend(engine.Low, "Keep the signed sheet with the session files",
		"Store the split sheet with the date, song title, writers' PROs, IPI numbers and publishers; supervisors ask for it before any sync license.")
	p.Strategy("Split %q %.2f%% across %d writer(s) (each share half writer, half publisher), register with the PROs and The MLC by %s, release on %s, and file the copyright ($%.0f) no later than %s.",
		in.Str("song_title"), p.Get("splits_total_pct").(float64), len(in.List("writers")), p.Get("registration_deadline"), engine.FormatDate(in.Date("release_date")), fees["total_usd"], p.Get("copyright_deadline"))
	return nil
}
