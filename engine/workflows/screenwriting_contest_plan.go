package workflows

import (
	"fmt"
	"sort"
	"strings"

	"github.com/creativeops/creativeops/engine"
)

// Screenplay contest and fellowship entry plan. Rules used:
//   - Contests publish early / regular / late deadlines with rising fees;
//     a script is entered at the cheapest deadline still open once it is
//     ready (the same tiering as film festivals on FilmFreeway).
//   - Readers expect industry lengths, one page ≈ one minute: features
//     90–120 pages, one-hour pilots 50–65, half-hour pilots 25–35. Many
//     contests also cap the page count; over the cap the entry is
//     disqualified or docked.
//   - Register the script, or evidence its authorship, before it goes to
//     readers, as the writer's country does it (the engine's rule table:
//     WGAW Registry and/or the US Copyright Office in the US, a dated
//     deposit where copyright is automatic, SACD in France).
//   - Contests are listed in order of preference; the fee budget is spent in
//     that order.
func init() {
	engine.Register(&engine.Workflow{
		ID:           "screenwriting-contest-plan",
		Name:         "Contest and fellowship entry plan",
		Vertical:     "screenwriting",
		PastDate:     engine.PastDate{Field: "contests", Policy: engine.PastSkip},
		Jurisdiction: []engine.Area{engine.AreaScriptRegistration},
		Description:  "Enters a script in contests and fellowships at the cheapest open deadline once it is ready, checks page count against industry norms and each contest's cap, and spends the fee budget in order of preference. A ready date already past means the draft is ready now; contests whose deadlines have all passed are reported, not entered.",
		Fields: []engine.Field{
			{Name: "script_format", Kind: engine.String, Enum: []string{"feature", "one_hour_pilot", "half_hour_pilot"}, Default: "feature", Description: "Format of the script."},
			{Name: "page_count", Kind: engine.Integer, Required: true, Min: engine.Bound(1), Max: engine.Bound(300), Description: "Page count of the draft to be entered."},
			{Name: "ready_date", Kind: engine.Date, Required: true, Description: "Date the draft is ready to enter."},
			{Name: "contests", Kind: engine.ObjectList, Required: true, Min: engine.Bound(1), Max: engine.Bound(30), Description: "Contests and fellowships in order of preference.", Items: []engine.Field{
				{Name: "name", Kind: engine.String, Required: true, Min: engine.Bound(1), Max: engine.Bound(200), Description: "Contest name."},
				{Name: "early_deadline", Kind: engine.Date, Description: "Early deadline."},
				{Name: "early_fee_usd", Kind: engine.Number, Money: true, Min: engine.Bound(0), Max: engine.Bound(1000), Description: "Entry fee at the early deadline."},
				{Name: "regular_deadline", Kind: engine.Date, Required: true, Description: "Regular deadline."},
				{Name: "regular_fee_usd", Kind: engine.Number, Money: true, Required: true, Min: engine.Bound(0), Max: engine.Bound(1000), Description: "Entry fee at the regular deadline."},
				{Name: "late_deadline", Kind: engine.Date, Description: "Late deadline."},
				{Name: "late_fee_usd", Kind: engine.Number, Money: true, Min: engine.Bound(0), Max: engine.Bound(1000), Description: "Entry fee at the late deadline."},
				{Name: "max_pages", Kind: engine.Integer, Min: engine.Bound(1), Max: engine.Bound(400), Description: "Page cap, if the contest has one."},
				{Name: "notification_date", Kind: engine.Date, Description: "Date winners or finalists are announced."},
			}},
			{Name: "budget_usd", Kind: engine.Number, Money: true, Min: engine.Bound(0), Max: engine.Bound(100000), Description: "Total entry-fee budget."},
			engine.RegionField(),
			{Name: "registered", Kind: engine.Boolean, Default: false, Description: "Whether the script is already registered or its authorship evidenced as the writer's country does it (WGAW Registry or Copyright Office in the US; a dated deposit elsewhere)."},
			engine.CurrencyField("USD"),
		},
		ExampleContext: map[string]any{
			"script_format": "feature",
			"page_count":    112,
			"ready_date":    "2027-02-15",
			"contests": []any{
				map[string]any{"name": "Westside Screenwriting Fellowship", "early_deadline": "2027-03-02", "early_fee_usd": 50, "regular_deadline": "2027-04-01", "regular_fee_usd": 70, "late_deadline": "2027-05-01", "late_fee_usd": 90, "max_pages": 120, "notification_date": "2027-10-15"},
				map[string]any{"name": "Lone Star Screenplay Competition", "early_deadline": "2027-03-25", "early_fee_usd": 55, "regular_deadline": "2027-04-15", "regular_fee_usd": 70, "late_deadline": "2027-05-20", "late_fee_usd": 85, "notification_date": "2027-09-01"},
				map[string]any{"name": "Mountain Writers Lab", "regular_deadline": "2027-05-01", "regular_fee_usd": 40, "notification_date": "2027-11-15"},
				map[string]any{"name": "Open Page Awards", "early_deadline": "2027-01-15", "early_fee_usd": 39, "regular_deadline": "2027-03-15", "regular_fee_usd": 59, "late_deadline": "2027-04-15", "late_fee_usd": 79, "max_pages": 110, "notification_date": "2027-10-01"},
			},
			"budget_usd": 200,
			"as_of":      "2026-11-20",
		},
		Sources: []engine.Source{
			{Title: "WGAW Registry: fees and term of registration", URL: "https://www.wgawregistry.org/", Checked: "2026-11"},
			{Title: "U.S. Copyright Office: fees (Single and Standard Application)", URL: "https://www.copyright.gov/about/fees.html", Checked: "2026-11"},
		},
		Steps: []engine.Step{
			{Name: "check-pages", Run: scriptContestPages},
			{Name: "pick-deadlines", Run: scriptContestPick},
			{Name: "recommend", Run: scriptContestRecommend},
		},
	})
}

var scriptContestRanges = map[string][2]int{
	"feature":         {90, 120},
	"one_hour_pilot":  {50, 65},
	"half_hour_pilot": {25, 35},
}

func scriptContestPages(in *engine.Input, p *engine.Plan) error {
	r := scriptContestRanges[in.Str("script_format")]
	pages := in.Int("page_count")
	p.Set("page_range", r)
	if pages < r[0] || pages > r[1] {
		p.Warn("PAGE_COUNT_OUT_OF_RANGE", "%s is outside the %d–%d pages readers expect for a %s; %s.",
			engine.Plural(pages, "page", "pages"), r[0], r[1], strings.ReplaceAll(in.Str("script_format"), "_", " "),
			map[bool]string{true: "cut " + engine.Plural(pages-r[1], "page", "pages"), false: "it reads " + engine.Plural(r[0]-pages, "page", "pages") + " short"}[pages > r[1]])
	}
	_, known := in.Rule(p, engine.AreaScriptRegistration)
	if !in.Bool("registered") && (!known || in.Region() != engine.RegionUS) {
		p.Warn("NOT_REGISTERED", "The script's authorship is not yet registered or evidenced; before it goes to readers, by %s: %s",
			engine.FormatDate(engine.Later(p.AsOf(), in.Date("ready_date"))), scriptRegistrationAdvice(in))
	} else if !in.Bool("registered") {
		p.Warn("NOT_REGISTERED", "The script is not registered; register it with the WGAW Registry (%s, %s for members) or the Copyright Office (%s single author) before it goes to readers, by %s.", in.MoneyIn(20, "USD"), in.MoneyIn(10, "USD"), in.MoneyIn(45, "USD"), engine.FormatDate(engine.Later(p.AsOf(), in.Date("ready_date"))))
	}
	return nil
}

func scriptContestPick(in *engine.Input, p *engine.Plan) error {
	ready := engine.Later(p.AsOf(), in.Date("ready_date"))
	pages := in.Int("page_count")
	budget, capped := in.Float("budget_usd"), in.Has("budget_usd")
	var spent, saved float64
	entries := []map[string]any{}
	dropped := []string{}
	for _, c := range in.List("contests") {
		tiers := []engine.FeeTier{
			{Name: "early", Deadline: c.Date("early_deadline"), FeeUSD: c.Float("early_fee_usd")},
			{Name: "regular", Deadline: c.Date("regular_deadline"), FeeUSD: c.Float("regular_fee_usd")},
			{Name: "late", Deadline: c.Date("late_deadline"), FeeUSD: c.Float("late_fee_usd")},
		}
		// Tiers are taken in deadline order whatever their names, so a
		// listing typed out of order is still entered at the cheapest open
		// deadline.
		sort.SliceStable(tiers, func(i, j int) bool { return tiers[i].Deadline.Before(tiers[j].Deadline) })
		name := c.Str("name")
		if c.Has("max_pages") && pages > c.Int("max_pages") {
			p.Warn("PAGE_LIMIT_EXCEEDED", "%s caps entries at %s; the %d-page draft must lose %s to enter.", name, engine.Plural(c.Int("max_pages"), "page", "pages"), pages, engine.Plural(pages-c.Int("max_pages"), "page", "pages"))
			continue
		}
		t, ok := engine.CheapestOpenTier(tiers, ready)
		if !ok {
			p.Warn("DEADLINE_PASSED", "Every %s deadline has passed by %s; enter next year's cycle.", name, engine.FormatDate(ready))
			continue
		}
		if capped && spent+t.FeeUSD > budget {
			dropped = append(dropped, name)
			continue
		}
		spent += t.FeeUSD
		saved += engine.LastTierFee(tiers) - t.FeeUSD
		e := map[string]any{"contest": name, "deadline": t.Name, "submit_by": engine.FormatDate(t.Deadline), "fee_usd": t.FeeUSD}
		// The next deadline is the fallback if the draft needs one more
		// pass: what waiting for it costs.
		for _, next := range tiers {
			if next.Deadline.After(t.Deadline) {
				e["fallback_deadline"], e["fallback_submit_by"], e["fallback_extra_usd"] = next.Name, engine.FormatDate(next.Deadline), engine.Money(next.FeeUSD-t.FeeUSD)
				break
			}
		}
		slug := slugKey(name)
		p.Milestone("enter-"+slug, fmt.Sprintf("Enter %s (%s deadline, %s)", name, t.Name, in.Money(t.FeeUSD)), t.Deadline)
		if c.Has("notification_date") {
			if n := c.Date("notification_date"); n.After(t.Deadline) {
				e["notification_date"] = engine.FormatDate(n)
				p.Event("results-"+slug, name+" results", n, "the contest announces results on its own schedule")
			} else {
				p.Warn("NOTIFICATION_BEFORE_DEADLINE", "%s lists results on %s, not after the %s deadline entered (%s); check the contest's dates.", name, engine.FormatDate(n), t.Name, engine.FormatDate(t.Deadline))
			}
		}
		entries = append(entries, e)
	}
	if len(dropped) > 0 {
		p.Warn("OVER_BUDGET", "The %s budget is spent after %s; %s left out.", in.Money(budget), in.Money(spent), strings.Join(dropped, ", "))
	}
	p.Deliverable("script-ready", "Contest draft ready (proofed, title page without contact details if required)", ready, in.Region())
	// Every entry needs the draft; results come after the entry.
	for _, m := range p.Milestones() {
		if slug, ok := strings.CutPrefix(m.Key, "enter-"); ok {
			p.DependsOn(m.Key, "script-ready")
			p.DependsOn("results-"+slug, m.Key)
		}
	}
	// The plan works towards the first entry deadline.
	target := ready
	for i, e := range entries {
		if d, _ := engine.ParseDate(e["submit_by"].(string)); i == 0 || d.Before(target) {
			target = d
		}
	}
	p.SetTarget(target)
	p.Set("entries", entries)
	p.Set("left_out", dropped)
	p.Set("fees", map[string]any{"total_usd": engine.Money(spent), "saved_vs_late_usd": engine.Money(saved)})
	return nil
}

func scriptContestRecommend(in *engine.Input, p *engine.Plan) error {
	entries := p.Get("entries").([]map[string]any)
	sorted := append([]map[string]any(nil), entries...)
	sort.SliceStable(sorted, func(i, j int) bool { return sorted[i]["submit_by"].(string) < sorted[j]["submit_by"].(string) })
	for _, e := range sorted {
		due, _ := engine.ParseDate(e["submit_by"].(string))
		detail := fmt.Sprintf("Enter at the %s deadline for %s.", e["deadline"], in.Money(e["fee_usd"].(float64)))
		if fb, ok := e["fallback_submit_by"].(string); ok {
			detail += fmt.Sprintf(" If the draft needs another pass, the %s deadline (%s) costs %s more.", e["fallback_deadline"], fb, in.Money(e["fallback_extra_usd"].(float64)))
		}
		p.RecommendBy(engine.High, due, "Enter "+e["contest"].(string), detail)
	}
	if len(entries) == 0 {
		p.Recommend(engine.High, "Find open contests", "No listed contest is open for this draft: add contests whose deadlines fall after the ready date and whose page caps the draft meets.")
	}
	p.Recommend(engine.Medium, "Enter once, with the best draft",
		"Most contests charge again for a revised draft; enter at the early deadline only if the draft is final, otherwise use the regular deadline.")
	p.Recommend(engine.Low, "Plan for the results",
		"Have a second sample and a logline-and-bio query ready for when placements are announced; managers read quarter-finalists and up.")
	fees := p.Get("fees").(map[string]any)
	p.Strategy("Enter the %d-page %s in %s for %s in fees (saving %s against late deadlines) once ready on %s; %d left out by budget.",
		in.Int("page_count"), strings.ReplaceAll(in.Str("script_format"), "_", " "), engine.Plural(len(entries), "contest", "contests"), in.Money(fees["total_usd"].(float64)), in.Money(fees["saved_vs_late_usd"].(float64)),
		engine.FormatDate(engine.Later(p.AsOf(), in.Date("ready_date"))), len(p.Get("left_out").([]string)))
	return nil
}
