package webhooks

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"time"

	"github.com/riverqueue/river"

	"github.com/creativeops/creativeops/ent"
	"github.com/creativeops/creativeops/ent/delivery"
	"github.com/creativeops/creativeops/ent/webhook"
	"github.com/creativeops/creativeops/events"
	"github.com/creativeops/creativeops/secrets"
	"github.com/creativeops/creativeops/storage"
)

// errStale rolls back the recording of an attempt that another run of the
// same job recorded first.
var errStale = errors.New("webhooks: delivery changed while attempting")

// Worker makes delivery attempts on River. Each job makes one attempt and,
// in the transaction that records it, either finishes the delivery or
// enqueues the job of the next attempt at the time the Schedule (or the
// endpoint's Retry-After) says. A crash before that transaction commits
// leaves the job to be rescued and the attempt made again (deliveries are
// at least once; receivers deduplicate on webhook-id); a crash after it
// leaves a job that finds the delivery moved on and does nothing.
type Worker struct {
	river.WorkerDefaults[DeliverArgs]
	Store      *storage.Store
	Dispatcher *Dispatcher
	// Client must come from NewClient (it carries the SSRF guard).
	Client *http.Client
	// Keyring opens the webhooks' signing secrets.
	Keyring *secrets.Keyring
	Log     *slog.Logger
	// Slots, when set, bounds the attempts in flight per organization and
	// per receiver host (see Slots).
	Slots *Slots
	// Attempted, when set, is told of every recorded attempt's result:
	// "succeeded", "retrying" or "failed" (gave up, or the endpoint
	// answered 410).
	Attempted func(result string)
	// DisableAfter, when positive, disables a webhook once that many of
	// its deliveries in a row failed (each after the whole retry
	// schedule); a success starts the count again.
	DisableAfter int
	// Events records the webhook.disabled event of a webhook the worker
	// disables (nil: none is recorded).
	Events *events.Emitter
}

// DefaultDisableAfter is the run of failed deliveries after which a
// webhook is disabled unless the server is configured otherwise. Each
// failed delivery has been retried for about 28 hours (DefaultSchedule),
// so ten in a row means the endpoint failed every attempt for more than a
// day, on ten different events.
const DefaultDisableAfter = 10

// Timeout leaves the HTTP client's own timeout room to expire first, so an
// attempt that times out is recorded as such rather than killed by River.
func (w *Worker) Timeout(*river.Job[DeliverArgs]) time.Duration {
	return w.Client.Timeout + 30*time.Second
}

// Work makes the attempt the job stands for, if it is still due.
func (w *Worker) Work(ctx context.Context, job *river.Job[DeliverArgs]) error {
	args := job.Args
	// A job of an organization holding all its slots could not start;
	// looking it up first would cost reads for each of a large backlog.
	if args.OrganizationID != "" && w.Slots.organizationFull(args.OrganizationID) {
		return w.moveToBacklog(ctx, job, args.OrganizationID)
	}
	read := w.Store.Read
	d, err := read.Delivery.Get(ctx, args.DeliveryID)
	if ent.IsNotFound(err) {
		return nil
	}
	if err != nil {
		return err
	}
	if d.Status != DeliveryPending || d.Attempts != args.Attempt {
		return nil
	}
	if d.NextRetryAt != nil {
		if wait := time.Until(*d.NextRetryAt); wait > 0 {
			return river.JobSnooze(wait)
		}
	}
	wh, err := read.Webhook.Get(ctx, d.WebhookID)
	switch {
	case ent.IsNotFound(err):
		return w.abandon(ctx, d, "webhook deleted")
	case err != nil:
		return err
	case wh.DeletedAt != nil:
		return w.abandon(ctx, d, "webhook deleted")
	case wh.Status != WebhookActive:
		return w.abandon(ctx, d, "webhook disabled: "+wh.DisabledReason)
	}
	// Before anything else is read: a job that finds no slot costs little.
	release, ok := w.Slots.acquire(wh.OrganizationID, receiverHost(wh.URL))
	if !ok {
		if w.Slots.organizationFull(wh.OrganizationID) {
			return w.moveToBacklog(ctx, job, wh.OrganizationID)
		}
		return river.JobSnooze(snoozeFor(job.Metadata, snoozeHost))
	}
	defer release()
	ev, err := read.Event.Get(ctx, d.EventID)
	if ent.IsNotFound(err) {
		return w.abandon(ctx, d, "event not found")
	}
	if err != nil {
		return err
	}
	at := time.Now()
	secret, previous, err := SigningSecrets(w.Keyring, wh, at)
	if err != nil {
		return err
	}
	payload := Event{ID: ev.ID, Type: ev.Type, Timestamp: ev.CreatedAt, Data: json.RawMessage(ev.Data)}

	a := Deliver(ctx, w.Client, wh.URL, secret, payload, at, previous...)
	if a.Outcome != Succeeded && ctx.Err() != nil {
		// Shutting down mid-attempt: the attempt does not count, and the
		// next instance to start makes it again at once.
		return river.JobSnooze(0)
	}
	var result string
	err = w.Store.Tx(context.WithoutCancel(ctx), func(ctx context.Context, tx *ent.Client, sqlTx *sql.Tx) error {
		var err error
		result, err = w.record(ctx, tx, sqlTx, d, wh, a, at)
		return err
	})
	if errors.Is(err, errStale) {
		return nil
	}
	if err == nil && w.Attempted != nil {
		w.Attempted(result)
	}
	return err
}

// moveToBacklog puts off a job whose organization holds all its slots.
// A job at normal priority is moved behind every other organization's (a
// new job at backlog priority; this one is done): snoozed, it would come
// back at normal priority, and an organization whose slots stay full would
// have its whole backlog fetched again and again ahead of others'
// deliveries, using up the queue's fetches while theirs waited. A job
// already at backlog priority is snoozed. Either waits its turn among the
// organization's parked jobs (see Slots.park).
func (w *Worker) moveToBacklog(ctx context.Context, job *river.Job[DeliverArgs], org string) error {
	delay := w.Slots.park(org, time.Now())
	if job.JobRow == nil || job.Priority >= priorityBacklog || w.Dispatcher == nil || w.Dispatcher.River == nil {
		return river.JobSnooze(delay)
	}
	// Not atomic with this job's completion: after a crash in between both
	// may run, which the attempt check (and at-least-once delivery) allows.
	_, err := w.Dispatcher.River.Insert(ctx, job.Args, &river.InsertOpts{Priority: priorityBacklog, ScheduledAt: time.Now().Add(delay)})
	if err != nil {
		return river.JobSnooze(delay)
	}
	return nil
}

// record stores an attempt and what follows from it, in one transaction,
// and says what became of the delivery (see Worker.Attempted).
func (w *Worker) record(ctx context.Context, tx *ent.Client, sqlTx *sql.Tx, d *ent.Delivery, wh *ent.Webhook, a Attempt, at time.Time) (string, error) {
	ctx = context.WithoutCancel(ctx)
	t := now()
	number := d.Attempts + 1
	upd := tx.Delivery.Update().
		Where(delivery.ID(d.ID), delivery.Status(DeliveryPending), delivery.Attempts(d.Attempts)).
		SetAttempts(number).
		SetResponseStatus(a.StatusCode).
		SetLatencyMs(a.Latency.Milliseconds()).
		SetLastError(a.Err).
		SetUpdatedAt(t)
	var next *time.Time
	switch a.Outcome {
	case Succeeded:
		upd = upd.SetStatus(DeliverySucceeded).SetCompletedAt(t).ClearNextRetryAt()
	case Disable:
		upd = upd.SetStatus(DeliveryFailed).SetCompletedAt(t).ClearNextRetryAt()
	default:
		sched := w.Dispatcher.schedule()
		if delay, ok := sched.Next(number, w.Dispatcher.Jitter); ok {
			due := t.Add(max(delay, a.RetryAfter))
			next = &due
			upd = upd.SetNextRetryAt(due)
		} else {
			upd = upd.SetStatus(DeliveryFailed).SetCompletedAt(t).ClearNextRetryAt().
				SetLastError(fmt.Sprintf("%s; gave up after %d attempts", a.Err, number))
		}
	}
	n, err := upd.Save(ctx)
	if err != nil {
		return "", err
	}
	if n == 0 {
		return "", errStale
	}
	result := "failed"
	switch {
	case a.Outcome == Succeeded:
		result = "succeeded"
	case next != nil:
		result = "retrying"
	}
	err = tx.DeliveryAttempt.Create().
		SetDeliveryID(d.ID).
		SetNumber(number).
		SetAt(at.UTC().Truncate(time.Microsecond)).
		SetResponseStatus(a.StatusCode).
		SetLatencyMs(a.Latency.Milliseconds()).
		SetError(a.Err).
		SetResponseBody(a.ResponseBody).
		SetNillableNextRetryAt(next).
		Exec(ctx)
	if err != nil {
		return "", err
	}
	switch {
	case a.Outcome == Disable:
		reason := fmt.Sprintf("endpoint answered 410 Gone at %s", t.Format(time.RFC3339))
		return result, w.disable(ctx, tx, sqlTx, wh, reason)
	case next != nil:
		prio := w.Dispatcher.Budget.priorities([]string{wh.OrganizationID}, time.Now())[0]
		_, err := w.Dispatcher.River.InsertTx(ctx, sqlTx, DeliverArgs{DeliveryID: d.ID, Attempt: number, OrganizationID: wh.OrganizationID}, jobOpts(t, *next, prio))
		return result, err
	case a.Outcome == Succeeded:
		if wh.ConsecutiveFailures > 0 {
			_, err := tx.Webhook.Update().Where(webhook.ID(wh.ID), webhook.ConsecutiveFailuresGT(0)).SetConsecutiveFailures(0).Save(ctx)
			return result, err
		}
		return result, nil
	}
	w.log().Info("webhook delivery failed", "delivery_id", d.ID, "webhook_id", wh.ID, "attempts", number, "error", a.Err)
	return result, w.countFailure(ctx, tx, sqlTx, wh)
}

// countFailure adds a delivery that gave up to the webhook's run of
// failures, and disables the webhook when the run reaches DisableAfter.
// The count is added to in the database, so deliveries failing at once on
// several workers all count.
func (w *Worker) countFailure(ctx context.Context, tx *ent.Client, sqlTx *sql.Tx, wh *ent.Webhook) error {
	if _, err := tx.Webhook.Update().Where(webhook.ID(wh.ID)).AddConsecutiveFailures(1).Save(ctx); err != nil {
		return err
	}
	if w.DisableAfter <= 0 {
		return nil
	}
	reason := fmt.Sprintf("%d deliveries in a row failed", w.DisableAfter)
	return w.disable(ctx, tx, sqlTx, wh, reason, func(u *ent.WebhookUpdate) *ent.WebhookUpdate {
		return u.Where(webhook.ConsecutiveFailuresGTE(w.DisableAfter))
	})
}

// disable disables an active webhook (that matches where) and tells the
// organization's other endpoints with a webhook.disabled event.
func (w *Worker) disable(ctx context.Context, tx *ent.Client, sqlTx *sql.Tx, wh *ent.Webhook, reason string, where ...func(*ent.WebhookUpdate) *ent.WebhookUpdate) error {
	disabled, err := disable(ctx, tx, wh.ID, reason, where...)
	if err != nil || disabled == nil {
		return err
	}
	w.log().Info("webhook disabled", "webhook_id", wh.ID, "organization_id", wh.OrganizationID, "reason", reason)
	return announceDisabled(ctx, w.Events, tx, sqlTx, disabled)
}

// abandon fails a delivery that can no longer be made.
func (w *Worker) abandon(ctx context.Context, d *ent.Delivery, reason string) error {
	t := now()
	_, err := w.Store.Ent.Delivery.Update().
		Where(delivery.ID(d.ID), delivery.Status(DeliveryPending), delivery.Attempts(d.Attempts)).
		SetStatus(DeliveryFailed).SetLastError(reason).ClearNextRetryAt().SetCompletedAt(t).SetUpdatedAt(t).
		Save(context.WithoutCancel(ctx))
	return err
}

func (w *Worker) log() *slog.Logger {
	if w.Log == nil {
		return slog.Default()
	}
	return w.Log
}
