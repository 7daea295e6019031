package webhooks

import (
	"context"
	"database/sql"
	"fmt"
	"net/url"
	"strconv"
	"strings"

	"entgo.io/ent/dialect"
	"google.golang.org/grpc/codes"

	"github.com/creativeops/creativeops/apierror"
	"github.com/creativeops/creativeops/audit"
	"github.com/creativeops/creativeops/ent"
	"github.com/creativeops/creativeops/ent/organization"
	"github.com/creativeops/creativeops/ent/webhook"
	"github.com/creativeops/creativeops/ids"
	"github.com/creativeops/creativeops/secrets"
	"github.com/creativeops/creativeops/storage"
)

// MaxWebhooksPerOrganization bounds an organization's webhooks (active or
// disabled; deleted ones do not count). Every event is delivered to each
// subscribed webhook, so without a bound one organization's thousands of
// subscriptions turned each of its events into thousands of deliveries
// queued ahead of everyone else's.
const MaxWebhooksPerOrganization = 50

// register stores a webhook of the organization unless it already has
// MaxWebhooksPerOrganization. The count and the insert share a transaction
// that, on PostgreSQL, holds the organization's row, so concurrent
// registrations cannot overshoot the limit (SQLite serialises writers
// already).
func register(ctx context.Context, store *storage.Store, keyring *secrets.Keyring, orgID string, nw NewWebhook) (*ent.Webhook, error) {
	var wh *ent.Webhook
	err := store.Tx(ctx, func(ctx context.Context, tx *ent.Client, _ *sql.Tx) error {
		if store.Dialect == dialect.Postgres {
			if _, err := tx.Organization.Query().Where(organization.ID(orgID)).ForUpdate().Only(ctx); err != nil {
				return err
			}
		}
		n, err := tx.Webhook.Query().Where(webhook.OrganizationID(orgID), webhook.DeletedAtIsNil()).Count(ctx)
		if err != nil {
			return err
		}
		if n >= MaxWebhooksPerOrganization {
			e := apierror.New(codes.FailedPrecondition, "WEBHOOK_LIMIT_REACHED", fmt.Sprintf(
				"the organization has %d webhooks, the most it may have; delete one first (one webhook can subscribe to every event with \"*\")",
				n))
			e.Metadata = map[string]string{"limit": strconv.Itoa(MaxWebhooksPerOrganization)}
			return e
		}
		id := ids.New(ids.Webhook)
		keyID, sealed := SealSecret(keyring, id, nw.Secret)
		wh, err = tx.Webhook.Create().
			SetID(id).
			SetOrganizationID(orgID).
			SetURL(nw.URL).
			SetEvents(nw.Events).
			SetDescription(nw.Description).
			SetSecret(sealed).
			SetSecretKeyID(keyID).
			SetStatus(WebhookActive).
			Save(ctx)
		if err != nil {
			return err
		}
		return audit.Record(ctx, tx, audit.Entry{
			OrganizationID: orgID, Action: audit.WebhookCreated, TargetType: audit.TargetWebhook, TargetID: id,
			Details: auditDetails(nw.URL, nw.Events),
		})
	})
	if err != nil {
		return nil, err
	}
	return wh, nil
}

// auditDetails describes a webhook in its audit entries: the endpoint's
// scheme and host, and the event types. Not the whole URL: endpoints often
// carry a credential in their path or query (chat services' incoming
// webhooks do), and the audit log never holds one.
func auditDetails(rawURL string, events []string) map[string]string {
	d := map[string]string{"events": strings.Join(events, ",")}
	if u, err := url.Parse(rawURL); err == nil {
		d["endpoint"] = u.Scheme + "://" + u.Host
	}
	return d
}
