package workflows

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/creativeops/creativeops/engine"
)

// Helpers of the crafts, design, fashion, film, games, illustration, live
// events, music, newsletters and photography workflows.

// replanOn records that a plan is built on feasible instead of the
// requested date (engine.Plan.Replanned); why is a clause ("the distributor
// needs 21 days"), turned into the warning's first sentence.
func replanOn(p *engine.Plan, requested, feasible time.Time, why string) {
	why = strings.TrimSpace(why)
	if why != "" {
		why = strings.ToUpper(why[:1]) + why[1:] + "."
	}
	p.Replanned(requested, feasible, why)
}

// notePassed adds one PASSED warning naming every milestone already behind
// the plan date (keys in skip aside), for projections that run from a date
// in the past: those steps are history, reported as such rather than
// scheduled. It returns how many it named.
func notePassed(p *engine.Plan, skip ...string) int {
	var past []string
	for _, m := range p.Milestones() {
		if m.Date.Before(p.AsOf()) && !slices.Contains(skip, m.Key) {
			past = append(past, fmt.Sprintf("%s (%s)", m.Title, engine.FormatDate(m.Date)))
		}
	}
	if len(past) > 0 {
		p.Warn("PASSED", "Already behind the plan date %s: %s.", engine.FormatDate(p.AsOf()), strings.Join(past, "; "))
	}
	return len(past)
}

// openDay is where engine.Plan.Deliverable puts a hand-over due on d: d
// itself when it is open, else the previous open day of region r, or the
// next one when the previous would fall before the plan date.
func openDay(p *engine.Plan, d time.Time, r engine.Region) time.Time {
	cal := p.Calendar()
	if r != "" {
		cal.Region = r
	}
	if !cal.Closed(d) {
		return d
	}
	moved := cal.PrevWorkday(d)
	if !d.Before(p.AsOf()) && moved.Before(p.AsOf()) {
		moved = cal.NextWorkday(d)
	}
	return moved
}

// deliver adds a deliverable due on d (moved to an open day of r) that
// cannot come before any of after: when the move would put it before one
// of them, it goes to the first open day on or after the latest, reported
// as a move from d. It returns the date the deliverable got, for the steps
// that follow it.
func deliver(p *engine.Plan, key, title string, d time.Time, r engine.Region, after ...time.Time) time.Time {
	final := openDay(p, d, r)
	for _, a := range after {
		if final.Before(a) {
			final = openDay(p, a, r)
			if final.Before(a) {
				final = p.Calendar().NextWorkday(a)
			}
		}
	}
	p.Deliverable(key, title, d, r)
	p.Move(key, final, "kept after the step it depends on")
	return p.DateOf(key)
}

// handoverBefore adds a hand-over due on d that must happen before event:
// on a closed day it goes to a working day as usual, unless the next
// working day is already after the event (a show on the plan date in the
// 24 Dec–1 Jan closure), when it is held on d deliberately, saying why.
func handoverBefore(p *engine.Plan, kind engine.StepKind, key, title string, d, event time.Time, why string) {
	if cal := p.Calendar(); cal.Closed(d) && cal.PrevWorkday(d).Before(p.AsOf()) && event.Before(cal.NextWorkday(d)) {
		p.HandoverOn(kind, key, title, d, why)
		return
	}
	p.Handover(kind, key, title, d)
}

// chain declares that each of keys comes no earlier than the one before it
// (engine.Plan.DependsOn); keys the plan does not have are skipped, so the
// chain runs through the steps it has.
func chain(p *engine.Plan, keys ...string) {
	prev := ""
	for _, k := range keys {
		if p.DateOf(k).IsZero() {
			continue
		}
		if prev != "" {
			p.DependsOn(k, prev)
		}
		prev = k
	}
}
