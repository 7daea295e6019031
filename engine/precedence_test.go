package engine

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
)

// A hand-over of each kind goes to the working day before a closed day;
// an event keeps its date and says why; one's own work is left alone.
func TestHandoverKindsOnClosedDays(t *testing.T) {
	p := &Plan{asOf: mustDate(t, "2026-11-20"), region: "DE"}
	xmas := mustDate(t, "2026-12-25")
	for _, k := range []StepKind{KindDeliverable, KindAction, KindOnSale, KindAnnounce, KindPayment} {
		p.Handover(k, string(k), string(k), xmas)
		if got := FormatDate(p.DateOf(string(k))); got != "2026-12-23" {
			t.Errorf("%s on Christmas Day: %s, want 2026-12-23 (before the 24 Dec–1 Jan closure)", k, got)
		}
	}
	p.Event("show", "Show", xmas, "the show is booked that night")
	p.Work("paint", "Painting starts", xmas)
	res, err := p.Result()
	if err != nil {
		t.Fatal(err)
	}
	for _, x := range res["timeline"].(map[string]any)["milestones"].([]any) {
		m := x.(map[string]any)
		switch m["key"] {
		case "show":
			if m["date"] != "2026-12-25" || !strings.Contains(m["deliberate"].(string), "the show is booked that night") {
				t.Errorf("event %v", m)
			}
		case "paint":
			if m["date"] != "2026-12-25" || m["deliberate"] != nil {
				t.Errorf("work %v", m)
			}
		default:
			if m["moved_from"] != "2026-12-25" || m["kind"] != m["key"] {
				t.Errorf("hand-over %v", m)
			}
		}
	}
}

// A declared closure is part of the calendar: a payment in the Chinese New
// Year factory closure goes before it, and working days skip it.
func TestDeclaredClosure(t *testing.T) {
	p := &Plan{asOf: mustDate(t, "2026-11-20"), region: RegionUS}
	p.UseClosure(FactoryNewYear)
	p.Handover(KindPayment, "deposit", "Deposit", mustDate(t, "2027-02-08")) // a Monday in the closure
	if got := FormatDate(p.DateOf("deposit")); got != "2027-01-29" {
		t.Errorf("deposit %s, want 2027-01-29, the last working day before the closure", got)
	}
	if got := p.Calendar().WorkdaysBetween(mustDate(t, "2027-01-29"), mustDate(t, "2027-02-22")); got != 1 {
		t.Errorf("%d working days across the closure, want 1", got)
	}
}

// Finals moved earlier pull the art start with them (backward); a start
// that cannot go before as_of pushes the finals later instead (forward).
func TestPrecedenceGapsPropagate(t *testing.T) {
	p := &Plan{asOf: mustDate(t, "2026-11-20"), region: RegionUS}
	p.Work("art-start", "Art starts", mustDate(t, "2026-12-17"))
	p.Handover(KindDeliverable, "finals", "Finals", mustDate(t, "2026-12-31")) // in the closure: 2026-12-23
	p.Precede("art-start", "finals", 10)
	cal := p.Calendar()
	if got := cal.WorkdaysBetween(p.DateOf("art-start"), p.DateOf("finals")); got != 10 || FormatDate(p.DateOf("finals")) != "2026-12-23" {
		t.Errorf("art %s to finals %s: %d working days, want 10 ending 2026-12-23", FormatDate(p.DateOf("art-start")), FormatDate(p.DateOf("finals")), got)
	}

	p = &Plan{asOf: mustDate(t, "2026-11-20"), region: RegionUS}
	p.Work("start", "Start", mustDate(t, "2026-11-20"))
	p.Handover(KindAction, "signed", "Signed", mustDate(t, "2026-11-23"))
	p.Precede("start", "signed", 10)
	if got := FormatDate(p.DateOf("signed")); got != "2026-12-07" {
		t.Errorf("signed %s, want 2026-12-07: ten working days after 2026-11-20, Thanksgiving not one", got)
	}
	if m := p.milestones[p.index("signed")]; !strings.Contains(m.Note, "10 working days") {
		t.Errorf("the move is not explained: %q", m.Note)
	}
}

// A precedence that would need an event moved is reported, not hidden.
func TestPrecedenceAgainstAnEventWarns(t *testing.T) {
	p := &Plan{asOf: mustDate(t, "2026-11-20"), region: RegionUS}
	p.Work("start", "Start", mustDate(t, "2026-11-20"))
	p.Event("show", "Show", mustDate(t, "2026-11-24"), "booked")
	p.Precede("start", "show", 10)
	if _, err := p.Result(); err != nil {
		t.Fatal(err)
	}
	if w := p.Warnings(); len(w) != 1 || w[0].Code != "PRECEDENCE_SHORT" {
		t.Errorf("warnings %v, want PRECEDENCE_SHORT", w)
	}
}

// Random chains of milestones with random gaps and kinds: once settled,
// every precedence holds or is reported, no hand-over is on a closed day,
// and nothing still ahead of the plan is moved before as_of.
func TestSettleProperty(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	kinds := StepKinds
	regions := Regions()
	for i := 0; i < 2000; i++ {
		asOf := AddDays(mustDate(t, "2026-11-20"), rng.IntN(400))
		p := &Plan{asOf: asOf, region: regions[rng.IntN(len(regions))]}
		n := 2 + rng.IntN(6)
		keys := make([]string, n)
		for j := range keys {
			keys[j] = string(rune('a' + j))
			d := AddDays(asOf, rng.IntN(120)-10)
			switch k := kinds[rng.IntN(len(kinds))]; k {
			case KindEvent:
				p.Event(keys[j], keys[j], d, "fixed")
			case KindWork:
				p.Work(keys[j], keys[j], d)
			default:
				p.Handover(k, keys[j], keys[j], d)
			}
		}
		for j := 0; j < n; j++ {
			a, b := rng.IntN(n), rng.IntN(n)
			if a < b {
				p.Precede(keys[a], keys[b], rng.IntN(15))
			}
		}
		res, err := p.Result()
		if err != nil {
			t.Fatal(err)
		}
		warned := len(p.shortPrecedences()) > 0 && strings.Contains(strings.Join(warningCodes(p), " "), "PRECEDENCE_SHORT")
		for _, pr := range p.precedences {
			a, b := p.milestones[p.index(pr.Before)], p.milestones[p.index(pr.After)]
			// Only a successor that may not move (an event) can be left
			// short, and then the plan says so.
			ok := warned && b.fixed()
			if e := p.Calendar().AddWorkdays(a.Date, pr.Gap); pr.Gap > 0 && b.Date.Before(e) && !ok || pr.Gap == 0 && b.Date.Before(a.Date) && !ok {
				t.Fatalf("%v: %s %s, %s %s, gap %d", res["timeline"], pr.Before, FormatDate(a.Date), pr.After, FormatDate(b.Date), pr.Gap)
			}
		}
		for _, m := range p.milestones {
			if m.Kind.Handover() && m.Deliberate == "" && p.Calendar().Closed(m.Date) {
				t.Fatalf("%s %s on closed %s", m.Kind, m.Key, FormatDate(m.Date))
			}
			if !m.MovedFrom.IsZero() && !m.MovedFrom.Before(asOf) && m.Date.Before(asOf) {
				t.Fatalf("%s moved from %s to %s, before as_of %s", m.Key, FormatDate(m.MovedFrom), FormatDate(m.Date), FormatDate(asOf))
			}
			if m.Kind == KindArrival && !m.MovedFrom.IsZero() && m.Date.Before(m.MovedFrom) {
				t.Fatalf("arrival %s pulled from %s to %s", m.Key, FormatDate(m.MovedFrom), FormatDate(m.Date))
			}
		}
	}
}

// An arrival on a closed day rolls forward, never back: stock landing in
// the year-end closure is there on the first working day after it, and a
// successor that needs it waits instead of pulling it earlier.
func TestArrivalRollsForward(t *testing.T) {
	p := &Plan{asOf: mustDate(t, "2026-11-30"), region: RegionUS}
	p.Handover(KindArrival, "stock", "Stock lands", mustDate(t, "2026-12-28"))
	p.Handover(KindDeliverable, "due", "Work due", mustDate(t, "2026-12-28"))
	if got := FormatDate(p.DateOf("stock")); got != "2027-01-04" {
		t.Fatalf("arrival on 2026-12-28 settled on %s, want 2027-01-04", got)
	}
	if got := FormatDate(p.DateOf("due")); got != "2026-12-23" {
		t.Fatalf("deliverable on 2026-12-28 settled on %s, want 2026-12-23", got)
	}
	p.Handover(KindOnSale, "sale", "On sale", mustDate(t, "2026-12-21"))
	p.Precede("stock", "sale", 2)
	if got := FormatDate(p.DateOf("stock")); got != "2027-01-04" {
		t.Fatalf("arrival pulled earlier by its successor to %s", got)
	}
	if got := FormatDate(p.DateOf("sale")); got != "2027-01-06" {
		t.Fatalf("on-sale after the arrival on %s, want 2027-01-06", got)
	}
}

func warningCodes(p *Plan) []string {
	var out []string
	for _, w := range p.Warnings() {
		out = append(out, w.Code)
	}
	return out
}

// A plan made on a Sunday does its "now" steps on the Monday: a
// hand-over due now is handed over then, and advice due now, or overdue,
// is due then, labelled.
func TestNowStepsOnFirstWorkingDay(t *testing.T) {
	p := &Plan{asOf: mustDate(t, "2026-11-22"), region: RegionUS} // a Sunday
	p.Work("start", "Work starts", mustDate(t, "2026-11-10"))
	p.Handover(KindAction, "sign", "Contract signed", p.AsOf())
	if got := FormatDate(p.DateOf("sign")); got != "2026-11-23" {
		t.Fatalf("now hand-over on a Sunday plan date dated %s, want Monday 2026-11-23", got)
	}
	p.RecommendBy(Medium, p.AsOf(), "Do it now", "")
	p.RecommendOn(Medium, "start", "Start", "")
	res, err := p.Result()
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range res["recommendations"].([]any) {
		if due := r.(map[string]any)["due_date"]; due != "2026-11-23" {
			t.Errorf("%v due %v, want 2026-11-23", r.(map[string]any)["title"], due)
		}
	}
	if !strings.Contains(fmt.Sprint(res["timeline"].(map[string]any)["reference_dates"]), "2026-11-23") {
		t.Errorf("first working day not labelled: %v", res["timeline"])
	}
}
