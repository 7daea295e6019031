package engine

import (
	"fmt"
	"slices"
	"time"
)

// Milestone kinds and precedences: a workflow declares what each step is
// and which steps must come first (with the working days between them); the
// engine settles the dates. A hand-over (a deliverable, an action someone
// outside must see, an on-sale, an announcement, a payment) is only ever
// dated on a working day of the plan's calendar; an event held on a closed
// day keeps its date and says so; and no settled plan leaves a successor
// before its predecessor or a gap shorter than declared, whatever moved.

// StepKind says what a milestone is, and so whether the calendar may move it.
type StepKind string

const (
	// KindDeliverable is work handed over (a master, a manuscript, a tech
	// pack, print files).
	KindDeliverable StepKind = "deliverable"
	// KindAction is something done with or towards someone else (a pitch
	// sent, a contract signed, an order placed, a sign-off). The kind of
	// Plan.Milestone.
	KindAction StepKind = "action"
	// KindOnSale is tickets, pre-orders or a product going on sale.
	KindOnSale StepKind = "on-sale"
	// KindAnnounce is a public announcement.
	KindAnnounce StepKind = "announce"
	// KindPayment is money due (a deposit, a balance, an invoice).
	KindPayment StepKind = "payment"
	// KindArrival is something that reaches the plan from outside when it
	// lands (stock, prints, funds, a container), forecast forward from its
	// cause (an order, a campaign's end). It cannot come before it lands,
	// so on a closed day it rolls forward to the next working day, and
	// settling never moves it earlier; a date the plan needs it by is a
	// deadline, a deliverable.
	KindArrival StepKind = "arrival"
	// KindEvent is a fixed date the plan does not choose (a show, a
	// release day the user set, a festival's deadline, a campaign's end):
	// the calendar never moves it, and one on a closed day is labelled
	// deliberate.
	KindEvent StepKind = "event"
	// KindWork is the start or end of one's own work (painting starts, a
	// draft finished, a review of one's own numbers): no hand-over, so the
	// calendar does not move it, though the plan counts its length in
	// working days.
	KindWork StepKind = "work"
)

// StepKinds lists every kind, in the order docs show them.
var StepKinds = []StepKind{KindDeliverable, KindAction, KindOnSale, KindAnnounce, KindPayment, KindArrival, KindEvent, KindWork}

// Handover reports whether k is a hand-over, dated only on working days.
func (k StepKind) Handover() bool {
	switch k {
	case KindDeliverable, KindAction, KindOnSale, KindAnnounce, KindPayment, KindArrival:
		return true
	}
	return false
}

// RollsForward reports which way a closed day moves a hand-over of kind
// k: forward to the next working day for an arrival (it cannot land
// before it lands), back to the previous one for everything due (the work
// is in on time). The direction belongs to the kind, so no workflow
// chooses it per date.
func (k StepKind) RollsForward() bool { return k == KindArrival }

// Precedence says milestone After cannot be dated before Before, and must
// come at least Gap working days after it (0: on the same day or later).
type Precedence struct {
	Before string `json:"before"`
	After  string `json:"after"`
	Gap    int    `json:"min_working_days"`
}

// Now is the first working day on or after as_of: the day a step to be
// done "now" is dated, so a plan made on a Sunday or a public holiday
// neither dates work on a day nobody works nor counts it.
func (p *Plan) Now() time.Time { return p.Calendar().NextWorkday(p.asOf) }

// Calendar returns the plan's working-day calendar: the country of the
// context's `country` input (US when the workflow has none) and the
// closures it declared with UseClosure.
func (p *Plan) Calendar() Calendar {
	r := p.region
	if r == "" {
		r = RegionUS
	}
	return Calendar{Region: r, Closures: p.closures}
}

// UseClosure adds a shutdown closure to the plan's calendar (a plan made
// in an Asian factory declares FactoryNewYear): working days skip it and no
// hand-over is dated in it. Declare it before adding milestones.
func (p *Plan) UseClosure(c Closure) {
	if !slices.ContainsFunc(p.closures, func(x Closure) bool { return x.Key == c.Key }) {
		p.closures = append(p.closures, c)
	}
}

// Handover adds a milestone of a hand-over kind. A date on a closed day of
// the plan's calendar goes to the previous working day (the work is in on
// time), or to the next one when the previous would put a step still ahead
// of the plan before as_of; the milestone reports the move (moved_from,
// note).
func (p *Plan) Handover(kind StepKind, key, title string, d time.Time) {
	m := Milestone{Key: key, Title: title, Date: d, Kind: kind, Deliverable: kind == KindDeliverable}
	p.place(&m, false)
	p.milestones = append(p.milestones, m)
	p.settle()
}

// HandoverOn adds a hand-over held on d deliberately even when d is a
// closed day (tickets go on sale on the plan date because the show is
// before the next working day): the milestone is labelled deliberate with
// why when d is closed. Use it only when no working day can do.
func (p *Plan) HandoverOn(kind StepKind, key, title string, d time.Time, why string) {
	m := Milestone{Key: key, Title: title, Date: d, Kind: kind, Deliverable: kind == KindDeliverable}
	if reason := p.Calendar().ClosedReason(d); reason != "" {
		m.Deliberate = fmt.Sprintf("on %s: %s", reason, why)
	}
	p.milestones = append(p.milestones, m)
	p.settle()
}

// Event adds a fixed date the calendar does not move (a show, the release
// day the user set, a festival deadline). One on a closed day is labelled
// deliberate with why ("the show is on the night you booked").
func (p *Plan) Event(key, title string, d time.Time, why string) {
	m := Milestone{Key: key, Title: title, Date: d, Kind: KindEvent}
	if reason := p.Calendar().ClosedReason(d); reason != "" {
		m.Deliberate = fmt.Sprintf("on %s: %s", reason, why)
	}
	p.milestones = append(p.milestones, m)
	p.settle()
}

// Work adds the start or end of one's own work (painting starts, a draft
// is finished): no hand-over, so the calendar leaves its date alone; only
// precedences move it.
func (p *Plan) Work(key, title string, d time.Time) {
	m := Milestone{Key: key, Title: title, Date: d, Kind: KindWork}
	p.milestones = append(p.milestones, m)
	p.settle()
}

// Precede declares that milestone after comes at least gap working days
// after milestone before (gap 0: not before it), and settles the dates at
// once, so arithmetic and text after the call see the settled dates.
// Unknown keys are ignored (a step the plan left out).
func (p *Plan) Precede(before, after string, gap int) {
	if p.index(before) < 0 || p.index(after) < 0 || before == after {
		return
	}
	gap = max(gap, 0)
	for i, pr := range p.precedences {
		if pr.Before == before && pr.After == after {
			p.precedences[i].Gap = max(pr.Gap, gap)
			p.settle()
			return
		}
	}
	p.precedences = append(p.precedences, Precedence{Before: before, After: after, Gap: gap})
	m := &p.milestones[p.index(after)]
	if !slices.Contains(m.After, before) {
		m.After = append(m.After, before)
	}
	p.settle()
}

// Precedences returns the declared precedences.
func (p *Plan) Precedences() []Precedence { return append([]Precedence(nil), p.precedences...) }

// Settle settles the dates now: hand-overs off closed days, precedences
// propagated. Milestone, Precede and Move settle as they go; call Settle
// before computing a number from dates (pages a day, weeks of work) after
// moving dates by other means. Rendering the result settles again.
func (p *Plan) Settle() { p.settle() }

func (p *Plan) index(key string) int {
	for i := range p.milestones {
		if p.milestones[i].Key == key {
			return i
		}
	}
	return -1
}

// place puts a hand-over or work milestone on a working day. later says
// the milestone is being pushed later (a predecessor moved), so it goes to
// the next working day rather than the previous one.
func (p *Plan) place(m *Milestone, later bool) {
	if !m.Kind.Handover() || m.Deliberate != "" {
		return
	}
	cal := p.Calendar()
	reason := cal.ClosedReason(m.Date)
	if reason == "" {
		return
	}
	moved := cal.NextWorkday(m.Date)
	if !later && !m.Kind.RollsForward() {
		if prev := cal.PrevWorkday(m.Date); m.Date.Before(p.asOf) || !prev.Before(p.asOf) {
			moved = prev
		}
	}
	if m.MovedFrom.IsZero() {
		m.MovedFrom = m.Date
	}
	why := fmt.Sprintf("moved from %s (%s) to the %s working day", FormatDate(m.Date), reason,
		map[bool]string{true: "previous", false: "next"}[moved.Before(m.Date)])
	m.Note = joinNote(m.Note, why)
	m.Date = moved
}

func joinNote(note, why string) string {
	if note == "" {
		return why
	}
	return note + "; " + why
}

// settle moves hand-overs off closed days, then propagates precedences:
// backward first (a predecessor moves earlier, as a plan scheduled back
// from its target would date it, never before as_of when it was not
// already), then forward (a successor moves later). An event never moves;
// a precedence that would need one moved is reported by Result as a
// PRECEDENCE_SHORT warning.
func (p *Plan) settle() {
	for i := range p.milestones {
		p.place(&p.milestones[i], false)
	}
	if len(p.precedences) == 0 {
		return
	}
	cal := p.Calendar()
	bound := len(p.precedences)*len(p.milestones) + 1
	// earliest is the first date after may take.
	earliest := func(pr Precedence) time.Time {
		d := p.milestones[p.index(pr.Before)].Date
		if pr.Gap > 0 {
			return cal.AddWorkdays(d, pr.Gap)
		}
		return d
	}
	for range bound {
		changed := false
		for _, pr := range p.precedences {
			a, b := &p.milestones[p.index(pr.Before)], &p.milestones[p.index(pr.After)]
			// An arrival is never pulled earlier: its successor waits.
			if !b.Date.Before(earliest(pr)) || a.fixed() || a.Kind.RollsForward() {
				continue
			}
			x := b.Date
			if pr.Gap > 0 {
				x = cal.AddWorkdays(cal.PrevWorkday(b.Date), -pr.Gap)
			}
			if a.Kind.Handover() {
				x = cal.PrevWorkday(x)
			}
			if x.Before(p.asOf) && !a.Date.Before(p.asOf) || !x.Before(a.Date) {
				continue
			}
			p.shift(a, x, fmt.Sprintf("moved to come before %s", b.Title))
			changed = true
		}
		if !changed {
			break
		}
	}
	for range bound {
		changed := false
		for _, pr := range p.precedences {
			a, b := &p.milestones[p.index(pr.Before)], &p.milestones[p.index(pr.After)]
			e := earliest(pr)
			if !b.Date.Before(e) || b.fixed() {
				continue
			}
			why := fmt.Sprintf("moved to follow %s", a.Title)
			if pr.Gap > 0 {
				why = fmt.Sprintf("moved to keep %s after %s", Plural(pr.Gap, "working day", "working days"), a.Title)
			}
			p.shift(b, e, why)
			p.place(b, true)
			changed = true
		}
		if !changed {
			break
		}
	}
}

// fixed reports whether settling may not move m: an event, or a hand-over
// held on its date deliberately.
func (m *Milestone) fixed() bool { return m.Kind == KindEvent || m.Deliberate != "" }

// shift moves m to d, reporting the move.
func (p *Plan) shift(m *Milestone, d time.Time, why string) {
	if m.MovedFrom.IsZero() {
		m.MovedFrom = m.Date
	}
	m.Date = d
	if m.MovedFrom.Equal(d) {
		m.MovedFrom, m.Note = time.Time{}, ""
		return
	}
	m.Note = joinNote(m.Note, why)
}

// shortPrecedences are the precedences the settled plan still breaks
// (only when an event or a deliberate date would have had to move).
func (p *Plan) shortPrecedences() []Precedence {
	cal := p.Calendar()
	var out []Precedence
	for _, pr := range p.precedences {
		a, b := p.milestones[p.index(pr.Before)], p.milestones[p.index(pr.After)]
		e := a.Date
		if pr.Gap > 0 {
			e = cal.AddWorkdays(e, pr.Gap)
		}
		if b.Date.Before(e) {
			out = append(out, pr)
		}
	}
	return out
}
