package plans

import "testing"

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
