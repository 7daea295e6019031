package engine

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"reflect"
	"slices"
	"sort"
	"strings"
	"time"
	"unicode/utf8"
)

// Priority ranks a recommendation.
type Priority string

const (
	High   Priority = "high"
	Medium Priority = "medium"
	Low    Priority = "low"
)

// Recommendation is one piece of advice in a plan.
type Recommendation struct {
	Title    string   `json:"title"`
	Detail   string   `json:"detail"`
	Priority Priority `json:"priority"`
	DueDate  string   `json:"due_date,omitempty"`
}

// Milestone is a dated step of the plan's timeline.
type Milestone struct {
	Key   string    `json:"key"`
	Title string    `json:"title"`
	Date  time.Time `json:"-"`
	// Deliverable marks work someone must hand over (see Plan.Deliverable);
	// it is only ever due on an open day of the plan's region.
	Deliverable bool `json:"-"`
	// MovedFrom is the date the workflow asked for when the deliverable was
	// moved off a closed day, and Note says why.
	MovedFrom time.Time `json:"-"`
	Note      string    `json:"-"`
	// After lists the keys of milestones that must be done first (see
	// Plan.Precede and Plan.DependsOn).
	After []string `json:"-"`
	// Kind says what the milestone is: a hand-over kind is only ever
	// dated on a working day of the plan's calendar.
	Kind StepKind `json:"-"`
	// Deliberate says why an event is held on a closed day.
	Deliberate string `json:"-"`
}

// Warning flags a plan that cannot work as asked (a date too close, a
// deadline already passed, a price below cost...). The plan is still made,
// with the closest feasible alternative where there is one.
type Warning struct {
	Code    string `json:"code"`
	Message string `json:"message"`
}

// Plan accumulates a workflow's result as its steps run.
type Plan struct {
	asOf       time.Time
	target     time.Time
	strategy   string
	recs       []Recommendation
	milestones []Milestone
	warnings   []Warning
	extra      map[string]any
	// region is the calendar deliverables were scheduled on; requested and
	// feasible are set by Replanned.
	region              Region
	closures            []Closure
	precedences         []Precedence
	requested, feasible time.Time
	postEvent           time.Time
	// refs is set once Ref or RecommendOn has written a milestone
	// reference, so rendering only looks for them then; labels and
	// schedules are the dates a result names that are not milestones (see
	// Label and SetSchedule).
	refs      map[string]bool
	labels    []referenceDate
	schedules []schedule
	// pricePoints are the prices rounded by Input.PricePoint; pins, when
	// set, replace them in order (Input.PinPricePoints); ratesChecked is set
	// once the plan has converted with the reference rates.
	pricePoints  []map[string]any
	pins         []float64
	ratesChecked bool
}

// referenceDate is a date the plan names that is not one of its steps (a
// sale season, a date the user could choose instead), with what it is.
type referenceDate struct {
	Date  string `json:"date"`
	Label string `json:"label"`
}

// schedule names a workflow-specific key that is a calendar of its own.
type schedule struct {
	Key   string `json:"key"`
	About string `json:"about"`
}

// AsOf is the date the plan is made on.
func (p *Plan) AsOf() time.Time { return p.asOf }

// SetTarget names the date the timeline is planned towards (a release, an
// opening night); it is reported as timeline.target_date.
func (p *Plan) SetTarget(d time.Time) { p.target = d }

// Strategy sets the one-paragraph summary of the plan.
func (p *Plan) Strategy(format string, args ...any) { p.strategy = fmt.Sprintf(format, args...) }

// Recommend adds advice.
func (p *Plan) Recommend(pri Priority, title, detail string) {
	p.recs = append(p.recs, Recommendation{Title: title, Detail: detail, Priority: pri})
}

// RecommendOn adds advice due on milestone key's settled date, or now
// when that date is already behind the plan (the step is overdue): on the
// first working day on or after as_of (Plan.Now). The due date is read when the result is rendered, so it follows the
// milestone wherever the calendar or a re-plan moves it.
func (p *Plan) RecommendOn(pri Priority, key, title, detail string) {
	p.noteRef(key)
	p.recs = append(p.recs, Recommendation{Title: title, Detail: detail, Priority: pri, DueDate: refOpen + dueMark + key + refClose})
}

// RecommendBy adds advice that has a due date. A date that is a
// milestone's belongs to the milestone: use RecommendOn. Advice due on or
// before a closed as_of is due on the first working day after it
// (Plan.Now).
func (p *Plan) RecommendBy(pri Priority, due time.Time, title, detail string) {
	p.recs = append(p.recs, Recommendation{Title: title, Detail: detail, Priority: pri, DueDate: FormatDate(due)})
}

// Milestone adds a step to the timeline that is an action towards someone
// else (KindAction: a pitch sent, a sign-off, an order placed), so it is
// dated on a working day of the plan's calendar (see Handover). Use Event
// for a fixed date the plan does not choose, Work for one's own work, and
// Handover for the other hand-over kinds.
func (p *Plan) Milestone(key, title string, d time.Time) { p.Handover(KindAction, key, title, d) }

// Deliverable adds a milestone that is work someone must hand over (a
// master, a manuscript, artwork, a tech pack): Handover of KindDeliverable.
// A non-empty r sets the plan's country (the calendar the workflow's
// `country` input already gives).
func (p *Plan) Deliverable(key, title string, d time.Time, r Region) {
	if r != "" {
		p.region = r
	}
	p.Handover(KindDeliverable, key, title, d)
}

// Settling dates, then narrating them. A planner settles its dates first
// (requests, moves off closed days, re-plans) and narrates second: prose,
// recommendations and workflow-specific keys name a milestone's date with
// Ref (or RecommendOn) instead of copying it, and the reference is written
// out as the settled date when the result is rendered, so a moved date moves
// everywhere. The few dates a result names that are no milestone's are
// declared as such: Label for one date, SetSchedule for a key that is a
// calendar of its own. A check over every workflow (enginetest's
// RuleStrayDate) holds results to this.

// Reference markers: private-use runes no rendered date contains.
const (
	refOpen  = "\ue000"
	refClose = "\ue001"
	// dueMark makes a reference resolve to as_of when the milestone is
	// already behind it (a due date is never in the past).
	dueMark = ">"
)

// Ref returns a reference to milestone key's date, for the strategy,
// recommendations and Set values: it is written out as the milestone's
// settled date (YYYY-MM-DD) when the result is rendered. The milestone may
// be added, or moved, after the reference is written; rendering a
// reference to a milestone the plan never got fails the run.
func (p *Plan) Ref(key string) string {
	p.noteRef(key)
	return refOpen + key + refClose
}

// noteRef records a key referred to, so that rendering resolves only the
// references the plan wrote (text from the context that happens to hold
// the markers stays as it was).
func (p *Plan) noteRef(key string) {
	if p.refs == nil {
		p.refs = map[string]bool{}
	}
	p.refs[key] = true
}

// DateOf returns milestone key's date as settled so far, or the zero time
// when there is no such milestone, for arithmetic that builds on it (a step
// a week after the masters). Text should use Ref.
func (p *Plan) DateOf(key string) time.Time {
	for _, m := range p.milestones {
		if m.Key == key {
			return m.Date
		}
	}
	return time.Time{}
}

// Label returns d as YYYY-MM-DD for text or a Set value, recording it in
// timeline.reference_dates with what it is ("Steam Winter Sale starts",
// "earliest feasible launch"): a date the result names that is not a step
// of the plan. A step's date is a milestone's, named with Ref.
func (p *Plan) Label(what string, d time.Time) string {
	s := FormatDate(d)
	for _, l := range p.labels {
		if l.Date == s && l.Label == what {
			return s
		}
	}
	p.labels = append(p.labels, referenceDate{Date: s, Label: what})
	return s
}

// SetSchedule is Set for a key that is a calendar of its own (the send
// days of a warm-up ramp, each episode's post-production dates, monthly
// payouts): its dates are not milestones and are not copied from any. The
// result names the key and what it schedules in timeline.schedules. A date
// in it that is a milestone's is still written with Ref.
func (p *Plan) SetSchedule(key, about string, v any) {
	p.Set(key, v)
	for _, sc := range p.schedules {
		if sc.Key == key {
			return
		}
	}
	p.schedules = append(p.schedules, schedule{Key: key, About: about})
}

// Move moves milestone key to d after it was added (a dependency finished
// later than planned, a re-plan pushed it), reporting the move: moved_from
// keeps the date first asked for, and why is added to the note. A
// hand-over moved onto a closed day goes on to the next working day when
// moved later, the previous one when moved earlier; the plan's precedences
// are settled again. Everything that refers to the milestone by Ref moves
// with it.
func (p *Plan) Move(key string, d time.Time, why string) {
	for i := range p.milestones {
		m := &p.milestones[i]
		if m.Key != key || m.Date.Equal(d) {
			continue
		}
		later := d.After(m.Date)
		if m.MovedFrom.IsZero() {
			m.MovedFrom = m.Date
		}
		if m.MovedFrom.Equal(d) {
			m.MovedFrom, m.Note = time.Time{}, ""
		} else if why = strings.TrimSpace(why); why != "" {
			m.Note = strings.TrimPrefix(m.Note+"; "+why, "; ")
		}
		m.Date = d
		if m.Kind == KindEvent {
			m.Deliberate = ""
			if reason := p.Calendar().ClosedReason(d); reason != "" {
				m.Deliberate = "on " + reason + ": " + strings.TrimSpace(why)
			}
		}
		p.place(m, later)
	}
	p.settle()
}

// resolve writes out the milestone references in s.
func (p *Plan) resolve(s string, dates map[string]time.Time) (string, error) {
	if !strings.Contains(s, refOpen) {
		return s, nil
	}
	var b strings.Builder
	for {
		i := strings.Index(s, refOpen)
		if i < 0 {
			break
		}
		j := strings.Index(s[i:], refClose)
		if j < 0 {
			break
		}
		key := s[i+len(refOpen) : i+j]
		due := strings.HasPrefix(key, dueMark)
		key = strings.TrimPrefix(key, dueMark)
		if !p.refs[key] {
			b.WriteString(s[:i+j+len(refClose)])
			s = s[i+j+len(refClose):]
			continue
		}
		d, ok := dates[key]
		if !ok {
			return "", fmt.Errorf("the plan refers to milestone %q, which it does not have", key)
		}
		if due && !d.After(p.asOf) {
			d = p.Now()
		}
		b.WriteString(s[:i])
		b.WriteString(FormatDate(d))
		s = s[i+j+len(refClose):]
	}
	b.WriteString(s)
	return b.String(), nil
}

// resolveAll writes out the milestone references in a plain value.
func (p *Plan) resolveAll(v any, dates map[string]time.Time) (any, error) {
	switch x := v.(type) {
	case string:
		return p.resolve(x, dates)
	case map[string]any:
		for k, e := range x {
			r, err := p.resolveAll(e, dates)
			if err != nil {
				return nil, err
			}
			x[k] = r
		}
	case []any:
		for i, e := range x {
			r, err := p.resolveAll(e, dates)
			if err != nil {
				return nil, err
			}
			x[i] = r
		}
	}
	return v, nil
}

// PostEvent records that the plan's target (a release, publication,
// launch) is already behind as_of, so the plan is a post-event plan: what
// still matters afterwards. It adds a POST_EVENT warning; milestones on or
// before the target that lie before as_of are history, reported as passed,
// and need no warning each. Steps still to do are dated on or after as_of.
func (p *Plan) PostEvent(target time.Time, why string) {
	p.postEvent = target
	if p.target.IsZero() {
		p.target = target
	}
	p.Warn("POST_EVENT", "%s was %s; this is a post-event plan: %s", FormatDate(target),
		Plural(DaysBetween(target, p.asOf), "day ago", "days ago"), strings.TrimSpace(why))
}

// DependsOn records that the milestone key cannot happen before the
// milestones named in on (masters after final artwork, fulfilment after the
// campaign ends): Precede with no gap for each. Call it after adding the
// milestones; unknown keys are ignored.
func (p *Plan) DependsOn(key string, on ...string) {
	for _, k := range on {
		p.Precede(k, key, 0)
	}
}

// Replanned records that the plan is built on feasible instead of the date
// the user asked for (requested), because requested cannot work (too close,
// already passed, a closed week); why says so in a sentence. The result
// reports both as timeline.requested_date and timeline.feasible_date, with a
// REPLANNED warning; the target date becomes feasible unless the workflow
// set another. Call it once, before building milestones on feasible.
func (p *Plan) Replanned(requested, feasible time.Time, why string) {
	p.requested, p.feasible = requested, feasible
	if p.target.IsZero() || p.target.Equal(requested) {
		p.target = feasible
	}
	p.Warn("REPLANNED", "%s The plan is built on %s instead of the requested %s.",
		strings.TrimSpace(why), FormatDate(feasible), FormatDate(requested))
}

// IsReplanned reports whether Replanned was called, and the dates.
func (p *Plan) IsReplanned() (requested, feasible time.Time, ok bool) {
	return p.requested, p.feasible, !p.feasible.IsZero()
}

// Milestones returns the timeline so far, in date order.
func (p *Plan) Milestones() []Milestone {
	ms := append([]Milestone(nil), p.milestones...)
	sort.SliceStable(ms, func(i, j int) bool { return ms[i].Date.Before(ms[j].Date) })
	return ms
}

// Warn flags a problem with the plan.
func (p *Plan) Warn(code, format string, args ...any) {
	p.warnings = append(p.warnings, Warning{Code: code, Message: fmt.Sprintf(format, args...)})
}

// WarnPassedMilestones adds a MILESTONE_PASSED warning for every milestone
// already behind the plan date, so a plan made late says which steps are
// overdue and by how much instead of silently listing past dates. Keys in
// skip are left alone: steps the workflow already warns about in its own
// terms, or ones that only make sense after the event. It returns how many
// it flagged; call it once all milestones are in.
func (p *Plan) WarnPassedMilestones(skip ...string) int {
	n := 0
	for _, m := range p.Milestones() {
		if m.Date.Before(p.asOf) && !slices.Contains(skip, m.Key) {
			p.Warn("MILESTONE_PASSED", "%s was due %s, %s before the plan date %s.",
				m.Title, FormatDate(m.Date), Plural(DaysBetween(m.Date, p.asOf), "day", "days"), FormatDate(p.asOf))
			n++
		}
	}
	return n
}

// Warnings returns the warnings so far.
func (p *Plan) Warnings() []Warning { return append([]Warning(nil), p.warnings...) }

// Set adds a workflow-specific key to the result. The value must marshal to
// JSON; dates should be passed through FormatDate.
func (p *Plan) Set(key string, v any) {
	if p.extra == nil {
		p.extra = map[string]any{}
	}
	p.extra[key] = v
}

// Get returns a workflow-specific key set earlier, so later steps can build
// on earlier ones.
func (p *Plan) Get(key string) any { return p.extra[key] }

// GetDate reads back a date an earlier step stored with
// Set(key, FormatDate(d)). Dates are stored as strings so the result carries
// them as YYYY-MM-DD; this saves later steps from re-parsing them. A missing
// or non-date value gives the zero time.
func (p *Plan) GetDate(key string) time.Time {
	s, _ := p.extra[key].(string)
	if strings.HasPrefix(s, refOpen) {
		return p.DateOf(strings.TrimSuffix(strings.TrimPrefix(s, refOpen), refClose))
	}
	d, err := ParseDate(s)
	if err != nil {
		return time.Time{}
	}
	return d
}

type milestoneJSON struct {
	Key         string   `json:"key"`
	Title       string   `json:"title"`
	Date        string   `json:"date"`
	DaysFromNow int      `json:"days_from_as_of"`
	Passed      bool     `json:"passed"`
	Deliverable bool     `json:"deliverable,omitempty"`
	Kind        StepKind `json:"kind"`
	Deliberate  string   `json:"deliberate,omitempty"`
	MovedFrom   string   `json:"moved_from,omitempty"`
	Note        string   `json:"note,omitempty"`
	After       []string `json:"after,omitempty"`
}

// nowDue dates advice due now on the first working day on or after as_of:
// a due date on or before a closed as_of, and a milestone's due date the
// milestone has already passed. The day is labelled in the result.
func (p *Plan) nowDue() {
	now := p.Now()
	if now.Equal(p.asOf) {
		return
	}
	used := false
	for i := range p.recs {
		r := &p.recs[i]
		if strings.HasPrefix(r.DueDate, refOpen+dueMark) {
			key := strings.TrimSuffix(strings.TrimPrefix(r.DueDate, refOpen+dueMark), refClose)
			if d := p.DateOf(key); !d.IsZero() && !d.After(p.asOf) {
				used = true
			}
			continue
		}
		if d, err := ParseDate(r.DueDate); err == nil && !d.After(p.asOf) {
			r.DueDate, used = FormatDate(now), true
		}
	}
	if used {
		p.Label("first working day on or after the plan date", now)
	}
}

// Result renders the plan as the job's result object.
func (p *Plan) Result() (map[string]any, error) {
	p.settle()
	p.nowDue()
	for _, pr := range p.shortPrecedences() {
		a, b := p.milestones[p.index(pr.Before)], p.milestones[p.index(pr.After)]
		p.Warn("PRECEDENCE_SHORT", "%s (%s) needs %s after %s (%s), which is a fixed date: allow more time or move the event.",
			b.Title, FormatDate(b.Date), Plural(pr.Gap, "working day", "working days"), a.Title, FormatDate(a.Date))
	}
	out := p.value()
	// The plain values a protobuf Struct can hold, as a JSON round trip
	// would give them.
	result, err := plain(out)
	if errors.Is(err, errNonFinite) {
		return nil, fmt.Errorf("%s is not a finite number", nonFinite(reflect.ValueOf(out), "result"))
	}
	if err != nil {
		return nil, err
	}
	if len(p.refs) > 0 {
		dates := map[string]time.Time{}
		for _, m := range p.milestones {
			if _, dup := dates[m.Key]; !dup {
				dates[m.Key] = m.Date
			}
		}
		if result, err = p.resolveAll(result, dates); err != nil {
			return nil, err
		}
	}
	return result.(map[string]any), nil
}

// value is the plan's result as the workflow built it, typed values and
// all.
func (p *Plan) value() map[string]any {
	ms := p.Milestones()
	timeline := map[string]any{}
	list := make([]milestoneJSON, len(ms))
	for i, m := range ms {
		list[i] = milestoneJSON{Key: m.Key, Title: m.Title, Date: FormatDate(m.Date), DaysFromNow: DaysBetween(p.asOf, m.Date),
			Passed: m.Date.Before(p.asOf), Deliverable: m.Deliverable, Kind: m.Kind, Deliberate: m.Deliberate, Note: m.Note, After: m.After}
		if !m.MovedFrom.IsZero() {
			list[i].MovedFrom = FormatDate(m.MovedFrom)
		}
	}
	timeline["milestones"] = list
	if len(ms) > 0 {
		timeline["start"] = FormatDate(ms[0].Date)
		timeline["end"] = FormatDate(ms[len(ms)-1].Date)
	}
	if !p.target.IsZero() {
		timeline["target_date"] = FormatDate(p.target)
	}
	if !p.feasible.IsZero() {
		timeline["requested_date"] = FormatDate(p.requested)
		timeline["feasible_date"] = FormatDate(p.feasible)
	}
	timeline["region"] = string(p.Calendar().Region)
	if len(p.closures) > 0 {
		keys := make([]string, len(p.closures))
		for i, c := range p.closures {
			keys[i] = c.Key
		}
		timeline["closures"] = keys
	}
	if len(p.precedences) > 0 {
		ps := make([]map[string]any, len(p.precedences))
		for i, pr := range p.precedences {
			ps[i] = map[string]any{"before": pr.Before, "after": pr.After, "min_working_days": pr.Gap}
		}
		timeline["precedences"] = ps
	}
	if !p.postEvent.IsZero() {
		timeline["post_event"] = true
	}
	if len(p.labels) > 0 {
		ds := make([]map[string]any, len(p.labels))
		for i, l := range p.labels {
			ds[i] = map[string]any{"date": l.Date, "label": l.Label}
		}
		timeline["reference_dates"] = ds
	}
	if len(p.schedules) > 0 {
		ss := make([]map[string]any, len(p.schedules))
		for i, sc := range p.schedules {
			ss[i] = map[string]any{"key": sc.Key, "about": sc.About}
		}
		timeline["schedules"] = ss
	}
	out := map[string]any{}
	for k, v := range p.extra {
		out[k] = v
	}
	recs := p.recs
	if recs == nil {
		recs = []Recommendation{}
	}
	warnings := p.warnings
	if warnings == nil {
		warnings = []Warning{}
	}
	out["strategy"] = p.strategy
	out["recommendations"] = recs
	out["timeline"] = timeline
	out["warnings"] = warnings
	out["as_of"] = FormatDate(p.asOf)
	return out
}

// errNonFinite reports a NaN or infinite number, which JSON cannot carry.
var errNonFinite = errors.New("not a finite number")

// plain returns v as encoding/json would decode v's JSON into an any:
// nil, bool, float64, string, []any or map[string]any. The types plans are
// built of are converted directly; any other value goes through JSON, so
// the result is always exactly the round trip's (a run's result is made on
// every run: the round trip was most of its cost).
func plain(v any) (any, error) {
	switch x := v.(type) {
	case nil:
		return nil, nil
	case bool:
		return x, nil
	case string:
		if utf8.ValidString(x) {
			return x, nil
		}
	case float64:
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return nil, errNonFinite
		}
		return x, nil
	case int:
		return float64(x), nil
	case int64:
		return float64(x), nil
	case Priority:
		return plain(string(x))
	case map[string]any:
		return plainMap(x)
	case map[string]string:
		return plainMap(x)
	case map[string]float64:
		return plainMap(x)
	case map[string]int:
		return plainMap(x)
	case []any:
		return plainSlice(x)
	case []string:
		return plainSlice(x)
	case []float64:
		return plainSlice(x)
	case []int:
		return plainSlice(x)
	case []map[string]any:
		return plainSlice(x)
	case []Recommendation:
		return plainSlice(x)
	case []Warning:
		return plainSlice(x)
	case []milestoneJSON:
		return plainSlice(x)
	case Recommendation:
		if validStrings(x.Title, x.Detail, string(x.Priority), x.DueDate) {
			m := map[string]any{"title": x.Title, "detail": x.Detail, "priority": string(x.Priority)}
			if x.DueDate != "" {
				m["due_date"] = x.DueDate
			}
			return m, nil
		}
	case Warning:
		if validStrings(x.Code, x.Message) {
			return map[string]any{"code": x.Code, "message": x.Message}, nil
		}
	case milestoneJSON:
		if validStrings(x.Key, x.Title, x.Date, x.MovedFrom, x.Note, string(x.Kind), x.Deliberate) && validStrings(x.After...) {
			m := map[string]any{"key": x.Key, "title": x.Title, "date": x.Date, "days_from_as_of": float64(x.DaysFromNow), "passed": x.Passed, "kind": string(x.Kind)}
			if x.Deliverable {
				m["deliverable"] = true
			}
			if x.Deliberate != "" {
				m["deliberate"] = x.Deliberate
			}
			if x.MovedFrom != "" {
				m["moved_from"] = x.MovedFrom
			}
			if x.Note != "" {
				m["note"] = x.Note
			}
			if len(x.After) > 0 {
				after := make([]any, len(x.After))
				for i, k := range x.After {
					after[i] = k
				}
				m["after"] = after
			}
			return m, nil
		}
	}
	return viaJSON(v)
}

// validStrings reports whether JSON would carry each of ss unchanged.
func validStrings(ss ...string) bool {
	for _, s := range ss {
		if !utf8.ValidString(s) {
			return false
		}
	}
	return true
}

func plainMap[V any](m map[string]V) (any, error) {
	if m == nil {
		return nil, nil
	}
	out := make(map[string]any, len(m))
	for k, e := range m {
		if !utf8.ValidString(k) {
			return viaJSON(m)
		}
		pe, err := plain(e)
		if err != nil {
			return nil, err
		}
		out[k] = pe
	}
	return out, nil
}

func plainSlice[E any](s []E) (any, error) {
	if s == nil {
		return nil, nil
	}
	out := make([]any, len(s))
	for i, e := range s {
		pe, err := plain(e)
		if err != nil {
			return nil, err
		}
		out[i] = pe
	}
	return out, nil
}

// viaJSON makes v plain by a JSON round trip.
func viaJSON(v any) (any, error) {
	b, err := json.Marshal(v)
	var unsupported *json.UnsupportedValueError
	if errors.As(err, &unsupported) {
		return nil, errNonFinite
	}
	if err != nil {
		return nil, err
	}
	var out any
	if err := json.Unmarshal(b, &out); err != nil {
		return nil, err
	}
	return out, nil
}

// nonFinite returns the path of the first NaN or infinite number in v, or
// "": a plan whose arithmetic overflowed fails naming the key, rather than
// with JSON's "unsupported value: +Inf".
func nonFinite(v reflect.Value, path string) string {
	switch v.Kind() {
	case reflect.Interface, reflect.Pointer:
		if v.IsNil() {
			return ""
		}
		return nonFinite(v.Elem(), path)
	case reflect.Float32, reflect.Float64:
		if f := v.Float(); math.IsNaN(f) || math.IsInf(f, 0) {
			return path
		}
	case reflect.Map:
		keys := v.MapKeys()
		sort.Slice(keys, func(i, j int) bool { return fmt.Sprint(keys[i]) < fmt.Sprint(keys[j]) })
		for _, k := range keys {
			if p := nonFinite(v.MapIndex(k), fmt.Sprintf("%s.%v", path, k)); p != "" {
				return p
			}
		}
	case reflect.Slice, reflect.Array:
		for i := 0; i < v.Len(); i++ {
			if p := nonFinite(v.Index(i), fmt.Sprintf("%s[%d]", path, i)); p != "" {
				return p
			}
		}
	case reflect.Struct:
		for i := 0; i < v.NumField(); i++ {
			if v.Type().Field(i).IsExported() {
				if p := nonFinite(v.Field(i), path+"."+v.Type().Field(i).Name); p != "" {
					return p
				}
			}
		}
	}
	return ""
}
