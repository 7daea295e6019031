package enginetest

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"regexp"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/creativeops/creativeops/engine"
)

// Problem is one broken invariant: Rule names it (stable, for grouping),
// Detail says where.
type Problem struct {
	Rule   string
	Detail string
}

// Invariant rules, as reported in Problem.Rule.
const (
	// RuleDueBeforeAsOf: a recommendation's due_date is before as_of.
	// Advice is never due in the past; a step that should already have
	// happened is due on as_of, or the plan is re-planned.
	RuleDueBeforeAsOf = "recommendation due before as_of"
	// RuleSilentPastMilestone: a milestone is dated before as_of and no
	// warning names it (by its title or its date). A milestone before
	// as_of is allowed only as an acknowledged passed step — history in a
	// post-event plan (Plan.PostEvent: timeline.post_event with a
	// POST_EVENT warning, for milestones on or before the target date), or
	// a missed step the plan warns about (Plan.WarnPassedMilestones does).
	// Work still to do is dated on or after as_of.
	RuleSilentPastMilestone = "milestone before as_of without a warning naming it"
	// RulePassedFlag: a milestone's passed flag or days_from_as_of
	// disagrees with its date.
	RulePassedFlag = "milestone passed flag or days_from_as_of wrong"
	// RuleMilestoneOrder: the timeline does not list milestones in date
	// order, or start/end do not match its first and last dates.
	RuleMilestoneOrder = "milestones out of date order"
	// RuleDependencyOrder: a milestone is dated before one it depends on
	// (its "after" list, see Plan.DependsOn), or depends on a key the
	// timeline does not have.
	RuleDependencyOrder = "milestone before one it depends on"
	// RuleFeasible: a re-planned timeline's feasible_date is before as_of,
	// or requested_date/feasible_date come without a REPLANNED warning.
	RuleFeasible = "feasible date before as_of or unreported"
	// RuleReplanIgnored: a re-planned result's strategy does not name its
	// feasible_date: the summary must be built on the date the plan uses.
	RuleReplanIgnored = "re-planned but the strategy does not name the feasible date"
	// RuleClosedDeliverable: a deliverable milestone falls on a weekend,
	// public holiday of timeline.region, or the 24 Dec–1 Jan dead week,
	// and is not labelled deliberate.
	RuleClosedDeliverable = "deliverable on a closed day"
	// RuleClosedHandover: a hand-over milestone (kind deliverable, action,
	// on-sale, announce or payment) falls on a closed day of the plan's
	// calendar (weekend, public holiday of timeline.region, 24 Dec–1 Jan,
	// a closure in timeline.closures) without a deliberate label.
	RuleClosedHandover = "hand-over on a closed day"
	// RulePrecedence: a declared precedence (timeline.precedences) does
	// not hold: the successor is before the predecessor plus its gap in
	// working days, and no PRECEDENCE_SHORT warning says so.
	RulePrecedence = "precedence broken"
	// RuleArrivalEarlier: a milestone of kind arrival (stock, prints,
	// funds landing) is dated before the date it was forecast for
	// (moved_from): a closed day or a precedence may push an arrival
	// later, never earlier than it can land.
	RuleArrivalEarlier = "arrival moved earlier than it lands"
	// RuleKind: a milestone has no kind, or an unknown one.
	RuleKind = "milestone kind missing or unknown"
	// RuleStrayDate: a date (YYYY-MM-DD) in the strategy, a
	// recommendation (title, detail, due_date) or a workflow-specific key
	// is none of the dates the plan stands on: a milestone's settled date,
	// the target, requested or feasible date, a date of the context, as_of,
	// or a date the result labels in timeline.reference_dates. A date moved
	// off a closed day or by a re-plan must move everywhere it is written.
	RuleStrayDate = "date in the prose or fields is not a date of the plan"
	// RuleNonFinite: a number in the result is NaN or infinite.
	RuleNonFinite = "non-finite number"
	// RuleBadText: prose carries NaN, Inf, scientific notation or a
	// singular count with a plural noun ("1 tickets").
	RuleBadText = "bad number or plural in text"
	// RuleShape: the result lacks the common keys or has them malformed.
	RuleShape = "result shape"
	// RuleRunFailed: the run returned an error (or a rejection that names
	// no field) for a context the schema accepts.
	RuleRunFailed = "run failed"
)

var (
	badNumberText = regexp.MustCompile(`NaN|[+-]Inf\b|\d[eE][+-]?\d{2,}`)
	// A count of exactly one followed by a common plural noun.
	badPlural = regexp.MustCompile(`(?:^|[^\d.,$£€-])1 (tickets|days|weeks|months|years|hours|minutes|seconds|copies|images|episodes|pages|shows|dates|styles|units|backers|items|chapters|sessions|issues|rewards|panels|files|tracks|songs|pieces|prints|editions|cities|nights|venues|festivals|submissions|performers|people|artists|writers|titles|books|videos|posts|comics|frames|scenes|shots|sizes|colou?rs|samples|rounds|revisions|drafts|retailers|stores|markets|fairs|events|orders|products|designs|illustrations|photos|paintings|works|seasons|scripts|contests|deliverables|milestones|tiers|stretch goals|add-ons|volumes|strips|updates|minutes of audio)\b`)
)

// Violations checks a result against the invariants and returns every
// problem (empty when it satisfies them). ctx is the context the result was
// computed from.
func Violations(w *engine.Workflow, ctx, result map[string]any) []Problem {
	var ps []Problem
	add := func(rule, format string, args ...any) {
		ps = append(ps, Problem{Rule: rule, Detail: fmt.Sprintf(format, args...)})
	}
	asOfStr, _ := result["as_of"].(string)
	asOf, err := engine.ParseDate(asOfStr)
	if err != nil {
		add(RuleShape, "as_of %q: %v", result["as_of"], err)
		return ps
	}
	walkNumbers(result, "result", func(path string, v float64) {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			add(RuleNonFinite, "%s = %v", path, v)
		}
	})

	var warningText []string
	warnCodes := map[string]bool{}
	ws, ok := result["warnings"].([]any)
	if !ok {
		add(RuleShape, "warnings is %T", result["warnings"])
	}
	for _, x := range ws {
		m, _ := x.(map[string]any)
		msg, _ := m["message"].(string)
		code, _ := m["code"].(string)
		warningText = append(warningText, msg)
		warnCodes[code] = true
	}
	warned := func(parts ...string) bool {
		for _, w := range warningText {
			for _, p := range parts {
				if p != "" && strings.Contains(w, p) {
					return true
				}
			}
		}
		return false
	}

	recs, ok := result["recommendations"].([]any)
	if !ok {
		add(RuleShape, "recommendations is %T", result["recommendations"])
	}
	for i, x := range recs {
		r, _ := x.(map[string]any)
		due, _ := r["due_date"].(string)
		if due == "" {
			continue
		}
		d, err := engine.ParseDate(due)
		if err != nil {
			add(RuleShape, "recommendations[%d].due_date %q", i, due)
			continue
		}
		if d.Before(asOf) {
			add(RuleDueBeforeAsOf, "%q due %s, as_of %s", r["title"], due, asOfStr)
		}
	}

	tl, ok := result["timeline"].(map[string]any)
	if !ok {
		add(RuleShape, "timeline is %T", result["timeline"])
		return ps
	}
	region := engine.Region(str(tl["region"]))
	if region == "" {
		region = engine.RegionUS
	}
	cal := engine.Calendar{Region: region}
	for _, k := range listOf(tl["closures"]) {
		c, ok := engine.ClosureByKey(str(k))
		if !ok {
			add(RuleShape, "timeline.closures names %v, no known closure", k)
			continue
		}
		cal.Closures = append(cal.Closures, c)
	}
	ms, _ := tl["milestones"].([]any)
	var prev time.Time
	var first, last string
	target, hasTarget := date(tl["target_date"])
	dates := map[string]time.Time{}
	for _, x := range ms {
		m, _ := x.(map[string]any)
		if d, ok := date(m["date"]); ok {
			dates[str(m["key"])] = d
		}
	}
	for i, x := range ms {
		m, _ := x.(map[string]any)
		title, ds := str(m["title"]), str(m["date"])
		d, err := engine.ParseDate(ds)
		if err != nil {
			add(RuleShape, "timeline.milestones[%d].date %q", i, m["date"])
			continue
		}
		if i == 0 {
			first = ds
		}
		last = ds
		if d.Before(prev) {
			add(RuleMilestoneOrder, "%q on %s listed after %s", title, ds, engine.FormatDate(prev))
		}
		prev = d
		passed, _ := m["passed"].(bool)
		days, _ := m["days_from_as_of"].(float64)
		if passed != d.Before(asOf) || int(days) != engine.DaysBetween(asOf, d) {
			add(RulePassedFlag, "%q on %s: passed=%v days_from_as_of=%v", title, ds, m["passed"], m["days_from_as_of"])
		}
		history := tl["post_event"] == true && warnCodes["POST_EVENT"] && hasTarget && !d.After(target)
		if d.Before(asOf) && !history && !warned(title, ds) {
			add(RuleSilentPastMilestone, "%q on %s, as_of %s", title, ds, asOfStr)
		}
		if deliverable, _ := m["deliverable"].(bool); deliverable && str(m["deliberate"]) == "" {
			if engine.Closed(d, region) {
				add(RuleClosedDeliverable, "%q on %s (%s, %s)", title, ds, engine.ClosedReason(d, region), region)
			}
		}
		switch kind := engine.StepKind(str(m["kind"])); {
		case kind.Handover():
			if why := cal.ClosedReason(d); why != "" && str(m["deliberate"]) == "" {
				add(RuleClosedHandover, "%s %q on %s (%s, %s)", kind, title, ds, why, region)
			}
		case kind != engine.KindEvent && kind != engine.KindWork:
			add(RuleKind, "%q has kind %q", title, kind)
		}
		if engine.StepKind(str(m["kind"])).RollsForward() {
			if from, ok := date(m["moved_from"]); ok && d.Before(from) {
				add(RuleArrivalEarlier, "%q on %s, forecast for %s", title, ds, engine.FormatDate(from))
			}
		}
		after, _ := m["after"].([]any)
		for _, k := range after {
			dep, ok := dates[str(k)]
			switch {
			case !ok:
				add(RuleDependencyOrder, "%q depends on %v, not in the timeline", title, k)
			case d.Before(dep):
				add(RuleDependencyOrder, "%q on %s before %v on %s", title, ds, k, engine.FormatDate(dep))
			}
		}
	}
	for _, x := range listOf(tl["precedences"]) {
		pr, _ := x.(map[string]any)
		before, after := str(pr["before"]), str(pr["after"])
		gap, _ := pr["min_working_days"].(float64)
		a, okA := dates[before]
		b, okB := dates[after]
		if !okA || !okB {
			add(RulePrecedence, "%s -> %s names a milestone not in the timeline", before, after)
			continue
		}
		earliest := a
		if gap > 0 {
			earliest = cal.AddWorkdays(a, int(gap))
		}
		if b.Before(earliest) && !warnCodes["PRECEDENCE_SHORT"] {
			add(RulePrecedence, "%s on %s is %d working days after %s on %s, needs %v", after, engine.FormatDate(b),
				cal.WorkdaysBetween(a, b), before, engine.FormatDate(a), gap)
		}
	}
	if len(ms) > 0 && (str(tl["start"]) != first || str(tl["end"]) != last) {
		add(RuleMilestoneOrder, "timeline start/end %v/%v, milestones run %s to %s", tl["start"], tl["end"], first, last)
	}
	if fs, ok := tl["feasible_date"]; ok {
		f, err := engine.ParseDate(str(fs))
		if err != nil || f.Before(asOf) || !warnCodes["REPLANNED"] || tl["requested_date"] == nil {
			add(RuleFeasible, "feasible_date %v requested_date %v as_of %s REPLANNED=%v", fs, tl["requested_date"], asOfStr, warnCodes["REPLANNED"])
		}
		if strategy := str(result["strategy"]); !strings.Contains(strategy, str(fs)) {
			add(RuleReplanIgnored, "feasible_date %v, strategy %q", fs, strategy)
		}
	}

	known := knownDates(ctx, result)
	schedules := map[string]bool{}
	for _, x := range listOf(tl["schedules"]) {
		m, _ := x.(map[string]any)
		schedules[str(m["key"])] = true
	}
	for k, v := range result {
		if k == "warnings" || k == "timeline" || k == "as_of" || schedules[k] {
			continue
		}
		walkText(v, k, func(path, s string) {
			for _, d := range isoDate.FindAllString(s, -1) {
				if !known[d] {
					add(RuleStrayDate, "%s names %s: %q", path, d, excerptAt(s, d))
				}
			}
		})
	}

	walkStrings(result, "result", func(path, s string) {
		// Cheap prefilters: most strings have neither a lone "1 " nor
		// anything that could be NaN, Inf or an exponent.
		if strings.ContainsAny(s, "NIeE") && badNumberText.MatchString(s) {
			add(RuleBadText, "%s: %q", path, excerpt(s, badNumberText))
		}
		if strings.Contains(s, "1 ") && badPlural.MatchString(s) {
			add(RuleBadText, "%s: %q", path, excerpt(s, badPlural))
		}
	})
	return ps
}

// CheckInvariants fails t for every invariant result breaks, quoting the
// context. The invariants, precisely:
//
//   - no recommendation has a due_date before as_of;
//   - a milestone dated before as_of is flagged passed and acknowledged:
//     some warning names it (its title or date), or it is history in a
//     post-event plan (Plan.PostEvent) dated on or before the target. Past
//     steps are never silently scheduled; work still to do lies on or
//     after as_of;
//   - milestones are listed in date order, start/end match them, and each
//     passed flag and days_from_as_of agrees with its date;
//   - no milestone is dated before a milestone it depends on (its "after"
//     keys, Plan.DependsOn);
//   - a re-planned timeline's feasible_date is on or after as_of, comes
//     with requested_date and a REPLANNED warning, and is the date the
//     strategy names;
//   - no deliverable falls on a closed day of timeline.region (weekend,
//     public holiday, 24 Dec–1 Jan);
//   - every milestone has a kind; no hand-over (deliverable, action,
//     on-sale, announce, payment) falls on a closed day of the plan's
//     calendar (timeline.region and timeline.closures) unless it is
//     labelled deliberate;
//   - an arrival (kind arrival) is never dated before the date it was
//     forecast for (moved_from);
//   - every declared precedence holds: the successor is at least
//     min_working_days working days after its predecessor, or a
//     PRECEDENCE_SHORT warning says it cannot be;
//   - every number is finite, and no text shows NaN, Inf, scientific
//     notation or "1 <plural noun>".
func CheckInvariants(t testing.TB, w *engine.Workflow, ctx map[string]any, result map[string]any) {
	t.Helper()
	ps := Violations(w, ctx, result)
	if len(ps) == 0 {
		return
	}
	c, _ := json.Marshal(ctx)
	for _, p := range ps {
		t.Errorf("%s: %s: %s\ncontext: %s", w.ID, p.Rule, p.Detail, c)
	}
}

// DefaultAsOf is the plan date CheckWorkflow and CheckInputsMatter use
// first; a Friday in late November, a few weeks before the dead week.
var DefaultAsOf = time.Date(2026, 11, 20, 0, 0, 0, 0, time.UTC)

// asOfDates are the plan dates CheckWorkflow spreads its contexts over: an
// ordinary Friday, a day in the dead week, the Monday after Easter Monday,
// and a day inside the Chinese New Year closure.
var asOfDates = []time.Time{
	DefaultAsOf,
	time.Date(2027, 12, 27, 0, 0, 0, 0, time.UTC),
	time.Date(2027, 3, 30, 0, 0, 0, 0, time.UTC),
	time.Date(2028, 1, 31, 0, 0, 0, 0, time.UTC),
}

// Contexts is how many generated contexts CheckWorkflow runs per workflow
// (a quarter of them with go test -short).
const Contexts = 300

// Run prepares and runs ctx through the real run path (Prepare, then Run
// with as_of as the job's creation date). A rejection by Prepare comes back
// as a *engine.ContextError.
func Run(w *engine.Workflow, ctx map[string]any, asOf time.Time) (map[string]any, error) {
	in, err := w.Prepare(Clone(ctx))
	if err != nil {
		return nil, err
	}
	return w.Run(context.Background(), in, asOf, nil)
}

// Report is what CheckWorkflow found: how many contexts ran or were
// rejected, and the problems grouped by rule with the first context that
// showed each.
type Report struct {
	Runs, Rejected int
	Problems       map[string]*Finding
}

// Finding is one rule's problems over many contexts.
type Finding struct {
	Count   int
	Example Problem
	Context map[string]any
}

// Rules returns the broken rules in a stable order.
func (r *Report) Rules() []string {
	out := make([]string, 0, len(r.Problems))
	for k := range r.Problems {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// Explore runs n generated contexts of w, spread over several plan dates,
// and collects the broken invariants without failing anything.
func Explore(w *engine.Workflow, n int, seed int64) *Report {
	rep := &Report{Problems: map[string]*Finding{}}
	note := func(p Problem, ctx map[string]any) {
		f, ok := rep.Problems[p.Rule]
		if !ok {
			f = &Finding{Example: p, Context: ctx}
			rep.Problems[p.Rule] = f
		}
		f.Count++
	}
	per := (n + len(asOfDates) - 1) / len(asOfDates)
	for i, asOf := range asOfDates {
		for _, ctx := range GenerateContexts(w, asOf, per, seed+int64(i)) {
			res, err := Run(w, ctx, asOf)
			var ce *engine.ContextError
			switch {
			case errors.As(err, &ce):
				rep.Rejected++
				for _, v := range ce.Violations {
					if !strings.HasPrefix(v.Field, "context.") {
						note(Problem{RuleRunFailed, "rejected without naming a field: " + ce.Error()}, ctx)
					}
				}
				continue
			case err != nil:
				note(Problem{RuleRunFailed, err.Error()}, ctx)
				continue
			}
			rep.Runs++
			for _, p := range Violations(w, ctx, res) {
				note(p, ctx)
			}
		}
	}
	return rep
}

// CheckWorkflow runs a few hundred generated contexts of the workflow id
// through the real run path and fails t for each invariant broken (see
// CheckInvariants) or run that fails, quoting the first context that broke
// it. A context the workflow rejects with a ContextError naming a field is a
// valid answer (a 400 saying why), but most generated contexts must run.
func CheckWorkflow(t *testing.T, id string) {
	t.Helper()
	w, ok := engine.LookupWorkflow(id)
	if !ok {
		t.Fatalf("workflow %q not registered", id)
	}
	n := Contexts
	if testing.Short() {
		n /= 4
	}
	rep := Explore(w, n, 1)
	for _, rule := range rep.Rules() {
		f := rep.Problems[rule]
		c, _ := json.Marshal(f.Context)
		t.Errorf("%s: %s in %d case(s), first: %s\ncontext: %s", id, rule, f.Count, f.Example.Detail, c)
	}
	if rep.Runs < (rep.Runs+rep.Rejected)/2 {
		t.Errorf("%s: only %d of %d generated contexts ran (%d rejected): the schema admits contexts the workflow refuses",
			id, rep.Runs, rep.Runs+rep.Rejected, rep.Rejected)
	}
	t.Logf("%s: %d contexts ran, %d rejected with a named field", id, rep.Runs, rep.Rejected)
}

func str(v any) string { s, _ := v.(string); return s }

func date(v any) (time.Time, bool) {
	d, err := engine.ParseDate(str(v))
	return d, err == nil
}

func walkNumbers(v any, path string, fn func(string, float64)) {
	switch t := v.(type) {
	case float64:
		fn(path, t)
	case map[string]any:
		for k, x := range t {
			walkNumbers(x, path+"."+k, fn)
		}
	case []any:
		for i, x := range t {
			walkNumbers(x, fmt.Sprintf("%s[%d]", path, i), fn)
		}
	}
}

// walkText is walkStrings that also visits map keys (a calendar keyed by
// date).
func walkText(v any, path string, fn func(string, string)) {
	switch t := v.(type) {
	case string:
		fn(path, t)
	case map[string]any:
		for k, x := range t {
			fn(path+" key", k)
			walkText(x, path+"."+k, fn)
		}
	case []any:
		for i, x := range t {
			walkText(x, fmt.Sprintf("%s[%d]", path, i), fn)
		}
	}
}

func walkStrings(v any, path string, fn func(string, string)) {
	switch t := v.(type) {
	case string:
		fn(path, t)
	case map[string]any:
		for k, x := range t {
			walkStrings(x, path+"."+k, fn)
		}
	case []any:
		for i, x := range t {
			walkStrings(x, fmt.Sprintf("%s[%d]", path, i), fn)
		}
	}
}

// isoDate finds the dates prose and fields carry.
var isoDate = regexp.MustCompile(`\b\d{4}-\d{2}-\d{2}\b`)

// knownDates are the dates a result may name (see RuleStrayDate).
func knownDates(ctx, result map[string]any) map[string]bool {
	known := map[string]bool{str(result["as_of"]): true}
	walkStrings(ctx, "context", func(_, s string) {
		if _, err := engine.ParseDate(s); err == nil {
			known[s] = true
		}
	})
	// The date of the rate table a plan converted with (engine.MoneyBasisKey).
	if basis, ok := result[engine.MoneyBasisKey].(map[string]any); ok {
		known[str(basis["rate_date"])] = true
	}
	tl, _ := result["timeline"].(map[string]any)
	for _, k := range []string{"target_date", "requested_date", "feasible_date"} {
		if s := str(tl[k]); s != "" {
			known[s] = true
		}
	}
	for _, list := range []string{"milestones", "reference_dates"} {
		for _, x := range listOf(tl[list]) {
			m, _ := x.(map[string]any)
			known[str(m["date"])] = true
		}
	}
	return known
}

func listOf(v any) []any { l, _ := v.([]any); return l }

func excerptAt(s, sub string) string {
	i := strings.Index(s, sub)
	lo, hi := max(i-60, 0), min(i+len(sub)+20, len(s))
	return s[lo:hi]
}

func excerpt(s string, re *regexp.Regexp) string {
	loc := re.FindStringIndex(s)
	lo, hi := max(loc[0]-40, 0), min(loc[1]+40, len(s))
	return s[lo:hi]
}
