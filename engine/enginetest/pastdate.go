package enginetest

import (
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/creativeops/creativeops/engine"
)

// Past-date rules, as reported in Problem.Rule by PastDateProblems.
const (
	// RulePastPolicy: with its event date already past, the workflow did
	// not do what its PastDate policy says (no post-event plan, no
	// re-plan on a feasible date, a passed entry still planned).
	RulePastPolicy = "event date past: result does not follow the declared policy"
	// RulePreEventAfterAsOf: a post-event plan schedules a pre-event task
	// (a milestone or advice that comes before the event when the event
	// is ahead) on or after as_of.
	RulePreEventAfterAsOf = "pre-event task dated on or after as_of in a post-event plan"
)

// pastOffsets are how many days before as_of the event is put: whole
// weeks, so an event on a trade weekday stays on it.
var pastOffsets = []int{7, 42, 399}

// PastDateProblems runs w's example with its event date (PastDate.Field)
// moved before as_of, by a day, a few weeks and over a year, and checks
// the result against the declared policy:
//
//   - PastPostEvent: a post-event plan (timeline.post_event and one
//     POST_EVENT warning) in which no pre-event task is dated on or after
//     as_of. Pre-event tasks are found by running the same context with
//     the event well ahead: the milestones dated before the event there,
//     by key, and the advice due before it, by title;
//   - PastReplan: a re-planned timeline whose feasible date is on or after
//     as_of, and no post-event plan;
//   - PastSkip: every entry of the list is left out: a warning names it
//     and no milestone from as_of on does.
//
// Dates inside a list item are shifted together, so an entry keeps its
// own order (early before late deadline, festival after both).
func PastDateProblems(w *engine.Workflow, asOf time.Time) []Problem {
	var ps []Problem
	add := func(rule, format string, args ...any) {
		ps = append(ps, Problem{Rule: rule, Detail: fmt.Sprintf(format, args...)})
	}
	pd := w.PastDate
	if pd.Policy == engine.PastNotApplicable {
		return nil
	}
	for _, k := range pastOffsets {
		runAsOf, event := asOf, engine.AddDays(asOf, -k)
		ctx := Example(w, runAsOf)
		if isYearField(w, pd.Field) {
			// An annual event named by its year: last year's is over.
			runAsOf = engine.AddDays(asOf, 365*(1+k/365))
			ctx = Example(w, runAsOf)
			ctx[pd.Field] = float64(asOf.Year())
		} else if !setEventDate(w, ctx, pd, event) {
			add(RulePastPolicy, "%s: cannot set %q in the example", w.ID, pd.Field)
			return ps
		}
		res, err := Run(w, ctx, runAsOf)
		var ce *engine.ContextError
		if errors.As(err, &ce) || err != nil {
			add(RulePastPolicy, "event %d days past: run failed: %v", k, err)
			continue
		}
		tl, _ := res["timeline"].(map[string]any)
		posts := 0
		for _, x := range listOf(res["warnings"]) {
			if m, _ := x.(map[string]any); m["code"] == "POST_EVENT" {
				posts++
			}
		}
		switch pd.Policy {
		case engine.PastPostEvent:
			if tl["post_event"] != true || posts != 1 {
				add(RulePastPolicy, "event %d days past: post_event=%v with %d POST_EVENT warnings, want a post-event plan saying so once", k, tl["post_event"], posts)
			}
			future := Example(w, runAsOf)
			ahead := engine.AddDays(runAsOf, 400)
			setEventDate(w, future, pd, ahead)
			fres, err := Run(w, future, runAsOf)
			if err != nil {
				add(RulePastPolicy, "event 400 days ahead: run failed: %v", err)
				continue
			}
			first := earliestEventDate(future, pd)
			pre := map[string]bool{}
			for _, x := range listOf(fres["timeline"].(map[string]any)["milestones"]) {
				m, _ := x.(map[string]any)
				if d, ok := date(m["date"]); ok && d.Before(first) {
					pre[str(m["key"])] = true
				}
			}
			preAdvice := map[string]bool{}
			for _, x := range listOf(fres["recommendations"]) {
				r, _ := x.(map[string]any)
				if d, ok := date(r["due_date"]); ok && d.Before(first) {
					preAdvice[str(r["title"])] = true
				}
			}
			for _, x := range listOf(tl["milestones"]) {
				m, _ := x.(map[string]any)
				if d, ok := date(m["date"]); ok && pre[str(m["key"])] && !d.Before(runAsOf) {
					add(RulePreEventAfterAsOf, "event %d days past: %q (%v) dated %v, as_of %s", k, m["title"], m["key"], m["date"], engine.FormatDate(runAsOf))
				}
			}
			for _, x := range listOf(res["recommendations"]) {
				r, _ := x.(map[string]any)
				if _, ok := date(r["due_date"]); ok && preAdvice[str(r["title"])] {
					add(RulePreEventAfterAsOf, "event %d days past: advice %q due %v", k, r["title"], r["due_date"])
				}
			}
		case engine.PastReplan:
			f, ok := date(tl["feasible_date"])
			if !ok || f.Before(runAsOf) || tl["post_event"] == true {
				add(RulePastPolicy, "event %d days past: feasible_date %v, post_event %v: want a re-plan on or after as_of", k, tl["feasible_date"], tl["post_event"])
			}
		case engine.PastSkip:
			for _, item := range listOf(ctx[pd.Field]) {
				name := str(item.(map[string]any)["name"])
				named := false
				for _, x := range listOf(res["warnings"]) {
					m, _ := x.(map[string]any)
					named = named || strings.Contains(str(m["message"]), name)
				}
				if !named {
					add(RulePastPolicy, "event %d days past: no warning names the passed entry %q", k, name)
				}
				for _, x := range listOf(tl["milestones"]) {
					m, _ := x.(map[string]any)
					if d, ok := date(m["date"]); ok && !d.Before(runAsOf) && strings.Contains(str(m["title"]), name) {
						add(RulePastPolicy, "event %d days past: passed entry %q still planned: %q on %v", k, name, m["title"], m["date"])
					}
				}
			}
		}
	}
	return ps
}

// CheckPastDate fails t for every problem PastDateProblems finds in the
// workflow id, and when the workflow declares no past-date policy.
func CheckPastDate(t *testing.T, id string) {
	t.Helper()
	w, ok := engine.LookupWorkflow(id)
	if !ok {
		t.Fatalf("workflow %q not registered", id)
	}
	if w.PastDate.Policy == "" {
		t.Fatalf("%s declares no past-date policy (engine.Workflow.PastDate)", id)
	}
	for _, asOf := range []time.Time{DefaultAsOf, asOfDates[2]} {
		for _, p := range PastDateProblems(w, asOf) {
			t.Errorf("%s (as_of %s): %s: %s", id, engine.FormatDate(asOf), p.Rule, p.Detail)
		}
	}
}

func isYearField(w *engine.Workflow, name string) bool {
	for _, f := range w.Fields {
		if f.Name == name {
			return f.Kind == engine.Integer
		}
	}
	return false
}

// setEventDate puts the event of ctx on d: the field itself, or, for a
// list, each item's dates shifted together so its latest date is d.
func setEventDate(w *engine.Workflow, ctx map[string]any, pd engine.PastDate, d time.Time) bool {
	list, item, nested := strings.Cut(pd.Field, "[].")
	if !nested && pd.Policy != engine.PastSkip {
		ctx[pd.Field] = engine.FormatDate(d)
		return true
	}
	var dateFields []string
	for _, f := range w.Fields {
		if f.Name != list {
			continue
		}
		for _, it := range f.Items {
			if it.Kind == engine.Date && (!nested || it.Name == item) {
				dateFields = append(dateFields, it.Name)
			}
		}
	}
	items := listOf(ctx[list])
	if len(items) == 0 || len(dateFields) == 0 {
		return false
	}
	// One shift for the whole list keeps the items' order and spacing.
	var latest time.Time
	for _, x := range items {
		for _, f := range dateFields {
			if v, ok := date(x.(map[string]any)[f]); ok && v.After(latest) {
				latest = v
			}
		}
	}
	shift := engine.DaysBetween(latest, d)
	for _, x := range items {
		m := x.(map[string]any)
		for _, f := range dateFields {
			if v, ok := date(m[f]); ok {
				m[f] = engine.FormatDate(engine.AddDays(v, shift))
			}
		}
	}
	return true
}

// earliestEventDate is when the event of ctx begins: the field, or the
// first item's date of a list.
func earliestEventDate(ctx map[string]any, pd engine.PastDate) time.Time {
	list, item, nested := strings.Cut(pd.Field, "[].")
	if !nested {
		d, _ := date(ctx[pd.Field])
		return d
	}
	var first time.Time
	for _, x := range listOf(ctx[list]) {
		if d, ok := date(x.(map[string]any)[item]); ok && (first.IsZero() || d.Before(first)) {
			first = d
		}
	}
	return first
}
