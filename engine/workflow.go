package engine

import (
	"fmt"
	"sort"
	"strings"
	"sync"
	"time"
)

// Workflow is a deterministic planner: given the same context (and as_of
// date) it computes the same plan. Workflows live one per file in
// engine/workflows and register themselves from init.
type Workflow struct {
	// ID is unique across all verticals; it is the value clients pass as
	// "workflow" when running.
	ID          string
	Name        string
	Vertical    string
	Description string
	// Fields describe the context object; the JSON Schema published as
	// input_schema and used for validation is derived from them.
	Fields []Field
	// ExampleContext is a valid context that shows the workflow off.
	ExampleContext map[string]any
	// Steps run in order; progress advances after each one.
	Steps []Step
	// Sources are the published rules and references the workflow's
	// figures come from, each with the month it was last checked, so users
	// know what to re-check when a platform or union changes a rule.
	Sources []Source
	// Check, when set, rejects contexts the schema accepts but the workflow
	// cannot plan for (a launch date already past where no post-event plan
	// makes sense, two fields that contradict each other). It runs in
	// Prepare, so its violations are a 400 naming the field; asOf is the
	// context's as_of, or today. (An asynchronous job without as_of is
	// prepared again when a worker picks it up, so a check against "today"
	// can judge it on a later day than its creation: compare dates with
	// margin, or require as_of.)
	Check func(in *Input, asOf time.Time) []Violation
	// PastDate says what the workflow does when its event date (a
	// release, an opening, a deadline) is already behind as_of.
	PastDate PastDate
	// Jurisdiction lists the areas of country rules (advertising, tax,
	// safety, art copies) the workflow reads from the jurisdiction table
	// for its `country`.
	Jurisdiction []Area
	// CountryIndependent says why a workflow without a `country` input
	// needs none (a platform's rule is the same everywhere); every
	// workflow of the catalogue either takes `country` or says why here
	// (a property test over the registry holds it).
	CountryIndependent string

	schema *compiledSchema
}

// PastDate is a workflow's policy for an event date already past.
type PastDate struct {
	// Field is the context field holding the event date: "release_date",
	// "shows[].date" for a date of each item, an integer year for an
	// annual event ("year"), or the list itself ("festivals") for PastSkip,
	// whose items each carry their own dates.
	Field  string
	Policy PastPolicy
}

// PastPolicy is one of the ways a workflow treats an event already past.
type PastPolicy string

const (
	// PastPostEvent: the event happened, so the plan is a post-event plan
	// (Plan.PostEvent): steps up to the event are history, what can still
	// be done is dated from as_of, and what no longer can is said once in
	// the POST_EVENT warning. No pre-event task is scheduled.
	PastPostEvent PastPolicy = "post-event plan"
	// PastReplan: the date is a target the work has not reached, so the
	// plan is re-planned on the earliest feasible date (Plan.Replanned).
	PastReplan PastPolicy = "re-plan on the earliest feasible date"
	// PastSkip: the field is a list of dated entries (calls, festivals,
	// contests); entries whose dates have all passed are left out with a
	// warning naming them, and the plan covers the rest.
	PastSkip PastPolicy = "leave passed entries out"
	// PastNotApplicable: the workflow has no event date.
	PastNotApplicable PastPolicy = "not applicable"
)

// Describe says in a sentence what happens when the event date is past.
func (d PastDate) Describe() string {
	switch d.Policy {
	case PastPostEvent:
		return fmt.Sprintf("`%s` already past gives a post-event plan: what can still be done, from as_of, and what no longer can, said once (`timeline.post_event`, a `POST_EVENT` warning).", d.Field)
	case PastReplan:
		return fmt.Sprintf("`%s` already past (or too close) is re-planned on the earliest feasible date (`timeline.requested_date`, `feasible_date`, a `REPLANNED` warning).", d.Field)
	case PastSkip:
		return fmt.Sprintf("entries of `%s` whose dates have passed are left out with a warning naming them; the plan covers the rest.", d.Field)
	case PastNotApplicable:
		return "not applicable: the workflow has no event date."
	}
	return ""
}

// check reports a policy that names no field of the workflow, or one of
// the wrong kind.
func (d PastDate) check(fields []Field) error {
	switch d.Policy {
	case "", PastNotApplicable:
		if d.Field != "" {
			return fmt.Errorf("past-date field %q without a policy", d.Field)
		}
		return nil
	case PastPostEvent, PastReplan, PastSkip:
	default:
		return fmt.Errorf("unknown past-date policy %q", d.Policy)
	}
	list, item, nested := strings.Cut(d.Field, "[].")
	for _, f := range fields {
		if f.Name != list {
			continue
		}
		switch {
		case d.Policy == PastSkip && !nested && f.Kind == ObjectList:
			return nil
		case !nested && (f.Kind == Date || f.Kind == Integer && strings.HasSuffix(f.Name, "year")):
			return nil
		case nested && f.Kind == ObjectList:
			for _, it := range f.Items {
				if it.Name == item && it.Kind == Date {
					return nil
				}
			}
		}
	}
	return fmt.Errorf("past-date field %q is not a date field (or, for %q, a list) of the workflow", d.Field, PastSkip)
}

// Source is a published rule or reference a workflow relies on.
type Source struct {
	Title string
	URL   string
	// Checked is the month the rule was last verified, "2026-11".
	Checked string
}

// Step is one stage of a workflow run. A step reads the validated input and
// adds to the plan; returning an error fails the job at this step.
type Step struct {
	Name string
	Run  func(in *Input, p *Plan) error
}

var (
	registryMu sync.RWMutex
	registry   = map[string]*Workflow{}
)

// Register adds a workflow to the registry. It panics on programming errors
// (unknown vertical, duplicate id, bad schema) so they surface at start-up
// and in tests rather than on a user's request.
func Register(w *Workflow) {
	if _, ok := LookupVertical(w.Vertical); !ok {
		panic(fmt.Sprintf("engine: workflow %q: unknown vertical %q", w.ID, w.Vertical))
	}
	if w.ID == "" || w.Name == "" || w.Description == "" || len(w.Steps) == 0 {
		panic(fmt.Sprintf("engine: workflow %q: id, name, description and steps are required", w.ID))
	}
	for _, src := range w.Sources {
		if _, err := time.Parse("2006-01", src.Checked); err != nil || src.Title == "" || !strings.HasPrefix(src.URL, "https://") {
			panic(fmt.Sprintf("engine: workflow %q: source %q needs a title, an https URL and Checked as YYYY-MM", w.ID, src.Title))
		}
	}
	if len(w.Jurisdiction) > 0 && !hasField(w.Fields, RegionFieldName) {
		panic(fmt.Sprintf("engine: workflow %q: country rules %v need a `country` input", w.ID, w.Jurisdiction))
	}
	if err := w.PastDate.check(w.Fields); err != nil {
		panic(fmt.Sprintf("engine: workflow %q: %v", w.ID, err))
	}
	s, err := compileSchema(w.ID, w.Fields)
	if err != nil {
		panic(fmt.Sprintf("engine: workflow %q: %v", w.ID, err))
	}
	w.schema = s
	registryMu.Lock()
	defer registryMu.Unlock()
	if _, dup := registry[w.ID]; dup {
		panic(fmt.Sprintf("engine: workflow %q registered twice", w.ID))
	}
	registry[w.ID] = w
}

// LookupWorkflow returns the workflow with the given id.
func LookupWorkflow(id string) (*Workflow, bool) {
	registryMu.RLock()
	defer registryMu.RUnlock()
	w, ok := registry[id]
	return w, ok
}

// Workflows lists registered workflows ordered by vertical (in the order of
// Verticals) then id. An empty vertical lists all of them.
func Workflows(vertical string) []*Workflow {
	registryMu.RLock()
	out := make([]*Workflow, 0, len(registry))
	for _, w := range registry {
		if vertical == "" || w.Vertical == vertical {
			out = append(out, w)
		}
	}
	registryMu.RUnlock()
	rank := map[string]int{}
	for i, v := range verticals {
		rank[v.Key] = i
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].Vertical != out[j].Vertical {
			return rank[out[i].Vertical] < rank[out[j].Vertical]
		}
		return out[i].ID < out[j].ID
	})
	return out
}

// InputSchema returns the JSON Schema of the workflow's context.
func (w *Workflow) InputSchema() map[string]any { return w.schema.doc }
