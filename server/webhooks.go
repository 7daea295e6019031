package server

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"math"
	"strings"
	"time"

	"google.golang.org/grpc/codes"
	"google.golang.org/protobuf/types/known/emptypb"
	"google.golang.org/protobuf/types/known/timestamppb"

	"github.com/creativeops/creativeops/apierror"
	"github.com/creativeops/creativeops/ent"
	"github.com/creativeops/creativeops/ent/delivery"
	"github.com/creativeops/creativeops/ent/deliveryattempt"
	"github.com/creativeops/creativeops/ent/webhook"
	"github.com/creativeops/creativeops/events"
	creativeopsv1 "github.com/creativeops/creativeops/gen/creativeops/v1"
	"github.com/creativeops/creativeops/ids"
	"github.com/creativeops/creativeops/secrets"
	"github.com/creativeops/creativeops/storage"
	"github.com/creativeops/creativeops/webhooks"
)

type webhooksService struct {
	creativeopsv1.UnimplementedWebhooksServiceServer
	store      *storage.Store
	events     *events.Emitter
	dispatcher *webhooks.Dispatcher
	keyring    *secrets.Keyring
	// allowInsecure admits http:// and private addresses (development).
	allowInsecure bool
}

func (s *webhooksService) CreateWebhook(ctx context.Context, req *creativeopsv1.CreateWebhookRequest) (*creativeopsv1.Webhook, error) {
	p := principal(ctx)
	var violations []apierror.FieldViolation
	if err := s.checkURL(ctx, req.GetUrl()); err != nil {
		violations = append(violations, apierror.FieldViolation{Field: "url", Description: reason(err, webhooks.ErrInvalidURL)})
	}
	if err := webhooks.ValidateEventTypes(req.GetEvents()); err != nil {
		violations = append(violations, apierror.FieldViolation{Field: "events", Description: reason(err, webhooks.ErrInvalidEventTypes)})
	}
	secret, generated := req.GetSecret(), false
	if secret == "" {
		secret, generated = webhooks.GenerateSecret(), true
	} else if err := webhooks.ValidateSecret(secret); err != nil {
		violations = append(violations, apierror.FieldViolation{Field: "secret", Description: reason(err, webhooks.ErrInvalidSecret)})
	}
	switch len(violations) {
	case 0:
	case 1:
		return nil, apierror.InvalidField(violations[0].Field, violations[0].Description)
	default:
		return nil, apierror.InvalidFields("invalid request: "+fieldNames(violations), violations)
	}
	id := ids.New(ids.Webhook)
	keyID, sealed := webhooks.SealSecret(s.keyring, id, secret)
	wh, err := s.store.Ent.Webhook.Create().
		SetID(id).
		SetOrganizationID(p.OrganizationID).
		SetURL(req.GetUrl()).
		SetEvents(req.GetEvents()).
		SetSecret(sealed).
		SetSecretKeyID(keyID).
		SetStatus(webhooks.WebhookActive).
		Save(ctx)
	if err != nil {
		return nil, err
	}
	setHTTPStatus(ctx, 201)
	out := webhookToProto(wh)
	if generated {
		// Shown once: only this response carries it.
		out.Secret = &secret
	}
	return out, nil
}

// checkURL applies the endpoint policy: https to a public host, unless the
// server runs with --allow-insecure-webhooks.
func (s *webhooksService) checkURL(ctx context.Context, raw string) error {
	if err := webhooks.ValidateURL(raw, s.allowInsecure); err != nil {
		return err
	}
	if s.allowInsecure {
		return nil
	}
	return webhooks.CheckResolved(ctx, raw, nil)
}

// reason turns a domain error into a field description without its
// generic prefix ("invalid webhook URL: ").
func reason(err, sentinel error) string {
	msg := err.Error()
	if errors.Is(err, sentinel) {
		msg = strings.TrimPrefix(msg, sentinel.Error()+": ")
	}
	return msg
}

func fieldNames(vs []apierror.FieldViolation) string {
	names := make([]string, len(vs))
	for i, v := range vs {
		names[i] = v.Field
	}
	return strings.Join(names, ", ")
}

func (s *webhooksService) ListWebhooks(ctx context.Context, req *creativeopsv1.ListWebhooksRequest) (*creativeopsv1.ListWebhooksResponse, error) {
	p := principal(ctx)
	after, err := decodePageToken(req.GetPageToken())
	if err != nil {
		return nil, err
	}
	size := pageSize(req.GetPageSize())
	q := s.store.Read.Webhook.Query().Where(webhook.OrganizationID(p.OrganizationID), webhook.DeletedAtIsNil())
	if after != "" {
		q = q.Where(webhook.IDLT(after))
	}
	rows, err := q.Order(ent.Desc(webhook.FieldID)).Limit(size + 1).All(ctx)
	if err != nil {
		return nil, err
	}
	rows, next := nextPageToken(rows, size, func(w *ent.Webhook) string { return w.ID })
	out := &creativeopsv1.ListWebhooksResponse{Webhooks: make([]*creativeopsv1.Webhook, len(rows)), NextPageToken: next}
	for i, w := range rows {
		out.Webhooks[i] = webhookToProto(w)
	}
	return out, nil
}

func (s *webhooksService) GetWebhook(ctx context.Context, req *creativeopsv1.GetWebhookRequest) (*creativeopsv1.Webhook, error) {
	wh, err := findWebhook(ctx, s.store.Read, principal(ctx).OrganizationID, req.GetId())
	if err != nil {
		return nil, err
	}
	return webhookToProto(wh), nil
}

// findWebhook returns a live webhook of the organization; others'
// webhooks and deleted ones are not found.
func findWebhook(ctx context.Context, c *ent.Client, orgID, id string) (*ent.Webhook, error) {
	wh, err := c.Webhook.Query().
		Where(webhook.ID(id), webhook.OrganizationID(orgID), webhook.DeletedAtIsNil()).
		Only(ctx)
	if ent.IsNotFound(err) {
		return nil, apierror.NotFound("webhook", id)
	}
	return wh, err
}

func (s *webhooksService) DeleteWebhook(ctx context.Context, req *creativeopsv1.DeleteWebhookRequest) (*emptypb.Empty, error) {
	p := principal(ctx)
	err := s.store.Tx(ctx, func(ctx context.Context, tx *ent.Client, _ *sql.Tx) error {
		t := time.Now().UTC().Truncate(time.Microsecond)
		n, err := tx.Webhook.Update().
			Where(webhook.ID(req.GetId()), webhook.OrganizationID(p.OrganizationID), webhook.DeletedAtIsNil()).
			SetDeletedAt(t).SetUpdatedAt(t).
			Save(ctx)
		if err != nil {
			return err
		}
		if n == 0 {
			return apierror.NotFound("webhook", req.GetId())
		}
		// Queued retries are failed with the webhook, so it receives
		// nothing from now on.
		return webhooks.StopDeliveries(ctx, tx, req.GetId(), "webhook deleted")
	})
	if err != nil {
		return nil, err
	}
	setHTTPStatus(ctx, 204)
	return &emptypb.Empty{}, nil
}

// TestWebhook sends a webhook.test event, whose data is the webhook, to
// this webhook alone, whatever event types it subscribes to.
func (s *webhooksService) TestWebhook(ctx context.Context, req *creativeopsv1.TestWebhookRequest) (*creativeopsv1.Delivery, error) {
	p := principal(ctx)
	var d *ent.Delivery
	err := s.store.Tx(ctx, func(ctx context.Context, tx *ent.Client, sqlTx *sql.Tx) error {
		wh, err := findWebhook(ctx, tx, p.OrganizationID, req.GetId())
		if err != nil {
			return err
		}
		if err := checkActive(wh); err != nil {
			return err
		}
		ev, err := s.events.Emit(ctx, tx, sqlTx, p.OrganizationID, events.WebhookTest, webhookToProto(wh))
		if err != nil {
			return err
		}
		d, err = s.dispatcher.Enqueue(ctx, tx, sqlTx, ev, wh.ID)
		return err
	})
	if err != nil {
		return nil, err
	}
	// The delivery is queued, not yet made.
	setHTTPStatus(ctx, 202)
	return deliveryToProto(d, nil), nil
}

// checkActive refuses to send to a disabled webhook: its endpoint said it
// is gone. Registering the URL again is how a customer re-enables it.
func checkActive(wh *ent.Webhook) error {
	if wh.Status == webhooks.WebhookActive {
		return nil
	}
	e := apierror.New(codes.FailedPrecondition, "WEBHOOK_DISABLED",
		fmt.Sprintf("webhook %s is disabled (%s); register the endpoint again to receive events", wh.ID, wh.DisabledReason))
	e.Metadata = map[string]string{"webhook_id": wh.ID}
	return e
}

func (s *webhooksService) ListDeliveries(ctx context.Context, req *creativeopsv1.ListDeliveriesRequest) (*creativeopsv1.ListDeliveriesResponse, error) {
	p := principal(ctx)
	after, err := decodePageToken(req.GetPageToken())
	if err != nil {
		return nil, err
	}
	size := pageSize(req.GetPageSize())
	if _, err := findWebhook(ctx, s.store.Read, p.OrganizationID, req.GetId()); err != nil {
		return nil, err
	}
	q := s.store.Read.Delivery.Query().Where(delivery.WebhookID(req.GetId()))
	if after != "" {
		q = q.Where(delivery.IDLT(after))
	}
	rows, err := q.Order(ent.Desc(delivery.FieldID)).Limit(size + 1).All(ctx)
	if err != nil {
		return nil, err
	}
	rows, next := nextPageToken(rows, size, func(d *ent.Delivery) string { return d.ID })
	attempts := map[string][]*ent.DeliveryAttempt{}
	if len(rows) > 0 {
		deliveryIDs := make([]string, len(rows))
		for i, d := range rows {
			deliveryIDs[i] = d.ID
		}
		all, err := s.store.Read.DeliveryAttempt.Query().
			Where(deliveryattempt.DeliveryIDIn(deliveryIDs...)).
			Order(ent.Asc(deliveryattempt.FieldDeliveryID), ent.Asc(deliveryattempt.FieldNumber)).
			All(ctx)
		if err != nil {
			return nil, err
		}
		for _, a := range all {
			attempts[a.DeliveryID] = append(attempts[a.DeliveryID], a)
		}
	}
	out := &creativeopsv1.ListDeliveriesResponse{Deliveries: make([]*creativeopsv1.Delivery, len(rows)), NextPageToken: next}
	for i, d := range rows {
		out.Deliveries[i] = deliveryToProto(d, attempts[d.ID])
	}
	return out, nil
}

// RedeliverDelivery sends a delivery's event again as a new delivery, with
// the same event id (webhook-id), so receivers that already processed it
// can recognise it.
func (s *webhooksService) RedeliverDelivery(ctx context.Context, req *creativeopsv1.RedeliverDeliveryRequest) (*creativeopsv1.Delivery, error) {
	p := principal(ctx)
	var d *ent.Delivery
	err := s.store.Tx(ctx, func(ctx context.Context, tx *ent.Client, sqlTx *sql.Tx) error {
		wh, err := findWebhook(ctx, tx, p.OrganizationID, req.GetId())
		if err != nil {
			return err
		}
		orig, err := tx.Delivery.Query().Where(delivery.ID(req.GetDeliveryId()), delivery.WebhookID(wh.ID)).Only(ctx)
		if ent.IsNotFound(err) {
			return apierror.NotFound("delivery", req.GetDeliveryId())
		}
		if err != nil {
			return err
		}
		if err := checkActive(wh); err != nil {
			return err
		}
		ev, err := tx.Event.Get(ctx, orig.EventID)
		if err != nil {
			return fmt.Errorf("event %s of delivery %s: %w", orig.EventID, orig.ID, err)
		}
		d, err = s.dispatcher.Enqueue(ctx, tx, sqlTx, ev, wh.ID)
		return err
	})
	if err != nil {
		return nil, err
	}
	// The delivery is queued, not yet made.
	setHTTPStatus(ctx, 202)
	return deliveryToProto(d, nil), nil
}

func webhookToProto(w *ent.Webhook) *creativeopsv1.Webhook {
	return &creativeopsv1.Webhook{
		Id:             w.ID,
		Url:            w.URL,
		Events:         w.Events,
		Status:         w.Status,
		CreatedAt:      timestamppb.New(w.CreatedAt),
		DisabledReason: w.DisabledReason,
	}
}

func deliveryToProto(d *ent.Delivery, attempts []*ent.DeliveryAttempt) *creativeopsv1.Delivery {
	out := &creativeopsv1.Delivery{
		Id:             d.ID,
		WebhookId:      d.WebhookID,
		EventId:        d.EventID,
		EventType:      d.EventType,
		Status:         d.Status,
		Attempts:       int32(d.Attempts),
		ResponseStatus: int32(d.ResponseStatus),
		LatencyMs:      int32(min(d.LatencyMs, math.MaxInt32)),
		LastError:      d.LastError,
		NextRetryAt:    optionalTime(d.NextRetryAt),
		CreatedAt:      timestamppb.New(d.CreatedAt),
		CompletedAt:    optionalTime(d.CompletedAt),
		AttemptLog:     make([]*creativeopsv1.DeliveryAttempt, len(attempts)),
	}
	for i, a := range attempts {
		out.AttemptLog[i] = &creativeopsv1.DeliveryAttempt{
			Number:         int32(a.Number),
			At:             timestamppb.New(a.At),
			ResponseStatus: int32(a.ResponseStatus),
			LatencyMs:      int32(min(a.LatencyMs, math.MaxInt32)),
			Error:          a.Error,
			NextRetryAt:    optionalTime(a.NextRetryAt),
			ResponseBody:   a.ResponseBody,
		}
	}
	return out
}
