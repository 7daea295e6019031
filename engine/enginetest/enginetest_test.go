package enginetest

import (
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/creativeops/creativeops/engine"
)

var asOf = time.Date(2026, 11, 20, 0, 0, 0, 0, time.UTC)

// testWorkflow plans a release: a deliverable 30 days before the release
// date, the release itself, and advice due on the deliverable's date.
func testWorkflow() *engine.Workflow {
	if w, ok := engine.LookupWorkflow("enginetest-release"); ok {
		return w
	}
	engine.Register(&engine.Workflow{
		ID: "enginetest-release", Name: "Release", Vertical: "music", Description: "test",
		Fields: []engine.Field{
			{Name: "release_date", Kind: engine.Date, Required: true},
			{Name: "format", Kind: engine.String, Enum: []string{"digital", "vinyl"}, Default: "digital"},
			{Name: "copies", Kind: engine.Integer, Min: engine.Bound(1), Max: engine.Bound(5000), Default: 100},
			{Name: "label", Kind: engine.String, Max: engine.Bound(40)},
			// rush is absent from the example: its default must be varied
			// away from, not flipped from false.
			{Name: "rush", Kind: engine.Boolean, Default: true},
			{Name: "tracks", Kind: engine.ObjectList, Min: engine.Bound(1), Max: engine.Bound(30), Items: []engine.Field{
				{Name: "title", Kind: engine.String, Required: true},
				{Name: "minutes", Kind: engine.Number, Min: engine.Bound(0.5), Max: engine.Bound(30), Required: true},
			}},
			engine.RegionField(),
		},
		ExampleContext: map[string]any{"releaseDate": "2027-03-05", "tracks": []any{map[string]any{"title": "One", "minutes": 3.5}}},
		Steps: []engine.Step{{Name: "plan", Run: func(in *engine.Input, p *engine.Plan) error {
			release := in.Date("release_date")
			lead := 30
			if !in.Bool("rush") {
				lead = 45
			}
			if in.Str("format") == "vinyl" {
				lead = 120
			}
			if in.Int("copies") > 1000 {
				lead += 14
			}
			feasible := engine.Later(release, engine.AddDays(p.AsOf(), lead))
			if !feasible.Equal(release) {
				p.Replanned(release, feasible, "Too close.")
			}
			p.SetTarget(feasible)
			due := engine.AddDays(feasible, -lead)
			p.Deliverable("deliver", "Deliver masters", due, in.Region())
			p.Milestone("release", "Release", feasible)
			p.DependsOn("release", "deliver")
			mins := 0.0
			for _, t := range in.List("tracks") {
				mins += t.Float("minutes")
			}
			p.Set("minutes", mins)
			p.Strategy("Release %s on %s.", in.Str("label"), engine.FormatDate(feasible))
			p.RecommendOn(engine.High, "deliver", "Deliver", "Deliver the masters by "+p.Ref("deliver")+".")
			return nil
		}}},
	})
	w, _ := engine.LookupWorkflow("enginetest-release")
	return w
}

func rules(ps []Problem) []string {
	var out []string
	for _, p := range ps {
		out = append(out, p.Rule)
	}
	return out
}

func TestViolationsCleanResult(t *testing.T) {
	w := testWorkflow()
	for _, ctx := range GenerateContexts(w, asOf, 200, 7) {
		res, err := Run(w, ctx, asOf)
		if err != nil {
			t.Fatalf("%v: %v", ctx, err)
		}
		CheckInvariants(t, w, ctx, res)
	}
}

func TestViolationsFindEachRule(t *testing.T) {
	w := testWorkflow()
	res, err := Run(w, Example(w, asOf), asOf)
	if err != nil {
		t.Fatal(err)
	}
	ms := func(r map[string]any) []any { return r["timeline"].(map[string]any)["milestones"].([]any) }
	tests := []struct {
		rule   string
		mutate func(r map[string]any)
	}{
		{RuleDueBeforeAsOf, func(r map[string]any) {
			r["recommendations"].([]any)[0].(map[string]any)["due_date"] = "2026-11-19"
		}},
		{RuleSilentPastMilestone, func(r map[string]any) {
			m := ms(r)[0].(map[string]any)
			m["date"], m["passed"], m["days_from_as_of"] = "2026-11-18", true, float64(-2)
			r["timeline"].(map[string]any)["start"] = "2026-11-18"
		}},
		{RulePassedFlag, func(r map[string]any) { ms(r)[0].(map[string]any)["passed"] = true }},
		{RuleMilestoneOrder, func(r map[string]any) {
			l := ms(r)
			l[0], l[1] = l[1], l[0]
		}},
		{RuleDependencyOrder, func(r map[string]any) { ms(r)[1].(map[string]any)["after"] = []any{"nope"} }},
		{RuleFeasible, func(r map[string]any) { r["timeline"].(map[string]any)["feasible_date"] = "2026-11-01" }},
		{RuleReplanIgnored, func(r map[string]any) {
			r["timeline"].(map[string]any)["feasible_date"] = "2027-03-12"
			r["timeline"].(map[string]any)["requested_date"] = "2027-03-05"
			r["warnings"] = []any{map[string]any{"code": "REPLANNED", "message": "Moved."}}
		}},
		{RuleClosedDeliverable, func(r map[string]any) {
			m := ms(r)[0].(map[string]any)
			m["date"], m["days_from_as_of"] = "2026-11-26", float64(6) // Thanksgiving
			r["timeline"].(map[string]any)["start"] = "2026-11-26"
		}},
		{RuleClosedHandover, func(r map[string]any) {
			m := ms(r)[0].(map[string]any)
			m["date"], m["days_from_as_of"], m["kind"] = "2026-11-26", float64(6), "payment" // Thanksgiving
			delete(m, "deliverable")
			r["timeline"].(map[string]any)["start"] = "2026-11-26"
		}},
		{RuleClosedHandover, func(r map[string]any) {
			// 2027-02-09 is a working day in the US but inside the
			// Chinese New Year factory closure a plan may declare.
			m := ms(r)[0].(map[string]any)
			m["date"], m["days_from_as_of"] = "2027-02-09", float64(81)
			r["timeline"].(map[string]any)["start"] = "2027-02-09"
			r["timeline"].(map[string]any)["closures"] = []any{"factory-new-year"}
		}},
		{RuleKind, func(r map[string]any) { delete(ms(r)[0].(map[string]any), "kind") }},
		{RuleArrivalEarlier, func(r map[string]any) {
			m := ms(r)[0].(map[string]any)
			m["kind"], m["moved_from"] = "arrival", "2027-12-01"
			delete(m, "deliverable")
		}},
		{RulePrecedence, func(r map[string]any) {
			r["timeline"].(map[string]any)["precedences"] = []any{map[string]any{"before": "deliver", "after": "release", "min_working_days": float64(200)}}
		}},
		{RulePrecedence, func(r map[string]any) {
			r["timeline"].(map[string]any)["precedences"] = []any{map[string]any{"before": "deliver", "after": "gone", "min_working_days": float64(0)}}
		}},
		{RuleStrayDate, func(r map[string]any) { r["strategy"] = "Release on 2027-03-04." }},
		{RuleStrayDate, func(r map[string]any) {
			r["recommendations"].([]any)[0].(map[string]any)["due_date"] = "2027-02-15"
		}},
		{RuleStrayDate, func(r map[string]any) { r["minutes"] = map[string]any{"2027-02-15": 3.5} }},
		{RuleBadText, func(r map[string]any) { r["strategy"] = "Costs $1.2e+07 in all." }},
		{RuleBadText, func(r map[string]any) { r["strategy"] = "Sell 1 tickets." }},
		{RuleShape, func(r map[string]any) { r["as_of"] = "soon" }},
	}
	for _, tt := range tests {
		r := Clone(res)
		tt.mutate(r)
		if got := rules(Violations(w, nil, r)); !slices.Contains(got, tt.rule) {
			t.Errorf("%s: not found, got %v", tt.rule, got)
		}
	}
	if got := Violations(w, nil, res); len(got) != 0 {
		t.Errorf("example result: %v", got)
	}
	// A hand-over on a closed day labelled deliberate, and a precedence the
	// plan says it cannot keep, are reported, not violations.
	r0 := Clone(res)
	m := ms(r0)[0].(map[string]any)
	m["date"], m["days_from_as_of"], m["kind"], m["deliberate"] = "2026-11-26", float64(6), "on-sale", "on Thanksgiving Day: the show is that night"
	delete(m, "deliverable")
	r0["timeline"].(map[string]any)["start"] = "2026-11-26"
	r0["recommendations"] = []any{}
	r0["timeline"].(map[string]any)["precedences"] = []any{map[string]any{"before": "deliver", "after": "release", "min_working_days": float64(200)}}
	r0["warnings"] = []any{map[string]any{"code": "PRECEDENCE_SHORT", "message": "Release needs 200 working days after Deliver masters."}}
	if got := Violations(w, nil, r0); len(got) != 0 {
		t.Errorf("deliberate hand-over and a reported short precedence: %v", got)
	}
	// "11 tickets" and "$1 tickets" are not singular counts.
	r := Clone(res)
	r["strategy"] = "Sell 11 tickets at 2.1 days each."
	if got := Violations(w, nil, r); len(got) != 0 {
		t.Errorf("false positive: %v", got)
	}
}

func TestGenerateContextsCoversTheDomain(t *testing.T) {
	w := testWorkflow()
	ctxs := GenerateContexts(w, asOf, 300, 1)
	if len(ctxs) != 300 {
		t.Fatalf("%d contexts, want 300", len(ctxs))
	}
	formats, copies := map[any]bool{}, map[any]bool{}
	var earliest, latest string
	tracks := map[int]bool{}
	for _, c := range ctxs {
		if _, err := w.Prepare(Clone(c)); err != nil {
			t.Fatalf("generated context rejected: %v", err)
		}
		formats[c["format"]] = true
		copies[c["copies"]] = true
		d := c["release_date"].(string)
		if earliest == "" || d < earliest {
			earliest = d
		}
		if d > latest {
			latest = d
		}
		if l, ok := c["tracks"].([]any); ok {
			tracks[len(l)] = true
		}
	}
	if !formats["digital"] || !formats["vinyl"] || !formats[nil] {
		t.Errorf("formats %v", formats)
	}
	if !copies[float64(1)] || !copies[float64(5000)] {
		t.Error("copies never at a bound")
	}
	if earliest != "2023-11-21" || latest != "2029-11-19" {
		t.Errorf("dates from %s to %s, want the ±3-year span 2023-11-21 to 2029-11-19", earliest, latest)
	}
	if !tracks[1] || !tracks[MaxListItems] {
		t.Errorf("list lengths %v", tracks)
	}
	again := GenerateContexts(w, asOf, 300, 1)
	for i := range again {
		if len(Clone(again[i])) != len(ctxs[i]) {
			t.Fatal("same seed, different contexts")
		}
	}
}

func TestInputsMatter(t *testing.T) {
	w := testWorkflow()
	for _, path := range []string{"release_date", "format", "copies", "tracks", "tracks[].minutes", "country", "rush"} {
		if ok, tried := fieldMatters(w, path); !ok {
			t.Errorf("%s: does not matter (%d tried)", path, tried)
		}
	}
	// tracks[].title is never read; label is only echoed in the strategy,
	// which is its use as free text.
	if ok, _ := fieldMatters(w, "tracks[].title"); ok {
		t.Error("tracks[].title matters, but the workflow never reads it")
	}
	if ok, _ := fieldMatters(w, "label"); !ok {
		t.Error("label echoed in the strategy does not count")
	}
}

func TestEchoOfEnumDoesNotCount(t *testing.T) {
	a := map[string]any{"strategy": "A vinyl release for 120 days."}
	b := map[string]any{"strategy": "A digital release for 120 days."}
	f := engine.Field{Name: "format", Kind: engine.String, Enum: []string{"digital", "vinyl"}}
	e := echoesOf(f, "vinyl", "digital")
	if substance(a, e) != substance(b, e) {
		t.Error("an enum echoed in the prose counts as a change")
	}
	c := map[string]any{"strategy": "A digital release for 30 days."}
	if substance(a, e) == substance(c, e) {
		t.Error("a real change was blanked")
	}
}

// The dates a result may name besides its milestones: the context's, as_of,
// the target, a labelled reference date, and any date inside a key the
// result declares a schedule.
func TestStrayDateAllowsPlanDates(t *testing.T) {
	w := testWorkflow()
	ctx := Example(w, asOf)
	res, err := Run(w, ctx, asOf)
	if err != nil {
		t.Fatal(err)
	}
	tl := res["timeline"].(map[string]any)
	r := Clone(res)
	r["strategy"] = fmt.Sprintf("Release %s (asked %s), planned %s; the sale starts 2027-06-25.", tl["target_date"], ctx["release_date"], res["as_of"])
	r["timeline"].(map[string]any)["reference_dates"] = []any{map[string]any{"date": "2027-06-25", "label": "Summer sale starts"}}
	r["ramp"] = []any{map[string]any{"date": "2027-07-02"}}
	r["timeline"].(map[string]any)["schedules"] = []any{map[string]any{"key": "ramp", "about": "send days"}}
	if got := rules(Violations(w, ctx, r)); slices.Contains(got, RuleStrayDate) {
		t.Errorf("dates of the plan reported as stray: %v", Violations(w, ctx, r))
	}
	// A schedule's dates are its own: prose naming one is still stray.
	r["strategy"] = "Send from 2027-07-02."
	if got := rules(Violations(w, ctx, r)); !slices.Contains(got, RuleStrayDate) {
		t.Errorf("a schedule's date in the strategy was not reported: %v", got)
	}
}
