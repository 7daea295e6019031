package wire

import (
	"google.golang.org/protobuf/types/known/structpb"
	"google.golang.org/protobuf/types/known/timestamppb"

	creativeopsv1 "github.com/creativeops/creativeops/gen/creativeops/v1"
	"github.com/creativeops/creativeops/plans"
)

// Plan renders a tracked plan: the milestones of its current revision (a
// done milestone a later revision dropped is kept in storage, not shown).
func Plan(p *plans.Plan) *creativeopsv1.Plan {
	out := &creativeopsv1.Plan{
		Id:               p.ID,
		Vertical:         p.Vertical,
		Workflow:         p.Workflow,
		Context:          Struct(p.Context),
		CreatorId:        p.CreatorID,
		Revision:         int32(p.Revision),
		JobId:            p.JobID,
		AsOf:             p.AsOf,
		TimeZone:         p.TimeZone,
		State:            p.State,
		Milestones:       []*creativeopsv1.PlanMilestone{},
		RemindDaysBefore: int32(p.RemindDaysBefore),
		AutoReplan:       p.AutoReplan,
		FeedActive:       p.FeedActive,
		Result:           Struct(p.Result),
		CreatedAt:        timestamppb.New(p.CreatedAt),
		UpdatedAt:        timestamppb.New(p.UpdatedAt),
	}
	if out.Context == nil {
		out.Context = &structpb.Struct{}
	}
	for _, m := range p.Milestones {
		if m.Current {
			out.Milestones = append(out.Milestones, PlanMilestone(m))
		}
	}
	return out
}

// PlanMilestone renders one milestone of a plan.
func PlanMilestone(m plans.Milestone) *creativeopsv1.PlanMilestone {
	return &creativeopsv1.PlanMilestone{
		Key: m.Key, Title: m.Title, Date: m.Date, Deliverable: m.Deliverable, State: m.State,
		DoneAt: Time(m.DoneAt), Revision: int32(m.Revision),
	}
}

// MilestoneChanges renders what a re-plan changed.
func MilestoneChanges(cs []plans.Change) []*creativeopsv1.MilestoneChange {
	out := make([]*creativeopsv1.MilestoneChange, len(cs))
	for i, c := range cs {
		out[i] = &creativeopsv1.MilestoneChange{Key: c.Key, Title: c.Title, Change: c.Change, FromDate: c.FromDate, ToDate: c.ToDate}
	}
	return out
}

// planEventData renders the data of the plan.* events; false for another
// resource.
func planEventData(resource any) ([]byte, bool, error) {
	switch r := resource.(type) {
	case *plans.MilestoneEvent:
		b, err := JSON.Marshal(&creativeopsv1.PlanMilestoneReminder{
			PlanId: r.Plan.ID, Revision: int32(r.Plan.Revision), CreatorId: r.Plan.CreatorID,
			Vertical: r.Plan.Vertical, Workflow: r.Plan.Workflow,
			Milestone: PlanMilestone(r.Milestone), DaysUntil: int32(r.DaysUntil),
		})
		return b, true, err
	case *plans.ReplannedEvent:
		b, err := JSON.Marshal(&creativeopsv1.PlanReplanReport{Plan: Plan(r.Plan), Changes: MilestoneChanges(r.Changes), Trigger: r.Trigger})
		return b, true, err
	}
	return nil, false, nil
}
