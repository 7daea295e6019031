package engine

import (
	"reflect"
	"testing"
	"time"
)

func mustDate(t *testing.T, s string) time.Time {
	t.Helper()
	d, err := ParseDate(s)
	if err != nil {
		t.Fatal(err)
	}
	return d
}

func TestPlanGetDate(t *testing.T) {
	p := &Plan{asOf: mustDate(t, "2026-11-20")}
	p.Set("release_date", FormatDate(mustDate(t, "2027-03-05")))
	p.Set("weekend_date", "2026-11-21")
	p.Set("count", 3)
	p.Set("label", "soon")
	tests := []struct {
		key  string
		want time.Time
	}{
		{"release_date", mustDate(t, "2027-03-05")},
		{"weekend_date", mustDate(t, "2026-11-21")},
		{"missing", time.Time{}},
		{"count", time.Time{}},
		{"label", time.Time{}},
	}
	for _, tt := range tests {
		if got := p.GetDate(tt.key); !got.Equal(tt.want) {
			t.Errorf("GetDate(%q) = %v, want %v", tt.key, got, tt.want)
		}
	}
}

func TestPlanWarnPassedMilestones(t *testing.T) {
	asOf := mustDate(t, "2026-11-20") // a Friday
	newPlan := func() *Plan {
		p := &Plan{asOf: asOf}
		p.Milestone("launch", "Launch", mustDate(t, "2026-12-01"))
		p.Milestone("page", "Store page live", mustDate(t, "2026-11-06"))
		p.Milestone("today", "Due on the plan date", asOf)
		p.Milestone("weekend", "Weekend deadline", mustDate(t, "2026-11-15"))
		p.Milestone("review", "Review", mustDate(t, "2026-11-19"))
		return p
	}
	tests := []struct {
		name string
		skip []string
		want []Warning
	}{
		{"every passed milestone, in date order; the plan date itself has not passed", nil, []Warning{
			{"MILESTONE_PASSED", "Store page live was due 2026-11-06, 14 days before the plan date 2026-11-20."},
			{"MILESTONE_PASSED", "Weekend deadline was due 2026-11-15, 5 days before the plan date 2026-11-20."},
			{"MILESTONE_PASSED", "Review was due 2026-11-19, 1 days before the plan date 2026-11-20."},
		}},
		{"skipped keys are left alone", []string{"review", "page", "not-a-key"}, []Warning{
			{"MILESTONE_PASSED", "Weekend deadline was due 2026-11-15, 5 days before the plan date 2026-11-20."},
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := newPlan()
			p.Warn("OTHER", "kept")
			n := p.WarnPassedMilestones(tt.skip...)
			if n != len(tt.want) {
				t.Errorf("flagged %d, want %d", n, len(tt.want))
			}
			want := append([]Warning{{"OTHER", "kept"}}, tt.want...)
			if got := p.Warnings(); !reflect.DeepEqual(got, want) {
				t.Errorf("warnings:\n got %v\nwant %v", got, want)
			}
		})
	}
	empty := &Plan{asOf: asOf}
	if n := empty.WarnPassedMilestones(); n != 0 || len(empty.Warnings()) != 0 {
		t.Errorf("a plan without milestones flagged %d: %v", n, empty.Warnings())
	}
}
