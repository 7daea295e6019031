package server

import (
	"context"

	"google.golang.org/protobuf/types/known/emptypb"

	creativeopsv1 "github.com/creativeops/creativeops/gen/creativeops/v1"
	"github.com/creativeops/creativeops/server/wire"
	"github.com/creativeops/creativeops/webhooks"
)

type webhooksService struct {
	creativeopsv1.UnimplementedWebhooksServiceServer
	webhooks *webhooks.Service
}

func (s *webhooksService) CreateWebhook(ctx context.Context, req *creativeopsv1.CreateWebhookRequest) (*creativeopsv1.Webhook, error) {
	wh, secret, err := s.webhooks.Create(ctx, principal(ctx).OrganizationID, webhooks.NewWebhook{
		URL: req.GetUrl(), Events: req.GetEvents(), Secret: req.GetSecret(),
	})
	if err != nil {
		return nil, err
	}
	out := wire.Webhook(wh)
	if secret != "" {
		// Shown once: only this response carries it.
		out.Secret = &secret
	}
	return out, nil
}

func (s *webhooksService) ListWebhooks(ctx context.Context, req *creativeopsv1.ListWebhooksRequest) (*creativeopsv1.ListWebhooksResponse, error) {
	page, err := readPage(req)
	if err != nil {
		return nil, err
	}
	rows, err := s.webhooks.List(ctx, principal(ctx).OrganizationID, page.after, page.fetch())
	if err != nil {
		return nil, err
	}
	rows, next := nextPageToken(req, rows, page.size, func(w *webhooks.Webhook) string { return w.ID })
	out := &creativeopsv1.ListWebhooksResponse{Webhooks: make([]*creativeopsv1.Webhook, len(rows)), NextPageToken: next}
	for i, w := range rows {
		out.Webhooks[i] = wire.Webhook(w)
	}
	return out, nil
}

func (s *webhooksService) GetWebhook(ctx context.Context, req *creativeopsv1.GetWebhookRequest) (*creativeopsv1.Webhook, error) {
	wh, err := s.webhooks.Get(ctx, principal(ctx).OrganizationID, req.GetId())
	if err != nil {
		return nil, err
	}
	return wire.Webhook(wh), nil
}

func (s *webhooksService) DeleteWebhook(ctx context.Context, req *creativeopsv1.DeleteWebhookRequest) (*emptypb.Empty, error) {
	if err := s.webhooks.Delete(ctx, principal(ctx).OrganizationID, req.GetId()); err != nil {
		return nil, err
	}
	return &emptypb.Empty{}, nil
}

func (s *webhooksService) TestWebhook(ctx context.Context, req *creativeopsv1.TestWebhookRequest) (*creativeopsv1.Delivery, error) {
	d, err := s.webhooks.Test(ctx, principal(ctx).OrganizationID, req.GetId())
	if err != nil {
		return nil, err
	}
	return wire.Delivery(d), nil
}

func (s *webhooksService) ListDeliveries(ctx context.Context, req *creativeopsv1.ListDeliveriesRequest) (*creativeopsv1.ListDeliveriesResponse, error) {
	page, err := readPage(req)
	if err != nil {
		return nil, err
	}
	rows, err := s.webhooks.Deliveries(ctx, principal(ctx).OrganizationID, req.GetId(), page.after, page.fetch())
	if err != nil {
		return nil, err
	}
	rows, next := nextPageToken(req, rows, page.size, func(d *webhooks.Delivery) string { return d.ID })
	out := &creativeopsv1.ListDeliveriesResponse{Deliveries: make([]*creativeopsv1.Delivery, len(rows)), NextPageToken: next}
	for i, d := range rows {
		out.Deliveries[i] = wire.Delivery(d)
	}
	return out, nil
}

func (s *webhooksService) RedeliverDelivery(ctx context.Context, req *creativeopsv1.RedeliverDeliveryRequest) (*creativeopsv1.Delivery, error) {
	d, err := s.webhooks.Redeliver(ctx, principal(ctx).OrganizationID, req.GetId(), req.GetDeliveryId())
	if err != nil {
		return nil, err
	}
	return wire.Delivery(d), nil
}
