package workflows

import (
	"fmt"
	"math"
	"strings"
	"time"

	"github.com/creativeops/creativeops/engine"
)

// Writing schedule for a spec script, backwards from the date it must go out
// (a contest or fellowship deadline, a manager meeting). Rules used:
//   - One page ≈ one minute of screen time. Target lengths: feature 110
//     pages (90–120), one-hour pilot 58 (50–65), half-hour pilot 32 (25–35).
//   - Outline weeks: 4 for a feature, 2 for a pilot. A sustainable first
//     draft pace is 2–5 pages a writing day (3 by default); more than 5 is a
//     crunch few drafts survive.
//   - Every rewrite pass follows a week of notes from trusted readers;
//     a pass takes 3 weeks on a feature, 2 on a one-hour pilot, 1 on a half
//     hour. A final week of polish and proofreading.
//   - Register before the script goes out: WGAW Registry $20 ($10 for
//     members), valid 5 years; US Copyright Office eCO $45 for a single
//     author (Single Application) or $65 for co-written scripts (Standard),
//     for a US writer. Elsewhere the guild and registration advice is the
//     country's, from the engine's rule table (UK, Australia, Germany:
//     copyright is automatic, keep dated evidence; France: SACD deposit;
//     Japan: optional Agency for Cultural Affairs registration); a country
//     it does not cover is warned about.
func init() {
	engine.Register(&engine.Workflow{
		ID:           "screenwriting-draft-schedule",
		Name:         "Spec script writing schedule",
		Vertical:     "screenwriting",
		PastDate:     engine.PastDate{Field: "target_date", Policy: engine.PastReplan},
		Jurisdiction: []engine.Area{engine.AreaScriptRegistration},
		Description:  "Schedules outline, first draft, notes, rewrite passes, polish and registration backwards from a submission date, checks the page-a-day pace it needs, and gives the writer's country's guild and registration advice (US: WGAW Registry and Copyright Office fees; UK, Australia, Germany: copyright is automatic, keep dated evidence; France: SACD deposit; Japan: optional Agency for Cultural Affairs registration). A target date already past, or one the writing cannot fit at a sustainable pace, is re-planned to the earliest date at the writer's pace.",
		Fields: []engine.Field{
			{Name: "format", Kind: engine.String, Enum: []string{"feature", "one_hour_pilot", "half_hour_pilot"}, Default: "feature", Description: "What is being written."},
			{Name: "target_date", Kind: engine.Date, Required: true, Description: "Date the finished script must go out."},
			{Name: "pages_per_day", Kind: engine.Number, Default: 3, Min: engine.Bound(0.5), Max: engine.Bound(15), Description: "First-draft pages per writing day."},
			{Name: "writing_days_per_week", Kind: engine.Integer, Default: 5, Min: engine.Bound(1), Max: engine.Bound(7), Description: "Writing days per week."},
			{Name: "rewrite_passes", Kind: engine.Integer, Default: 2, Min: engine.Bound(0), Max: engine.Bound(5), Description: "Rewrite passes after the first draft."},
			{Name: "writers", Kind: engine.Integer, Default: 1, Min: engine.Bound(1), Max: engine.Bound(4), Description: "Number of credited writers."},
			engine.RegionField(),
			{Name: "wga_member", Kind: engine.Boolean, Default: false, Description: "Whether the writer is a WGA member (WGAW Registry discount; US writers)."},
			engine.CurrencyField("USD"),
		},
		ExampleContext: map[string]any{
			"format":                "one_hour_pilot",
			"target_date":           "2027-05-01",
			"pages_per_day":         3,
			"writing_days_per_week": 4,
			"rewrite_passes":        2,
			"writers":               1,
			"as_of":                 "2026-11-20",
		},
		Sources: []engine.Source{
			{Title: "WGAW Registry: fees and term of registration", URL: "https://www.wgawregistry.org/", Checked: "2026-11"},
			{Title: "U.S. Copyright Office: fees (Single and Standard Application)", URL: "https://www.copyright.gov/about/fees.html", Checked: "2026-11"},
		},
		Steps: []engine.Step{
			{Name: "size", Run: scriptDraftSize},
			{Name: "schedule", Run: scriptDraftSchedule},
			{Name: "recommend", Run: scriptDraftRecommend},
		},
	})
}

type scriptDraftFormat struct {
	pages, outlineWeeks, passWeeks int
}

var scriptDraftFormats = map[string]scriptDraftFormat{
	"feature":         {110, 4, 3},
	"one_hour_pilot":  {58, 2, 2},
	"half_hour_pilot": {32, 2, 1},
}

const scriptDraftMaxPace = 5.0

func scriptDraftWeeks(in *engine.Input, pace float64) (draftWeeks, otherWeeks int) {
	f := scriptDraftFormats[in.Str("format")]
	days := math.Ceil(float64(f.pages) / pace)
	draftWeeks = int(math.Ceil(days / float64(in.Int("writing_days_per_week"))))
	// Notes + pass for every rewrite, plus a week of polish.
	otherWeeks = f.outlineWeeks + in.Int("rewrite_passes")*(1+f.passWeeks) + 1
	return draftWeeks, otherWeeks
}

func scriptFee(usd float64, what, source string) engine.Benchmark {
	return engine.Benchmark{Amount: engine.InUSD(usd), What: what, Source: source}
}

func scriptDraftSize(in *engine.Input, p *engine.Plan) error {
	f := scriptDraftFormats[in.Str("format")]
	draft, other := scriptDraftWeeks(in, in.Float("pages_per_day"))
	p.Set("target_pages", f.pages)
	p.Set("weeks", map[string]int{"outline": f.outlineWeeks, "first_draft": draft, "notes_and_rewrites": in.Int("rewrite_passes") * (1 + f.passWeeks), "polish": 1, "total": draft + other})
	// The guild and the registration the writer's country has; US fees
	// only for a US writer.
	fees := map[string]float64{"wga_registry_usd": 0, "copyright_usd": 0, "total_usd": 0}
	if _, ok := in.Rule(p, engine.AreaScriptRegistration); !ok || in.Region() != engine.RegionUS {
		p.Set("registration_fees", fees)
		return nil
	}
	// Both registries charge US dollars: converted into the plan's
	// currency at the reference rate (money_basis says how).
	wga := scriptFee(20, "WGAW Registry fee", "https://www.wgawregistry.org/")
	if in.Bool("wga_member") {
		wga = scriptFee(10, "WGAW Registry fee (member)", "https://www.wgawregistry.org/")
	}
	copyright := scriptFee(45, "US Copyright Office fee (Single Application)", "https://www.copyright.gov/about/fees.html")
	if in.Int("writers") > 1 {
		copyright = scriptFee(65, "US Copyright Office fee (Standard Application)", "https://www.copyright.gov/about/fees.html")
	}
	fees = map[string]float64{"wga_registry_usd": engine.Money(in.Benchmark(p, wga)), "copyright_usd": engine.Money(in.Benchmark(p, copyright))}
	fees["total_usd"] = engine.Money(fees["wga_registry_usd"] + fees["copyright_usd"])
	p.Set("registration_fees", fees)
	return nil
}

// scriptDraftBack schedules the writing backwards from the date the script
// goes out.
func scriptDraftBack(target time.Time, weeks map[string]int, outlineWeeks int) (polish, rewritesStart, draftStart, outlineStart time.Time) {
	polish = engine.AddWeeks(target, -1)
	rewritesStart = engine.AddWeeks(polish, -weeks["notes_and_rewrites"])
	draftStart = engine.AddWeeks(rewritesStart, -weeks["first_draft"])
	outlineStart = engine.AddWeeks(draftStart, -outlineWeeks)
	return
}

// scriptDraftSchedule plans on the requested date when the writing fits,
// or fits at a faster but sustainable first-draft pace; otherwise the plan
// moves to the earliest date the work fits at the writer's pace.
func scriptDraftSchedule(in *engine.Input, p *engine.Plan) error {
	f := scriptDraftFormats[in.Str("format")]
	r := in.Region()
	requested := in.Date("target_date")
	target := requested
	weeks := p.Get("weeks").(map[string]int)
	_, rewritesStart, draftStart, outlineStart := scriptDraftBack(target, weeks, f.outlineWeeks)

	if outlineStart.Before(p.AsOf()) {
		earliest := p.Calendar().NextWorkday(engine.AddWeeks(p.AsOf(), weeks["total"]))
		// Weeks left for the first draft once outline, notes, rewrites and
		// polish are kept whole.
		_, other := scriptDraftWeeks(in, in.Float("pages_per_day"))
		left := engine.DaysBetween(p.AsOf(), target)/7 - other
		need := 0.0
		if left > 0 {
			need = engine.Round(float64(f.pages)/float64(left*in.Int("writing_days_per_week")), 1)
		}
		switch {
		case target.Before(p.AsOf()):
			p.Warn("TARGET_DATE_PASSED", "The target %s is before the plan date %s; at %.1f pages a day the earliest date is %s.",
				engine.FormatDate(target), engine.FormatDate(p.AsOf()), in.Float("pages_per_day"), engine.FormatDate(earliest))
			p.Replanned(requested, earliest, "The target date has passed.")
			target = earliest
		case left <= 0:
			p.Warn("SCHEDULE_INFEASIBLE", "Outline, %s and polish alone need %s but only %s remain before %s; the earliest feasible date at %.1f pages a day is %s, or cut rewrite passes.",
				engine.Plural(in.Int("rewrite_passes"), "rewrite pass", "rewrite passes"), engine.Plural(other, "week", "weeks"), engine.Plural(engine.DaysBetween(p.AsOf(), target)/7, "week", "weeks"),
				engine.FormatDate(target), in.Float("pages_per_day"), engine.FormatDate(earliest))
			p.Replanned(requested, earliest, "The outline, notes, rewrites and polish do not fit before the target date.")
			target = earliest
		case need > scriptDraftMaxPace:
			p.Warn("PACE_UNREALISTIC", "Starting today leaves %s for the first draft: %.1f pages a day instead of %.1f, above the sustainable %.0f. At your pace the earliest date is %s.",
				engine.Plural(left, "week", "weeks"), need, in.Float("pages_per_day"), scriptDraftMaxPace, engine.FormatDate(earliest))
			p.Replanned(requested, earliest, fmt.Sprintf("Making the date would take %.1f pages a day, above the sustainable %.0f.", need, scriptDraftMaxPace))
			target = earliest
		default:
			// A faster first draft, still sustainable, keeps the date (the
			// pace the plan asks for is read from the settled dates).
			p.Warn("PACE_INCREASE_NEEDED", "Starting today leaves %s for the first draft: %.1f pages a day instead of %.1f (sustainable is up to %.0f). At your pace the earliest date is %s.",
				engine.Plural(left, "week", "weeks"), need, in.Float("pages_per_day"), scriptDraftMaxPace, engine.FormatDate(earliest))
			p.Set("earliest_feasible_target", p.Label("earliest target at your own pace", earliest))
		}
		if !target.Equal(requested) {
			p.Set("earliest_feasible_target", engine.FormatDate(target))
			_, rewritesStart, draftStart, outlineStart = scriptDraftBack(target, weeks, f.outlineWeeks)
		} else {
			outlineStart = p.AsOf()
			draftStart = engine.AddWeeks(outlineStart, f.outlineWeeks)
		}
	}
	p.SetTarget(target)
	register := p.Calendar().PrevWorkday(engine.AddDays(target, -3))
	p.Work("outline-start", "Outline and beat sheet begin", outlineStart)
	if draftStart.After(outlineStart) {
		p.Work("first-draft-start", "First draft begins", draftStart)
	}
	// A draft due in a closed week is handed over before it, unless that
	// would be before the draft starts; then on the first open day after.
	done := rewritesStart
	if p.Calendar().Closed(done) && p.Calendar().PrevWorkday(done).Before(engine.Later(draftStart, p.AsOf())) {
		done = p.Calendar().NextWorkday(done)
	}
	p.Deliverable("first-draft-done", "First draft finished; out to readers for notes", done, r)
	for i := 1; i <= in.Int("rewrite_passes"); i++ {
		p.Deliverable(fmt.Sprintf("rewrite-%d-done", i), fmt.Sprintf("Rewrite pass %d finished", i), engine.AddWeeks(rewritesStart, i*(1+f.passWeeks)), r)
	}
	p.Deliverable("registered", scriptRegisteredTitle(in), register, r)
	p.Handover(engine.KindDeliverable, "target", "Script goes out", target)
	p.DependsOn("first-draft-done", "outline-start", "first-draft-start")
	prev := "first-draft-done"
	for i := 1; i <= in.Int("rewrite_passes"); i++ {
		key := fmt.Sprintf("rewrite-%d-done", i)
		p.DependsOn(key, prev)
		prev = key
	}
	p.DependsOn("registered", prev)
	p.DependsOn("target", "registered")
	draftKey := "outline-start"
	if draftStart.After(outlineStart) {
		draftKey = "first-draft-start"
	}
	p.Set("schedule", map[string]string{
		"outline_start": p.Ref("outline-start"), "first_draft_start": p.Ref(draftKey),
		"first_draft_done": p.Ref("first-draft-done"), "register_by": p.Ref("registered"), "target": p.Ref("target"),
	})
	return nil
}

func scriptDraftRecommend(in *engine.Input, p *engine.Plan) error {
	s := p.Get("schedule").(map[string]string)
	fees := p.Get("registration_fees").(map[string]float64)
	// The pace the settled plan needs: the pages over the writing days
	// between the settled start of the draft and its settled end; the
	// writer's own pace when that is enough.
	p.Settle()
	from := p.DateOf("first-draft-start")
	if from.IsZero() {
		from = p.DateOf("outline-start")
	}
	pace := in.Float("pages_per_day")
	if days := float64(engine.DaysBetween(from, p.DateOf("first-draft-done"))) / 7 * float64(in.Int("writing_days_per_week")); days > 0 {
		if need := engine.Round(float64(p.Get("target_pages").(int))/days, 1); need > pace {
			pace = need
			p.Set("required_pages_per_day", need)
		}
	}
	p.RecommendOn(engine.High, "first-draft-done", "Protect the first-draft block",
		fmt.Sprintf("Write %.1f pages a day, %s a week, to reach about %d pages by %s; do not rewrite while drafting.", pace, engine.Plural(in.Int("writing_days_per_week"), "day", "days"), p.Get("target_pages").(int), s["first_draft_done"]))
	register := fmt.Sprintf("Register the final draft with the WGAW Registry (%s, five years) and the Copyright Office (%s); the copyright registration is what allows an infringement suit.", in.Money(fees["wga_registry_usd"]), in.Money(fees["copyright_usd"]))
	if in.Region() != engine.RegionUS {
		register = scriptRegistrationAdvice(in)
	}
	p.RecommendOn(engine.Medium, "registered", "Register or evidence authorship before it goes out", register)
	p.Recommend(engine.Medium, "Line up readers before the draft is done",
		"Book two or three trusted readers for the notes week after each draft, so no pass waits on feedback.")
	registerBy := "register by " + s["register_by"] + " (" + in.Money(fees["total_usd"]) + ")"
	if in.Region() != engine.RegionUS {
		registerBy = "evidence authorship by " + s["register_by"]
	}
	p.Strategy("Write a %d-page %s: outline from %s, first draft to %s at %.1f pages a day, %s with notes, polish and %s for %s.",
		p.Get("target_pages").(int), strings.ReplaceAll(in.Str("format"), "_", " "), s["outline_start"], s["first_draft_done"], pace, engine.Plural(in.Int("rewrite_passes"), "rewrite pass", "rewrite passes"),
		registerBy, s["target"])
	return nil
}

// scriptRegisteredTitle names the registration step by the writer's
// country: the US registries for a US writer, the country's own
// registration or evidence elsewhere.
func scriptRegisteredTitle(in *engine.Input) string {
	rule, ok := engine.RuleOf(in.Region(), engine.AreaScriptRegistration)
	switch {
	case in.Region() == engine.RegionUS:
		return "Registered with the WGAW Registry and the Copyright Office"
	case ok:
		return "Authorship registered or evidenced (" + rule.Registry + ")"
	}
	return "Dated evidence of authorship kept (check " + in.Region().Name() + "'s registration options)"
}

// scriptRegistrationAdvice is the country's guild and registration advice
// for a writer outside the US, from the rule table; where the table does
// not cover the country (a JURISDICTION_UNKNOWN warning says so), what is
// true everywhere under the Berne Convention.
func scriptRegistrationAdvice(in *engine.Input) string {
	if rule, ok := engine.RuleOf(in.Region(), engine.AreaScriptRegistration); ok {
		return fmt.Sprintf("%s. Guild: %s.", rule.Rule, rule.Guild)
	}
	return fmt.Sprintf("Copyright arises on creation in every Berne Convention country; keep dated evidence of authorship (dated drafts, a sealed dated copy) and check whether %s has a registry or a writers' guild that offers one.", in.Region().Name())
}
