package workflows

import (
	"fmt"
	"math"
	"strings"
	"time"

	"github.com/creativeops/creativeops/engine"
)

// Release planning for recorded music, scheduled backwards from release day.
// Rules used:
//   - Global Release Day is Friday 00:01 local time (IFPI, 2015).
//   - Spotify editorial pitches are for unreleased music and must be in at
//     least 7 days before release to reach followers' Release Radar
//     (Spotify for Artists); aim for three weeks. Every release is pitched
//     on its own: each focus track before the EP or album gets its pitch
//     three weeks before it comes out, and since an artist pitches one
//     unreleased song at a time, the next pitch follows the previous
//     release.
//   - Distributors want the release 21–28 days before release day: 21 is
//     the least a plan is built on, 28 is planned when there is room. For an
//     EP or album the whole project is delivered 28 days before its first
//     focus track, and that one date is the one the summary, the timeline
//     and the recommendations all state.
//   - Vinyl: pressing plants quote 12–16 weeks from approved masters and
//     final jacket and label artwork to finished stock (lacquer cut, plating,
//     test pressings, the press queue; longer before Record Store Day and
//     the Q4 rush). Plans use 16 weeks, the safe end (20 for vinyl on sale
//     in November or December), plus 2 weeks for the
//     stock to reach the distributor before release day. Artwork is final a
//     week before the masters go to the plant, because the plant prints
//     jackets and labels from it.
//   - CDs: manufacturers quote one to four weeks from approved master and
//     artwork (about 8 working days in jewel cases, 13–17 for digipaks and
//     jackets); plans use 4 weeks plus the same 2 weeks to the distributor
//     as vinyl, with artwork final a week before the master goes out.
//   - Pre-save campaigns open 2–4 weeks before release.
//   - Genre sets where the campaign money goes and which channel needs the
//     longest lead: country radio adds 6–8 weeks ahead, dance music is
//     serviced to DJs 4 weeks ahead, jazz and classical press works 3 months
//     ahead, hip-hop is carried by short-form video and rapid singles.
//   - Physical formats are manufactured before anything is marketed: the
//     budget's first lines are pressing and duplication (planning figures
//     below), the rest is split for marketing.
//
// A release date already past gets a post-release plan (what still matters
// once the music is out); a date too close to deliver is re-planned on the
// earliest feasible Friday, with the requested date shown beside it.
func init() {
	engine.Register(&engine.Workflow{
		ID:       "release-strategy",
		Name:     "Release strategy",
		Vertical: "music",
		PastDate: engine.PastDate{Field: "release_date", Policy: engine.PastPostEvent},
		Sources: []engine.Source{
			{Title: "Spotify for Artists: pitching music to playlist editors (one unreleased song at a time, at least 7 days before its release for Release Radar)", URL: "https://support.spotify.com/us/artists/article/pitching-music-to-playlist-editors/", Checked: "2026-11"},
			{Title: "IFPI: Global Release Day, new music on Fridays (2015)", URL: "https://www.ifpi.org/", Checked: "2026-11"},
			{Title: "Record Store Day: vinyl pressing lead times and plant turnaround", URL: "https://recordstoreday.com/", Checked: "2026-11"},
			{Title: "Crescent Music: CD manufacturing schedule (about 8 working days, digipaks and jackets 13–17)", URL: "https://www.crescentmusic.com/manufacturing-project-overview-and-production-schedule/", Checked: "2026-11"},
			{Title: "Nextday Disc: CD duplication and replication turnaround (one to four weeks)", URL: "https://nextdaydisc.com/support/faq", Checked: "2026-11"},
		},
		Description: "Plans a single, EP or album release backwards from release day: distributor delivery, an editorial pitch for every focus track and the release itself, pre-save, vinyl and CD manufacturing lead times and a genre-aware budget split. A date too close is re-planned on the earliest feasible Friday; a date already past gets a post-release plan.",
		Fields: []engine.Field{
			{Name: "artist", Kind: engine.String, Required: true, Min: engine.Bound(1), Max: engine.Bound(200), Description: "Artist or band name."},
			{Name: "genre", Kind: engine.String, Required: true, Min: engine.Bound(1), Max: engine.Bound(100), Description: "Primary genre, as pitched to editors. Recognised families (hip-hop/rap, electronic/dance, country, jazz/classical, rock/metal/punk, otherwise pop/indie) change the budget split and the lead channel."},
			{Name: "release_date", Kind: engine.Date, Required: true, Description: "Planned release day; moved to the next Friday if it is not one."},
			{Name: "release_type", Kind: engine.String, Enum: []string{"single", "ep", "album"}, Default: "single", Description: "What is released."},
			{Name: "formats", Kind: engine.StringList, Enum: []string{"digital", "vinyl", "cd", "cassette"}, Default: []string{"digital"}, Min: engine.Bound(1), Max: engine.Bound(4), Description: "Release formats."},
			{Name: "physical_units", Kind: engine.Integer, Default: 300, Min: engine.Bound(100), Max: engine.Bound(10000), Description: "Units manufactured of each physical format (vinyl, CD, cassette)."},
			{Name: "budget_usd", Kind: engine.Number, Money: true, Min: engine.Bound(0), Max: engine.Bound(10000000), Description: "Total release budget in `currency`, manufacturing included."},
			engine.RegionField(),
			engine.CurrencyField("USD"),
		},
		ExampleContext: map[string]any{
			"artist":       "Nova Reyes",
			"genre":        "indie pop",
			"release_date": "2027-05-07",
			"release_type": "ep",
			"formats":      []any{"digital", "vinyl"},
			"budget_usd":   9000,
			"as_of":        "2026-11-20",
		},
		Steps: []engine.Step{
			{Name: "check-release-date", Run: releaseCheckDate},
			{Name: "schedule", Run: releaseSchedule},
			{Name: "budget", Run: releaseBudget},
			{Name: "recommend", Run: releaseRecommend},
		},
	})
}

const (
	releaseDistributorMinDays  = 21
	releaseDistributorPlanDays = 28
	releaseVinylPlantWeeks     = 16
	releaseVinylRushWeeks      = 20
	releaseVinylToDistWeeks    = 2
	releaseCDWeeks             = 4
	// releasePitchDays is when a release is pitched: three weeks ahead, well
	// inside Spotify's 7-day minimum.
	releasePitchDays = 21
)

// releaseVinylWeeks is the plant turnaround planned for vinyl on sale on
// d: 16 weeks, 20 for November and December, when plants are full with the
// holiday rush.
func releaseVinylWeeks(d time.Time) int {
	if d.Month() >= time.November {
		return releaseVinylRushWeeks
	}
	return releaseVinylPlantWeeks
}

// releaseFocusTracks is how many focus tracks lead the release, four weeks
// apart.
func releaseFocusTracks(kind string) int {
	switch kind {
	case "ep":
		return 1
	case "album":
		return 2
	}
	return 0
}

// releaseGenre is what a genre family changes in the plan.
type releaseGenre struct {
	family string
	// split of the marketing budget: paid ads, PR/playlisting, content, the
	// genre's lead channel, contingency.
	ads, pr, content, channel, contingency float64
	channelName                            string // lead channel, named in the budget and timeline
	leadWeeks                              int    // weeks before release the lead channel starts
	advice                                 string
}

var releaseGenres = []struct {
	keys []string
	g    releaseGenre
}{
	{[]string{"hip hop", "hip-hop", "hiphop", "rap", "trap", "drill", "grime"}, releaseGenre{family: "hip-hop", ads: 0.30, pr: 0.15, content: 0.35, channel: 0.05, contingency: 0.15,
		channelName: "short-form video seeding", leadWeeks: 3, advice: "Hip-hop campaigns are carried by short-form video: seed a 15-second hook to creators three weeks out and keep a single every 4–6 weeks."}},
	{[]string{"electronic", "dance", "house", "techno", "edm", "drum and bass", "dnb", "trance", "dubstep"}, releaseGenre{family: "electronic", ads: 0.25, pr: 0.20, content: 0.15, channel: 0.25, contingency: 0.15,
		channelName: "DJ promo and record pools", leadWeeks: 4, advice: "Service the track and extended mix to DJs and record pools four weeks out so it is in sets and charts by release day."}},
	{[]string{"country", "americana", "bluegrass", "folk"}, releaseGenre{family: "country", ads: 0.20, pr: 0.20, content: 0.15, channel: 0.30, contingency: 0.15,
		channelName: "radio promotion", leadWeeks: 8, advice: "Country and Americana still break on radio: hire a radio promoter and service stations eight weeks out; adds take weeks to build."}},
	{[]string{"jazz", "classical", "orchestral", "opera", "chamber"}, releaseGenre{family: "jazz-classical", ads: 0.15, pr: 0.45, content: 0.15, channel: 0.10, contingency: 0.15,
		channelName: "press and reviews (long-lead print)", leadWeeks: 13, advice: "Reviews drive jazz and classical: send advance copies to long-lead press three months out so reviews land in release week."}},
	{[]string{"rock", "metal", "punk", "hardcore", "emo", "grunge"}, releaseGenre{family: "rock", ads: 0.30, pr: 0.25, content: 0.15, channel: 0.15, contingency: 0.15,
		channelName: "live and tour support", leadWeeks: 6, advice: "Rock releases sell at shows: book release shows six weeks out and bring the physical formats to the merch table."}},
}

var releaseDefaultGenre = releaseGenre{family: "pop-indie", ads: 0.35, pr: 0.25, content: 0.20, channel: 0.05, contingency: 0.15,
	channelName: "playlist and creator outreach", leadWeeks: 3, advice: "Pop and indie releases grow on playlists: pitch independent curators and creators three weeks out, alongside the editorial pitch."}

func releaseGenreOf(genre string) releaseGenre {
	g := strings.ToLower(genre)
	for _, e := range releaseGenres {
		for _, k := range e.keys {
			if strings.Contains(g, k) {
				return e.g
			}
		}
	}
	return releaseDefaultGenre
}

func releaseCheckDate(in *engine.Input, p *engine.Plan) error {
	asked := in.Date("release_date")
	release := asked
	if asked.Weekday() != time.Friday {
		release = engine.OnOrAfter(asked, time.Friday)
		p.Warn("RELEASE_NOT_FRIDAY", "%s is a %s; releases go out on Global Release Day, Friday 00:01 local time: plan for Friday %s instead.",
			engine.FormatDate(asked), asked.Weekday(), engine.FormatDate(release))
	}
	p.Set("requested_release_date", engine.FormatDate(asked))
	if release.Before(p.AsOf()) {
		// Already out: a post-release plan.
		p.PostEvent(release, "the music is out, so it can no longer be pitched to editorial; keep it growing through curators and plan the next release.")
		p.Set("plan_kind", "post_release")
		p.Set("release_date", engine.FormatDate(release))
		p.Set("days_until_release", engine.DaysBetween(p.AsOf(), release))
		p.SetTarget(release)
		return nil
	}
	p.Set("plan_kind", "pre_release")
	singles := releaseFocusTracks(in.Str("release_type"))
	earliest := engine.OnOrAfter(engine.AddDays(p.AsOf(), releaseDistributorMinDays+28*singles), time.Friday)
	p.Set("earliest_feasible_release_date", p.Label("earliest feasible release", earliest))
	if release.Before(earliest) {
		days := engine.DaysBetween(p.AsOf(), release)
		if days < 7 {
			p.Warn("PITCH_WINDOW_MISSED", "Only %s to the requested release: Spotify editorial pitches need at least 7 days, so that date could not be pitched or reach Release Radar through a pitch.", engine.Plural(days, "day", "days"))
		}
		p.Warn("DISTRIBUTOR_LEAD_TIME", "Distributors need the release 21–28 days before release day%s; %s is too close. The plan is built on the earliest feasible Friday, %s.",
			map[bool]string{true: " (and before the first focus track)", false: ""}[singles > 0], engine.FormatDate(release), engine.FormatDate(earliest))
		replanOn(p, asked, earliest, "distributor lead time")
		release = earliest
	}
	p.SetTarget(release)
	p.Set("release_date", engine.FormatDate(release))
	p.Set("days_until_release", engine.DaysBetween(p.AsOf(), release))
	if engine.InDeadWeek(release) {
		better := engine.OnOrAfter(time.Date(release.Year()+map[bool]int{true: 1, false: 0}[release.Month() == time.December], time.January, 2, 0, 0, 0, 0, time.UTC), time.Friday)
		p.Warn("RELEASE_IN_DEAD_WEEK", "%s falls in the 24 December–1 January dead week: editors, playlists and press are off and nothing new is programmed. A better release day is Friday %s.",
			engine.FormatDate(release), engine.FormatDate(better))
		p.Set("better_release_date", engine.FormatDate(better))
	}

	if hasFormat(in, "vinyl") {
		// Artwork a week before masters; masters 16 weeks before stock; stock
		// 2 weeks before the vinyl goes on sale.
		masters := engine.AddWeeks(release, -(releaseVinylWeeks(release) + releaseVinylToDistWeeks))
		vinyl := release
		if engine.AddDays(masters, -7).Before(p.AsOf()) {
			vinyl = engine.OnOrAfter(engine.AddDays(p.AsOf(), 7+7*(releaseVinylPlantWeeks+releaseVinylToDistWeeks)), time.Friday)
			if w := releaseVinylWeeks(vinyl); w != releaseVinylPlantWeeks {
				vinyl = engine.OnOrAfter(engine.AddDays(p.AsOf(), 7+7*(w+releaseVinylToDistWeeks)), time.Friday)
			}
			p.Warn("VINYL_LEAD_TIME", "Pressing plants quote 12–16 weeks from approved masters and final artwork, and stock needs 2 more weeks to reach the distributor; vinyl cannot be ready by %s. Release digital on %s and the vinyl on %s, selling it as a pre-order meanwhile.",
				engine.FormatDate(release), engine.FormatDate(release), engine.FormatDate(vinyl))
		}
		p.Set("vinyl_release_date", engine.FormatDate(vinyl))
	}
	if hasFormat(in, "cd") {
		// Artwork a week before the master; 4 weeks of manufacturing and 2
		// to the distributor before the CD goes on sale.
		cd := release
		if engine.AddWeeks(release, -(releaseCDWeeks + releaseVinylToDistWeeks + 1)).Before(p.AsOf()) {
			cd = engine.OnOrAfter(engine.AddWeeks(p.AsOf(), releaseCDWeeks+releaseVinylToDistWeeks+1), time.Friday)
			p.Warn("CD_LEAD_TIME", "CD manufacturers quote up to 4 weeks from approved master and artwork, and stock needs 2 more weeks to reach the distributor; CDs cannot be ready by %s. Release digital on %s and the CD on %s.",
				engine.FormatDate(release), engine.FormatDate(release), engine.FormatDate(cd))
		}
		p.Set("cd_release_date", engine.FormatDate(cd))
	}
	return nil
}

func releaseSchedule(in *engine.Input, p *engine.Plan) error {
	release := p.GetDate("release_date")
	if p.Get("plan_kind") == "post_release" {
		p.Event("release-day", "Release day (already out)", release, "the release date the plan is built on")
		review := engine.Later(p.AsOf(), engine.AddDays(release, 28))
		p.Work("post-release-review", "Four-week review: streams, saves, playlist adds, sales", review)
		p.Set("post_release_review", engine.FormatDate(review))
		return nil
	}
	asOf := p.AsOf()
	kind := in.Str("release_type")
	singles := releaseFocusTracks(kind)
	first := engine.AddWeeks(release, -4*singles)
	r := in.Region()
	// Every pre-release date is clamped to the plan date; clamping keeps
	// their order because it is monotone.
	at := func(d time.Time) time.Time { return engine.Later(asOf, d) }
	delivery := at(p.Calendar().PrevWorkday(engine.AddDays(first, -releaseDistributorPlanDays)))
	// Artwork is locked a week before the delivery's actual (open) day.
	artwork := at(engine.AddDays(openDay(p, delivery, r), -7))
	var masters time.Time
	v := p.GetDate("vinyl_release_date")
	if !v.IsZero() {
		masters = at(p.Calendar().PrevWorkday(engine.AddWeeks(v, -(releaseVinylWeeks(v) + releaseVinylToDistWeeks))))
		artwork = engine.Earlier(artwork, at(engine.AddDays(openDay(p, masters, r), -7)))
	}
	var cdMaster time.Time
	cd := p.GetDate("cd_release_date")
	if !cd.IsZero() {
		cdMaster = at(p.Calendar().PrevWorkday(engine.AddWeeks(cd, -(releaseCDWeeks + releaseVinylToDistWeeks))))
		artwork = engine.Earlier(artwork, at(engine.AddDays(openDay(p, cdMaster, r), -7)))
	}
	// Hand-overs fall on open days; each stays after the one it needs.
	artwork = deliver(p, "artwork-metadata", "Final artwork, credits, ISRCs and metadata locked", artwork, r)
	delivery = deliver(p, "distributor-delivery", "Audio and metadata delivered to the distributor", delivery, r, artwork)
	p.DependsOn("distributor-delivery", "artwork-metadata")
	if !v.IsZero() {
		masters = deliver(p, "vinyl-masters", "Vinyl masters, final jacket and label artwork to the pressing plant", masters, r, artwork)
		stock := engine.AddWeeks(v, -releaseVinylToDistWeeks)
		p.Handover(engine.KindAction, "vinyl-test-pressings", "Approve vinyl test pressings", engine.Later(masters, at(engine.AddWeeks(masters, 6))))
		p.Handover(engine.KindDeliverable, "vinyl-stock", "Vinyl stock at the distributor", stock)
		if v.After(release) {
			p.Event("vinyl-release", "Vinyl release (Friday)", v, "Global Release Day (Friday)")
		}
		p.DependsOn("vinyl-masters", "artwork-metadata")
		p.DependsOn("vinyl-test-pressings", "vinyl-masters")
		p.DependsOn("vinyl-stock", "vinyl-test-pressings")
		p.Set("vinyl_masters_date", engine.FormatDate(masters))
	}
	if !cd.IsZero() {
		cdMaster = deliver(p, "cd-master", "CD master (DDP) and print-ready artwork to the manufacturer", cdMaster, r, artwork)
		p.Handover(engine.KindDeliverable, "cd-stock", "CD stock at the distributor", engine.AddWeeks(cd, -releaseVinylToDistWeeks))
		if cd.After(release) {
			p.Event("cd-release", "CD release (Friday)", cd, "Global Release Day (Friday)")
		}
		p.DependsOn("cd-master", "artwork-metadata")
		p.DependsOn("cd-stock", "cd-master")
		p.Set("cd_master_date", engine.FormatDate(cdMaster))
	}
	// Each focus track is a release of its own: pitched three weeks before
	// it comes out (at least 7 days), after the delivery that makes it
	// pitchable and after the previous focus track is out, since Spotify
	// takes one unreleased song a time per artist.
	var focus []map[string]any
	prev := ""
	for i := 1; i <= singles; i++ {
		d := engine.AddWeeks(release, -4*(singles-i+1))
		key := fmt.Sprintf("focus-track-%d", i)
		after := []time.Time{delivery}
		if i > 1 {
			after = append(after, engine.AddWeeks(d, -4))
		}
		deliver(p, key+"-pitch", fmt.Sprintf("Spotify editorial pitch for focus track %d submitted", i), at(engine.AddDays(d, -releasePitchDays)), r, after...)
		p.Event(key, fmt.Sprintf("Focus track %d released (Friday)", i), d, "Global Release Day (Friday)")
		p.DependsOn(key+"-pitch", "distributor-delivery")
		if prev != "" {
			p.DependsOn(key+"-pitch", prev)
		}
		p.DependsOn(key, key+"-pitch")
		focus = append(focus, map[string]any{"release": p.Ref(key), "pitch": p.Ref(key + "-pitch"),
			"pitch_deadline": p.Label(fmt.Sprintf("last day to pitch focus track %d (7 days out)", i), engine.AddDays(d, -7))})
		prev = key
	}
	if len(focus) > 0 {
		p.Set("focus_tracks", focus)
	}
	pitch := at(engine.AddDays(release, -releasePitchDays))
	pitchDeadline := engine.AddDays(release, -7)
	presaveWeeks := 3
	if kind == "album" {
		presaveWeeks = 4
	}
	announce := at(engine.AddDays(engine.AddWeeks(release, -presaveWeeks), -1))
	presave := engine.Later(engine.AddDays(announce, 1), engine.AddWeeks(release, -presaveWeeks))
	g := releaseGenreOf(in.Str("genre"))
	channel := at(engine.AddWeeks(release, -g.leadWeeks))

	pitchAfter := []time.Time{delivery}
	if singles > 0 {
		pitchAfter = append(pitchAfter, engine.AddWeeks(release, -4))
	}
	pitch = deliver(p, "editorial-pitch", "Spotify editorial pitch submitted", pitch, r, pitchAfter...)
	p.DependsOn("editorial-pitch", "distributor-delivery", prev)
	p.Work("lead-channel", "Lead channel starts: "+g.channelName, channel)
	p.Handover(engine.KindAnnounce, "announce", "Release announced", announce)
	p.Handover(engine.KindOnSale, "presave-opens", "Pre-save campaign opens", presave)
	p.Handover(engine.KindAction, "pitch-deadline", "Last working day for the editorial pitch (at least 7 days out)", pitchDeadline)
	p.Event("release-day", "Release day, Friday 00:01 local time", release, "the release date the plan is built on")
	p.Work("week-one-review", "First-week review: saves, playlist adds, Release Radar reach", engine.AddDays(release, 7))
	p.DependsOn("release-day", "distributor-delivery", "pitch-deadline")
	for i := 1; i <= singles; i++ {
		p.DependsOn(fmt.Sprintf("focus-track-%d", i), "distributor-delivery")
	}
	p.Set("distributor_delivery", engine.FormatDate(delivery))
	p.Set("artwork_final", engine.FormatDate(artwork))
	p.Set("presave_opens", engine.FormatDate(presave))
	p.Set("editorial_pitch", engine.FormatDate(pitch))
	p.Set("editorial_pitch_deadline", p.Ref("pitch-deadline"))
	p.Set("genre_family", g.family)
	p.Set("lead_channel", map[string]any{"channel": g.channelName, "starts": engine.FormatDate(channel)})
	return nil
}

// Manufacturing planning figures (US plants and duplicators, small runs,
// in US dollars): a 12" black 140 g LP with printed jacket costs about
// $1,000 in set-up (lacquers, plating, test pressings) plus $6 a unit; a
// CD in a wallet $300 plus $1.50; a cassette with J-card $100 plus $3. A
// plan in another currency converts them at the reference rate.
var releaseManufacturing = []struct {
	format         string
	setup, perUnit engine.Benchmark
}{
	{"vinyl", releaseMfg(1000, "vinyl LP set-up (lacquers, plating, test pressings)"), releaseMfg(6, "vinyl LP per unit")},
	{"cd", releaseMfg(300, "CD set-up"), releaseMfg(1.5, "CD in a wallet per unit")},
	{"cassette", releaseMfg(100, "cassette set-up"), releaseMfg(3, "cassette with J-card per unit")},
}

func releaseMfg(v float64, what string) engine.Benchmark {
	return engine.Benchmark{Amount: engine.InUSD(v), What: what, Source: "US pressing plants and duplicators, small-run quotes"}
}

// releaseMarketingLow is the marketing money under which paid promotion
// does little, a US-market figure.
var releaseMarketingLow = engine.Benchmark{Amount: engine.InUSD(500), What: "marketing budget under which paid promotion does little", Source: "independent release budgets, US market"}

// The marketing split follows what independent release budgets commonly
// spend, shifted by genre (see releaseGenre): paid promotion, PR, content,
// the genre's lead channel, and a reserve.
func releaseBudget(in *engine.Input, p *engine.Plan) error {
	if !in.Has("budget_usd") {
		return nil
	}
	b := in.Float("budget_usd")
	units := in.Int("physical_units")
	manufacturing := map[string]float64{}
	var made float64
	for _, m := range releaseManufacturing {
		if hasFormat(in, m.format) {
			c := in.RoundMinor(in.Benchmark(p, m.setup) + in.Benchmark(p, m.perUnit)*float64(units))
			manufacturing[m.format] = c
			made += c
		}
	}
	marketing := math.Max(0, b-made)
	g := releaseGenreOf(in.Str("genre"))
	split := map[string]float64{
		"paid_ads":       engine.Money(marketing * g.ads),
		"pr_playlisting": engine.Money(marketing * g.pr),
		"content":        engine.Money(marketing * g.content),
		"lead_channel":   engine.Money(marketing * g.channel),
	}
	split["contingency"] = engine.Money(marketing - split["paid_ads"] - split["pr_playlisting"] - split["content"] - split["lead_channel"])
	p.Set("budget", map[string]any{
		"total_usd":           engine.Money(b),
		"manufacturing_usd":   manufacturing,
		"manufacturing_units": units,
		"marketing_usd":       engine.Money(marketing),
		"split_usd":           split,
		"lead_channel":        g.channelName,
		"manufacturing_total": engine.Money(made),
	})
	if made > b {
		p.Warn("BUDGET_BELOW_MANUFACTURING", "Manufacturing %s of each physical format costs %s, more than the %s budget; nothing is left for marketing. Cut the run or the formats.",
			engine.Plural(units, "unit", "units"), in.Money(made), in.Money(b))
	} else if marketing < in.Benchmark(p, releaseMarketingLow)*(1-1e-9) {
		p.Warn("BUDGET_LOW", "%s left for marketing covers little paid promotion (under %s); lean on the editorial pitch, pre-save and organic content.", in.Money(marketing), in.BenchmarkText(p, releaseMarketingLow))
	}
	return nil
}

func releaseRecommend(in *engine.Input, p *engine.Plan) error {
	release := p.GetDate("release_date")
	artist, genre, kind := in.Str("artist"), in.Str("genre"), in.Str("release_type")
	g := releaseGenreOf(genre)
	if p.Get("plan_kind") == "post_release" {
		asOf := p.AsOf()
		p.RecommendBy(engine.High, asOf, "Pitch to independent playlist curators",
			fmt.Sprintf("Spotify editorial pitches are only for unreleased music; pitch the %s release to independent %s curators and keep it in Release Radar through new saves.", genre, g.family))
		p.RecommendBy(engine.Medium, p.GetDate("post_release_review"), "Review the first four weeks",
			"Compare streams, saves and listener sources against the plan and move the remaining budget to the channel that worked.")
		p.RecommendBy(engine.Medium, asOf, "Plan the next release", "Schedule the next single at least 28 days out so it can be delivered and pitched to editorial.")
		p.Strategy("%s's %s %s came out on %s; this post-release plan keeps it growing through curator playlists and %s, and sets up the next release.",
			artist, genre, kind, engine.FormatDate(release), g.channelName)
		return nil
	}
	delivery := p.GetDate("distributor_delivery")
	pitchDue := p.GetDate("editorial_pitch")
	p.RecommendBy(engine.High, pitchDue, "Pitch to Spotify editorial",
		fmt.Sprintf("Pitch one unreleased track from Spotify for Artists with genre %q, mood and instrumentation filled in; it must be in by %s (at least 7 days out) to reach followers' Release Radar.", genre, p.Get("editorial_pitch_deadline")))
	p.RecommendBy(engine.High, delivery, "Deliver to your distributor early",
		fmt.Sprintf("Deliver on %s, 21–28 days before the first release date, so stores ingest it, the release appears in Spotify for Artists for pitching, and pre-save links work.", engine.FormatDate(delivery)))
	p.RecommendBy(engine.High, p.GetDate("artwork_final"), "Finalise artwork and metadata",
		"Lock cover art, credits, ISRCs and (for physical formats) jacket and label print files before anything goes to the distributor or the plant.")
	p.RecommendBy(engine.Medium, p.GetDate("presave_opens"), "Run a pre-save campaign",
		"Open pre-saves 2–4 weeks before release and point every announcement at one smart link.")
	lc := p.Get("lead_channel").(map[string]any)
	lcDate, _ := engine.ParseDate(lc["starts"].(string))
	p.RecommendBy(engine.Medium, lcDate, "Start "+g.channelName, g.advice)
	if kind != "single" {
		lead := "Release a focus track on a Friday four weeks before the EP so it gets its own Release Radar and playlist cycle."
		if releaseFocusTracks(kind) > 1 {
			lead = fmt.Sprintf("Release %s four weeks apart on Fridays before the album so each gets its own Release Radar and playlist cycle.", engine.Plural(releaseFocusTracks(kind), "focus track", "focus tracks"))
		}
		p.Recommend(engine.Medium, "Lead with focus tracks", lead)
	}
	if m := p.GetDate("vinyl_masters_date"); !m.IsZero() {
		p.RecommendBy(engine.High, m, "Send vinyl masters and artwork to the plant",
			fmt.Sprintf("Plants quote 12–16 weeks from approved masters and final artwork (%d planned, the holiday rush included); send both by %s for stock at the distributor two weeks before the vinyl release on %s.",
				releaseVinylWeeks(p.GetDate("vinyl_release_date")), engine.FormatDate(m), p.Get("vinyl_release_date")))
	}
	if m := p.GetDate("cd_master_date"); !m.IsZero() {
		p.RecommendBy(engine.High, m, "Send the CD master and artwork to the manufacturer",
			fmt.Sprintf("Manufacturers quote one to four weeks from an approved DDP master and print-ready artwork (4 planned); send both by %s for stock at the distributor two weeks before the CD release on %s.",
				engine.FormatDate(m), p.Get("cd_release_date")))
	}
	if focus, ok := p.Get("focus_tracks").([]map[string]any); ok {
		for i, f := range focus {
			p.RecommendOn(engine.High, fmt.Sprintf("focus-track-%d-pitch", i+1), fmt.Sprintf("Pitch focus track %d to Spotify editorial", i+1),
				fmt.Sprintf("Focus track %d comes out on %s as a release of its own: pitch it from Spotify for Artists by %s (no later than %s, 7 days out) so it reaches followers' Release Radar; the EP or album pitch then uses a track still unreleased.",
					i+1, f["release"], f["pitch"], f["pitch_deadline"]))
		}
	}
	p.Recommend(engine.Low, "Plan week-one content", "Schedule short-form video and a behind-the-scenes post for release week; engagement in the first week feeds algorithmic playlists.")
	vinyl := ""
	if focus, ok := p.Get("focus_tracks").([]map[string]any); ok {
		for i, f := range focus {
			vinyl += fmt.Sprintf(" Focus track %d comes out on %s, pitched by %s.", i+1, f["release"], f["pitch"])
		}
	}
	if v, ok := p.Get("vinyl_release_date").(string); ok && v != engine.FormatDate(release) {
		vinyl += fmt.Sprintf(" The vinyl follows on %s.", v)
	}
	if c, ok := p.Get("cd_release_date").(string); ok && c != engine.FormatDate(release) {
		vinyl += fmt.Sprintf(" The CD follows on %s.", c)
	}
	p.Strategy("Release %s's %s %s on Friday %s: deliver to the distributor by %s, pitch Spotify editorial by %s, start %s on %s and open pre-saves %s, building towards release week.%s",
		artist, genre, kind, engine.FormatDate(release), engine.FormatDate(delivery), p.Get("editorial_pitch_deadline"),
		g.channelName, lc["starts"], p.Get("presave_opens"), vinyl)
	return nil
}

func hasFormat(in *engine.Input, f string) bool {
	for _, v := range in.Strings("formats") {
		if strings.EqualFold(v, f) {
			return true
		}
	}
	return false
}
