package server

import (
	"context"

	creativeopsv1 "github.com/creativeops/creativeops/gen/creativeops/v1"
	"github.com/creativeops/creativeops/plans"
)

// Scaffolding for the calendar feed's branch, until the plans service
// lands: the merge replaces this file with the service's own (its
// plansService, with a feeds field, and its GetPlan). GetPlan here shows
// only what the feed knows of a plan, so RevokePlanFeed can answer.
type plansService struct {
	creativeopsv1.UnimplementedPlansServiceServer
	feeds *plans.Feeds
}

func (s *plansService) GetPlan(ctx context.Context, req *creativeopsv1.GetPlanRequest) (*creativeopsv1.Plan, error) {
	fp, err := s.feeds.ByOrganization(ctx, principal(ctx).OrganizationID, req.GetId())
	if err != nil {
		return nil, err
	}
	return &creativeopsv1.Plan{Id: fp.ID, FeedActive: fp.FeedActive}, nil
}
