package plans_test

import (
	"bytes"
	"os/exec"
	"strings"
	"testing"
	"time"

	ics "github.com/arran4/golang-ical"

	_ "github.com/creativeops/creativeops/engine/workflows" // the workflows' names
	"github.com/creativeops/creativeops/ent"
	"github.com/creativeops/creativeops/plans"
)

const planID = "plan_01kb0000000000000000000000"

func samplePlan(revision int) *ent.Plan {
	return &ent.Plan{
		ID: planID, OrganizationID: "org_1", Vertical: "music", Workflow: "release-strategy",
		Revision: revision, AsOf: "2026-03-01", TimeZone: "Europe/Berlin", State: "active",
		CreatedAt: time.Date(2026, 3, 1, 9, 0, 0, 0, time.UTC),
		UpdatedAt: time.Date(2026, 3, 1, 9, 0, 0, 0, time.UTC).Add(time.Duration(revision) * time.Hour),
	}
}

func sampleMilestones() []*ent.PlanMilestone {
	done := time.Date(2026, 3, 2, 15, 4, 5, 0, time.UTC)
	return []*ent.PlanMilestone{
		{PlanID: planID, Key: "release", Title: "Release day; Friday, worldwide", Date: "2026-05-01", Position: 3, State: "pending", Revision: 1, Current: true},
		{PlanID: planID, Key: "master", Title: "Masters delivered to the distributor", Date: "2026-04-03", Deliverable: true, Position: 1, State: "pending", Revision: 1, Current: true},
		{PlanID: planID, Key: "artwork", Title: "Artwork\nfinal", Date: "2026-03-20", Position: 0, State: "done", DoneAt: &done, Revision: 1, Current: true},
		{PlanID: planID, Key: "vinyl", Title: "Vinyl pressing ordered", Date: "2026-03-06", Position: 2, State: "skipped", DoneAt: &done, Revision: 1, Current: true},
		// Done in an earlier revision and dropped since: not an event.
		{PlanID: planID, Key: "old-step", Title: "Dropped", Date: "2026-03-03", State: "done", DoneAt: &done, Revision: 1, Current: false},
	}
}

func render(t *testing.T, p *ent.Plan, ms []*ent.PlanMilestone, info plans.CalendarInfo) []byte {
	t.Helper()
	b, err := plans.Calendar(p, ms, info)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func parse(t *testing.T, b []byte) *ics.Calendar {
	t.Helper()
	cal, err := ics.ParseCalendar(bytes.NewReader(b))
	if err != nil {
		t.Fatalf("golang-ical cannot parse the calendar: %v\n%s", err, b)
	}
	return cal
}

func eventsByUID(cal *ics.Calendar) map[string]*ics.VEvent {
	out := map[string]*ics.VEvent{}
	for _, e := range cal.Events() {
		out[e.Id()] = e
	}
	return out
}

func prop(c interface {
	GetProperty(ics.ComponentProperty) *ics.IANAProperty
}, p ics.ComponentProperty) string {
	if v := c.GetProperty(p); v != nil {
		return v.Value
	}
	return ""
}

func calProp(cal *ics.Calendar, name ics.Property) string {
	for _, p := range cal.CalendarProperties {
		if p.IANAToken == string(name) {
			return p.Value
		}
	}
	return ""
}

func TestCalendarIsRFC5545(t *testing.T) {
	info := plans.CalendarInfo{BaseURL: "https://ops.example.com", CreatorName: "Nova Reyes"}
	b := render(t, samplePlan(1), sampleMilestones(), info)

	// Lines end in CRLF and are folded to at most 75 octets (RFC 5545 3.1).
	if !bytes.HasSuffix(b, []byte("END:VCALENDAR\r\n")) {
		t.Errorf("the document does not end with END:VCALENDAR CRLF")
	}
	for i, line := range strings.Split(strings.TrimSuffix(string(b), "\r\n"), "\r\n") {
		if strings.Contains(line, "\n") {
			t.Errorf("line %d has a bare LF: %q", i+1, line)
		}
		if len(line) > 75 {
			t.Errorf("line %d is %d octets: %q", i+1, len(line), line)
		}
	}

	cal := parse(t, b)
	for name, want := range map[ics.Property]string{
		ics.PropertyVersion:       "2.0",
		ics.PropertyProductId:     "-//creativeops//Plans//EN",
		ics.PropertyCalscale:      "GREGORIAN",
		ics.PropertyMethod:        "PUBLISH",
		ics.PropertyXWRCalName:    "Release strategy · Nova Reyes",
		"REFRESH-INTERVAL":        plans.CalendarRefresh,
		ics.PropertyXPublishedTTL: plans.CalendarRefresh,
	} {
		if got := calProp(cal, name); got != want {
			t.Errorf("%s = %q, want %q", name, got, want)
		}
	}

	events := eventsByUID(cal)
	if len(events) != 4 {
		t.Fatalf("%d events, want one per current milestone (4)", len(events))
	}
	if _, ok := events[plans.EventUID(planID, "old-step")]; ok {
		t.Error("a milestone no longer in the plan is an event")
	}
	// In date order.
	var order []string
	for _, e := range cal.Events() {
		order = append(order, e.Id())
	}
	want := []string{plans.EventUID(planID, "vinyl"), plans.EventUID(planID, "artwork"), plans.EventUID(planID, "master"), plans.EventUID(planID, "release")}
	if strings.Join(order, " ") != strings.Join(want, " ") {
		t.Errorf("events in order %v, want %v", order, want)
	}

	release := events[plans.EventUID(planID, "release")]
	start, err := release.GetAllDayStartAt()
	if err != nil || start.Format(time.DateOnly) != "2026-05-01" {
		t.Errorf("release DTSTART %v (%v), want the all-day date 2026-05-01", start, err)
	}
	for _, p := range cal.CalendarProperties {
		if p.IANAToken == "REFRESH-INTERVAL" && strings.Join(p.ICalParameters["VALUE"], ",") != "DURATION" {
			t.Errorf("REFRESH-INTERVAL parameters %v, want VALUE=DURATION", p.ICalParameters)
		}
	}
	if p := release.GetProperty(ics.ComponentPropertyDtStart); p == nil || p.ICalParameters["VALUE"][0] != "DATE" {
		t.Errorf("DTSTART is not VALUE=DATE: %+v", p)
	}
	if got := prop(release, ics.ComponentPropertyDtEnd); got != "20260502" {
		t.Errorf("release DTEND %q, want the next day 20260502", got)
	}
	if got := prop(release, ics.ComponentPropertySummary); got != "Release day; Friday, worldwide" {
		t.Errorf("release SUMMARY %q: escaping did not round-trip", got)
	}
	if got := prop(release, ics.ComponentPropertyDtstamp); got != "20260301T100000Z" {
		t.Errorf("DTSTAMP %q, want the plan's updated_at 20260301T100000Z", got)
	}
	desc := prop(release, ics.ComponentPropertyDescription)
	if !strings.Contains(desc, "https://ops.example.com/dashboard/plans/"+planID) || !strings.Contains(desc, "https://ops.example.com/v1/plans/"+planID) {
		t.Errorf("DESCRIPTION does not link to the plan: %q", desc)
	}
	if !strings.Contains(desc, "Release strategy plan, revision 1.") {
		t.Errorf("DESCRIPTION does not name the workflow: %q", desc)
	}

	for key, want := range map[string][2]string{
		"master":  {"Due: Masters delivered to the distributor", "CONFIRMED"},
		"artwork": {"Done: Artwork final", "CONFIRMED"},
		"vinyl":   {"Skipped: Vinyl pressing ordered", "CANCELLED"},
	} {
		e := events[plans.EventUID(planID, key)]
		if got := prop(e, ics.ComponentPropertySummary); got != want[0] {
			t.Errorf("%s SUMMARY %q, want %q", key, got, want[0])
		}
		if got := prop(e, ics.ComponentPropertyStatus); got != want[1] {
			t.Errorf("%s STATUS %q, want %q", key, got, want[1])
		}
	}
}

// The same plan renders to the same bytes: the feed's ETag is their hash,
// and a calendar app polling an unchanged plan gets 304.
func TestCalendarIsDeterministic(t *testing.T) {
	info := plans.CalendarInfo{BaseURL: "https://ops.example.com"}
	a := render(t, samplePlan(1), sampleMilestones(), info)
	ms := sampleMilestones()
	ms[0], ms[3] = ms[3], ms[0]
	b := render(t, samplePlan(1), ms, info)
	if !bytes.Equal(a, b) {
		t.Errorf("the same plan rendered twice differs:\n%s\n---\n%s", a, b)
	}
	if !strings.Contains(string(a), "Release strategy · "+planID) {
		t.Errorf("a plan without a creator is not named after its id:\n%s", a)
	}
}

// A re-plan updates events instead of adding new ones: the UIDs stay, and
// a moved milestone's SEQUENCE grows while an unmoved one's stays.
func TestCalendarReplanKeepsUIDsAndRaisesSequence(t *testing.T) {
	info := plans.CalendarInfo{BaseURL: "https://ops.example.com"}
	before := eventsByUID(parse(t, render(t, samplePlan(1), sampleMilestones(), info)))

	ms := sampleMilestones()
	for _, m := range ms {
		if m.Key == "release" { // moved by revision 2
			m.Date, m.Revision = "2026-05-08", 2
		}
	}
	after := eventsByUID(parse(t, render(t, samplePlan(2), ms, info)))

	if len(after) != len(before) {
		t.Fatalf("%d events after the re-plan, %d before", len(after), len(before))
	}
	for uid := range before {
		if after[uid] == nil {
			t.Errorf("event %s is gone after the re-plan", uid)
		}
	}
	seq := func(e *ics.VEvent) string { return prop(e, ics.ComponentPropertySequence) }
	release := plans.EventUID(planID, "release")
	if seq(before[release]) != "1" || seq(after[release]) != "2" {
		t.Errorf("moved milestone SEQUENCE %s → %s, want 1 → 2", seq(before[release]), seq(after[release]))
	}
	if got := prop(after[release], ics.ComponentPropertyDtStart); got != "20260508" {
		t.Errorf("moved milestone DTSTART %q, want 20260508", got)
	}
	master := plans.EventUID(planID, "master")
	if seq(before[master]) != seq(after[master]) {
		t.Errorf("unmoved milestone SEQUENCE %s → %s, want unchanged", seq(before[master]), seq(after[master]))
	}
}

func TestCalendarRefusesAMalformedDate(t *testing.T) {
	ms := sampleMilestones()
	ms[0].Date = "May 1"
	if _, err := plans.Calendar(samplePlan(1), ms, plans.CalendarInfo{}); err == nil {
		t.Error("a malformed milestone date rendered")
	}
}

// A second, independent parser: Python's icalendar (Debian's
// python3-icalendar), when the machine has it.
func TestCalendarParsesWithPythonICalendar(t *testing.T) {
	py := "/usr/bin/python3"
	if err := exec.Command(py, "-c", "import icalendar").Run(); err != nil {
		t.Skip("python3-icalendar is not installed")
	}
	b := render(t, samplePlan(1), sampleMilestones(), plans.CalendarInfo{BaseURL: "https://ops.example.com", CreatorName: "Nova Reyes"})
	script := `
import sys, icalendar
cal = icalendar.Calendar.from_ical(sys.stdin.buffer.read())
for e in cal.walk("VEVENT"):
    start = e.decoded("DTSTART")
    end = e.decoded("DTEND")
    assert type(start).__name__ == "date", start
    assert (end - start).days == 1, (start, end)
    print(str(e["UID"]), start.isoformat(), int(e["SEQUENCE"]), str(e["SUMMARY"]))
`
	cmd := exec.Command(py, "-c", script)
	cmd.Stdin = bytes.NewReader(b)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("python icalendar refused the calendar: %v\n%s", err, out)
	}
	want := "" +
		plans.EventUID(planID, "vinyl") + " 2026-03-06 1 Skipped: Vinyl pressing ordered\n" +
		plans.EventUID(planID, "artwork") + " 2026-03-20 1 Done: Artwork final\n" +
		plans.EventUID(planID, "master") + " 2026-04-03 1 Due: Masters delivered to the distributor\n" +
		plans.EventUID(planID, "release") + " 2026-05-01 1 Release day; Friday, worldwide\n"
	if string(out) != want {
		t.Errorf("python icalendar read:\n%s\nwant:\n%s", out, want)
	}
}

// Text with control characters and line breaks (a creator's name, a
// milestone's title from a context) reaches the document as RFC 5545
// TEXT allows: no control character but the CRLF that ends each line, and
// the calendar's name and the events' titles on one line, so that a
// creator named "Nova\r\nX-INJECTED:1" cannot add a property.
func TestCalendarTextHasNoControlCharacters(t *testing.T) {
	ms := sampleMilestones()
	ms[0].Title = "Release\x01 day\x1b[31m\u0085 red\x7f"
	info := plans.CalendarInfo{BaseURL: "https://ops.example.com", CreatorName: "Nova\r\nX-INJECTED:1\x00\tReyes\u2028"}
	b := render(t, samplePlan(1), ms, info)
	for i, line := range strings.Split(strings.TrimSuffix(string(b), "\r\n"), "\r\n") {
		if strings.HasPrefix(line, "X-INJECTED") {
			t.Errorf("line %d is a property the creator's name made: %q", i+1, line)
		}
		for _, r := range line {
			if r < 0x20 && r != '\t' || r == 0x7f || r >= 0x80 && r <= 0x9f {
				t.Errorf("line %d holds the control character %U: %q", i+1, r, line)
			}
		}
	}
	cal := parse(t, b)
	const wantName = "Release strategy · Nova X-INJECTED:1 Reyes"
	for _, name := range []ics.Property{ics.PropertyName, ics.PropertyXWRCalName} {
		if got := calProp(cal, name); got != wantName {
			t.Errorf("%s = %q, want %q", name, got, wantName)
		}
	}
	if got := prop(eventsByUID(cal)[plans.EventUID(planID, "release")], ics.ComponentPropertySummary); got != "Release day [31m red" {
		t.Errorf("SUMMARY %q, want the title without its control characters", got)
	}
}
