package server

import (
	"context"

	"google.golang.org/protobuf/types/known/timestamppb"

	creativeopsv1 "github.com/creativeops/creativeops/gen/creativeops/v1"
)

// CreatePlanFeed makes the plan's secret calendar feed URL, replacing any
// earlier one. The URL is in this response only: PlanFeed.url is
// debug_redact, so an idempotent replay does not hand it out again.
func (s *plansService) CreatePlanFeed(ctx context.Context, req *creativeopsv1.CreatePlanFeedRequest) (*creativeopsv1.PlanFeed, error) {
	f, err := s.feeds.Create(ctx, principal(ctx).OrganizationID, req.GetId())
	if err != nil {
		return nil, err
	}
	return &creativeopsv1.PlanFeed{Url: f.URL, CreatedAt: timestamppb.New(f.CreatedAt)}, nil
}

// RevokePlanFeed revokes the plan's feed URL and returns the plan, its
// feed_active now false.
func (s *plansService) RevokePlanFeed(ctx context.Context, req *creativeopsv1.RevokePlanFeedRequest) (*creativeopsv1.Plan, error) {
	if err := s.feeds.Revoke(ctx, principal(ctx).OrganizationID, req.GetId()); err != nil {
		return nil, err
	}
	return s.GetPlan(ctx, &creativeopsv1.GetPlanRequest{Id: req.GetId()})
}
