package plans

import (
	"cmp"
	"fmt"
	"slices"
	"strings"
	"time"
	"unicode"

	ics "github.com/arran4/golang-ical"

	"github.com/creativeops/creativeops/engine"
	"github.com/creativeops/creativeops/ent"
)

// The calendar feed (GET /v1/plans/{id}/calendar.ics) shows a plan's
// current milestones as all-day events of an iCalendar document (RFC 5545)
// that calendar apps subscribe to. A subscription is refreshed by fetching
// the whole document again, so what makes an app update an event rather
// than add a second one is its UID, which names the plan and the
// milestone's engine key and so survives re-plans; SEQUENCE is the
// revision in which the milestone's date or title last changed, so it only
// ever grows.

// CalendarRefresh is how often the feed asks calendar apps to fetch it
// again (REFRESH-INTERVAL, RFC 7986, and Outlook's X-PUBLISHED-TTL). Apps
// may poll less often (Google Calendar does, every few hours).
const CalendarRefresh = "PT1H"

// uidDomain ends every event's UID. It is fixed rather than the host of
// the public URL: a URL that changed would otherwise give every event a new
// UID, and subscribers a duplicate of each.
const uidDomain = "creativeops"

// calendarProdID names the program that made the document (PRODID).
const calendarProdID = "-//creativeops//Plans//EN"

// Milestone states (PlanMilestone.state).
const (
	MilestonePending = "pending"
	MilestoneDone    = "done"
	MilestoneSkipped = "skipped"
)

// CalendarInfo is what a plan's calendar shows beside its milestones.
type CalendarInfo struct {
	// BaseURL is the service's public URL (--public-url), without a
	// trailing slash: each event links to the plan there.
	BaseURL string
	// CreatorName names the calendar after the plan's creator; empty when
	// the plan has none.
	CreatorName string
}

// DashboardURL is where the dashboard shows a plan.
func DashboardURL(baseURL, planID string) string {
	return baseURL + "/dashboard/plans/" + planID
}

// APIURL is the plan's REST resource.
func APIURL(baseURL, planID string) string { return baseURL + "/v1/plans/" + planID }

// EventUID is the UID of a milestone's event: the same in every revision
// of the plan.
func EventUID(planID, key string) string { return planID + "-" + key + "@" + uidDomain }

// CalendarName is the calendar's display name: the workflow, and whom or
// which plan it is for.
func CalendarName(p *ent.Plan, creatorName string) string {
	name := p.Workflow
	if w, ok := engine.LookupWorkflow(p.Workflow); ok {
		name = w.Name
	}
	if creatorName != "" {
		return name + " · " + creatorName
	}
	return name + " · " + p.ID
}

// Calendar renders the plan's current milestones as an iCalendar document:
// one all-day event per milestone, in date order. The same plan and
// milestones always give the same bytes (the feed's ETag is their hash).
func Calendar(p *ent.Plan, milestones []*ent.PlanMilestone, info CalendarInfo) ([]byte, error) {
	cal := ics.NewCalendar()
	cal.SetProductId(calendarProdID)
	cal.SetCalscale("GREGORIAN")
	cal.SetMethod(ics.MethodPublish)
	name := oneLine(CalendarName(p, info.CreatorName))
	cal.SetName(name)
	cal.SetXWRCalName(name)
	workflow, vertical := describeWorkflow(p)
	cal.SetXWRCalDesc(oneLine(fmt.Sprintf("Milestones of the %s plan (%s) %s.", workflow, vertical, p.ID)))
	// Not SetRefreshInterval: the library's name of the property carries
	// ";VALUE=DURATION" itself, which a parser then reads as part of it.
	cal.CalendarProperties = append(cal.CalendarProperties, ics.CalendarProperty{BaseProperty: ics.BaseProperty{
		IANAToken:      "REFRESH-INTERVAL",
		ICalParameters: map[string][]string{string(ics.ParameterValue): {string(ics.ValueDataTypeDuration)}},
		Value:          CalendarRefresh,
	}})
	cal.SetXPublishedTTL(CalendarRefresh)
	dashboard := oneLine(DashboardURL(info.BaseURL, p.ID))
	cal.SetUrl(dashboard)

	current := make([]*ent.PlanMilestone, 0, len(milestones))
	for _, m := range milestones {
		if m.Current {
			current = append(current, m)
		}
	}
	slices.SortStableFunc(current, func(a, b *ent.PlanMilestone) int {
		return cmp.Or(strings.Compare(a.Date, b.Date), cmp.Compare(a.Position, b.Position), strings.Compare(a.Key, b.Key))
	})
	for _, m := range current {
		day, err := time.Parse(time.DateOnly, m.Date)
		if err != nil {
			return nil, fmt.Errorf("plan %s: milestone %s has a malformed date %q", p.ID, m.Key, m.Date)
		}
		e := cal.AddEvent(EventUID(p.ID, m.Key))
		e.SetDtStampTime(p.UpdatedAt)
		e.SetCreatedTime(p.CreatedAt)
		e.SetAllDayStartAt(day)
		e.SetAllDayEndAt(day.AddDate(0, 0, 1))
		e.SetSequence(m.Revision)
		summary, status := eventSummary(m)
		e.SetSummary(summary)
		e.SetStatus(status)
		// A milestone is a date to keep in mind, not time taken: it does
		// not make its day busy in free/busy lookups.
		e.SetProperty(ics.ComponentPropertyTransp, "TRANSPARENT")
		e.SetDescription(icsText(eventDescription(p, m, workflow, info.BaseURL)))
		e.SetURL(dashboard)
		e.AddCategory(oneLine(vertical))
	}
	var b strings.Builder
	// RFC 5545 lines end in CRLF; the library's default is the platform's
	// newline.
	if err := cal.SerializeTo(&b, ics.WithNewLineWindows); err != nil {
		return nil, err
	}
	return []byte(b.String()), nil
}

// describeWorkflow names the plan's workflow and vertical as people read
// them, falling back to their keys.
func describeWorkflow(p *ent.Plan) (workflow, vertical string) {
	workflow, vertical = p.Workflow, p.Vertical
	if w, ok := engine.LookupWorkflow(p.Workflow); ok {
		workflow = w.Name
	}
	if v, ok := engine.LookupVertical(p.Vertical); ok {
		vertical = v.Name
	}
	return workflow, vertical
}

// eventSummary is an event's title and status: a done or skipped milestone
// stays in the calendar, saying so; a skipped one is also CANCELLED, which
// some apps show struck through and others hide.
func eventSummary(m *ent.PlanMilestone) (string, ics.ObjectStatus) {
	title := oneLine(m.Title)
	switch m.State {
	case MilestoneDone:
		return "Done: " + title, ics.ObjectStatusConfirmed
	case MilestoneSkipped:
		return "Skipped: " + title, ics.ObjectStatusCancelled
	}
	if m.Deliverable {
		return "Due: " + title, ics.ObjectStatusConfirmed
	}
	return title, ics.ObjectStatusConfirmed
}

func eventDescription(p *ent.Plan, m *ent.PlanMilestone, workflow, baseURL string) string {
	lines := []string{fmt.Sprintf("%s plan, revision %d.", workflow, p.Revision)}
	if m.Deliverable {
		lines = append(lines, "A deliverable: work to hand over by this date.")
	}
	switch m.State {
	case MilestoneDone, MilestoneSkipped:
		if m.DoneAt != nil {
			lines = append(lines, fmt.Sprintf("Marked %s on %s.", m.State, m.DoneAt.UTC().Format(time.DateOnly)))
		}
	}
	lines = append(lines, "", "Plan: "+DashboardURL(baseURL, p.ID), "API: "+APIURL(baseURL, p.ID))
	return strings.Join(lines, "\n")
}

// oneLine keeps a title on one line: the library escapes newlines in
// text, but a calendar's name or an event's title is shown as one line.
// Its control characters are gone too (icsText).
func oneLine(s string) string {
	return strings.Join(strings.Fields(icsText(s)), " ")
}

// icsText is s as an iCalendar TEXT value may hold it: RFC 5545's TEXT
// excludes control characters (U+0000 to U+001F but the tab, U+007F), and
// strict clients drop the whole feed over one, so each becomes a space;
// line breaks, which the library escapes as \n, stay. C1 controls
// (U+0080 to U+009F) go the same way: no calendar shows them. Every text
// that reaches the document (titles, names, descriptions, categories)
// goes through it, whoever wrote it: a creator's name, a context's text in
// a milestone's title, a workflow's name.
func icsText(s string) string {
	return strings.Map(func(r rune) rune {
		if r != '\n' && unicode.IsControl(r) {
			return ' '
		}
		return r
	}, s)
}
