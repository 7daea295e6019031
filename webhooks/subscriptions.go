package webhooks

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"google.golang.org/grpc/codes"

	"github.com/creativeops/creativeops/apierror"
	"github.com/creativeops/creativeops/audit"
	"github.com/creativeops/creativeops/ent"
	"github.com/creativeops/creativeops/ent/delivery"
	"github.com/creativeops/creativeops/ent/deliveryattempt"
	"github.com/creativeops/creativeops/ent/webhook"
	"github.com/creativeops/creativeops/events"
	"github.com/creativeops/creativeops/secrets"
	"github.com/creativeops/creativeops/storage"
)

// Webhook is an organization's subscription to events, as the API shows it.
type Webhook struct {
	ID             string
	OrganizationID string
	URL            string
	Events         []string
	Description    string
	Status         string
	DisabledReason string
	DisabledAt     *time.Time
	// PreviousSecretExpiresAt: until when the secret the last rotation
	// replaced signs deliveries too; nil outside a grace period.
	PreviousSecretExpiresAt *time.Time
	// ConsecutiveFailures counts the deliveries that failed in a row.
	ConsecutiveFailures int
	CreatedAt           time.Time
	UpdatedAt           time.Time
}

// Delivery is one event sent (or to be sent) to one webhook.
type Delivery struct {
	ID             string
	WebhookID      string
	EventID        string
	EventType      string
	Status         string
	Attempts       int
	ResponseStatus int
	LatencyMs      int64
	LastError      string
	NextRetryAt    *time.Time
	CreatedAt      time.Time
	CompletedAt    *time.Time
	// AttemptLog lists the attempts made, oldest first (empty for a
	// delivery just queued).
	AttemptLog []AttemptRecord
}

// AttemptRecord is one recorded HTTP request of a delivery.
type AttemptRecord struct {
	Number         int
	At             time.Time
	ResponseStatus int
	LatencyMs      int64
	Error          string
	NextRetryAt    *time.Time
	ResponseBody   string
}

// NewWebhook describes a webhook to create.
type NewWebhook struct {
	URL    string
	Events []string
	// Secret is the signing secret; empty generates one.
	Secret      string
	Description string
}

// WebhookUpdate is a change to a webhook: the fields that are set change.
type WebhookUpdate struct {
	URL    *string
	Events *[]string
	// Description: "" clears it.
	Description *string
}

// Service manages an organization's webhooks and their deliveries.
type Service struct {
	store      *storage.Store
	events     *events.Emitter
	dispatcher *Dispatcher
	keyring    *secrets.Keyring // seals signing secrets at rest
	// allowInsecure admits http:// and private addresses (development).
	allowInsecure bool
	// secretGrace is how long a rotated-out secret keeps signing.
	secretGrace time.Duration
}

// DefaultSecretGrace is how long a secret replaced by a rotation keeps
// signing deliveries beside the new one, unless the server is configured
// otherwise: a day, for receivers deployed once a day.
const DefaultSecretGrace = 24 * time.Hour

// NewService returns the webhooks service. secretGrace is how long a
// secret replaced by RotateSecret keeps signing deliveries (0: not at all).
func NewService(store *storage.Store, emitter *events.Emitter, dispatcher *Dispatcher, keyring *secrets.Keyring, allowInsecure bool, secretGrace time.Duration) *Service {
	return &Service{store: store, events: emitter, dispatcher: dispatcher, keyring: keyring, allowInsecure: allowInsecure, secretGrace: secretGrace}
}

// Create stores a webhook. When in.Secret is empty a secret is generated
// and returned, once: it is the only time it is shown.
func (s *Service) Create(ctx context.Context, orgID string, in NewWebhook) (wh *Webhook, generatedSecret string, err error) {
	var violations []apierror.FieldViolation
	if err := s.checkURL(ctx, in.URL); err != nil {
		violations = append(violations, apierror.FieldViolation{Field: "url", Description: reason(err, ErrInvalidURL)})
	}
	if err := ValidateEventTypes(in.Events); err != nil {
		field := "events"
		if item, ok := errors.AsType[*EventTypeError](err); ok {
			field = fmt.Sprintf("events[%d]", item.Index)
		}
		violations = append(violations, apierror.FieldViolation{Field: field, Description: reason(err, ErrInvalidEventTypes)})
	}
	secret := in.Secret
	if secret == "" {
		secret = GenerateSecret()
		generatedSecret = secret
	} else if err := ValidateSecret(secret); err != nil {
		violations = append(violations, apierror.FieldViolation{Field: "secret", Description: reason(err, ErrInvalidSecret)})
	}
	switch len(violations) {
	case 0:
	case 1:
		return nil, "", apierror.InvalidField(violations[0].Field, violations[0].Description)
	default:
		return nil, "", apierror.InvalidFields("invalid request: "+fieldNames(violations), violations)
	}
	row, err := register(ctx, s.store, s.keyring, orgID, NewWebhook{URL: in.URL, Events: in.Events, Secret: secret, Description: in.Description})
	if err != nil {
		return nil, "", err
	}
	return toWebhook(row), generatedSecret, nil
}

// checkURL applies the endpoint policy: https to a public host, unless the
// server runs with --allow-insecure-webhooks.
func (s *Service) checkURL(ctx context.Context, raw string) error {
	if err := ValidateURL(raw, s.allowInsecure); err != nil {
		return err
	}
	if s.allowInsecure {
		return nil
	}
	return CheckResolved(ctx, raw, nil)
}

// reason turns a validation error into a field description without its
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

// List returns up to limit live webhooks of the organization after the
// id after, newest first.
func (s *Service) List(ctx context.Context, orgID, after string, limit int) ([]*Webhook, error) {
	q := s.store.Read.Webhook.Query().Where(webhook.OrganizationID(orgID), webhook.DeletedAtIsNil())
	if after != "" {
		q = q.Where(webhook.IDLT(after))
	}
	rows, err := q.Order(ent.Desc(webhook.FieldID)).Limit(limit).All(ctx)
	if err != nil {
		return nil, err
	}
	out := make([]*Webhook, len(rows))
	for i, w := range rows {
		out[i] = toWebhook(w)
	}
	return out, nil
}

// Get returns a live webhook of the organization.
func (s *Service) Get(ctx context.Context, orgID, id string) (*Webhook, error) {
	wh, err := findWebhook(ctx, s.store.Read, orgID, id)
	if err != nil {
		return nil, err
	}
	return toWebhook(wh), nil
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

// Delete removes a webhook; its queued retries fail with it, so it
// receives nothing from now on.
func (s *Service) Delete(ctx context.Context, orgID, id string) error {
	return s.store.Tx(ctx, func(ctx context.Context, tx *ent.Client, _ *sql.Tx) error {
		t := time.Now().UTC().Truncate(time.Microsecond)
		n, err := tx.Webhook.Update().
			Where(webhook.ID(id), webhook.OrganizationID(orgID), webhook.DeletedAtIsNil()).
			SetDeletedAt(t).SetUpdatedAt(t).
			Save(ctx)
		if err != nil {
			return err
		}
		if n == 0 {
			return apierror.NotFound("webhook", id)
		}
		wh, err := tx.Webhook.Get(ctx, id)
		if err != nil {
			return err
		}
		err = audit.Record(ctx, tx, audit.Entry{
			OrganizationID: orgID, Action: audit.WebhookDeleted, TargetType: audit.TargetWebhook, TargetID: id,
			Details: auditDetails(wh.URL, wh.Events),
		})
		if err != nil {
			return err
		}
		return StopDeliveries(ctx, tx, id, "webhook deleted")
	})
}

// Test sends a webhook.test event, whose data is the webhook, to this
// webhook alone, whatever event types it subscribes to. The returned
// delivery is queued, not yet made.
func (s *Service) Test(ctx context.Context, orgID, id string) (*Delivery, error) {
	var d *ent.Delivery
	err := s.store.Tx(ctx, func(ctx context.Context, tx *ent.Client, sqlTx *sql.Tx) error {
		wh, err := findWebhook(ctx, tx, orgID, id)
		if err != nil {
			return err
		}
		if err := checkActive(wh); err != nil {
			return err
		}
		ev, err := s.events.Emit(ctx, tx, sqlTx, orgID, events.WebhookTest, toWebhook(wh))
		if err != nil {
			return err
		}
		d, err = s.dispatcher.Enqueue(ctx, tx, sqlTx, ev, wh.ID)
		return err
	})
	if err != nil {
		return nil, err
	}
	return toDelivery(d, nil), nil
}

// checkActive refuses to send to a disabled webhook.
func checkActive(wh *ent.Webhook) error {
	if wh.Status == WebhookActive {
		return nil
	}
	e := apierror.New(codes.FailedPrecondition, "WEBHOOK_DISABLED",
		fmt.Sprintf("webhook %s is disabled (%s); enable it (POST /v1/webhooks/%s:enable) to receive events", wh.ID, wh.DisabledReason, wh.ID))
	e.Metadata = map[string]string{"webhook_id": wh.ID}
	return e
}

// Deliveries returns up to limit deliveries of a webhook of the
// organization after the id after, newest first, with their attempts.
func (s *Service) Deliveries(ctx context.Context, orgID, webhookID, after string, limit int) ([]*Delivery, error) {
	if _, err := findWebhook(ctx, s.store.Read, orgID, webhookID); err != nil {
		return nil, err
	}
	q := s.store.Read.Delivery.Query().Where(delivery.WebhookID(webhookID))
	if after != "" {
		q = q.Where(delivery.IDLT(after))
	}
	rows, err := q.Order(ent.Desc(delivery.FieldID)).Limit(limit).All(ctx)
	if err != nil {
		return nil, err
	}
	attempts, err := s.attemptsOf(ctx, rows)
	if err != nil {
		return nil, err
	}
	out := make([]*Delivery, len(rows))
	for i, d := range rows {
		out[i] = toDelivery(d, attempts[d.ID])
	}
	return out, nil
}

// attemptsOf reads the attempts of a page of deliveries (rows is bounded
// by its caller: a page, or a chunk of events), by delivery id, in order.
func (s *Service) attemptsOf(ctx context.Context, rows []*ent.Delivery) (map[string][]*ent.DeliveryAttempt, error) {
	attempts := map[string][]*ent.DeliveryAttempt{}
	if len(rows) == 0 {
		return attempts, nil
	}
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
	return attempts, nil
}

// DeliveriesOfEvents returns the deliveries of the organization's events
// (any of eventIDs) with their attempts, by event id, newest first.
func (s *Service) DeliveriesOfEvents(ctx context.Context, orgID string, eventIDs []string) (map[string][]*Delivery, error) {
	out := map[string][]*Delivery{}
	for part := range slices.Chunk(eventIDs, 500) {
		rows, err := s.store.Read.Delivery.Query().
			Where(delivery.OrganizationID(orgID), delivery.EventIDIn(part...)).
			Order(ent.Desc(delivery.FieldID)).All(ctx)
		if err != nil || len(rows) == 0 {
			if err != nil {
				return nil, err
			}
			continue
		}
		attempts, err := s.attemptsOf(ctx, rows)
		if err != nil {
			return nil, err
		}
		for _, d := range rows {
			out[d.EventID] = append(out[d.EventID], toDelivery(d, attempts[d.ID]))
		}
	}
	return out, nil
}

// Redeliver sends a delivery's event again as a new delivery, with the
// same event id (webhook-id), so receivers that already processed it can
// recognise it. The returned delivery is queued, not yet made.
func (s *Service) Redeliver(ctx context.Context, orgID, webhookID, deliveryID string) (*Delivery, error) {
	var d *ent.Delivery
	err := s.store.Tx(ctx, func(ctx context.Context, tx *ent.Client, sqlTx *sql.Tx) error {
		wh, err := findWebhook(ctx, tx, orgID, webhookID)
		if err != nil {
			return err
		}
		orig, err := tx.Delivery.Query().Where(delivery.ID(deliveryID), delivery.WebhookID(wh.ID)).Only(ctx)
		if ent.IsNotFound(err) {
			return apierror.NotFound("delivery", deliveryID)
		}
		if err != nil {
			return err
		}
		if err := checkActive(wh); err != nil {
			return err
		}
		ev, err := tx.Event.Get(ctx, orig.EventID)
		if ent.IsNotFound(err) {
			e := apierror.New(codes.FailedPrecondition, "EVENT_EXPIRED",
				fmt.Sprintf("event %s of delivery %s is past the event retention and can no longer be sent", orig.EventID, orig.ID))
			e.Metadata = map[string]string{"event_id": orig.EventID}
			return e
		}
		if err != nil {
			return fmt.Errorf("event %s of delivery %s: %w", orig.EventID, orig.ID, err)
		}
		d, err = s.dispatcher.Enqueue(ctx, tx, sqlTx, ev, wh.ID)
		return err
	})
	if err != nil {
		return nil, err
	}
	return toDelivery(d, nil), nil
}

func toWebhook(w *ent.Webhook) *Webhook {
	out := &Webhook{
		ID: w.ID, OrganizationID: w.OrganizationID, URL: w.URL, Events: w.Events, Description: w.Description,
		Status: w.Status, DisabledReason: w.DisabledReason, DisabledAt: w.DisabledAt,
		ConsecutiveFailures: w.ConsecutiveFailures, CreatedAt: w.CreatedAt, UpdatedAt: w.UpdatedAt,
	}
	if w.PreviousSecret != "" && w.PreviousSecretExpiresAt != nil && w.PreviousSecretExpiresAt.After(time.Now()) {
		out.PreviousSecretExpiresAt = w.PreviousSecretExpiresAt
	}
	return out
}

func toDelivery(d *ent.Delivery, attempts []*ent.DeliveryAttempt) *Delivery {
	out := &Delivery{
		ID: d.ID, WebhookID: d.WebhookID, EventID: d.EventID, EventType: d.EventType,
		Status: d.Status, Attempts: d.Attempts, ResponseStatus: d.ResponseStatus,
		LatencyMs: d.LatencyMs, LastError: d.LastError, NextRetryAt: d.NextRetryAt,
		CreatedAt: d.CreatedAt, CompletedAt: d.CompletedAt,
		AttemptLog: make([]AttemptRecord, len(attempts)),
	}
	for i, a := range attempts {
		out.AttemptLog[i] = AttemptRecord{
			Number: a.Number, At: a.At, ResponseStatus: a.ResponseStatus, LatencyMs: a.LatencyMs,
			Error: a.Error, NextRetryAt: a.NextRetryAt, ResponseBody: a.ResponseBody,
		}
	}
	return out
}

// CountDeliveriesByStatus counts the deliveries of every organization by
// status.
func CountDeliveriesByStatus(ctx context.Context, store *storage.Store) (map[string]int64, error) {
	var rows []struct {
		Status string `json:"status"`
		Count  int64  `json:"count"`
	}
	if err := store.Read.Delivery.Query().GroupBy(delivery.FieldStatus).Aggregate(ent.Count()).Scan(ctx, &rows); err != nil {
		return nil, err
	}
	out := make(map[string]int64, len(rows))
	for _, r := range rows {
		out[r.Status] = r.Count
	}
	return out, nil
}
