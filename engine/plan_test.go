package engine

import (
	"fmt"
	"math"
	"reflect"
	"strings"
	"testing"
	"time"
)

func mustDate(t *testing.T, s string) time.Time {
	t.Helper()
	d, err := ParseDate(s)
	if err != nil {
		t.Fatal(err)
	}
	return d
}

func TestPlanGetDate(t *testing.T) {
	p := &Plan{asOf: mustDate(t, "2026-11-20")}
	p.Set("release_date", FormatDate(mustDate(t, "2027-03-05")))
	p.Set("weekend_date", "2026-11-21")
	p.Set("count", 3)
	p.Set("label", "soon")
	tests := []struct {
		key  string
		want time.Time
	}{
		{"release_date", mustDate(t, "2027-03-05")},
		{"weekend_date", mustDate(t, "2026-11-21")},
		{"missing", time.Time{}},
		{"count", time.Time{}},
		{"label", time.Time{}},
	}
	for _, tt := range tests {
		if got := p.GetDate(tt.key); !got.Equal(tt.want) {
			t.Errorf("GetDate(%q) = %v, want %v", tt.key, got, tt.want)
		}
	}
}

func TestPlanWarnPassedMilestones(t *testing.T) {
	asOf := mustDate(t, "2026-11-20") // a Friday
	newPlan := func() *Plan {
		p := &Plan{asOf: asOf}
		p.Milestone("launch", "Launch", mustDate(t, "2026-12-01"))
		p.Milestone("page", "Store page live", mustDate(t, "2026-11-06"))
		p.Milestone("today", "Due on the plan date", asOf)
		p.Event("weekend", "Weekend deadline", mustDate(t, "2026-11-15"), "the organiser set it")
		p.Milestone("review", "Review", mustDate(t, "2026-11-19"))
		return p
	}
	tests := []struct {
		name string
		skip []string
		want []Warning
	}{
		{"every passed milestone, in date order; the plan date itself has not passed", nil, []Warning{
			{"MILESTONE_PASSED", "Store page live was due 2026-11-06, 14 days before the plan date 2026-11-20."},
			{"MILESTONE_PASSED", "Weekend deadline was due 2026-11-15, 5 days before the plan date 2026-11-20."},
			{"MILESTONE_PASSED", "Review was due 2026-11-19, 1 day before the plan date 2026-11-20."},
		}},
		{"skipped keys are left alone", []string{"review", "page", "not-a-key"}, []Warning{
			{"MILESTONE_PASSED", "Weekend deadline was due 2026-11-15, 5 days before the plan date 2026-11-20."},
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := newPlan()
			p.Warn("OTHER", "kept")
			n := p.WarnPassedMilestones(tt.skip...)
			if n != len(tt.want) {
				t.Errorf("flagged %d, want %d", n, len(tt.want))
			}
			want := append([]Warning{{"OTHER", "kept"}}, tt.want...)
			if got := p.Warnings(); !reflect.DeepEqual(got, want) {
				t.Errorf("warnings:\n got %v\nwant %v", got, want)
			}
		})
	}
	empty := &Plan{asOf: asOf}
	if n := empty.WarnPassedMilestones(); n != 0 || len(empty.Warnings()) != 0 {
		t.Errorf("a plan without milestones flagged %d: %v", n, empty.Warnings())
	}
}

func TestPlanDeliverable(t *testing.T) {
	p := &Plan{asOf: mustDate(t, "2026-11-20")}
	p.Deliverable("thanksgiving", "Masters", mustDate(t, "2026-11-26"), RegionUS) // Thursday, Thanksgiving
	p.Deliverable("open", "Artwork", mustDate(t, "2026-11-25"), RegionUS)
	p.Deliverable("sunday", "Tech pack", mustDate(t, "2026-11-22"), RegionUS)    // Sunday: Friday the 20th is as_of, allowed
	p.Deliverable("weekend-asof", "Proofs", mustDate(t, "2026-11-21"), RegionUS) // Saturday
	p.Deliverable("deadweek", "Files", mustDate(t, "2026-12-28"), RegionUK)
	p.Deliverable("past", "Old", mustDate(t, "2026-11-15"), RegionUS) // a Sunday before as_of: stays passed
	want := map[string]struct{ date, from string }{
		"thanksgiving": {"2026-11-25", "2026-11-26"},
		"open":         {"2026-11-25", ""},
		"sunday":       {"2026-11-20", "2026-11-22"},
		"weekend-asof": {"2026-11-20", "2026-11-21"},
		"deadweek":     {"2026-12-23", "2026-12-28"},
		"past":         {"2026-11-13", "2026-11-15"},
	}
	for _, m := range p.Milestones() {
		w := want[m.Key]
		from := ""
		if !m.MovedFrom.IsZero() {
			from = FormatDate(m.MovedFrom)
		}
		if FormatDate(m.Date) != w.date || from != w.from || !m.Deliverable || (from != "") != (m.Note != "") {
			t.Errorf("%s: date %s moved from %q (%s), want %s from %q", m.Key, FormatDate(m.Date), from, m.Note, w.date, w.from)
		}
	}

	// A deliverable whose previous open day is before as_of goes to the next one.
	p = &Plan{asOf: mustDate(t, "2026-11-21")} // a Saturday
	p.Deliverable("k", "Masters", mustDate(t, "2026-11-22"), RegionUS)
	if got := FormatDate(p.Milestones()[0].Date); got != "2026-11-23" {
		t.Errorf("Sunday deliverable with as_of Saturday: %s, want Monday 2026-11-23", got)
	}
	res, err := p.Result()
	if err != nil {
		t.Fatal(err)
	}
	tl := res["timeline"].(map[string]any)
	m := tl["milestones"].([]any)[0].(map[string]any)
	if tl["region"] != "US" || m["deliverable"] != true || m["moved_from"] != "2026-11-22" || m["note"] != "moved from 2026-11-22 (a Sunday) to the next working day" {
		t.Errorf("result timeline = %v", tl)
	}
}

func TestPlanReplanned(t *testing.T) {
	p := &Plan{asOf: mustDate(t, "2026-11-20")}
	p.SetTarget(mustDate(t, "2026-12-01"))
	p.Replanned(mustDate(t, "2026-12-01"), mustDate(t, "2027-01-15"), "Vinyl needs 16 weeks.")
	res, err := p.Result()
	if err != nil {
		t.Fatal(err)
	}
	tl := res["timeline"].(map[string]any)
	if tl["requested_date"] != "2026-12-01" || tl["feasible_date"] != "2027-01-15" || tl["target_date"] != "2027-01-15" {
		t.Errorf("timeline = %v", tl)
	}
	ws := p.Warnings()
	if len(ws) != 1 || ws[0].Code != "REPLANNED" || ws[0].Message != "Vinyl needs 16 weeks. The plan is built on 2027-01-15 instead of the requested 2026-12-01." {
		t.Errorf("warnings = %v", ws)
	}
	if r, f, ok := p.IsReplanned(); !ok || !r.Equal(mustDate(t, "2026-12-01")) || !f.Equal(mustDate(t, "2027-01-15")) {
		t.Errorf("IsReplanned = %v %v %v", r, f, ok)
	}
	// Not replanned: no dates in the timeline.
	res, _ = (&Plan{asOf: mustDate(t, "2026-11-20")}).Result()
	if _, ok := res["timeline"].(map[string]any)["feasible_date"]; ok {
		t.Error("feasible_date without Replanned")
	}
}

func TestPlanPostEvent(t *testing.T) {
	p := &Plan{asOf: mustDate(t, "2026-11-20")}
	p.PostEvent(mustDate(t, "2026-11-19"), "what still matters is the first-week review.")
	res, err := p.Result()
	if err != nil {
		t.Fatal(err)
	}
	tl := res["timeline"].(map[string]any)
	if tl["post_event"] != true || tl["target_date"] != "2026-11-19" {
		t.Errorf("timeline = %v", tl)
	}
	if ws := p.Warnings(); len(ws) != 1 || ws[0].Code != "POST_EVENT" ||
		ws[0].Message != "2026-11-19 was 1 day ago; this is a post-event plan: what still matters is the first-week review." {
		t.Errorf("warnings = %v", ws)
	}
}

func TestPlanDependsOn(t *testing.T) {
	p := &Plan{asOf: mustDate(t, "2026-11-20")}
	p.Milestone("art", "Artwork final", mustDate(t, "2026-12-01"))
	p.Milestone("masters", "Vinyl masters", mustDate(t, "2026-12-05"))
	p.DependsOn("masters", "art", "art", "not-in-this-plan")
	res, _ := p.Result()
	m := res["timeline"].(map[string]any)["milestones"].([]any)[1].(map[string]any)
	if !reflect.DeepEqual(m["after"], []any{"art"}) {
		t.Errorf("masters after = %v, want [art]", m["after"])
	}
}

func TestPlanResultNamesNonFiniteNumbers(t *testing.T) {
	p := &Plan{asOf: mustDate(t, "2026-11-20")}
	p.Set("money", map[string]any{"goal_usd": 100.0, "per_backer": []float64{1, math.Inf(1)}})
	_, err := p.Result()
	if err == nil || err.Error() != "result.money.per_backer[1] is not a finite number" {
		t.Errorf("Result() error = %v", err)
	}
}

// A milestone one day past says "1 day", not "1 days".
func TestPassedMilestoneCountsDaysInTheRightNumber(t *testing.T) {
	for _, c := range []struct {
		due  string
		want string
	}{{"2026-11-22", "1 day before"}, {"2026-11-20", "3 days before"}} {
		p := &Plan{asOf: mustDate(t, "2026-11-23")}
		p.Event("m", "Masters", mustDate(t, c.due), "the label set it")
		p.WarnPassedMilestones()
		if w := p.Warnings(); len(w) != 1 || !strings.Contains(w[0].Message, c.want) {
			t.Errorf("due %s: %v, want %q", c.due, w, c.want)
		}
	}
}

// BenchmarkPlanResult: what turning a plan into its result costs, a
// workflow run's share beside the rules (checked for non-finite numbers,
// then made plain values).
func BenchmarkPlanResult(b *testing.B) {
	asOf := time.Date(2026, 11, 20, 0, 0, 0, 0, time.UTC)
	p := &Plan{asOf: asOf}
	for i := range 15 {
		p.Milestone(fmt.Sprintf("m%d", i), fmt.Sprintf("Milestone %d", i), asOf.AddDate(0, 0, 3*i))
	}
	p.Set("budget", map[string]any{"total_usd": 12000.0, "split": map[string]float64{"marketing": 0.4, "production": 0.35, "distribution": 0.25}, "per_week": []float64{1, 2, 3, 4, 5, 6, 7, 8}})
	b.ReportAllocs()
	for b.Loop() {
		if _, err := p.Result(); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkPlanResultWithRefs: a plan whose strategy and advice name
// milestone dates, copied or by key (resolved when rendered): the cost of
// one date, one place.
func BenchmarkPlanResultWithRefs(b *testing.B) {
	asOf := time.Date(2026, 11, 20, 0, 0, 0, 0, time.UTC)
	for _, byKey := range []bool{false, true} {
		p := &Plan{asOf: asOf}
		for i := range 15 {
			p.Milestone(fmt.Sprintf("m%d", i), fmt.Sprintf("Milestone %d", i), asOf.AddDate(0, 0, 3*i))
		}
		date := func(i int) string { return FormatDate(asOf.AddDate(0, 0, 3*i)) }
		if byKey {
			date = func(i int) string { return p.Ref(fmt.Sprintf("m%d", i)) }
		}
		p.Set("budget", map[string]any{"total_usd": 12000.0, "split": map[string]float64{"marketing": 0.4, "production": 0.35, "distribution": 0.25}, "per_week": []float64{1, 2, 3, 4, 5, 6, 7, 8}})
		p.Strategy("Start %s, deliver %s, release %s.", date(0), date(7), date(14))
		for i := range 5 {
			if byKey {
				p.RecommendOn(High, fmt.Sprintf("m%d", 2*i), "Step", "Do it by "+date(2*i)+".")
			} else {
				p.RecommendBy(High, asOf.AddDate(0, 0, 6*i), "Step", "Do it by "+date(2*i)+".")
			}
		}
		b.Run(map[bool]string{false: "copied", true: "by-key"}[byKey], func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := p.Result(); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// plain converts what plans are built of directly and everything else
// through JSON; either way the value is the JSON round trip's.
func TestPlainIsTheJSONRoundTrip(t *testing.T) {
	type custom struct {
		A float32 `json:"a"`
		B []byte  `json:"b,omitempty"`
	}
	for _, v := range []any{
		map[string]any{
			"s": "text <&>", "bad": "\xff\xfeoops", "n": 3, "big": int64(1<<62 + 1), "f": 0.1, "neg0": math.Copysign(0, -1),
			"t": true, "nil": nil, "nilmap": map[string]any(nil), "nilslice": []string(nil), "empty": []any{},
			"ints": []int{1, -2}, "floats": []float64{1.5}, "rows": []map[string]any{{"x": uint8(7)}},
			"f32": float32(0.1), "custom": custom{A: 1.25}, "strs": map[string]string{"k": "v"},
			"recs":       []Recommendation{{Title: "t", Detail: "d", Priority: High}, {Title: "u", Priority: Low, DueDate: "2027-01-01"}},
			"warnings":   []Warning{{Code: "C", Message: "m"}},
			"milestones": []milestoneJSON{{Key: "k", Date: "2027-01-01", DaysFromNow: -3, After: []string{}}, {Key: "j", Deliverable: true, MovedFrom: "x", Note: "n", After: []string{"k"}}},
		},
		map[string]any{"\xffkey": 1, "ok": []int{2}},
		[]any{map[string]any{"deep": []any{[]string{"a"}, map[string]any{"z": Priority("high")}}}},
	} {
		got, err := plain(v)
		if err != nil {
			t.Fatal(err)
		}
		want, err := viaJSON(v)
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("plain:\n%#v\nJSON round trip:\n%#v", got, want)
		}
	}
	for _, v := range []any{math.NaN(), []float64{math.Inf(-1)}, map[string]any{"x": custom{A: float32(math.Inf(1))}}} {
		if _, err := plain(v); err != errNonFinite {
			t.Errorf("plain(%v) error = %v, want errNonFinite", v, err)
		}
	}
}

// Prose, advice and fields written before a date settles name the settled
// date: a reference is resolved when the result is rendered.
func TestPlanRefFollowsSettledDate(t *testing.T) {
	p := &Plan{asOf: mustDate(t, "2026-11-20")}
	p.Strategy("Masters by %s.", p.Ref("masters"))
	p.RecommendOn(High, "masters", "Deliver", "Deliver by "+p.Ref("masters")+".")
	p.Set("schedule", map[string]any{"masters": p.Ref("masters")})
	// Presidents' Day 2027 is a US holiday: the deliverable moves to Friday.
	p.Deliverable("masters", "Masters delivered", mustDate(t, "2027-02-15"), RegionUS)
	res, err := p.Result()
	if err != nil {
		t.Fatal(err)
	}
	rec := res["recommendations"].([]any)[0].(map[string]any)
	if res["strategy"] != "Masters by 2027-02-12." || rec["due_date"] != "2027-02-12" || rec["detail"] != "Deliver by 2027-02-12." ||
		res["schedule"].(map[string]any)["masters"] != "2027-02-12" {
		t.Errorf("strategy %q, recommendation %v, schedule %v: want the settled 2027-02-12", res["strategy"], rec, res["schedule"])
	}
	// Moved again after it was written: everything moves with it, and the
	// timeline keeps the date first asked for.
	p.Move("masters", mustDate(t, "2027-02-19"), "after the mix")
	res, _ = p.Result()
	m := res["timeline"].(map[string]any)["milestones"].([]any)[0].(map[string]any)
	if res["strategy"] != "Masters by 2027-02-19." || m["moved_from"] != "2027-02-15" || !strings.Contains(m["note"].(string), "after the mix") {
		t.Errorf("after Move: strategy %q, milestone %v", res["strategy"], m)
	}
	if got := p.GetDate("schedule"); !got.IsZero() {
		t.Errorf("GetDate of a map = %v", got)
	}
}

func TestPlanRecommendOnPassedMilestoneIsDueNow(t *testing.T) {
	p := &Plan{asOf: mustDate(t, "2026-11-20")}
	p.Milestone("pitch", "Pitch", mustDate(t, "2026-11-01"))
	p.RecommendOn(High, "pitch", "Pitch", "Pitch now.")
	res, err := p.Result()
	if err != nil {
		t.Fatal(err)
	}
	if got := res["recommendations"].([]any)[0].(map[string]any)["due_date"]; got != "2026-11-20" {
		t.Errorf("due %v, want as_of", got)
	}
}

func TestPlanRefToMissingMilestoneFails(t *testing.T) {
	p := &Plan{asOf: mustDate(t, "2026-11-20")}
	p.Strategy("Launch on %s.", p.Ref("launch"))
	if _, err := p.Result(); err == nil || !strings.Contains(err.Error(), `"launch"`) {
		t.Errorf("err = %v, want one naming the milestone", err)
	}
}

// Text from the context that happens to hold the markers is left as it
// was: only references the plan wrote are resolved.
func TestPlanRefLeavesForeignMarkers(t *testing.T) {
	p := &Plan{asOf: mustDate(t, "2026-11-20")}
	p.Milestone("launch", "Launch", mustDate(t, "2027-01-05"))
	title := "Odd " + refOpen + "launch" + refClose + " title"
	p.Set("title", title)
	res, err := p.Result()
	if err != nil || res["title"] != title {
		t.Errorf("title %q, err %v: want it unchanged", res["title"], err)
	}
}

func TestPlanLabelAndSchedule(t *testing.T) {
	p := &Plan{asOf: mustDate(t, "2026-11-20")}
	d := mustDate(t, "2026-12-17")
	if got := p.Label("Winter Sale starts", d); got != "2026-12-17" {
		t.Errorf("Label = %q", got)
	}
	p.Label("Winter Sale starts", d)
	p.SetSchedule("ramp", "send days", []string{"2026-12-01"})
	res, _ := p.Result()
	tl := res["timeline"].(map[string]any)
	refs, _ := tl["reference_dates"].([]any)
	if len(refs) != 1 || refs[0].(map[string]any)["label"] != "Winter Sale starts" {
		t.Errorf("reference_dates %v, want one labelled date", tl["reference_dates"])
	}
	if s, _ := tl["schedules"].([]any); len(s) != 1 || s[0].(map[string]any)["key"] != "ramp" || res["ramp"] == nil {
		t.Errorf("schedules %v, ramp %v", tl["schedules"], res["ramp"])
	}
}
