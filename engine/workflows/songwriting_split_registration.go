package workflows

import (
	"fmt"
	"math"
	"strings"
	"time"

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
//     Standard Application. A song and its recording owned exactly alike
//     (the writers own the master in their song shares, or the hiring party
//     owns both) are registered together on one $65 Standard Application
//     (Circular 56a), not as two claims; a sound recording owned otherwise
//     is a separate $65 claim.
//   - The UK has no copyright registry (protection is automatic under the
//     Copyright, Designs and Patents Act 1988); works are registered with
//     PRS for Music and MCPS, recordings with PPL.
//   - A work made for hire (17 U.S.C. §101, §201(b)) belongs to the hiring
//     party from creation: it is the author and copyright claimant (so no
//     $45 Single Application), it owns the publisher share, all mechanical
//     and sync income and the master, the term is 95 years from
//     publication (§302(c)) and there is no termination right (§203). The
//     writers keep only what the PROs pay writers directly, the writer
//     share of performance royalties, as film and TV composers do. A song
//     written by someone who is not an employee is for hire only if
//     specially commissioned for one of the nine §101 categories (e.g. part
//     of a motion picture or other audiovisual work) under a written
//     agreement signed by both sides; otherwise it is an assignment.
//
// Sources: U.S. Copyright Office Circular 30 "Works Made for Hire" and
// Circular 1, fee schedule 37 CFR 201.3 (checked 2026-11); ASCAP and BMI
// writer and publisher share rules (checked 2026-11).
func init() {
	engine.Register(&engine.Workflow{
		ID:          "songwriting-split-registration",
		Name:        "Split sheet and registrations",
		Vertical:    "songwriting",
		PastDate:    engine.PastDate{Field: "release_date", Policy: engine.PastPostEvent},
		Description: "Checks a co-write's split sheet, computes each writer's share of writer and publisher royalties, and schedules PRO, MLC and copyright registrations around the release, with the §412 three-month copyright deadline and filing fees. A song already released gets a post-release plan (registrations due now, the §412 window stated).",
		Fields: []engine.Field{
			{Name: "song_title", Kind: engine.String, Required: true, Min: engine.Bound(1), Max: engine.Bound(200), Description: "Title of the song."},
			{Name: "writers", Kind: engine.ObjectList, Required: true, Min: engine.Bound(1), Max: engine.Bound(12), Description: "Everyone who wrote words or music.", Items: []engine.Field{
				{Name: "name", Kind: engine.String, Required: true, Min: engine.Bound(1), Max: engine.Bound(200), Description: "Writer's legal name."},
				{Name: "share_pct", Kind: engine.Number, Required: true, Min: engine.Bound(0), Max: engine.Bound(100), Description: "Ownership share of the composition, in percent."},
				{Name: "pro", Kind: engine.String, Enum: []string{"ASCAP", "BMI", "SESAC", "GMR", "SOCAN", "PRS", "other", "none"}, Default: "none", Description: "Performing rights organisation the writer belongs to."},
				{Name: "publisher", Kind: engine.String, Max: engine.Bound(200), Description: "Publisher or administrator collecting the writer's publisher share, if any."},
			}},
			{Name: "release_date", Kind: engine.Date, Required: true, Description: "Date the recording is first released (first publication)."},
			{Name: "work_for_hire", Kind: engine.Boolean, Default: false, Description: "Whether the song was written as a work made for hire: the hiring party then owns the copyright, publisher share, mechanicals and master, and the writers keep the writer share of performance royalties."},
			{Name: "hiring_party", Kind: engine.String, Min: engine.Bound(1), Max: engine.Bound(200), Description: "Employer or commissioning party of a work made for hire (the copyright claimant); used when work_for_hire is true."},
			engine.RegionField(),
			{Name: "register_sound_recording", Kind: engine.Boolean, Default: true, Description: "Whether the writers also own the master, in the same shares as the song, and will register the sound recording (with the song, on one Standard Application)."},
			engine.CurrencyField("USD"),
		},
		ExampleContext: map[string]any{
			"song_title": "Glass Harbor",
			"writers": []any{
				map[string]any{"name": "Nova Reyes", "share_pct": 50, "pro": "BMI", "publisher": "Reyes Songs"},
				map[string]any{"name": "Theo Park", "share_pct": 30, "pro": "ASCAP"},
				map[string]any{"name": "Ines Duarte", "share_pct": 20, "pro": "none"},
			},
			"release_date":             "2027-03-05",
			"work_for_hire":            false,
			"register_sound_recording": true,
			"as_of":                    "2026-11-20",
		},
		Sources: []engine.Source{
			{Title: "U.S. Copyright Office Circular 30: Works Made for Hire", URL: "https://www.copyright.gov/circs/circ30.pdf", Checked: "2026-11"},
			{Title: "U.S. Copyright Office: fees (Single and Standard Application)", URL: "https://www.copyright.gov/about/fees.html", Checked: "2026-11"},
			{Title: "U.S. Copyright Office Circular 56a: a musical work and sound recording owned exactly alike register on one application", URL: "https://www.copyright.gov/circs/circ56a.pdf", Checked: "2026-11"},
			{Title: "17 U.S.C. §412: registration as a prerequisite to statutory damages", URL: "https://www.law.cornell.edu/uscode/text/17/412", Checked: "2026-11"},
			{Title: "The MLC: registering works and self-administered members", URL: "https://www.themlc.com/", Checked: "2026-11"},
		},
		Steps: []engine.Step{
			{Name: "check-splits", Run: songSplitsCheck},
			{Name: "schedule", Run: songSplitsSchedule},
			{Name: "recommend", Run: songSplitsRecommend},
		},
	})
}

// songHiringParty names the owner of a work made for hire.
func songHiringParty(in *engine.Input) string {
	if in.Has("hiring_party") {
		return in.Str("hiring_party")
	}
	return "the hiring party"
}

func songSplitsCheck(in *engine.Input, p *engine.Plan) error {
	wfh := in.Bool("work_for_hire")
	var total float64
	var shares []map[string]any
	var unaffiliated, selfPublished []string
	for _, w := range in.List("writers") {
		s := w.Float("share_pct")
		total += s
		// A writer of a work made for hire owns no part of the publisher
		// share: the hiring party collects all of it.
		pubShare := s / 2
		if wfh {
			pubShare = 0
		}
		shares = append(shares, map[string]any{
			"name":                   w.Str("name"),
			"share_pct":              s,
			"pro":                    w.Str("pro"),
			"writer_share_pct":       engine.Round(s/2, 2),
			"publisher_share_pct":    engine.Round(pubShare, 2),
			"per_1000_usd_writer":    engine.Money(1000 * s / 100 / 2),
			"per_1000_usd_publisher": engine.Money(1000 * pubShare / 100),
		})
		if w.Str("pro") == "none" {
			unaffiliated = append(unaffiliated, w.Str("name"))
		}
		if w.Str("publisher") == "" && !wfh {
			selfPublished = append(selfPublished, w.Str("name"))
		}
	}
	p.Set("royalty_shares", shares)
	p.Set("splits_total_pct", engine.Round(total, 2))
	owner := "the writers, in their shares"
	if wfh {
		owner = songHiringParty(in)
		p.Set("work_for_hire", map[string]any{
			"copyright_owner":            owner,
			"publisher_share_pct":        50,
			"mechanical_and_sync_pct":    100,
			"writers_keep":               "the writer share of performance royalties (50% of performance income), paid by their PROs",
			"copyright_term":             "95 years from publication or 120 years from creation, whichever ends first (17 U.S.C. §302(c))",
			"termination_right":          false,
			"sound_recording_claimant":   owner,
			"registers_with_pro_and_mlc": owner + " (or its publisher) registers the work with 100% of the publisher share and The MLC with 100% of mechanicals; the writers are listed as writers only",
		})
		p.Warn("WORK_FOR_HIRE_NEEDS_AGREEMENT", "A song written by someone who is not %s's employee is a work made for hire only if it was specially commissioned for one of the §101 categories (such as part of a film or other audiovisual work) under a written agreement signed by both sides; otherwise the writers own it and can only assign it, with a termination right after 35 years.", owner)
		if !in.Has("hiring_party") {
			p.Warn("HIRING_PARTY_UNNAMED", "The song is a work made for hire but no hiring_party is given; the copyright claimant and the publisher of record must be named on every registration.")
		}
	} else if in.Has("hiring_party") {
		p.Warn("HIRING_PARTY_IGNORED", "hiring_party %q is only used for a work made for hire; with work_for_hire false the writers own the song.", in.Str("hiring_party"))
	}
	p.Set("copyright_owner", owner)
	if math.Abs(total-100) > 0.01 {
		p.Warn("SPLITS_NOT_100", "The splits add up to %.2f%%, %.2f points %s 100%%; PROs and The MLC hold royalties on works whose claims do not total 100%%.",
			total, math.Abs(total-100), map[bool]string{true: "over", false: "short of"}[total > 100])
	}
	if len(unaffiliated) > 0 {
		p.Warn("WRITER_NOT_AFFILIATED", "%s %s no PRO: their share of performance royalties cannot be collected until they join one (ASCAP and BMI membership for writers is free).",
			strings.Join(unaffiliated, ", "), map[bool]string{true: "has", false: "have"}[len(unaffiliated) == 1])
	}
	p.Set("self_published_writers", selfPublished)

	// The $45 Single Application is for one author who is also the
	// claimant of a work not made for hire. The Copyright Office charges
	// its fees in US dollars, so they stay US dollars (and are written
	// "USD 65" in a plan in another currency), never relabelled.
	single := len(in.List("writers")) == 1 && !wfh
	fees := map[string]float64{"musical_work_usd": 65}
	switch {
	case in.Bool("register_sound_recording"):
		// Owned exactly alike, the song and its recording are one claim on
		// a Standard Application: one fee, not two.
		fees = map[string]float64{"musical_work_and_sound_recording_usd": 65}
	case single:
		fees["musical_work_usd"] = 45
	}
	var sum float64
	for _, f := range fees {
		sum += f
	}
	fees["total_usd"] = sum
	p.Set("copyright_fees", fees)
	return nil
}

// songSplitsSchedule works back from the release. A song already released
// gets a post-release plan: what was due before release is due now (on the
// next open day), the release is reported as history, and the §412
// deadline decides what registering still protects.
func songSplitsSchedule(in *engine.Input, p *engine.Plan) error {
	release, asOf, r := in.Date("release_date"), p.AsOf(), in.Region()
	p.SetTarget(release)
	deadline412 := engine.AddMonths(release, 3)
	register := engine.Later(asOf, p.Calendar().PrevWorkday(engine.AddDays(release, -14)))
	p.Set("copyright_deadline", engine.FormatDate(deadline412))
	days := engine.DaysBetween(asOf, release)
	switch {
	case asOf.After(deadline412):
		p.Warn("COPYRIGHT_412_WINDOW_CLOSED", "The song was released %s; the three-month window of 17 U.S.C. §412 closed %s. Register now: statutory damages and fees will only cover infringements that start after registration.",
			engine.FormatDate(release), engine.FormatDate(deadline412))
	case days < 0:
		p.Warn("COPYRIGHT_412_WINDOW_CLOSING", "Released %s ago (%s): register the copyright by %s (%s left) to keep statutory damages for infringements before registration.",
			engine.Plural(-days, "day", "days"), engine.FormatDate(release), engine.FormatDate(deadline412), engine.Plural(engine.DaysBetween(asOf, deadline412), "day", "days"))
	case days < 14:
		p.Warn("REGISTRATION_AFTER_RELEASE", "Only %s to release: PRO and MLC registrations take time to process, so early plays and streams may go unmatched and be paid late. Register today.", engine.Plural(days, "day", "days"))
	}
	if days < 0 {
		p.PostEvent(release, "the song is out, so splits, metadata and registrations are due now, and plays since release are claimed retroactively once the work is registered.")
	}
	signBy := engine.Later(asOf, p.Calendar().PrevWorkday(engine.AddDays(release, -42)))
	metadata := engine.Later(asOf, p.Calendar().PrevWorkday(engine.AddDays(release, -28)))
	// After release the same paperwork is a catch-up, not the pre-release
	// step: it is keyed and titled as late, so the plan never reads as if
	// the song were still to come.
	late := songSplitsLate(days < 0)
	if in.Bool("work_for_hire") {
		late.Deliverable(p, "work-for-hire-agreement", "Work-for-hire agreement signed by "+songHiringParty(in)+" and every writer", signBy, r)
		late.Deliverable(p, "split-sheet-signed", "Writer credits and writer-share splits confirmed by every writer", signBy, r)
	} else {
		late.Deliverable(p, "split-sheet-signed", "Split sheet signed by every writer", signBy, r)
	}
	late.Deliverable(p, "iswc-isrc-metadata", "Writers, splits and IPI numbers in the distributor metadata", metadata, r)
	if in.Bool("work_for_hire") {
		late.Deliverable(p, "pro-mlc-registration", "Work registered by "+songHiringParty(in)+" with the PROs (100% publisher share) and The MLC, writers listed as writers", register, r)
		late.Deliverable(p, "copyright-filed", "Copyright application filed (eCO) by "+songHiringParty(in)+" as employer for hire", register, r)
	} else {
		late.Deliverable(p, "pro-mlc-registration", "Work registered with each writer's PRO and The MLC", register, r)
		late.Deliverable(p, "copyright-filed", "Copyright application filed (eCO)", register, r)
	}
	if in.Bool("register_sound_recording") {
		late.Deliverable(p, "sound-recording-filed", "Sound recording claimed with the song on the same Standard Application", register, r)
	}
	// Registration dates land on open days: the plan names the settled one.
	register = p.DateOf(late.key("pro-mlc-registration"))
	p.Set("registration_deadline", p.Ref(late.key("pro-mlc-registration")))
	p.Event("release", "Release (first publication)", release, "the release date")
	p.Event("copyright-412-deadline", "Last day to register within three months of publication (§412)", deadline412, "the statutory three-month window (17 U.S.C. \u00a7412)")
	chain(p, late.key("split-sheet-signed"), late.key("iswc-isrc-metadata"), late.key("pro-mlc-registration"))
	chain(p, late.key("work-for-hire-agreement"), late.key("split-sheet-signed"), late.key("copyright-filed"))
	p.DependsOn(late.key("sound-recording-filed"), late.key("split-sheet-signed"))
	p.Work("first-statement-check", "Check the first PRO and MLC statements list the work", engine.Later(engine.AddMonths(release, 6), engine.AddMonths(register, 6)))
	return nil
}

// songSplitsLate keys and titles the paperwork of a song already out as
// catch-up steps.
type songSplitsLate bool

func (l songSplitsLate) key(k string) string {
	if l {
		return "late-" + k
	}
	return k
}

// Deliverable adds the step, as a late one after release.
func (l songSplitsLate) Deliverable(p *engine.Plan, key, title string, d time.Time, r engine.Region) {
	if l {
		title += " (late: the song is out)"
	}
	p.Deliverable(l.key(key), title, d, r)
}

func songSplitsRecommend(in *engine.Input, p *engine.Plan) error {
	late := songSplitsLate(p.DateOf("pro-mlc-registration").IsZero())
	reg := late.key("pro-mlc-registration")
	fees := p.Get("copyright_fees").(map[string]float64)
	// Before release the copyright is filed ahead of it; after, at once.
	fileTitle, fileWhen := "File the copyright before release", "before release, and in any case"
	regTitle := "Register with every PRO and The MLC"
	if late {
		fileTitle, fileWhen = "File the copyright now", "now: the song is out; file"
		regTitle = "Register with every PRO and The MLC now, and claim plays since release"
	}
	if in.Bool("work_for_hire") {
		owner := songHiringParty(in)
		p.RecommendOn(engine.High, late.key("work-for-hire-agreement"), map[bool]string{false: "Sign the work-for-hire agreement", true: "Sign the work-for-hire agreement now"}[bool(late)],
			fmt.Sprintf("Have %s and every writer sign a written agreement that the song is specially commissioned as a work made for hire (for a film, TV or other audiovisual work) and that the writers keep the writer share of performance royalties.", owner))
		p.RecommendOn(engine.High, reg, "Register as the owner, credit the writers",
			fmt.Sprintf("%s registers the work with its PRO as publisher of 100%% of the publisher share and with The MLC for 100%% of mechanicals; each writer registers with their own PRO as writer only, with the same title and splits.", owner))
		p.RecommendOn(engine.High, late.key("copyright-filed"), "File the copyright as employer for hire",
			fmt.Sprintf("%s files on eCO as author and claimant, marking the work made for hire (Standard Application, %s in fees), %s by %s to keep statutory damages under §412.", owner, in.MoneyIn(fees["total_usd"], "USD"), fileWhen, p.Get("copyright_deadline")))
	} else {
		p.RecommendOn(engine.High, reg, regTitle,
			"Each writer (or their publisher) registers the work with the same title, writers, IPI numbers and splits; mismatched registrations are the main cause of held royalties.")
		p.RecommendOn(engine.High, late.key("copyright-filed"), fileTitle,
			fmt.Sprintf("File on eCO (%s in fees) %s by %s to keep statutory damages under §412.", in.MoneyIn(fees["total_usd"], "USD"), fileWhen, p.Get("copyright_deadline")))
	}
	if sp := p.Get("self_published_writers").([]string); len(sp) > 0 {
		p.Recommend(engine.Medium, "Collect the publisher share",
			fmt.Sprintf("%s %s no publisher or administrator: join The MLC as a self-administered member for US digital mechanicals, and register a publishing entity (or sign with an admin) so the publisher share of performance income and foreign income are collected.",
				strings.Join(sp, ", "), map[bool]string{true: "has", false: "have"}[len(sp) == 1]))
	}
	if in.Region() == engine.RegionUK {
		p.Recommend(engine.Medium, "Register in the UK with PRS, MCPS and PPL",
			"The UK has no copyright registry: protection is automatic. Register the work with PRS for Music (performance) and MCPS (mechanicals), and the recording with PPL; a US registration is optional and only adds statutory damages under §412 for US infringements.")
	}
	p.Recommend(engine.Low, "Keep the signed sheet with the session files",
		"Store the split sheet with the date, song title, writers' PROs, IPI numbers and publishers; supervisors ask for it before any sync license.")
	if in.Bool("work_for_hire") {
		p.Strategy("%q is a work made for hire: %s owns the copyright, the publisher share, mechanicals and the master, and files the copyright (%s); %s %s the writer share of performance royalties (%.2f%% split). Register by %s, release on %s, and file no later than %s.",
			in.Str("song_title"), songHiringParty(in), in.MoneyIn(fees["total_usd"], "USD"), engine.Plural(len(in.List("writers")), "writer", "writers"), map[bool]string{true: "keeps", false: "keep"}[len(in.List("writers")) == 1],
			p.Get("splits_total_pct").(float64), p.Get("registration_deadline"), engine.FormatDate(in.Date("release_date")), p.Get("copyright_deadline"))
		return nil
	}
	p.Strategy("Split %q %.2f%% across %s (each share half writer, half publisher), register with the PROs and The MLC by %s, release on %s, and file the copyright (%s) no later than %s.",
		in.Str("song_title"), p.Get("splits_total_pct").(float64), engine.Plural(len(in.List("writers")), "writer", "writers"), p.Get("registration_deadline"), engine.FormatDate(in.Date("release_date")), in.MoneyIn(fees["total_usd"], "USD"), p.Get("copyright_deadline"))
	return nil
}
