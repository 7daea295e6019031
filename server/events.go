package server

import (
	"context"
	"strconv"

	"github.com/creativeops/creativeops/events"
	creativeopsv1 "github.com/creativeops/creativeops/gen/creativeops/v1"
	"github.com/creativeops/creativeops/server/wire"
)

type eventsService struct {
	creativeopsv1.UnimplementedEventsServiceServer
	log *events.Log
}

// ListEvents pages by sequence number: the page token carries the last
// event's, so a page costs one walk of the index. With after, the list
// runs oldest first from that event, for reconciling and following.
func (s *eventsService) ListEvents(ctx context.Context, req *creativeopsv1.ListEventsRequest) (*creativeopsv1.ListEventsResponse, error) {
	page, err := readPage(req)
	if err != nil {
		return nil, err
	}
	orgID := principal(ctx).OrganizationID
	p := events.Page{Ascending: req.GetAfter() != "", Limit: page.fetch()}
	switch {
	case page.after != "":
		// A token this list issued: a sequence number.
		if p.Position, err = strconv.ParseInt(page.after, 10, 64); err != nil {
			return nil, errBadPageToken
		}
	case req.GetAfter() != "":
		if p.Position, err = s.log.Position(ctx, orgID, req.GetAfter(), "after"); err != nil {
			return nil, err
		}
	}
	f := events.Filter{Types: req.GetType(), ObjectID: req.GetObjectId()}
	if req.CreatedAfter != nil {
		f.CreatedAfter = req.GetCreatedAfter().AsTime()
	}
	if req.CreatedBefore != nil {
		f.CreatedBefore = req.GetCreatedBefore().AsTime()
	}
	rows, err := s.log.List(ctx, orgID, f, p)
	if err != nil {
		return nil, err
	}
	rows, next := nextPageToken(req, rows, page.size, func(r *events.Record) string { return strconv.FormatInt(r.Sequence, 10) })
	out := &creativeopsv1.ListEventsResponse{Events: make([]*creativeopsv1.Event, len(rows)), NextPageToken: next}
	for i, r := range rows {
		if out.Events[i], err = wire.Event(r); err != nil {
			return nil, err
		}
	}
	return out, nil
}

func (s *eventsService) GetEvent(ctx context.Context, req *creativeopsv1.GetEventRequest) (*creativeopsv1.Event, error) {
	r, err := s.log.Get(ctx, principal(ctx).OrganizationID, req.GetId())
	if err != nil {
		return nil, err
	}
	return wire.Event(r)
}
