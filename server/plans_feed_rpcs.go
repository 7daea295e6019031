package server

import (
	"context"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	creativeopsv1 "github.com/creativeops/creativeops/gen/creativeops/v1"
)

// The calendar feed's RPCs (POST /v1/plans/{id}:createFeed and
// :revokeFeed) are built with the feed itself (the calendar.ics route and
// its token); until then they answer UNIMPLEMENTED.

func (s *plansService) CreatePlanFeed(context.Context, *creativeopsv1.CreatePlanFeedRequest) (*creativeopsv1.PlanFeed, error) {
	return nil, status.Error(codes.Unimplemented, "plan calendar feeds are not available in this version")
}

func (s *plansService) RevokePlanFeed(context.Context, *creativeopsv1.RevokePlanFeedRequest) (*creativeopsv1.Plan, error) {
	return nil, status.Error(codes.Unimplemented, "plan calendar feeds are not available in this version")
}
