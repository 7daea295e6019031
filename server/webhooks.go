package server

import (
	"context"
	"fmt"

	"google.golang.org/protobuf/types/known/emptypb"

	"github.com/creativeops/creativeops/apierror"
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
		URL: req.GetUrl(), Events: req.GetEvents(), Secret: req.GetSecret(), Description: req.GetDescription(),
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

func (s *webhooksService) UpdateWebhook(ctx context.Context, req *creativeopsv1.UpdateWebhookRequest) (*creativeopsv1.Webhook, error) {
	var in webhooks.WebhookUpdate
	paths := req.GetUpdateMask().GetPaths()
	if len(paths) == 0 {
		// No mask: the fields the request sets.
		if req.Url != nil {
			paths = append(paths, "url")
		}
		if len(req.GetEvents()) > 0 {
			paths = append(paths, "events")
		}
		if req.Description != nil {
			paths = append(paths, "description")
		}
		if len(paths) == 0 {
			return nil, apierror.InvalidField("update_mask", "nothing to change: set url, events or description")
		}
	}
	for _, p := range paths {
		switch p {
		case "url":
			url := req.GetUrl()
			in.URL = &url
		case "events":
			events := req.GetEvents()
			in.Events = &events
		case "description":
			d := req.GetDescription()
			in.Description = &d
		default:
			return nil, apierror.InvalidField("update_mask", fmt.Sprintf("%q is not a field that can be changed (url, events, description)", p))
		}
	}
	wh, err := s.webhooks.Update(ctx, principal(ctx).OrganizationID, req.GetId(), in)
	if err != nil {
		return nil, err
	}
	return wire.Webhook(wh), nil
}

func (s *webhooksService) DisableWebhook(ctx context.Context, req *creativeopsv1.DisableWebhookRequest) (*creativeopsv1.Webhook, error) {
	wh, err := s.webhooks.Disable(ctx, principal(ctx).OrganizationID, req.GetId())
	if err != nil {
		return nil, err
	}
	return wire.Webhook(wh), nil
}

func (s *webhooksService) EnableWebhook(ctx context.Context, req *creativeopsv1.EnableWebhookRequest) (*creativeopsv1.Webhook, error) {
	wh, err := s.webhooks.Enable(ctx, principal(ctx).OrganizationID, req.GetId())
	if err != nil {
		return nil, err
	}
	return wire.Webhook(wh), nil
}

func (s *webhooksService) RotateWebhookSecret(ctx context.Context, req *creativeopsv1.RotateWebhookSecretRequest) (*creativeopsv1.Webhook, error) {
	wh, secret, err := s.webhooks.RotateSecret(ctx, principal(ctx).OrganizationID, req.GetId(), req.GetSecret())
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
