package server

import (
	"context"

	"google.golang.org/protobuf/types/known/emptypb"

	creativeopsv1 "github.com/creativeops/creativeops/gen/creativeops/v1"
	"github.com/creativeops/creativeops/plans"
	"github.com/creativeops/creativeops/server/wire"
)

// plansService serves /v1/plans: tracked plans, their milestones and
// re-plans. Its calendar feed methods are in plans_feed_rpcs.go.
type plansService struct {
	creativeopsv1.UnimplementedPlansServiceServer
	plans *plans.Service
	feeds *plans.Feeds
}

func (s *plansService) CreatePlan(ctx context.Context, req *creativeopsv1.CreatePlanRequest) (*creativeopsv1.Plan, error) {
	in := plans.New{JobID: req.GetJobId(), CreatorID: req.GetCreatorId(), Settings: settings(req.RemindDaysBefore, req.AutoReplan)}
	return rendered(s.plans.Create(ctx, principal(ctx).OrganizationID, in))
}

// settings are a request's plan settings; an unset one stays nil.
func settings(remindDaysBefore *int32, autoReplan *bool) plans.Settings {
	var in plans.Settings
	if remindDaysBefore != nil {
		v := int(*remindDaysBefore)
		in.RemindDaysBefore = &v
	}
	in.AutoReplan = autoReplan
	return in
}

func (s *plansService) ListPlans(ctx context.Context, req *creativeopsv1.ListPlansRequest) (*creativeopsv1.ListPlansResponse, error) {
	page, err := readPage(req)
	if err != nil {
		return nil, err
	}
	rows, err := s.plans.List(ctx, principal(ctx).OrganizationID, plans.ListQuery{
		CreatorID: req.GetCreatorId(), Vertical: req.GetVertical(), State: req.GetState(),
		After: page.after, Limit: page.fetch(), Basic: req.GetView() != viewFull,
	})
	if err != nil {
		return nil, err
	}
	items, next := renderPage(req, rows, page.size, func(p *plans.Plan) string { return p.ID }, func(p *plans.Plan) *creativeopsv1.Plan {
		out := wire.Plan(p)
		if req.GetView() != viewFull {
			out.Context, out.Result = nil, nil
		}
		return out
	})
	return &creativeopsv1.ListPlansResponse{Plans: items, NextPageToken: next}, nil
}

func (s *plansService) GetPlan(ctx context.Context, req *creativeopsv1.GetPlanRequest) (*creativeopsv1.Plan, error) {
	return rendered(s.plans.Get(ctx, principal(ctx).OrganizationID, req.GetId()))
}

func (s *plansService) UpdatePlan(ctx context.Context, req *creativeopsv1.UpdatePlanRequest) (*creativeopsv1.Plan, error) {
	return rendered(s.plans.Update(ctx, principal(ctx).OrganizationID, req.GetId(), settings(req.RemindDaysBefore, req.AutoReplan)))
}

func (s *plansService) DeletePlan(ctx context.Context, req *creativeopsv1.DeletePlanRequest) (*emptypb.Empty, error) {
	if err := s.plans.Delete(ctx, principal(ctx).OrganizationID, req.GetId()); err != nil {
		return nil, err
	}
	return &emptypb.Empty{}, nil
}

func (s *plansService) CompleteMilestone(ctx context.Context, req *creativeopsv1.CompleteMilestoneRequest) (*creativeopsv1.Plan, error) {
	return rendered(s.plans.Complete(ctx, principal(ctx).OrganizationID, req.GetId(), req.GetKey()))
}

func (s *plansService) SkipMilestone(ctx context.Context, req *creativeopsv1.SkipMilestoneRequest) (*creativeopsv1.Plan, error) {
	return rendered(s.plans.Skip(ctx, principal(ctx).OrganizationID, req.GetId(), req.GetKey()))
}

func (s *plansService) ReopenMilestone(ctx context.Context, req *creativeopsv1.ReopenMilestoneRequest) (*creativeopsv1.Plan, error) {
	return rendered(s.plans.Reopen(ctx, principal(ctx).OrganizationID, req.GetId(), req.GetKey()))
}

// rendered is a plans method's plan as the API returns it.
func rendered(p *plans.Plan, err error) (*creativeopsv1.Plan, error) {
	if err != nil {
		return nil, err
	}
	return wire.Plan(p), nil
}

func (s *plansService) ReplanPlan(ctx context.Context, req *creativeopsv1.ReplanPlanRequest) (*creativeopsv1.ReplanPlanResponse, error) {
	p := principal(ctx)
	var changes map[string]any
	if req.GetContext() != nil {
		changes = req.GetContext().AsMap()
	}
	plan, cs, err := s.plans.Replan(ctx, p.OrganizationID, p.KeyID, req.GetId(), plans.Replan{Context: changes, AsOf: req.GetAsOf()})
	if err != nil {
		return nil, err
	}
	return &creativeopsv1.ReplanPlanResponse{Plan: wire.Plan(plan), Changes: wire.MilestoneChanges(cs)}, nil
}
