package webhooks

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/creativeops/creativeops/apierror"
	"github.com/creativeops/creativeops/audit"
	"github.com/creativeops/creativeops/ent"
	"github.com/creativeops/creativeops/ent/webhook"
	"github.com/creativeops/creativeops/events"
	"github.com/creativeops/creativeops/secrets"
)

// Reasons a webhook is disabled (its disabled_reason starts with one).
const (
	DisabledByAPI = "disabled through the API"
)

// Update changes a webhook's url, events or description. A new url is
// checked exactly as a new webhook's is (scheme, credentials, and the
// SSRF rules on its resolved addresses); a new events list as a new
// webhook's is. Deliveries already queued keep going to the webhook, to
// its new url.
func (s *Service) Update(ctx context.Context, orgID, id string, in WebhookUpdate) (*Webhook, error) {
	var violations []apierror.FieldViolation
	if in.URL != nil {
		if err := s.checkURL(ctx, *in.URL); err != nil {
			violations = append(violations, apierror.FieldViolation{Field: "url", Description: reason(err, ErrInvalidURL)})
		}
	}
	if in.Events != nil {
		if err := ValidateEventTypes(*in.Events); err != nil {
			field := "events"
			if item, ok := errors.AsType[*EventTypeError](err); ok {
				field = fmt.Sprintf("events[%d]", item.Index)
			}
			violations = append(violations, apierror.FieldViolation{Field: field, Description: reason(err, ErrInvalidEventTypes)})
		}
	}
	switch len(violations) {
	case 0:
	case 1:
		return nil, apierror.InvalidField(violations[0].Field, violations[0].Description)
	default:
		return nil, apierror.InvalidFields("invalid request: "+fieldNames(violations), violations)
	}
	var out *ent.Webhook
	err := s.store.Tx(ctx, func(ctx context.Context, tx *ent.Client, _ *sql.Tx) error {
		wh, err := findWebhook(ctx, tx, orgID, id)
		if err != nil {
			return err
		}
		upd := tx.Webhook.UpdateOne(wh).SetUpdatedAt(now())
		var changed []string
		if in.URL != nil {
			upd.SetURL(*in.URL)
			changed = append(changed, "url")
		}
		if in.Events != nil {
			upd.SetEvents(*in.Events)
			changed = append(changed, "events")
		}
		if in.Description != nil {
			upd.SetDescription(*in.Description)
			changed = append(changed, "description")
		}
		if out, err = upd.Save(ctx); err != nil {
			return err
		}
		details := auditDetails(out.URL, out.Events)
		details["changed"] = strings.Join(changed, ",")
		return audit.Record(ctx, tx, audit.Entry{
			OrganizationID: orgID, Action: audit.WebhookUpdated, TargetType: audit.TargetWebhook, TargetID: id, Details: details,
		})
	})
	if err != nil {
		return nil, err
	}
	return toWebhook(out), nil
}

// Disable stops deliveries to a webhook until Enable. Its pending
// deliveries fail at once (they are not sent later: a receiver that was
// paused gets the events it missed from GET /v1/events), and its delivery
// history stays. Disabling a disabled webhook changes nothing.
func (s *Service) Disable(ctx context.Context, orgID, id string) (*Webhook, error) {
	var out *ent.Webhook
	err := s.store.Tx(ctx, func(ctx context.Context, tx *ent.Client, _ *sql.Tx) error {
		wh, err := findWebhook(ctx, tx, orgID, id)
		if err != nil {
			return err
		}
		if wh.Status != WebhookActive {
			out = wh
			return nil
		}
		disabled, err := disable(ctx, tx, wh.ID, DisabledByAPI)
		if err != nil || disabled == nil {
			out = wh
			return err
		}
		out = disabled
		return audit.Record(ctx, tx, audit.Entry{
			OrganizationID: orgID, Action: audit.WebhookDisabled, TargetType: audit.TargetWebhook, TargetID: id,
			Details: map[string]string{"reason": DisabledByAPI},
		})
	})
	if err != nil {
		return nil, err
	}
	return toWebhook(out), nil
}

// Enable makes a disabled webhook active again, however it was disabled,
// with its run of failures forgotten. It receives the events that happen
// from now on.
func (s *Service) Enable(ctx context.Context, orgID, id string) (*Webhook, error) {
	var out *ent.Webhook
	err := s.store.Tx(ctx, func(ctx context.Context, tx *ent.Client, _ *sql.Tx) error {
		wh, err := findWebhook(ctx, tx, orgID, id)
		if err != nil {
			return err
		}
		if wh.Status == WebhookActive {
			out = wh
			return nil
		}
		out, err = tx.Webhook.UpdateOne(wh).
			SetStatus(WebhookActive).SetDisabledReason("").ClearDisabledAt().SetConsecutiveFailures(0).SetUpdatedAt(now()).
			Save(ctx)
		if err != nil {
			return err
		}
		return audit.Record(ctx, tx, audit.Entry{
			OrganizationID: orgID, Action: audit.WebhookEnabled, TargetType: audit.TargetWebhook, TargetID: id,
			Details: map[string]string{"was": wh.DisabledReason},
		})
	})
	if err != nil {
		return nil, err
	}
	return toWebhook(out), nil
}

// RotateSecret gives a webhook a new signing secret: secret, or a
// generated one (returned, once). The secret it replaces keeps signing
// every delivery beside the new one for the service's grace period, so a
// receiver can switch to the new secret without failing a delivery. A
// rotation during a grace period ends that period's old secret at once.
func (s *Service) RotateSecret(ctx context.Context, orgID, id, secret string) (wh *Webhook, generatedSecret string, err error) {
	if secret == "" {
		secret = GenerateSecret()
		generatedSecret = secret
	} else if err := ValidateSecret(secret); err != nil {
		return nil, "", apierror.InvalidField("secret", reason(err, ErrInvalidSecret))
	}
	var out *ent.Webhook
	err = s.store.Tx(ctx, func(ctx context.Context, tx *ent.Client, _ *sql.Tx) error {
		cur, err := findWebhook(ctx, tx, orgID, id)
		if err != nil {
			return err
		}
		old, err := OpenSecret(s.keyring, cur)
		if err != nil {
			return err
		}
		keyID, sealed := SealSecret(s.keyring, cur.ID, secret)
		t := now()
		upd := tx.Webhook.UpdateOne(cur).SetSecret(sealed).SetSecretKeyID(keyID).SetUpdatedAt(t)
		if s.secretGrace > 0 {
			prevKeyID, prevSealed := sealPrevious(s.keyring, cur.ID, old)
			upd.SetPreviousSecret(prevSealed).SetPreviousSecretKeyID(prevKeyID).SetPreviousSecretExpiresAt(t.Add(s.secretGrace))
		} else {
			upd.SetPreviousSecret("").SetPreviousSecretKeyID("").ClearPreviousSecretExpiresAt()
		}
		if out, err = upd.Save(ctx); err != nil {
			return err
		}
		return audit.Record(ctx, tx, audit.Entry{
			OrganizationID: orgID, Action: audit.WebhookSecretRotated, TargetType: audit.TargetWebhook, TargetID: id,
			Details: map[string]string{"grace_period": s.secretGrace.String()},
		})
	})
	if err != nil {
		return nil, "", err
	}
	return toWebhook(out), generatedSecret, nil
}

// previousSecretAAD binds a sealed previous secret to its webhook and its
// column: it opens neither as another webhook's nor as a current secret.
func previousSecretAAD(webhookID string) string {
	return "creativeops webhook previous secret\x00" + webhookID
}

func sealPrevious(kr *secrets.Keyring, webhookID, secret string) (keyID, sealed string) {
	return kr.SealString(secret, previousSecretAAD(webhookID))
}

// SigningSecrets returns the secrets a delivery to wh is signed with at
// t: the current one, then the one a rotation replaced while its grace
// period lasts.
func SigningSecrets(kr *secrets.Keyring, wh *ent.Webhook, t time.Time) (current string, previous []string, err error) {
	current, err = OpenSecret(kr, wh)
	if err != nil {
		return "", nil, err
	}
	if wh.PreviousSecret == "" || wh.PreviousSecretExpiresAt == nil || !t.Before(*wh.PreviousSecretExpiresAt) {
		return current, nil, nil
	}
	old := wh.PreviousSecret
	if wh.PreviousSecretKeyID != "" {
		if old, err = kr.OpenString(wh.PreviousSecretKeyID, wh.PreviousSecret, previousSecretAAD(wh.ID)); err != nil {
			return "", nil, fmt.Errorf("webhooks: previous secret of %s: %w", wh.ID, err)
		}
	}
	return current, []string{old}, nil
}

// disable disables an active webhook and fails its pending deliveries, in
// the caller's transaction; it returns the webhook, or nil when it was no
// longer active.
func disable(ctx context.Context, tx *ent.Client, id, why string, where ...func(*ent.WebhookUpdate) *ent.WebhookUpdate) (*ent.Webhook, error) {
	t := now()
	upd := tx.Webhook.Update().Where(webhook.ID(id), webhook.Status(WebhookActive), webhook.DeletedAtIsNil())
	for _, w := range where {
		upd = w(upd)
	}
	n, err := upd.SetStatus(WebhookDisabled).SetDisabledReason(why).SetDisabledAt(t).SetUpdatedAt(t).Save(ctx)
	if err != nil || n == 0 {
		return nil, err
	}
	if err := StopDeliveries(ctx, tx, id, "webhook disabled: "+why); err != nil {
		return nil, err
	}
	return tx.Webhook.Get(ctx, id)
}

// announceDisabled records the webhook.disabled event of a webhook the
// service disabled (not the API's caller, who knows): the organization's
// other endpoints receive it, and GET /v1/events lists it.
func announceDisabled(ctx context.Context, emitter *events.Emitter, tx *ent.Client, sqlTx *sql.Tx, wh *ent.Webhook) error {
	if emitter == nil {
		return nil
	}
	if _, err := emitter.Emit(ctx, tx, sqlTx, wh.OrganizationID, events.WebhookDisabled, toWebhook(wh)); err != nil {
		return fmt.Errorf("webhooks: announce disabled webhook: %w", err)
	}
	return audit.Record(ctx, tx, audit.Entry{
		OrganizationID: wh.OrganizationID, Action: audit.WebhookDisabled, TargetType: audit.TargetWebhook, TargetID: wh.ID,
		Details: map[string]string{"reason": wh.DisabledReason},
	})
}
