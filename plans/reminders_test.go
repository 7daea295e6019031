package plans

import (
	"testing"
	"time"
)

// One reminder per scan: the latest that applies on the day, so a
// milestone tracked a day before its date (or a scan that did not run for
// days) gets the reminder that is true now, never a burst of stale ones.
func TestReminderKind(t *testing.T) {
	for _, c := range []struct {
		date, day string
		remind    int
		kind      string
		days      int
	}{
		{"2027-03-10", "2027-03-01", 3, "", 9},
		{"2027-03-10", "2027-03-07", 3, DueBefore, 3},
		{"2027-03-10", "2027-03-09", 3, DueBefore, 1}, // due_before missed at 3 days: sent late, with the true count
		{"2027-03-10", "2027-03-10", 3, DueToday, 0},
		{"2027-03-10", "2027-03-11", 3, Overdue, -1},
		{"2027-03-10", "2027-03-20", 3, Overdue, -10}, // down for days: only overdue
		{"2027-03-10", "2027-03-09", 0, "", 1},        // 0: only on the day
		{"2027-03-10", "2027-03-10", 0, DueToday, 0},
		{"2027-01-01", "2026-12-31", 1, DueBefore, 1}, // across a year
	} {
		kind, days := reminderKind(c.date, c.day, c.remind)
		if kind != c.kind || (kind != "" && days != c.days) {
			t.Errorf("milestone %s on %s, %d days before: %q %d, want %q %d", c.date, c.day, c.remind, kind, days, c.kind, c.days)
		}
	}
}

func TestToday(t *testing.T) {
	// 2027-03-10 23:30 UTC is already the 11th in Tokyo, still the 10th in
	// New York; an unknown zone counts as UTC.
	now := mustTime("2027-03-10T23:30:00Z")
	for tz, want := range map[string]string{"UTC": "2027-03-10", "Asia/Tokyo": "2027-03-11", "America/New_York": "2027-03-10", "Nowhere/Else": "2027-03-10"} {
		if got := today(now, tz); got != want {
			t.Errorf("today in %s = %s, want %s", tz, got, want)
		}
	}
}

// nextCheck: the first midnight, in the plan's zone, at which a pending
// milestone's reminder changes kind; now when a reminder applies and the
// change came from a caller; the next midnight for a slipped deliverable
// of a plan that re-plans itself; nil when nothing is pending.
func TestNextCheck(t *testing.T) {
	now := mustTime("2027-03-01T09:00:00Z")
	unix := func(s string) int64 { return mustTime(s).Unix() }
	pending := func(date string, deliverable bool) Milestone {
		return Milestone{Key: date, Date: date, Deliverable: deliverable, State: Pending, Current: true}
	}
	for _, c := range []struct {
		name   string
		plan   Plan
		ms     []Milestone
		dueNow bool
		want   int64 // 0: nil
	}{
		{"reminder days ahead", Plan{RemindDaysBefore: 3, TimeZone: "UTC"}, []Milestone{pending("2027-03-10", false)}, false, unix("2027-03-07T00:00:00Z")},
		{"earliest of several", Plan{RemindDaysBefore: 3, TimeZone: "UTC"}, []Milestone{pending("2027-03-10", false), pending("2027-03-05", false)}, false, unix("2027-03-02T00:00:00Z")},
		{"in the window: its date next", Plan{RemindDaysBefore: 3, TimeZone: "UTC"}, []Milestone{pending("2027-03-03", false)}, false, unix("2027-03-03T00:00:00Z")},
		{"in the window, changed by a caller: now", Plan{RemindDaysBefore: 3, TimeZone: "UTC"}, []Milestone{pending("2027-03-03", false)}, true, now.Unix()},
		{"not yet in the window, changed by a caller", Plan{RemindDaysBefore: 3, TimeZone: "UTC"}, []Milestone{pending("2027-03-10", false)}, true, unix("2027-03-07T00:00:00Z")},
		{"today: overdue tomorrow", Plan{RemindDaysBefore: 3, TimeZone: "UTC"}, []Milestone{pending("2027-03-01", false)}, false, unix("2027-03-02T00:00:00Z")},
		{"overdue and reminded: never again", Plan{RemindDaysBefore: 3, TimeZone: "UTC"}, []Milestone{pending("2027-02-20", false)}, false, 0},
		{"slipped deliverable, auto re-plan: tomorrow", Plan{RemindDaysBefore: 3, TimeZone: "UTC", AutoReplan: true, State: Active}, []Milestone{pending("2027-02-20", true)}, false, unix("2027-03-02T00:00:00Z")},
		{"slipped deliverable, no auto re-plan", Plan{RemindDaysBefore: 3, TimeZone: "UTC", State: Active}, []Milestone{pending("2027-02-20", true)}, false, 0},
		{"0 days before: on the date", Plan{RemindDaysBefore: 0, TimeZone: "UTC"}, []Milestone{pending("2027-03-10", false)}, false, unix("2027-03-10T00:00:00Z")},
		{"done milestones are not checked", Plan{RemindDaysBefore: 3, TimeZone: "UTC"}, []Milestone{{Date: "2027-03-03", State: Done, Current: true}}, true, 0},
		{"the plan's zone", Plan{RemindDaysBefore: 3, TimeZone: "Asia/Tokyo"}, []Milestone{pending("2027-03-10", false)}, false, unix("2027-03-06T15:00:00Z")},
		// São Paulo had no midnight on 2018-11-04: clocks went from 00:00 to 01:00.
		{"a day without midnight", Plan{RemindDaysBefore: 0, TimeZone: "America/Sao_Paulo"}, []Milestone{pending("2018-11-04", false)}, false, unix("2018-11-04T03:00:00Z")},
	} {
		clock := now
		if c.name == "a day without midnight" {
			clock = mustTime("2018-11-01T12:00:00Z")
		}
		got := nextCheck(&c.plan, c.ms, clock, c.dueNow)
		switch {
		case c.want == 0 && got != nil:
			t.Errorf("%s: next check %v, want none", c.name, time.Unix(*got, 0).UTC())
		case c.want != 0 && (got == nil || *got != c.want):
			t.Errorf("%s: next check %v, want %v", c.name, got, time.Unix(c.want, 0).UTC())
		}
	}
}
