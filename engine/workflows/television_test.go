package workflows_test

import (
	"encoding/json"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/creativeops/creativeops/engine"
)

// tvBizDays counts business days from a to b: weekdays that are not US
// federal holidays (Presidents' Day falls in the example's post schedule).
func tvBizDays(a, b string) int {
	d, end := mediaDay(a), mediaDay(b)
	n := 0
	for d.Before(end) {
		d = engine.AddDays(d, 1)
		if !engine.Closed(d, engine.RegionUS) {
			n++
		}
	}
	return n
}

func TestTelevisionEpisodeDeliveryDGAPeriodsAndLead(t *testing.T) {
	res := run(t, "television-episode-delivery", mediaExample(t, "television-episode-delivery"))
	eps := res["episodes"].([]any)
	if len(eps) != 8 {
		t.Fatalf("%d episodes", len(eps))
	}
	for i, e := range eps {
		m := e.(map[string]any)
		if n := tvBizDays(m["wrap"].(string), m["editors_assembly"].(string)); n != 6 {
			t.Errorf("ep %d: assembly %d business days after wrap, want 6 (DGA)", i+1, n)
		}
		if n := tvBizDays(m["editors_assembly"].(string), m["directors_cut"].(string)); n != 4 {
			t.Errorf("ep %d: director's cut %d days, want 4 for one hour (DGA)", i+1, n)
		}
		air := mediaDay(m["air_date"].(string))
		if engine.DaysBetween(mediaDay("2027-05-21"), air) != 7*i {
			t.Errorf("ep %d airs %v, not weekly", i+1, air)
		}
		if d := engine.DaysBetween(mediaDay(m["delivery_due"].(string)), air); d < 42 || d > 44 {
			t.Errorf("ep %d due %d days before air, want 42 (streaming)", i+1, d)
		}
	}
	if last := eps[7].(map[string]any); last["slack_days"].(float64) != 1 {
		t.Errorf("episode 8 slack %v, want 1", last["slack_days"])
	}
	if len(warningCodes(res)) != 0 {
		t.Errorf("unexpected warnings %v", warningCodes(res))
	}
}

func TestTelevisionEpisodeDeliveryLateProposesPremiere(t *testing.T) {
	ctx := mediaExample(t, "television-episode-delivery")
	ctx["premiere_date"] = "2027-04-23"
	res := run(t, "television-episode-delivery", clone(ctx))
	if !hasWarning(res, "EPISODES_LATE") {
		t.Fatalf("premiere 4 weeks earlier should make episodes late: %v", warningCodes(res))
	}
	earliest := mediaDate(t, res, "earliest_feasible_premiere")
	if earliest.Weekday() != mediaDay("2027-04-23").Weekday() {
		t.Errorf("proposed premiere %v is not on the slot's weekday", earliest)
	}
	// The plan is built on the feasible premiere: no episode is late in it.
	if got := milestoneDate(t, res, "premiere"); !got.Equal(earliest) || mediaNum(t, res, "late_episodes") != 0 || !hasWarning(res, "REPLANNED") {
		t.Errorf("premiere milestone %v, late %v, warnings %v; want the plan on %v", got, res["late_episodes"], warningCodes(res), earliest)
	}
	ctx["premiere_date"] = engine.FormatDate(earliest)
	again := run(t, "television-episode-delivery", ctx)
	if hasWarning(again, "EPISODES_LATE") {
		t.Errorf("the proposed premiere %v is still late", earliest)
	}
	// Broadcast needs only 2 weeks: the same early premiere works on air.
	ctx["premiere_date"], ctx["platform"] = "2027-04-23", "broadcast"
	if b := run(t, "television-episode-delivery", ctx); hasWarning(b, "EPISODES_LATE") {
		t.Errorf("broadcast delivery 14 days out should fit: %v", warningCodes(b))
	}
}

func TestTelevisionWritersRoomStaffingAndCost(t *testing.T) {
	for eps, want := range map[int]float64{4: 3, 8: 5, 13: 6} {
		res := run(t, "television-writers-room", map[string]any{
			"episodes": eps, "room_start": "2027-01-04", "scripts_due": "2027-06-30", "writers": 6, "as_of": "2026-11-20",
		})
		if m := mediaNum(t, res, "minimum_writers"); m != want {
			t.Errorf("%d episodes: MBA minimum %v, want %v", eps, m, want)
		}
	}
	res := run(t, "television-writers-room", mediaExample(t, "television-writers-room"))
	// 8 one-hour scripts: 2 weeks to break + ceil(8 × 1.5) = 14 weeks; the
	// room runs Monday 2027-01-04 to Friday 2027-04-30, 17 paid weeks.
	if mediaNum(t, res, "weeks_needed") != 14 || mediaNum(t, res, "weeks_available") != 17 {
		t.Errorf("weeks needed %v available %v", res["weeks_needed"], res["weeks_available"])
	}
	if total := mediaNum(t, res, "budget", "total_usd"); !mediaClose(total, engine.Money(5*17*6200*1.21)) {
		t.Errorf("total %v, want %v", total, engine.Money(5*17*6200*1.21))
	}
}

func TestTelevisionWritersRoomTooSmallAndTooShort(t *testing.T) {
	res := run(t, "television-writers-room", map[string]any{
		"episodes": 13, "room_start": "2027-01-04", "scripts_due": "2027-03-29", "writers": 4, "budget_usd": 100000, "as_of": "2026-11-20",
	})
	for _, code := range []string{"BELOW_MINIMUM_STAFF", "ROOM_TOO_SHORT", "ROOM_OVER_BUDGET"} {
		if !hasWarning(res, code) {
			t.Errorf("missing %s in %v", code, warningCodes(res))
		}
	}
	// 2 + ceil(13 × 1.5) = 22 weeks before 2027-03-29, on a Monday.
	start := mediaDate(t, res, "latest_room_start")
	if start.Weekday() != 1 || engine.DaysBetween(start, mediaDay("2027-03-29")) < 22*7 {
		t.Errorf("latest start %v", start)
	}
	// Budgeted at the MBA minimum of 6 writers, not the 4 planned.
	if w := mediaNum(t, res, "budget", "writers"); w != 6 {
		t.Errorf("budgeted writers %v, want 6", w)
	}
}

// The summary states the room's length and its dates; they must agree: a
// room of N paid weeks from its opening day to the scripts-due day spans
// ceil(days / 7) weeks, both days counted. A room too short for its scripts
// used to be summarised as "22 weeks from 2027-01-04 to 2027-03-29", a span
// of 12 weeks; it is now planned to the earliest feasible delivery date.
func TestTelevisionWritersRoomSummaryLengthMatchesItsDates(t *testing.T) {
	re := regexp.MustCompile(`for (\d+) weeks?,? from (\d{4}-\d{2}-\d{2}) to (\d{4}-\d{2}-\d{2})`)
	for name, changes := range map[string]map[string]any{
		"example":          nil,
		"too short":        {"episodes": 13, "scripts_due": "2027-03-29"},
		"due before start": {"scripts_due": "2026-12-15"},
		"development":      {"room_type": "development", "episodes": 2, "scripts_due": "2027-02-10"},
		"half hour":        {"episode_length": "half_hour", "room_start": "2027-01-06", "scripts_due": "2027-03-03"},
	} {
		res := entRun(t, "television-writers-room", changes)
		m := re.FindStringSubmatch(entStr(t, res, "strategy"))
		if m == nil {
			t.Fatalf("%s: no length and dates in %q", name, entStr(t, res, "strategy"))
		}
		weeks, _ := strconv.Atoi(m[1])
		from, to := entDay(m[2]), entDay(m[3])
		if span := (engine.DaysBetween(from, to) + 7) / 7; span != weeks {
			t.Errorf("%s: summary says %d weeks but %s to %s is %d (the room's paid weeks, both days counted, must match its dates)", name, weeks, m[2], m[3], span)
		}
		if !to.Equal(milestoneDate(t, res, "scripts-due")) {
			t.Errorf("%s: summary ends %s, scripts due %v", name, m[3], milestoneDate(t, res, "scripts-due"))
		}
		if got := entNum(t, res, "budget", "weeks"); int(got) != weeks {
			t.Errorf("%s: budget pays %v weeks, summary says %d", name, got, weeks)
		}
		if need := int(entNum(t, res, "weeks_needed")); weeks < need {
			t.Errorf("%s: %d weeks planned, %d needed", name, weeks, need)
		}
	}
	res := entRun(t, "television-writers-room", map[string]any{"episodes": 13, "scripts_due": "2027-03-29"})
	// 2 + ceil(13 × 1.5) = 22 weeks from Monday 2027-01-04: Friday 2027-06-04.
	if got := entStr(t, res, "scripts_due"); got != "2027-06-04" {
		t.Errorf("feasible scripts due %s, want 2027-06-04", got)
	}
}

// Scripts due in the dead week are delivered before it only when the room
// still gets the weeks it needs; otherwise on the first open day after, so
// the season is broken before the first draft comes in.
func TestTelevisionWritersRoomDeadWeekDelivery(t *testing.T) {
	res := entRun(t, "television-writers-room", map[string]any{
		"as_of": "2027-03-30", "country": "UK", "episode_length": "half_hour", "episodes": 1,
		"room_start": "2028-12-10", "scripts_due": "2028-02-21", "writers": 5,
	})
	broken, draft, due := milestoneDate(t, res, "season-broken"), milestoneDate(t, res, "first-draft"), milestoneDate(t, res, "scripts-due")
	if draft.Before(broken) || due.Before(draft) {
		t.Errorf("season broken %v, first draft %v, scripts due %v: out of order", broken, draft, due)
	}
	if engine.InDeadWeek(due) {
		t.Errorf("scripts due %v in the dead week", due)
	}
}

// The DGA Basic Agreement binds US productions: elsewhere the cut periods
// are kept as practice and the producer is sent to the contracts that bind.
func TestTelevisionEpisodeDeliveryDGAOnlyInTheUS(t *testing.T) {
	w, _ := engine.LookupWorkflow("television-episode-delivery")
	for country, wantDGA := range map[string]bool{"US": true, "GB": false, "FR": false, "JP": false} {
		ctx := clone(w.ExampleContext)
		ctx["country"] = country
		b, _ := json.Marshal(run(t, "television-episode-delivery", ctx)["recommendations"])
		if got := strings.Contains(string(b), "breaches the Basic Agreement"); got != wantDGA {
			t.Errorf("%s: DGA as binding %v, want %v: %s", country, got, wantDGA, b)
		}
	}
}
